"""Reductions, array manipulation and nn kernels equal numpy."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import dtypes, errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(11)
NUMERIC = [np.float32, np.float64, np.int32, np.int64]


def values(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 9, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def run(op, inputs, attrs=None, index=0):
    return np.asarray(execute_op(op, inputs, attrs or {})[index])


REDUCTIONS = [("Sum", np.sum), ("Prod", np.prod), ("Max", np.max), ("Min", np.min), ("Mean", np.mean)]


@pytest.mark.parametrize("op, reference", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axes", [[0], [1], [-1], [0, 2], [], [0, 1, 2]])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reductions(op, reference, axes, keep_dims):
    for dtype in NUMERIC:
        for index_dtype in (np.int32, np.int64):
            x = values((3, 4, 5), dtype)
            got = run(op, [x, np.array(axes, index_dtype)], {"keep_dims": keep_dims})
            axis = tuple(axes)
            if op in ("Sum", "Prod"):  # accumulate in the input dtype, wrapping as C does
                want = reference(x, axis=axis, keepdims=keep_dims, dtype=dtype)
            elif op == "Mean" and np.issubdtype(dtype, np.integer):  # truncating division
                count = int(np.prod([x.shape[a] for a in axes]))
                total = np.sum(x, axis=axis, keepdims=keep_dims, dtype=dtype)
                want = np.trunc(total / count).astype(dtype)
            else:
                want = reference(x, axis=axis, keepdims=keep_dims)
            assert got.shape == np.shape(want) and got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_reduction_axis_out_of_range_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension"):
        execute_op("Sum", [np.ones((2, 2)), 5], {})


@pytest.mark.parametrize("op, reference", [("ArgMax", np.argmax), ("ArgMin", np.argmin)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_arg_reductions(op, reference, axis):
    for dtype in NUMERIC:
        x = values((4, 6), dtype)
        got = run(op, [x, axis])
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, reference(x, axis=axis))
        got32 = run(op, [x, axis], {"output_type": dtypes.int32})
        assert got32.dtype == np.int32


@pytest.mark.parametrize("op, log", [("Softmax", False), ("LogSoftmax", True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax(op, log, dtype):
    x = (values((3, 7), dtype) * 30).astype(dtype)  # large logits: must stay finite
    shifted = x - x.max(axis=-1, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True)) if log else \
        np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    np.testing.assert_allclose(run(op, [x]), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_bias_add(data_format):
    x = values((2, 3, 4, 5), np.float32)
    channels = x.shape[-1] if data_format == "NHWC" else x.shape[1]
    b = values((channels,), np.float32)
    want = x + (b if data_format == "NHWC" else b[:, None, None])
    np.testing.assert_allclose(run("BiasAdd", [x, b], {"data_format": data_format}), want)
    with pytest.raises(errors.InvalidArgumentError, match="data_format"):
        execute_op("BiasAdd", [x, b], {"data_format": "NCDHW"})


def test_reshape_expand_squeeze_share_data():
    x = values((2, 6), np.float32)
    for op, inputs, attrs, want in [
        ("Reshape", [x, [3, -1]], {}, x.reshape(3, -1)),
        ("Reshape", [x, np.array([12], np.int64)], {}, x.reshape(12)),
        ("ExpandDims", [x, -1], {}, x[..., None]),
        ("ExpandDims", [x, 0], {}, x[None]),
        ("Squeeze", [x.reshape(1, 2, 1, 6)], {}, x),
        ("Squeeze", [x.reshape(1, 2, 1, 6)], {"squeeze_dims": [2]}, x.reshape(1, 2, 6)),
    ]:
        x_t = execute_op("Identity", [inputs[0]], {})[0]
        out = execute_op(op, [x_t] + inputs[1:], attrs)[0]
        np.testing.assert_array_equal(np.asarray(out), want)
        assert np.asarray(out).ctypes.data == np.asarray(x_t).ctypes.data, op
    with pytest.raises(errors.InvalidArgumentError, match="12 values"):
        execute_op("Reshape", [x, [5, 5]], {})
    with pytest.raises(errors.InvalidArgumentError, match="squeeze"):
        execute_op("Squeeze", [x], {"squeeze_dims": [0]})


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 1, 0], [0, 1, 2], [1, 2, 0]])
def test_transpose(perm):
    for dtype in NUMERIC + [np.bool_]:
        x = values((2, 3, 4), dtype) if dtype is not np.bool_ else rng.integers(0, 2, (2, 3, 4)).astype(bool)
        np.testing.assert_array_equal(run("Transpose", [x, perm]), np.transpose(x, perm))
    with pytest.raises(errors.InvalidArgumentError, match="permutation"):
        execute_op("Transpose", [np.ones((2, 2)), [0, 0]], {})


def test_shape_size_rank_fill_and_likes():
    x = values((2, 0, 3), np.float64)
    np.testing.assert_array_equal(run("Shape", [x]), [2, 0, 3])
    assert run("Shape", [x], {"out_type": dtypes.int64}).dtype == np.int64
    assert run("Size", [x]) == 0 and run("Rank", [x]) == 3
    y = values((3, 2), np.int64)
    np.testing.assert_array_equal(run("ZerosLike", [y]), np.zeros_like(y))
    np.testing.assert_array_equal(run("OnesLike", [y]), np.ones_like(y))
    filled = run("Fill", [[2, 3], np.float32(1.5)])
    np.testing.assert_array_equal(filled, np.full((2, 3), 1.5, np.float32))
    assert execute_op("NoOp", [], {}) == []


@pytest.mark.parametrize("is_training", [False, True])
def test_fused_batch_norm(is_training):
    x = values((2, 3, 4, 5), np.float32)
    scale, offset = values((5,), np.float32), values((5,), np.float32)
    mean, var = values((5,), np.float32), np.abs(values((5,), np.float32)) + 0.5
    outs = execute_op("FusedBatchNormV3", [x, scale, offset, mean, var],
                      {"is_training": is_training, "epsilon": 0.001})
    assert len(outs) == 6
    use_mean = x.mean(axis=(0, 1, 2)) if is_training else mean
    use_var = x.var(axis=(0, 1, 2)) if is_training else var
    want = (x - use_mean) / np.sqrt(use_var + 0.001) * scale + offset
    np.testing.assert_allclose(np.asarray(outs[0]), want, rtol=1e-4, atol=1e-4)
    n = x.size // 5
    want_var = use_var * n / (n - 1) if is_training else var
    np.testing.assert_allclose(np.asarray(outs[1]), use_mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(outs[2]), want_var, rtol=1e-4)
    assert np.asarray(outs[5]).shape == (0,)
    # NCHW, as TensorFlow's CPU kernel takes it: the same values, channels second
    nchw = execute_op("FusedBatchNormV3", [np.ascontiguousarray(x.transpose(0, 3, 1, 2)), scale, offset,
                                           mean, var],
                      {"is_training": is_training, "epsilon": 0.001, "data_format": "NCHW"})
    np.testing.assert_allclose(np.asarray(nchw[0]).transpose(0, 2, 3, 1), want, rtol=1e-4, atol=1e-4)
