"""MatMul and BatchMatMulV2 on the GPU equal the CPU kernels: every registered dtype,
transposes, batch broadcasting, empty and degenerate shapes, integer wrap-around and the
errors for shapes that do not fit."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import gemm_tolerance

try:
    from ml_dtypes import bfloat16
except ImportError:  # a dependency of opgen; without it the bfloat16 cases are left out
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
MATMUL_TYPES = FLOATS + [np.int32, np.int64]
BATCH_MATMUL_TYPES = MATMUL_TYPES + [np.int16]


def name(dtype) -> str:
    return np.dtype(dtype).name


def random(rng, shape, dtype):
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(-20, 21, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", MATMUL_TYPES, ids=name)
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (3, 5, 4), (17, 33, 9), (64, 300, 48), (128, 64, 1)])
def test_mat_mul(gpu_matches_cpu, rng, dtype, transpose_a, transpose_b, m, k, n):
    a = random(rng, (k, m) if transpose_a else (m, k), dtype)
    b = random(rng, (n, k) if transpose_b else (k, n), dtype)
    gpu_matches_cpu(ops.mat_mul, a, b, transpose_a=transpose_a, transpose_b=transpose_b,
                    **gemm_tolerance(dtype, k))


@pytest.mark.parametrize("dtype", MATMUL_TYPES, ids=name)
@pytest.mark.parametrize("shapes", [((0, 4), (4, 3)), ((3, 4), (4, 0)), ((3, 0), (0, 5)),
                                    ((0, 0), (0, 0))])
def test_mat_mul_empty(gpu_matches_cpu, rng, dtype, shapes):
    # An empty inner dimension gives zeros; an empty outer one an empty result.
    a = random(rng, shapes[0], dtype)
    b = random(rng, shapes[1], dtype)
    (out,) = gpu_matches_cpu(ops.mat_mul, a, b)
    assert not np.ascontiguousarray(out).view(np.uint8).any()  # +0 of every type


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=name)
def test_mat_mul_integers_wrap_around(gpu_matches_cpu, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min // 2, info.max // 2, (7, 19), dtype=dtype)
    b = rng.integers(info.min // 2, info.max // 2, (19, 5), dtype=dtype)
    gpu_matches_cpu(ops.mat_mul, a, b)


def test_mat_mul_float32_is_not_tf32(rng):
    # TF32 keeps 10 mantissa bits: products of values with more bits would lose them.
    a = (1 + rng.integers(0, 2**20, (64, 256)) * 2.0**-21).astype(np.float32)
    b = (1 + rng.integers(0, 2**20, (256, 32)) * 2.0**-21).astype(np.float32)
    with opgen.device("/GPU:0"):
        got = ops.mat_mul(a, b).numpy()
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=5e-5)  # TF32: about 5e-4


@pytest.mark.parametrize("dtype", BATCH_MATMUL_TYPES, ids=name)
@pytest.mark.parametrize("adj_x", [False, True])
@pytest.mark.parametrize("adj_y", [False, True])
@pytest.mark.parametrize("batch_x, batch_y", [
    ((), ()),                # plain matrices
    ((5,), (5,)),            # one strided batch
    ((2, 3), (2, 3)),        # several dims that merge into one
    ((4,), ()),              # y broadcast: one taller GEMM when x is not transposed
    ((), (4,)),              # x broadcast (stride 0)
    ((2, 1), (1, 3)),        # broadcast both ways: pointer arrays
    ((3, 1, 2), (1, 4, 2)),  # mixed
    ((1,), (6,)),
])
def test_batch_mat_mul(gpu_matches_cpu, rng, dtype, adj_x, adj_y, batch_x, batch_y):
    m, k, n = 5, 7, 3
    x = random(rng, batch_x + ((k, m) if adj_x else (m, k)), dtype)
    y = random(rng, batch_y + ((n, k) if adj_y else (k, n)), dtype)
    gpu_matches_cpu(ops.batch_mat_mul_v2, x, y, adj_x=adj_x, adj_y=adj_y, **gemm_tolerance(dtype, k))


@pytest.mark.parametrize("dtype", [np.float32, np.float16] + ([bfloat16] if bfloat16 else []),
                         ids=name)
def test_batch_mat_mul_larger(gpu_matches_cpu, rng, dtype):
    x = random(rng, (3, 4, 96, 200), dtype)
    y = random(rng, (4, 200, 80), dtype)
    gpu_matches_cpu(ops.batch_mat_mul_v2, x, y, **gemm_tolerance(dtype, 200))


@pytest.mark.parametrize("dtype", BATCH_MATMUL_TYPES, ids=name)
@pytest.mark.parametrize("shapes", [((0, 3, 4), (4, 2)), ((2, 3, 0), (2, 0, 5)),
                                    ((2, 0, 4), (1, 4, 3)), ((3, 1, 2, 4), (0, 4, 2))])
def test_batch_mat_mul_empty(gpu_matches_cpu, rng, dtype, shapes):
    gpu_matches_cpu(ops.batch_mat_mul_v2, random(rng, shapes[0], dtype),
                    random(rng, shapes[1], dtype))


def _raises_on_both(exception, fn, *args, **kwargs):
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(exception):
            fn(*args, **kwargs).numpy()


def test_shape_errors(rng):
    a = random(rng, (3, 4), np.float32)
    _raises_on_both(errors.InvalidArgumentError, ops.mat_mul, a, a)
    _raises_on_both(errors.InvalidArgumentError, ops.mat_mul, random(rng, (2, 3, 4), np.float32), a)
    _raises_on_both(errors.InvalidArgumentError, ops.batch_mat_mul_v2,
                    random(rng, (2, 3, 4), np.float32), random(rng, (3, 4, 5), np.float32))
    _raises_on_both(errors.InvalidArgumentError, ops.batch_mat_mul_v2,
                    random(rng, (4,), np.float32), random(rng, (4, 5), np.float32))
