"""Issue 22's backprop ops on the CPU without TensorFlow: each is the derivative of
opgen's own forward op. Conv2D, DepthwiseConv2dNative, AvgPool and the resizes are linear
in the argument differentiated, so the derivative of sum(forward * dy) with respect to
one element is exact: forward on a one-hot input, times dy. MaxPoolGrad is checked
against a numpy reference of TensorFlow's tie rule, the batch-norm gradients against
numpy formulas and a finite difference of FusedBatchNormV3. The comparison with
TensorFlow's kernels is tests/conformance (cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10, np.dtype(np.float16): 2e-2}


def close(got, want, dtype=np.float64, scale=1.0):
    tol = TOL.get(np.dtype(dtype), 6e-2) * scale
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(want)))))


def linear_grad(forward, arg, dy):
    """d sum(forward(arg) * dy) / d arg, element by element (forward is linear in arg)."""
    grad = np.zeros(arg.shape)
    for k in range(arg.size):
        basis = np.zeros(arg.size, arg.dtype)
        basis[k] = 1
        grad.reshape(-1)[k] = np.sum(np.asarray(forward(basis.reshape(arg.shape)).numpy(), np.float64) * dy)
    return grad


rng = np.random.default_rng(2218)

CONV_WINDOWS = [  # strides, padding, explicit_paddings, dilations
    ((1, 1), "SAME", None, (1, 1)),
    ((2, 2), "SAME", None, (1, 1)),
    ((2, 1), "VALID", None, (1, 1)),
    ((1, 2), "EXPLICIT", [0, 0, 1, 2, 0, 1, 0, 0], (1, 1)),
    ((1, 1), "SAME", None, (2, 2)),
    ((1, 1), "VALID", None, (2, 1)),
]


def window_attrs(strides, padding, explicit, dilations=None):
    attrs = {"strides": [1, *strides, 1], "padding": padding}
    if explicit:
        attrs["explicit_paddings"] = explicit
    if dilations is not None:
        attrs["dilations"] = [1, *dilations, 1]
    return attrs


@pytest.mark.parametrize("channels", [3, 1], ids=["3-channels", "1-channel"])
@pytest.mark.parametrize("strides, padding, explicit, dilations", CONV_WINDOWS)
def test_conv2d_backprop_filter_is_conv2d_derivative(strides, padding, explicit, dilations,
                                                     channels):
    x = rng.standard_normal((2, 6, 5, channels))
    f = rng.standard_normal((3, 2, channels, 4))
    attrs = window_attrs(strides, padding, explicit, dilations)
    y = ops.conv2d(x, f, **attrs).numpy()
    dy = rng.standard_normal(y.shape)
    got = ops.conv2d_backprop_filter(x, np.array(f.shape, np.int32), dy, **attrs).numpy()
    want = linear_grad(lambda ff: ops.conv2d(x, ff, **attrs), f, dy)
    close(got, want)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_conv2d_backprop_filter_dtypes(dtype):
    """The 16-bit types computed in float: against the float64 result of the same values."""
    x = rng.integers(-3, 4, (3, 7, 6, 5)).astype(dtype)
    dy = rng.integers(-3, 4, (3, 4, 3, 8)).astype(dtype)
    attrs = window_attrs((2, 2), "SAME", None)
    got = ops.conv2d_backprop_filter(x, np.array([3, 3, 5, 8], np.int32), dy, **attrs).numpy()
    want = ops.conv2d_backprop_filter(x.astype(np.float64), np.array([3, 3, 5, 8], np.int32),
                                      dy.astype(np.float64), **attrs).numpy()
    assert got.dtype == np.dtype(dtype)
    close(got, want, dtype)


def test_conv2d_backprop_filter_many_images_in_groups():
    """More images than one GEMM group takes still sum over every image."""
    x = rng.standard_normal((40, 30, 30, 16)).astype(np.float32)
    dy = rng.standard_normal((40, 30, 30, 8)).astype(np.float32)
    attrs = window_attrs((1, 1), "SAME", None)
    got = ops.conv2d_backprop_filter(x, np.array([5, 5, 16, 8], np.int32), dy, **attrs).numpy()
    halves = [ops.conv2d_backprop_filter(x[k:k + 20].astype(np.float64), np.array([5, 5, 16, 8], np.int32),
                                         dy[k:k + 20].astype(np.float64), **attrs).numpy() for k in (0, 20)]
    close(got, halves[0] + halves[1], np.float32, scale=10)


@pytest.mark.parametrize("strides, padding, explicit, dilations",
                         [w for w in CONV_WINDOWS if w[0][0] == w[0][1]])
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_backprops_are_depthwise_derivatives(strides, padding, explicit, dilations, multiplier):
    x = rng.standard_normal((2, 5, 6, 2))
    f = rng.standard_normal((3, 2, 2, multiplier))
    attrs = window_attrs(strides, padding, explicit, dilations)
    y = ops.depthwise_conv2d_native(x, f, **attrs).numpy()
    dy = rng.standard_normal(y.shape)
    got_f = ops.depthwise_conv2d_native_backprop_filter(x, np.array(f.shape, np.int32), dy, **attrs).numpy()
    close(got_f, linear_grad(lambda ff: ops.depthwise_conv2d_native(x, ff, **attrs), f, dy))
    got_x = ops.depthwise_conv2d_native_backprop_input(np.array(x.shape, np.int32), f, dy, **attrs).numpy()
    close(got_x, linear_grad(lambda xx: ops.depthwise_conv2d_native(xx, f, **attrs), x, dy))


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=lambda d: np.dtype(d).name)
def test_depthwise_backprops_dtypes(dtype):
    x = rng.integers(-3, 4, (2, 5, 5, 3)).astype(dtype)
    f = rng.integers(-3, 4, (3, 3, 3, 2)).astype(dtype)
    dy = rng.integers(-3, 4, (2, 5, 5, 6)).astype(dtype)
    attrs = window_attrs((1, 1), "SAME", None)
    wide = [a.astype(np.float64) for a in (x, f, dy)]
    got = ops.depthwise_conv2d_native_backprop_filter(x, np.array(f.shape, np.int32), dy, **attrs).numpy()
    close(got, ops.depthwise_conv2d_native_backprop_filter(wide[0], np.array(f.shape, np.int32), wide[2],
                                                           **attrs).numpy(), dtype)
    got = ops.depthwise_conv2d_native_backprop_input(np.array(x.shape, np.int32), f, dy, **attrs).numpy()
    close(got, ops.depthwise_conv2d_native_backprop_input(np.array(x.shape, np.int32), wide[1], wide[2],
                                                          **attrs).numpy(), dtype)


POOL_WINDOWS = [  # ksize, strides, padding
    ((2, 2), (2, 2), "VALID"),
    ((3, 3), (1, 1), "SAME"),
    ((3, 2), (2, 1), "SAME"),
    ((2, 3), (1, 2), "VALID"),
    ((2, 2), (2, 2), "SAME"),    # tiling windows, the last row and column clipped
]


def pool_attrs(ksize, strides, padding):
    return {"ksize": [1, *ksize, 1], "strides": [1, *strides, 1], "padding": padding}


@pytest.mark.parametrize("ksize, strides, padding", POOL_WINDOWS)
def test_avg_pool_grad_is_avg_pool_derivative(ksize, strides, padding):
    x = rng.standard_normal((2, 5, 6, 2))
    attrs = pool_attrs(ksize, strides, padding)
    dy = rng.standard_normal(ops.avg_pool(x, **attrs).numpy().shape)
    got = ops.avg_pool_grad(np.array(x.shape, np.int32), dy, **attrs).numpy()
    close(got, linear_grad(lambda xx: ops.avg_pool(xx, **attrs), x, dy))


@pytest.mark.parametrize("shape, window, padding", [
    ((3, 8, 8, 5), (2, 2), "VALID"), ((2, 5, 7, 3), (2, 2), "VALID"),
    ((2, 5, 7, 3), (2, 2), "SAME"), ((1, 9, 4, 2), (3, 1), "SAME")])
def test_tiling_avg_pool_grad_is_each_windows_grad_over_its_size(shape, window, padding):
    # Windows that tile the input (stride = window, SAME padding only after) take their own path: each element gets
    # its one window's grad / the window's clipped size, exactly (float32), or 0 outside.
    attrs = pool_attrs(window, window, padding)
    dy = rng.standard_normal(ops.avg_pool(np.zeros(shape, np.float32), **attrs).numpy().shape)
    dy = dy.astype(np.float32)
    got = ops.avg_pool_grad(np.array(shape, np.int32), dy, **attrs).numpy()
    want = np.zeros(shape, np.float32)
    kh, kw = window
    for y in range(dy.shape[1]):
        for x in range(dy.shape[2]):
            rows, cols = slice(y * kh, min((y + 1) * kh, shape[1])), slice(x * kw, min((x + 1) * kw, shape[2]))
            count = np.float32((rows.stop - rows.start) * (cols.stop - cols.start))
            want[:, rows, cols, :] = (dy[:, y, x, :] / count)[:, None, None, :]
    np.testing.assert_array_equal(got, want)


def max_pool_grad_ref(x, dy, ksize, strides, padding):
    """TensorFlow's rule: each window's gradient to its first maximum in row-major order
    (a later value wins only when strictly larger: NaN never does unless first)."""
    n, h, w, c = x.shape
    oh, ow = dy.shape[1:3]
    pt = max((oh - 1) * strides[0] + ksize[0] - h, 0) // 2 if padding == "SAME" else 0
    pl = max((ow - 1) * strides[1] + ksize[1] - w, 0) // 2 if padding == "SAME" else 0
    out = np.zeros(x.shape)
    for b in range(n):
        for y in range(oh):
            for xx in range(ow):
                for ch in range(c):
                    best = None
                    for r in range(max(y * strides[0] - pt, 0), min(y * strides[0] - pt + ksize[0], h)):
                        for q in range(max(xx * strides[1] - pl, 0), min(xx * strides[1] - pl + ksize[1], w)):
                            if best is None or x[b, best[0], best[1], ch] < x[b, r, q, ch]:
                                best = (r, q)
                    out[b, best[0], best[1], ch] += dy[b, y, xx, ch]
    return out


@pytest.mark.parametrize("ksize, strides, padding", POOL_WINDOWS)
@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.uint8, np.int64], ids=lambda d: np.dtype(d).name)
def test_max_pool_grad_first_maximum(ksize, strides, padding, dtype):
    x = rng.integers(0, 3, (2, 5, 6, 2)).astype(dtype)  # many ties
    attrs = pool_attrs(ksize, strides, padding)
    y = ops.max_pool(x, **attrs).numpy()
    dy = rng.integers(1, 5, y.shape).astype(dtype)
    got = ops.max_pool_grad(x, y, dy, **attrs).numpy()
    assert got.dtype == np.dtype(dtype)
    want = max_pool_grad_ref(x.astype(np.float64), dy.astype(np.float64), ksize, strides, padding)
    close(got, want, dtype)


def test_max_pool_grad_many_channels_and_overlapping_windows():
    # more channels than the CPU kernel's block of 16, the last block partial
    x = rng.integers(0, 4, (3, 5, 4, 37)).astype(np.float32)
    attrs = pool_attrs((3, 3), (1, 2), "SAME")
    y = ops.max_pool(x, **attrs).numpy()
    dy = rng.standard_normal(y.shape).astype(np.float32)
    got = ops.max_pool_grad(x, y, dy, **attrs).numpy()
    want = max_pool_grad_ref(x.astype(np.float64), dy.astype(np.float64), (3, 3), (1, 2), "SAME")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_max_pool_grad_nan_and_orig_output_ignored():
    x = np.array([1, np.nan, 2, 0, np.nan, 5, 3, 3, 4], np.float32).reshape(1, 3, 3, 1)
    attrs = pool_attrs((2, 2), (1, 1), "VALID")
    dy = np.array([1, 10, 100, 1000], np.float32).reshape(1, 2, 2, 1)
    got = ops.max_pool_grad(x, np.full((1, 2, 2, 1), 7, np.float32), dy, **attrs).numpy().ravel()
    # Windows: [1, nan, 0, nan] -> 1 (index 0); [nan, 2, nan, 5] -> NaN first (index 1);
    # [0, nan, 3, 3] -> 3 (index 6); [nan, 5, 3, 4] -> NaN first (index 4).
    np.testing.assert_array_equal(got, [1, 10, 0, 0, 1000, 0, 100, 0, 0])


def test_tiling_max_pool_grad_nan_first_maximum_and_uncovered_rows():
    # 2x2/2 windows tile a 3x4 image (the last row in no window): the path for tiling
    # windows keeps the rule, a NaN wins only when first, and leaves the last row 0.
    x = np.array([1, np.nan, np.nan, 2, 3, 3, 5, np.nan, 9, 9, 9, 9], np.float32).reshape(1, 3, 4, 1)
    attrs = pool_attrs((2, 2), (2, 2), "VALID")
    dy = np.array([10, 100], np.float32).reshape(1, 1, 2, 1)
    got = ops.max_pool_grad(x, np.zeros((1, 1, 2, 1), np.float32), dy, **attrs).numpy().ravel()
    # Windows: [1, nan, 3, 3] -> 3 (index 4, the first 3); [nan, 2, 5, nan] -> NaN (index 2).
    np.testing.assert_array_equal(got, [0, 0, 100, 0, 10, 0, 0, 0, 0, 0, 0, 0])


def test_max_pool_grad_is_max_pool_derivative_without_ties():
    x = rng.permutation(2 * 6 * 7 * 3).astype(np.float64).reshape(2, 6, 7, 3)
    attrs = pool_attrs((3, 3), (2, 2), "SAME")
    y = ops.max_pool(x, **attrs).numpy()
    dy = rng.standard_normal(y.shape)
    got = ops.max_pool_grad(x, y, dy, **attrs).numpy()
    want = np.zeros(x.shape)
    for k in range(x.size):  # the max moves by exactly the step where it is the max
        bumped = x.copy()
        bumped.reshape(-1)[k] += 0.25
        want.reshape(-1)[k] = np.sum((ops.max_pool(bumped, **attrs).numpy() - y) * dy) / 0.25
    close(got, want)


def batch_norm_grad_ref(dy, x, scale, mean, var, eps, training, axis):
    axes = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    dy, x = dy.astype(np.float64), x.astype(np.float64)
    m, v, s = (np.asarray(a, np.float64).reshape(shape) for a in (mean, var, scale))
    inv = 1 / np.sqrt(v + eps)
    xc = x - m
    d_offset = dy.sum(axes)
    d_scale = (dy * xc * inv).sum(axes)
    if training:
        dx = s * inv * (dy - dy.mean(axes, keepdims=True)
                        - xc * inv ** 2 * (dy * xc).mean(axes, keepdims=True))
    else:
        dx = dy * s * inv
    return dx, d_scale, d_offset


@pytest.mark.parametrize("op", ["fused_batch_norm_grad", "fused_batch_norm_grad_v2", "fused_batch_norm_grad_v3"])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad_formula(op, fmt, training):
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    axis = 1 if fmt == "NCHW" else 3
    c = x.shape[axis]
    scale = rng.uniform(0.5, 2, c).astype(np.float32)
    mean = rng.standard_normal(c).astype(np.float32)
    var = rng.uniform(0.5, 2, c).astype(np.float32)
    extra = [np.zeros(c, np.float32)] if op.endswith("v3") else []
    out = getattr(ops, op)(dy, x, scale, mean, var, *extra, epsilon=0.001, data_format=fmt,
                           is_training=training)
    want = batch_norm_grad_ref(dy, x, scale, mean, var, 0.001, training, axis)
    for got, w in zip(out[:3], want):
        close(got.numpy(), w, np.float32)
    assert out[3].numpy().shape == (0,) and out[4].numpy().shape == (0,)


@pytest.mark.parametrize("dtype", [np.float16] + ([bfloat16] if bfloat16 is not None else []),
                         ids=lambda d: np.dtype(d).name)
def test_fused_batch_norm_grad_16_bit(dtype):
    x = rng.standard_normal((2, 3, 3, 4)).astype(dtype)
    dy = rng.standard_normal(x.shape).astype(dtype)
    stats = [rng.uniform(0.5, 2, 4).astype(np.float32) for _ in range(3)]
    out = ops.fused_batch_norm_grad_v3(dy, x, *stats, np.zeros(4, np.float32))
    assert out[0].numpy().dtype == np.dtype(dtype) and out[1].numpy().dtype == np.float32
    want = batch_norm_grad_ref(dy, x, *stats, 1e-4, True, 3)
    for got, w in zip(out[:3], want):
        close(got.numpy(), w, dtype, scale=2)


def test_fused_batch_norm_grad_v3_matches_forward_finite_difference():
    """Training: the gradient of sum(FusedBatchNormV3(x).y * dy) through the batch
    statistics, with the reserve spaces the forward op emits."""
    x = rng.standard_normal((2, 3, 3, 2)).astype(np.float32) * 2
    scale = np.array([1.5, 0.7], np.float32)
    offset = np.array([0.1, -0.2], np.float32)
    empty = np.zeros(0, np.float32)
    fwd = ops.fused_batch_norm_v3(x, scale, offset, empty, empty, epsilon=0.01)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    dx, dscale, doffset = (t.numpy() for t in ops.fused_batch_norm_grad_v3(
        dy, x, scale, fwd[3].numpy(), fwd[4].numpy(), fwd[5].numpy(), epsilon=0.01)[:3])

    def loss(xx, ss):
        y = ops.fused_batch_norm_v3(xx.astype(np.float32), ss.astype(np.float32), offset, empty, empty,
                                    epsilon=0.01)[0].numpy()
        return float(np.sum(y.astype(np.float64) * dy))

    h = 1e-2
    for k in range(0, x.size, 5):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        numeric = (loss(x + e, scale) - loss(x - e, scale)) / (2 * h)
        assert abs(dx.reshape(-1)[k] - numeric) < 2e-2, k
    for k in range(2):
        e = np.zeros(2)
        e[k] = h
        numeric = (loss(x, scale + e) - loss(x, scale - e)) / (2 * h)
        assert abs(dscale[k] - numeric) < 2e-2
    np.testing.assert_allclose(doffset, dy.sum((0, 1, 2)), rtol=1e-5)


RESIZES = [((3, 4), (5, 7)), ((6, 5), (4, 2)), ((1, 3), (4, 1)), ((4, 4), (8, 8))]
SAMPLING = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize("sizes", RESIZES)
@pytest.mark.parametrize("align, half", SAMPLING)
def test_resize_bilinear_grad_is_resize_derivative(sizes, align, half):
    (ih, iw), (oh, ow) = sizes
    image = rng.standard_normal((2, ih, iw, 2))
    dy = rng.standard_normal((2, oh, ow, 2)).astype(np.float32)
    attrs = {"align_corners": align, "half_pixel_centers": half}
    got = ops.resize_bilinear_grad(dy, image, **attrs).numpy()
    assert got.dtype == np.float64
    want = linear_grad(lambda im: ops.resize_bilinear(im, np.array([oh, ow], np.int32), **attrs), image, dy)
    close(got, want, np.float32)


@pytest.mark.parametrize("sizes", RESIZES)
@pytest.mark.parametrize("align, half", SAMPLING)
def test_resize_nearest_grad_is_resize_derivative(sizes, align, half):
    (ih, iw), (oh, ow) = sizes
    image = rng.standard_normal((2, ih, iw, 2))
    dy = rng.standard_normal((2, oh, ow, 2))
    attrs = {"align_corners": align, "half_pixel_centers": half}
    got = ops.resize_nearest_neighbor_grad(dy, np.array([ih, iw], np.int32), **attrs).numpy()
    want = linear_grad(lambda im: ops.resize_nearest_neighbor(im, np.array([oh, ow], np.int32), **attrs),
                       image, dy)
    close(got, want)


@pytest.mark.parametrize("call, message", [
    (lambda: ops.conv2d_backprop_filter(np.zeros((1, 4, 4, 2), np.float32), np.array([2, 2, 3, 3], np.int32),
                                        np.zeros((1, 4, 4, 3), np.float32), strides=[1, 1, 1, 1],
                                        padding="SAME"), "Conv2DBackpropFilter.*filter_sizes"),
    (lambda: ops.conv2d_backprop_filter(np.zeros((1, 4, 4, 2), np.float32), np.array([2, 2, 2, 3], np.int32),
                                        np.zeros((1, 4, 4, 3), np.float32), strides=[1, 1, 1, 1],
                                        padding="VALID"), "Conv2DBackpropFilter.*out_backprop"),
    (lambda: ops.depthwise_conv2d_native_backprop_input(
        np.array([1, 4, 4, 3], np.int32), np.zeros((2, 2, 2, 2), np.float32),
        np.zeros((1, 4, 4, 4), np.float32), strides=[1, 1, 1, 1], padding="SAME"),
     "DepthwiseConv2dNativeBackpropInput.*filter"),
    (lambda: ops.depthwise_conv2d_native_backprop_filter(
        np.zeros((1, 4, 4, 2), np.float32), np.array([2, 2, 2, 1], np.int32),
        np.zeros((1, 2, 4, 2), np.float32), strides=[1, 2, 1, 1], padding="SAME"),
     "DepthwiseConv2dNativeBackpropFilter.*strides"),
    (lambda: ops.max_pool_grad(np.zeros((1, 4, 4, 2), np.float32), np.zeros((1, 2, 2, 2), np.float32),
                               np.zeros((1, 3, 3, 2), np.float32), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                               padding="VALID"), "MaxPoolGrad.*orig_output"),
    (lambda: ops.avg_pool_grad(np.array([1, 5, 5, 2], np.int32), np.zeros((1, 3, 3, 2), np.float32),
                               ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"),
     "AvgPoolGrad.*grad"),
    (lambda: ops.fused_batch_norm_grad_v3(*[np.zeros((1, 2, 2, 3), np.float32)] * 2,
                                          *[np.zeros(2, np.float32)] * 4), "FusedBatchNormGradV3.*scale"),
    (lambda: ops.resize_bilinear_grad(np.zeros((1, 5, 2, 2), np.float32), np.zeros((2, 3, 4, 2), np.float32)),
     "ResizeBilinearGrad.*original_image"),
], ids=["filter_sizes", "out_backprop", "depthwise filter", "depthwise strides", "maxpool grad", "avgpool grad", "batchnorm scale",
        "resize batch"])
def test_bad_input_names_op_and_argument(call, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        r = call()
        for t in r if isinstance(r, (list, tuple)) else [r]:
            t.numpy()


def test_nchw_refused_on_the_cpu():
    with pytest.raises(errors.UnimplementedError, match="NHWC"):
        ops.conv2d_backprop_filter(np.zeros((1, 2, 4, 4), np.float32), np.array([2, 2, 2, 3], np.int32),
                                   np.zeros((1, 3, 4, 4), np.float32), strides=[1, 1, 1, 1], padding="SAME",
                                   data_format="NCHW").numpy()


@pytest.mark.parametrize("strides, padding, dilations", [
    ((1, 1, 1), "SAME", (1, 1, 1)), ((2, 1, 2), "SAME", (1, 1, 1)), ((1, 2, 1), "VALID", (1, 1, 1)),
    ((1, 1, 1), "VALID", (2, 1, 1)),
])
def test_conv3d_backprops_are_conv3d_derivatives(strides, padding, dilations):
    x = rng.standard_normal((2, 4, 5, 4, 2))
    f = rng.standard_normal((2, 3, 2, 2, 3))
    attrs = {"strides": [1, *strides, 1], "padding": padding, "dilations": [1, *dilations, 1]}
    dy = rng.standard_normal(ops.conv3d(x, f, **attrs).numpy().shape)
    got_f = ops.conv3d_backprop_filter_v2(x, np.array(f.shape, np.int32), dy, **attrs).numpy()
    close(got_f, linear_grad(lambda ff: ops.conv3d(x, ff, **attrs), f, dy))
    got_x = ops.conv3d_backprop_input_v2(np.array(x.shape, np.int64), f, dy, **attrs).numpy()
    close(got_x, linear_grad(lambda xx: ops.conv3d(xx, f, **attrs), x, dy))


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=lambda d: np.dtype(d).name)
def test_conv3d_backprops_dtypes(dtype):
    x = rng.integers(-3, 4, (1, 3, 4, 4, 2)).astype(dtype)
    f = rng.integers(-3, 4, (2, 2, 2, 2, 3)).astype(dtype)
    dy = rng.integers(-3, 4, (1, 3, 4, 4, 3)).astype(dtype)
    attrs = {"strides": [1] * 5, "padding": "SAME"}
    wide = [a.astype(np.float64) for a in (x, f, dy)]
    got = ops.conv3d_backprop_filter_v2(x, np.array(f.shape, np.int32), dy, **attrs).numpy()
    assert got.dtype == np.dtype(dtype)
    close(got, ops.conv3d_backprop_filter_v2(wide[0], np.array(f.shape, np.int32), wide[2], **attrs).numpy(),
          dtype)
    got = ops.conv3d_backprop_input_v2(np.array(x.shape, np.int32), f, dy, **attrs).numpy()
    close(got, ops.conv3d_backprop_input_v2(np.array(x.shape, np.int32), wide[1], wide[2], **attrs).numpy(),
          dtype)


def test_conv3d_backprop_bad_sizes():
    with pytest.raises(errors.InvalidArgumentError, match=r"Conv3DBackpropFilterV2.*out_backprop"):
        ops.conv3d_backprop_filter_v2(np.zeros((1, 3, 4, 4, 2)), np.array([2, 2, 2, 2, 3], np.int32),
                                      np.zeros((1, 2, 4, 4, 3)), strides=[1] * 5, padding="SAME").numpy()
    with pytest.raises(errors.InvalidArgumentError, match=r"Conv3DBackpropInputV2.*input_sizes"):
        ops.conv3d_backprop_input_v2(np.array([1, 3, 4, 4], np.int32), np.zeros((2, 2, 2, 2, 3)),
                                     np.zeros((1, 3, 4, 4, 3)), strides=[1] * 5, padding="SAME").numpy()
