"""Softmax, LogSoftmax, BiasAdd, MatMul and BatchMatMulV2 on every dtype TensorFlow
registers them for (half and bfloat16 computed in float32 and rounded once)."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_dtypes import FLOATS, REALS, assert_close, in_float, name, run, values

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(17)

MATMUL_TYPES = FLOATS + [np.int32, np.int64]
BATCH_MATMUL_TYPES = MATMUL_TYPES + [np.int16]  # MatMul's OpDef has no int16


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (0, 4), (1, 1)])
@pytest.mark.parametrize("op, reference", [("Softmax", softmax), ("LogSoftmax", log_softmax)])
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_softmax_family(dtype, op, reference, shape):
    x = values(rng, shape, dtype, low=-5, high=5)
    assert_close(run(op, [x]), in_float(reference, x))


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_bias_add(dtype, data_format):
    x = values(rng, (2, 3, 4, 5), dtype)
    channels = 5 if data_format == "NHWC" else 3
    bias = values(rng, (channels,), dtype)
    shaped = bias if data_format == "NHWC" else bias.reshape(3, 1, 1)
    with np.errstate(over="ignore"):
        want = in_float(np.add, x, np.broadcast_to(shaped, x.shape).astype(x.dtype))
    assert_close(run("BiasAdd", [x, bias], {"data_format": data_format}), want)


def matmul_reference(a, b):
    if np.issubdtype(a.dtype, np.integer):  # wraps in the type, as the kernel does
        return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)
    return in_float(np.matmul, a, b)


@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("m, k, n", [(3, 4, 5), (1, 7, 1), (4, 0, 3), (0, 2, 3)])
@pytest.mark.parametrize("dtype", MATMUL_TYPES, ids=name)
def test_matmul(dtype, m, k, n, transpose_a, transpose_b):
    a, b = values(rng, (m, k), dtype, low=-2, high=2), values(rng, (k, n), dtype, low=-2, high=2)
    a_in = a.T.copy() if transpose_a else a
    b_in = b.T.copy() if transpose_b else b
    got = run("MatMul", [a_in, b_in], {"transpose_a": transpose_a, "transpose_b": transpose_b})
    assert_close(got, matmul_reference(a, b))


@pytest.mark.parametrize("xs, ys", [((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 1, 4, 2)), ((2, 1, 2, 3), (4, 3, 1))])
@pytest.mark.parametrize("dtype", BATCH_MATMUL_TYPES, ids=name)
def test_batch_matmul_broadcasts_batches(dtype, xs, ys):
    x, y = values(rng, xs, dtype, low=-2, high=2), values(rng, ys, dtype, low=-2, high=2)
    assert_close(run("BatchMatMulV2", [x, y]), matmul_reference(x, y))


def test_int16_matmul_wraps():
    a = np.full((1, 1, 4), 200, np.int16)
    b = np.full((1, 4, 1), 200, np.int16)  # 4 * 40000 = 160000, wraps in 16 bits
    assert_close(run("BatchMatMulV2", [a, b]), np.full((1, 1, 1), 160000 - 2 * 65536, np.int16))
