"""Conv2D, MaxPool and AvgPool (NHWC) against direct numpy references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(21)


def padding_amounts(size, k, stride, dilation, padding):
    effective = (k - 1) * dilation + 1
    if padding == "VALID":
        return (size - effective) // stride + 1 if size >= effective else 0, 0, 0
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2, total - total // 2


def conv_reference(x, f, strides, padding, dilations=(1, 1)):
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, pt, pb = padding_amounts(h, kh, strides[0], dilations[0], padding)
    ow, pl, pr = padding_amounts(w, kw, strides[1], dilations[1], padding)
    xp = np.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    out = np.zeros((n, oh, ow, o), x.dtype)
    for i in range(oh):
        for j in range(ow):
            ys = i * strides[0] + np.arange(kh) * dilations[0]
            xs = j * strides[1] + np.arange(kw) * dilations[1]
            patch = xp[:, ys][:, :, xs]  # n, kh, kw, c
            out[:, i, j] = np.tensordot(patch, f, axes=([1, 2, 3], [0, 1, 2]))
    return out


def pool_reference(x, k, strides, padding, reduce):
    n, h, w, c = x.shape
    oh, pt, _ = padding_amounts(h, k[0], strides[0], 1, padding)
    ow, pl, _ = padding_amounts(w, k[1], strides[1], 1, padding)
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * strides[0] - pt, j * strides[1] - pl
            window = x[:, max(y0, 0):y0 + k[0], max(x0, 0):x0 + k[1]]
            out[:, i, j] = reduce(window, axis=(1, 2))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("strides, dilations", [((1, 1), (1, 1)), ((2, 2), (1, 1)),
                                                ((1, 2), (1, 1)), ((1, 1), (2, 2))])
def test_conv2d(dtype, padding, strides, dilations):
    x = rng.standard_normal((2, 7, 6, 3)).astype(dtype)
    f = rng.standard_normal((3, 2, 3, 4)).astype(dtype)
    got = np.asarray(execute_op("Conv2D", [x, f], {
        "strides": [1, *strides, 1], "padding": padding, "dilations": [1, *dilations, 1]})[0])
    want = conv_reference(x, f, strides, padding, dilations)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize, strides", [((2, 2), (2, 2)), ((3, 3), (1, 1)), ((3, 2), (2, 1))])
def test_pooling(padding, ksize, strides):
    x = rng.standard_normal((2, 7, 5, 3)).astype(np.float32)
    attrs = {"ksize": [1, *ksize, 1], "strides": [1, *strides, 1], "padding": padding}
    np.testing.assert_allclose(np.asarray(execute_op("MaxPool", [x], attrs)[0]),
                               pool_reference(x, ksize, strides, padding, np.max))
    np.testing.assert_allclose(np.asarray(execute_op("AvgPool", [x], attrs)[0]),
                               pool_reference(x, ksize, strides, padding, np.mean), rtol=1e-5,
                               atol=1e-6)  # window sums of O(1) values: absolute float32 error


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_pooling_large_enough_to_split_across_threads(padding):
    # ResNet's stem pool on a 57x61 map of 70 channels: output rows split over the pool's
    # threads, channels the inner loop.
    x = rng.standard_normal((2, 57, 61, 70)).astype(np.float32)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": padding}
    np.testing.assert_array_equal(np.asarray(execute_op("MaxPool", [x], attrs)[0]),
                                  pool_reference(x, (3, 3), (2, 2), padding, np.max))
    np.testing.assert_allclose(np.asarray(execute_op("AvgPool", [x], attrs)[0]),
                               pool_reference(x, (3, 3), (2, 2), padding, np.mean), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("shape, ksize, strides, padding", [
    ((1, 15, 13, 11), (3, 3), (1, 1), "SAME"),   # NASNet's cell pools, odd channel counts
    ((2, 9, 10, 44), (3, 3), (2, 2), "VALID"),   # its reduction cells
    ((1, 8, 8, 22), (1, 1), (2, 2), "VALID"),    # its strided 1x1 "pool" of the skip path
    ((1, 6, 7, 5), (5, 2), (1, 3), "SAME"),
    ((1, 4, 5, 3), (9, 9), (1, 1), "SAME"),  # windows wider than the image
])
def test_avg_pool_float32_shapes(shape, ksize, strides, padding):
    """AvgPool's float32 rows (a sum down each column, then across): averages over the
    window's part inside the image only."""
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {"ksize": [1, *ksize, 1], "strides": [1, *strides, 1], "padding": padding}
    np.testing.assert_allclose(np.asarray(execute_op("AvgPool", [x], attrs)[0]),
                               pool_reference(x.astype(np.float64), ksize, strides, padding,
                                              np.mean), rtol=1e-5, atol=1e-6)


def test_unsupported_layouts_and_bad_shapes_are_errors():
    x = np.ones((1, 4, 4, 2), np.float32)
    with pytest.raises(errors.UnimplementedError, match="NHWC"):
        execute_op("Conv2D", [x, np.ones((2, 2, 2, 1), np.float32)],
                   {"strides": [1, 1, 1, 1], "padding": "VALID", "data_format": "NCHW"})
    with pytest.raises(errors.InvalidArgumentError, match="do not fit"):
        execute_op("Conv2D", [x, np.ones((2, 2, 3, 1), np.float32)],
                   {"strides": [1, 1, 1, 1], "padding": "VALID"})
    with pytest.raises(errors.InvalidArgumentError, match="padding"):
        execute_op("MaxPool", [x], {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "FULL"})


def _narrow_dtypes():
    try:
        from ml_dtypes import bfloat16
    except ImportError:
        return [np.float16]
    return [np.float16, bfloat16]


def _as_dtype(tensor, dtype):
    array = np.asarray(tensor)
    return array.view(dtype) if array.dtype.kind == "V" else array


@pytest.mark.parametrize("dtype", _narrow_dtypes() + [np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_conv2d_narrow_and_integer_types(dtype, padding):
    # Half and bfloat16 convolve in float32 and round once; int32 exactly.
    x = rng.integers(-3, 4, (2, 5, 6, 3)).astype(dtype)
    f = rng.integers(-3, 4, (3, 2, 3, 4)).astype(dtype)
    got = _as_dtype(execute_op("Conv2D", [x, f], {"strides": [1, 1, 1, 1], "padding": padding})[0], dtype)
    want = conv_reference(x.astype(np.float64), f.astype(np.float64), (1, 1), padding)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.astype(np.float64), want)  # small integers: exact


@pytest.mark.parametrize("dtype", _narrow_dtypes() + [np.int8, np.uint8, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_max_pool_types(dtype):
    x = rng.integers(0, 100, (1, 5, 5, 2)).astype(dtype)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    got = _as_dtype(execute_op("MaxPool", [x], attrs)[0], dtype)
    want = pool_reference(x.astype(np.float64), (2, 2), (2, 2), "SAME", np.max)
    np.testing.assert_array_equal(got.astype(np.float64), want)


@pytest.mark.parametrize("dtype", _narrow_dtypes(), ids=lambda d: np.dtype(d).name)
def test_avg_pool_narrow_types(dtype):
    x = rng.standard_normal((1, 5, 5, 2)).astype(dtype)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}
    got = _as_dtype(execute_op("AvgPool", [x], attrs)[0], dtype).astype(np.float64)
    want = pool_reference(x.astype(np.float64), (3, 3), (1, 1), "SAME", np.mean)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
