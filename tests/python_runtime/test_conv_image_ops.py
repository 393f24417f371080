"""DepthwiseConv2dNative, Conv2DBackpropInput, Conv3D, SpaceToBatchND, BatchToSpaceND,
FusedBatchNorm / V2, ResizeBilinear, ResizeNearestNeighbor, DepthToSpace, SpaceToDepth and
MirrorPad on the CPU, against numpy references written here and TensorFlow's own outputs
for odd shapes (tests/fixtures/conv_image_ops.npz, from tools/make_op_fixtures_conv.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(2117)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conv_image_ops.npz"

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10, np.dtype(np.float16): 2e-2}


def tolerance(dtype):
    return TOL.get(np.dtype(dtype), 6e-2)


def close(got, want, dtype=np.float32, scale=1.0):
    tol = tolerance(dtype) * scale
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol)


def same_pads(size, k, stride, dilation, padding, explicit=(0, 0)):
    """(output size, pad before, pad after) as TensorFlow computes them."""
    effective = (k - 1) * dilation + 1
    if padding == "VALID":
        return (size - effective) // stride + 1, 0, 0
    if padding == "EXPLICIT":
        return (size + explicit[0] + explicit[1] - effective) // stride + 1, explicit[0], explicit[1]
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2, total - total // 2


# ---- numpy references ---------------------------------------------------------------------

def depthwise_ref(x, f, strides, padding, dilations=(1, 1), explicit=None):
    x, f = x.astype(np.float64), f.astype(np.float64)
    n, h, w, c = x.shape
    kh, kw, _, m = f.shape
    ep = explicit or [0] * 8
    oh, pt, pb = same_pads(h, kh, strides[0], dilations[0], padding, ep[2:4])
    ow, pl, pr = same_pads(w, kw, strides[1], dilations[1], padding, ep[4:6])
    xp = np.pad(x, [(0, 0), (pt, max(pb, 0)), (pl, max(pr, 0)), (0, 0)])
    out = np.zeros((n, oh, ow, c, m))
    for i in range(kh):
        for j in range(kw):
            ys = np.arange(oh) * strides[0] + i * dilations[0]
            xs = np.arange(ow) * strides[1] + j * dilations[1]
            out += xp[:, ys][:, :, xs][..., None] * f[i, j]
    return out.reshape(n, oh, ow, c * m)


def transposed_ref(sizes, f, dy, strides, padding):
    """Conv2DBackpropInput: each out_backprop pixel spreads over its input window."""
    n, h, w, c = sizes
    kh, kw, _, _ = f.shape
    oh, pt, _ = same_pads(h, kh, strides[0], 1, padding)
    ow, pl, _ = same_pads(w, kw, strides[1], 1, padding)
    assert dy.shape[1:3] == (oh, ow)
    out = np.zeros(sizes)
    for y in range(oh):
        for x in range(ow):
            for i in range(kh):
                for j in range(kw):
                    sy, sx = y * strides[0] - pt + i, x * strides[1] - pl + j
                    if 0 <= sy < h and 0 <= sx < w:
                        out[:, sy, sx] += dy[:, y, x].astype(np.float64) @ f[i, j].T.astype(np.float64)
    return out


def conv3d_ref(x, f, strides, padding, dilations=(1, 1, 1)):
    x, f = x.astype(np.float64), f.astype(np.float64)
    n = x.shape[0]
    k, o = f.shape[:3], f.shape[4]
    outs, pads = [], []
    for d in range(3):
        size, before, after = same_pads(x.shape[1 + d], k[d], strides[d], dilations[d], padding)
        outs.append(size)
        pads.append((before, after))
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    out = np.zeros((n, *outs, o))
    for a in range(k[0]):
        for i in range(k[1]):
            for j in range(k[2]):
                zs = np.arange(outs[0]) * strides[0] + a * dilations[0]
                ys = np.arange(outs[1]) * strides[1] + i * dilations[1]
                xs = np.arange(outs[2]) * strides[2] + j * dilations[2]
                out += xp[:, zs][:, :, ys][:, :, :, xs] @ f[a, i, j]
    return out


def space_to_batch_ref(x, block, pads):
    m = len(block)
    x = np.pad(x, [(0, 0), *[tuple(p) for p in pads]] + [(0, 0)] * (x.ndim - 1 - m))
    b, rest = x.shape[0], x.shape[1 + m:]
    shape = [b]
    for k in range(m):
        shape += [x.shape[1 + k] // block[k], block[k]]
    x = x.reshape(shape + list(rest))
    perm = [2 + 2 * k for k in range(m)] + [0] + [1 + 2 * k for k in range(m)]
    perm += list(range(1 + 2 * m, x.ndim))
    x = x.transpose(perm)
    return x.reshape([b * int(np.prod(block))] + [x.shape[1 + m + k] for k in range(m)] + list(rest))


def batch_to_space_ref(x, block, crops):
    m = len(block)
    b = x.shape[0] // int(np.prod(block))
    space, rest = list(x.shape[1:1 + m]), list(x.shape[1 + m:])
    x = x.reshape(list(block) + [b] + space + rest)
    perm = [m]
    for k in range(m):
        perm += [m + 1 + k, k]
    perm += list(range(2 * m + 1, x.ndim))
    x = x.transpose(perm).reshape([b] + [space[k] * block[k] for k in range(m)] + rest)
    index = [slice(None)] + [slice(c[0], x.shape[1 + k] - c[1]) for k, c in enumerate(crops)]
    return x[tuple(index)]


def depth_to_space_ref(x, bs):
    n, h, w, c = x.shape
    return x.reshape(n, h, w, bs, bs, c // bs ** 2).transpose(0, 1, 3, 2, 4, 5).reshape(
        n, h * bs, w * bs, c // bs ** 2)


def space_to_depth_ref(x, bs):
    n, h, w, c = x.shape
    return x.reshape(n, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5).reshape(
        n, h // bs, w // bs, c * bs * bs)


def resize_scale(in_size, out_size, align):
    if align and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def bilinear_ref(x, size, align=False, half=False):
    """TensorFlow's ResizeBilinear, in float32 step by step."""
    x = x.astype(np.float32)
    n, h, w, c = x.shape

    def taps(out_size, in_size):
        scale = resize_scale(in_size, out_size, align)
        o = np.arange(out_size, dtype=np.float32)
        src = (o + np.float32(0.5)) * scale - np.float32(0.5) if half else o * scale
        floor = np.floor(src)
        lo = np.maximum(floor, 0).astype(np.int64)
        hi = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
        return lo, hi, (src - floor).astype(np.float32)

    ylo, yhi, yl = taps(size[0], h)
    xlo, xhi, xl = taps(size[1], w)
    xl = xl[None, None, :, None]
    tl, tr = x[:, ylo][:, :, xlo], x[:, ylo][:, :, xhi]
    bl, br = x[:, yhi][:, :, xlo], x[:, yhi][:, :, xhi]
    top = tl + (tr - tl) * xl
    bottom = bl + (br - bl) * xl
    return top + (bottom - top) * yl[None, :, None, None]


def nearest_ref(x, size, align=False, half=False):
    n, h, w, c = x.shape

    def taps(out_size, in_size):
        scale = resize_scale(in_size, out_size, align)
        o = np.arange(out_size, dtype=np.float32)
        src = (o + np.float32(0.5)) * scale if half else o * scale
        # roundf rounds halves away from zero
        idx = np.floor(src + np.float32(0.5)) if align else np.floor(src)
        idx = np.minimum(idx.astype(np.int64), in_size - 1)
        return np.maximum(idx, 0) if half else idx

    return x[:, taps(size[0], h)][:, :, taps(size[1], w)]


# ---- DepthwiseConv2dNative ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides, dilations", [((1, 1), (1, 1)), ((2, 2), (1, 1)), ((1, 2), (1, 1)),
                                                ((1, 1), (2, 2)), ((2, 1), (1, 3))])
def test_depthwise(dtype, padding, strides, dilations):
    x = rng.standard_normal((2, 9, 8, 5)).astype(dtype)
    f = rng.standard_normal((3, 3, 5, 1)).astype(dtype)
    got = ops.depthwise_conv2d_native(x, f, strides=[1, *strides, 1], padding=padding,
                                      dilations=[1, *dilations, 1])
    close(got, depthwise_ref(x, f, strides, padding, dilations), dtype, scale=3)


@pytest.mark.parametrize("channels", [1, 16, 19, 32, 48, 144])
@pytest.mark.parametrize("kernel, stride", [(3, 1), (3, 2), (5, 1), (5, 2), (1, 1)])
def test_depthwise_float32_fast_path(channels, kernel, stride):
    """The vectorised float32 kernel: whole and partial channel vectors, border and interior
    columns, rows split over threads."""
    x = rng.standard_normal((2, 13, 23, channels)).astype(np.float32)
    f = rng.standard_normal((kernel, kernel, channels, 1)).astype(np.float32)
    for padding in ("SAME", "VALID"):
        got = ops.depthwise_conv2d_native(x, f, strides=[1, stride, stride, 1], padding=padding)
        close(got, depthwise_ref(x, f, (stride, stride), padding))


# Each case: (input NHWC, kernel (kh, kw), strides, dilations, padding, explicit pads,
# activation or None for the plain op). Channel counts below, at and above each ISA's
# vector (4, 8, 16 lanes; 11, 22, 44 as NASNet's; fewer than a vector takes half ones)
# and widths that leave 8-, 4-, 2- and 1-pixel interior blocks.
ISA_CASES = [
    ((1, 9, 30, 11), (5, 5), (1, 1), (1, 1), "SAME", None, None),
    ((2, 8, 21, 22), (7, 7), (2, 2), (1, 1), "SAME", None, "Relu6"),
    ((1, 7, 7, 44), (3, 3), (1, 1), (1, 1), "VALID", None, "Relu"),
    ((1, 6, 17, 3), (3, 3), (1, 2), (2, 1), "SAME", None, None),
    ((1, 10, 15, 16), (5, 3), (2, 1), (1, 1), "EXPLICIT", [0, 0, 1, 2, 3, 0, 0, 0], None),
    ((1, 5, 19, 9), (7, 7), (1, 1), (1, 2), "SAME", None, "Relu6"),
    ((1, 14, 14, 35), (3, 3), (2, 2), (1, 1), "VALID", None, "Elu"),
    ((1, 7, 12, 6), (3, 3), (1, 1), (1, 1), "SAME", None, "Relu6"),  # half vectors
    # Sigmoid and Swish in the registers: whole, overlapping, half vectors and one
    # channel at a time
    ((1, 9, 13, 40), (3, 3), (1, 1), (1, 1), "SAME", None, "Swish"),
    ((1, 8, 10, 21), (5, 5), (2, 2), (1, 1), "SAME", None, "Sigmoid"),
    ((1, 7, 9, 6), (3, 3), (1, 1), (1, 1), "VALID", None, "Swish"),
    ((1, 6, 11, 3), (5, 5), (1, 2), (1, 1), "SAME", None, "Sigmoid"),
]

_ISA_SCRIPT = """
import json, sys
import numpy as np
from opgen import ops
from opgen.runtime import execute_op
out = {}
for n, (shape, k, s, d, pad, ex, act) in enumerate(json.loads(sys.argv[1])):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(shape).astype(np.float32)
    f = rng.standard_normal((*k, shape[3], 1)).astype(np.float32)
    b = rng.standard_normal(shape[3]).astype(np.float32)
    attrs = dict(strides=[1, *s, 1], padding=pad, dilations=[1, *d, 1],
                 explicit_paddings=ex or [])
    if act is None:
        y = ops.depthwise_conv2d_native(x, f, **attrs)
    else:
        y = execute_op("_OpgenFusedDepthwiseConv2dNative", [x, f, b],
                       dict(attrs, T=np.float32, activation=act))[0]
    out[f"y{n}"] = np.asarray(y)
np.savez(sys.argv[2], **out)
"""


@pytest.mark.parametrize("isa", ["", "avx2", "portable"])
def test_depthwise_float32_each_isa(isa, tmp_path):
    """Every vector width of the float32 kernel (OPGEN_CPU_ISA caps the one picked at load,
    so each runs here in its own process), with fused bias and activations."""
    import os
    import subprocess
    import sys
    result = tmp_path / "out.npz"
    subprocess.run([sys.executable, "-c", _ISA_SCRIPT, json.dumps(ISA_CASES), str(result)],
                   check=True, cwd=tmp_path, env=dict(os.environ, OPGEN_CPU_ISA=isa))
    got = np.load(result)
    acts = {None: lambda v: v, "Relu": lambda v: np.maximum(v, 0),
            "Relu6": lambda v: np.clip(v, 0, 6), "Elu": lambda v: np.where(v > 0, v, np.expm1(v)),
            "Sigmoid": lambda v: 1 / (1 + np.exp(-v)), "Swish": lambda v: v / (1 + np.exp(-v))}
    for n, (shape, k, s, d, pad, ex, act) in enumerate(ISA_CASES):
        r = np.random.default_rng(n)
        x = r.standard_normal(shape).astype(np.float32)
        f = r.standard_normal((*k, shape[3], 1)).astype(np.float32)
        b = r.standard_normal(shape[3]).astype(np.float32)
        want = depthwise_ref(x, f, s, pad, d, explicit=ex)
        want = acts[act](want + b) if act is not None else want
        close(got[f"y{n}"], want)


@pytest.mark.parametrize("activation", ["Sigmoid", "Swish"])
@pytest.mark.parametrize("fused_op", ["_OpgenFusedDepthwiseConv2dNative", "_OpgenFusedConv2D"])
def test_fused_sigmoid_family_at_the_extremes(activation, fused_op):
    """The epilogues' sigmoid clamps e^-x's argument where 1 + e^-x is already beyond
    float's range: far from zero the results still saturate to 0 / 1 (sigmoid) and 0 / x
    (swish), and a NaN stays NaN, in the depthwise kernel's registers and the
    convolution's epilogue alike."""
    from opgen.runtime import execute_op
    v = np.array([-1e4, -200, -104, -90, -88, -87, -30, -1, -1e-3, 0, 1e-3, 1, 30, 87, 88, 90,
                  200, 1e4, np.nan, 0.5, -0.5, 3, -3, 7], np.float32)
    x = v.reshape(1, 1, 24, 1) if fused_op == "_OpgenFusedConv2D" else v.reshape(1, 1, 1, 24)
    f = np.ones((1, 1, 1, 1) if fused_op == "_OpgenFusedConv2D" else (1, 1, 24, 1), np.float32)
    b = np.zeros(f.shape[2] * f.shape[3], np.float32)
    y = execute_op(fused_op, [x, f, b], dict(strides=[1, 1, 1, 1], padding="VALID",
                                             T=np.float32, activation=activation))[0]
    got = np.asarray(y).reshape(-1).astype(np.float64)
    d = v.astype(np.float64)
    with np.errstate(over="ignore"):
        sig = 1 / (1 + np.exp(-d))
    want = sig if activation == "Sigmoid" else np.where(np.isnan(d), np.nan, d * sig)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("multiplier", [2, 3])
def test_depthwise_channel_multiplier(multiplier):
    x = rng.standard_normal((1, 7, 6, 4)).astype(np.float32)
    f = rng.standard_normal((3, 2, 4, multiplier)).astype(np.float32)
    got = ops.depthwise_conv2d_native(x, f, strides=[1, 1, 2, 1], padding="SAME")
    close(got, depthwise_ref(x, f, (1, 2), "SAME"))


def test_depthwise_explicit_padding():
    x = rng.standard_normal((1, 5, 6, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 1)).astype(np.float32)
    explicit = [0, 0, 2, 1, 0, 3, 0, 0]
    got = ops.depthwise_conv2d_native(x, f, strides=[1, 1, 1, 1], padding="EXPLICIT",
                                      explicit_paddings=explicit)
    close(got, depthwise_ref(x, f, (1, 1), "EXPLICIT", explicit=explicit))


def test_depthwise_nan_propagates():
    x = np.ones((1, 4, 4, 16), np.float32)
    x[0, 1, 1, 3] = np.nan
    f = np.ones((3, 3, 16, 1), np.float32)
    got = np.asarray(ops.depthwise_conv2d_native(x, f, strides=[1, 1, 1, 1], padding="SAME"))
    assert np.isnan(got[0, :3, :3, 3]).all() and not np.isnan(got[..., 2]).any()


def test_depthwise_errors():
    x = np.ones((1, 4, 4, 3), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="in_channels"):
        ops.depthwise_conv2d_native(x, np.ones((3, 3, 2, 1), np.float32), strides=[1, 1, 1, 1],
                                    padding="SAME")
    with pytest.raises(errors.InvalidArgumentError):
        ops.depthwise_conv2d_native(np.ones((4, 4, 3), np.float32), np.ones((3, 3, 3, 1), np.float32),
                                    strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(errors.UnimplementedError, match="NHWC"):
        execute_op("DepthwiseConv2dNative", [x, np.ones((3, 3, 3, 1), np.float32)],
                   {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NCHW"})


# ---- Conv2DBackpropInput --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (2, 1)])
def test_conv2d_backprop_input(dtype, padding, strides):
    sizes = (2, 7, 6, 3)
    f = rng.integers(-3, 4, (3, 2, 3, 4)).astype(dtype)
    oh, _, _ = same_pads(7, 3, strides[0], 1, padding)
    ow, _, _ = same_pads(6, 2, strides[1], 1, padding)
    dy = rng.integers(-3, 4, (2, oh, ow, 4)).astype(dtype)
    got = ops.conv2d_backprop_input(np.array(sizes, np.int32), f, dy, strides=[1, *strides, 1],
                                    padding=padding)
    assert got.shape == sizes
    want = transposed_ref(sizes, f, dy, strides, padding)
    if dtype == np.int32:
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        close(got, want, dtype, scale=10)


def test_conv2d_backprop_input_errors():
    f = np.ones((3, 3, 2, 4), np.float32)
    dy = np.ones((1, 4, 4, 4), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="input_sizes"):
        ops.conv2d_backprop_input(np.array([1, 8, 8], np.int32), f, dy, strides=[1, 2, 2, 1],
                                  padding="SAME")
    with pytest.raises(errors.InvalidArgumentError, match="out_backprop"):
        ops.conv2d_backprop_input(np.array([1, 5, 5, 2], np.int32), f, dy, strides=[1, 2, 2, 1],
                                  padding="VALID")
    with pytest.raises(errors.InvalidArgumentError):
        ops.conv2d_backprop_input(np.array([1, 8, 8, 3], np.int32), f, dy, strides=[1, 2, 2, 1],
                                  padding="SAME")


# ---- Conv3D -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides, dilations", [((1, 1, 1), (1, 1, 1)), ((2, 1, 2), (1, 1, 1)),
                                                ((1, 1, 1), (2, 1, 1))])
def test_conv3d(dtype, padding, strides, dilations):
    x = rng.standard_normal((2, 5, 6, 4, 3)).astype(dtype)
    f = rng.standard_normal((2, 3, 2, 3, 4)).astype(dtype)
    got = ops.conv3d(x, f, strides=[1, *strides, 1], padding=padding, dilations=[1, *dilations, 1])
    close(got, conv3d_ref(x, f, strides, padding, dilations), dtype, scale=10)


def test_conv3d_errors():
    with pytest.raises(errors.InvalidArgumentError):
        ops.conv3d(np.ones((1, 4, 4, 4, 2), np.float32), np.ones((2, 2, 2, 3, 1), np.float32),
                   strides=[1, 1, 1, 1, 1], padding="VALID")
    with pytest.raises(errors.UnimplementedError, match="NDHWC"):
        execute_op("Conv3D", [np.ones((1, 2, 4, 4, 4), np.float32), np.ones((2, 2, 2, 2, 1), np.float32)],
                   {"strides": [1, 1, 1, 1, 1], "padding": "VALID", "data_format": "NCDHW"})


# ---- SpaceToBatchND / BatchToSpaceND ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int64, np.uint16,
                                   np.bool_, np.complex128])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_space_to_batch_and_back(dtype, index_dtype):
    x = (rng.standard_normal((2, 5, 7, 3)) * 10).astype(dtype)
    block, pads = [2, 3], [[1, 0], [1, 1]]
    got = ops.space_to_batch_nd(x, np.array(block, index_dtype), np.array(pads, index_dtype))
    want = space_to_batch_ref(x, block, pads)
    np.testing.assert_array_equal(np.asarray(got), want)
    back = ops.batch_to_space_nd(np.asarray(got), np.array(block, index_dtype), np.array(pads, index_dtype))
    np.testing.assert_array_equal(np.asarray(back), x)


@pytest.mark.parametrize("shape, block, amounts", [
    ((1, 6), [3], [[0, 0]]), ((3, 4, 2, 5), [2], [[2, 0]]), ((1, 4, 4, 6, 2), [2, 2, 3], [[0, 0], [2, 2], [0, 0]]),
    ((2, 8, 8, 1), [4, 4], [[0, 0], [0, 0]]),
])
def test_space_batch_shapes(shape, block, amounts):
    x = rng.standard_normal(shape).astype(np.float32)
    got = ops.space_to_batch_nd(x, np.array(block, np.int32), np.array(amounts, np.int32))
    np.testing.assert_array_equal(np.asarray(got), space_to_batch_ref(x, block, amounts))
    y = rng.standard_normal((int(np.prod(block)) * 2, *shape[1:])).astype(np.float32)
    crops = [[min(a[0], s * b // 2), 0] for a, s, b in zip(amounts, shape[1:], block)]
    got = ops.batch_to_space_nd(y, np.array(block, np.int32), np.array(crops, np.int32))
    np.testing.assert_array_equal(np.asarray(got), batch_to_space_ref(y, block, crops))


def test_space_batch_errors():
    x = np.ones((1, 5, 4, 1), np.float32)
    i32 = np.int32
    with pytest.raises(errors.InvalidArgumentError, match="divide"):
        ops.space_to_batch_nd(x, np.array([2, 2], i32), np.zeros((2, 2), i32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.space_to_batch_nd(x, np.array([0, 2], i32), np.zeros((2, 2), i32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.space_to_batch_nd(x, np.array([1, 2], i32), np.array([[-1, 1], [0, 0]], i32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.space_to_batch_nd(x, np.array([2 ** 40, 2 ** 40], np.int64), np.zeros((2, 2), np.int64))
    with pytest.raises(errors.InvalidArgumentError):
        ops.batch_to_space_nd(np.ones((3, 2, 2, 1), np.float32), np.array([2, 1], i32), np.zeros((2, 2), i32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.batch_to_space_nd(np.ones((4, 2, 2, 1), np.float32), np.array([2, 2], i32),
                              np.array([[3, 2], [0, 0]], i32))


# ---- DepthToSpace / SpaceToDepth ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8, np.int64, np.bool_, np.complex64])
@pytest.mark.parametrize("bs", [2, 3])
def test_depth_to_space_and_back(dtype, bs):
    x = (rng.standard_normal((2, 3, 4, 2 * bs * bs)) * 10).astype(dtype)
    got = ops.depth_to_space(x, block_size=bs)
    np.testing.assert_array_equal(np.asarray(got), depth_to_space_ref(x, bs))
    back = ops.space_to_depth(np.asarray(got), block_size=bs)
    np.testing.assert_array_equal(np.asarray(back), x)
    np.testing.assert_array_equal(np.asarray(back), space_to_depth_ref(np.asarray(got), bs))


def test_depth_space_errors():
    with pytest.raises(errors.InvalidArgumentError, match="divide"):
        ops.depth_to_space(np.ones((1, 2, 2, 6), np.float32), block_size=2)
    with pytest.raises(errors.InvalidArgumentError, match="divide"):
        ops.space_to_depth(np.ones((1, 3, 4, 1), np.float32), block_size=2)
    with pytest.raises(errors.InvalidArgumentError):
        ops.space_to_depth(np.ones((3, 4, 1), np.float32), block_size=2)
    with pytest.raises(errors.UnimplementedError, match="NHWC"):
        execute_op("DepthToSpace", [np.ones((1, 4, 2, 2), np.float32)],
                   {"block_size": 2, "data_format": "NCHW"})


# ---- MirrorPad ----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_, np.complex64])
@pytest.mark.parametrize("shape, pads", [
    ((4, 5), [[1, 2], [3, 0]]), ((2, 5, 6, 3), [[0, 0], [2, 3], [1, 4], [0, 0]]),
    ((3,), [[2, 1]]), ((2, 3, 4), [[1, 1], [0, 0], [0, 2]]),
])
def test_mirror_pad(mode, dtype, shape, pads):
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    got = ops.mirror_pad(x, np.array(pads, np.int64), mode=mode)
    np.testing.assert_array_equal(np.asarray(got), np.pad(x, pads, mode=mode.lower()))


def test_mirror_pad_empty():
    """An empty dimension takes no reflected padding (as TensorFlow: none to mirror), but
    symmetric padding of 0 and the padding of other dimensions work."""
    x = np.ones((3, 0), np.float32)
    got = ops.mirror_pad(x, np.array([[1, 1], [0, 0]], np.int32), mode="SYMMETRIC")
    assert np.asarray(got).shape == (5, 0)
    with pytest.raises(errors.InvalidArgumentError):
        ops.mirror_pad(x, np.array([[1, 1], [0, 0]], np.int32), mode="REFLECT")


def test_mirror_pad_errors():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="at most"):
        ops.mirror_pad(x, np.array([[3, 0], [0, 0]], np.int32), mode="REFLECT")
    with pytest.raises(errors.InvalidArgumentError, match="at most"):
        ops.mirror_pad(x, np.array([[4, 0], [0, 0]], np.int32), mode="SYMMETRIC")
    with pytest.raises(errors.InvalidArgumentError):
        ops.mirror_pad(x, np.array([[1, 1]], np.int32), mode="REFLECT")
    with pytest.raises(errors.InvalidArgumentError):
        ops.mirror_pad(x, np.array([[-1, 0], [0, 0]], np.int32), mode="REFLECT")


# ---- Resize -------------------------------------------------------------------------------

RESIZE_MODES = [(False, False), (True, False), (False, True)]
RESIZE_SIZES = [((5, 7), (3, 4)), ((4, 4), (9, 11)), ((1, 1), (4, 3)), ((6, 5), (2, 10)),
                ((8, 8), (1, 1)), ((3, 9), (7, 2)), ((16, 16), (32, 32)), ((17, 13), (8, 6))]


@pytest.mark.parametrize("align, half", RESIZE_MODES)
@pytest.mark.parametrize("in_size, out_size", RESIZE_SIZES)
def test_resize_against_numpy(align, half, in_size, out_size):
    x = rng.standard_normal((2, *in_size, 3)).astype(np.float32)
    size = np.array(out_size, np.int32)
    got = ops.resize_bilinear(x, size, align_corners=align, half_pixel_centers=half)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), bilinear_ref(x, out_size, align, half), rtol=1e-6, atol=1e-6)
    got = ops.resize_nearest_neighbor(x, size, align_corners=align, half_pixel_centers=half)
    np.testing.assert_array_equal(np.asarray(got), nearest_ref(x, out_size, align, half))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64, np.float64, np.float16] +
                         ([bfloat16] if bfloat16 is not None else []), ids=lambda d: np.dtype(d).name)
def test_resize_dtypes(dtype):
    x = (rng.standard_normal((1, 5, 6, 2)) * 20 + 50).astype(dtype)
    size = np.array([7, 4], np.int32)
    got = ops.resize_bilinear(x, size, half_pixel_centers=True)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), bilinear_ref(x.astype(np.float32), (7, 4), half=True),
                               rtol=1e-5, atol=1e-5)
    got = ops.resize_nearest_neighbor(x, size, align_corners=True)
    assert np.asarray(got).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got), nearest_ref(x, (7, 4), align=True))


def test_resize_errors():
    x = np.ones((1, 4, 4, 1), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="half_pixel_centers"):
        ops.resize_bilinear(x, np.array([2, 2], np.int32), align_corners=True, half_pixel_centers=True)
    with pytest.raises(errors.InvalidArgumentError, match="positive"):
        ops.resize_nearest_neighbor(x, np.array([0, 2], np.int32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.resize_bilinear(x, np.array([2, 2, 2], np.int32))
    with pytest.raises(errors.InvalidArgumentError):
        ops.resize_bilinear(np.ones((4, 4, 1), np.float32), np.array([2, 2], np.int32))
    with pytest.raises(errors.InvalidArgumentError):  # 2^62 * 3 elements: more than int64 counts
        ops.resize_bilinear(np.ones((1, 2, 2, 3), np.float32), np.array([2 ** 31 - 1] * 2, np.int32))


# ---- FusedBatchNorm / FusedBatchNormV2 --------------------------------------------------------

@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [False, True])
def test_fused_batch_norm(op, data_format, is_training):
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    c_axis = 3 if data_format == "NHWC" else 1
    c = x.shape[c_axis]
    scale, offset = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    mean, var = rng.standard_normal(c).astype(np.float32), rng.random(c).astype(np.float32) + 0.5
    outs = execute_op(op, [x, scale, offset, mean, var],
                      {"is_training": is_training, "epsilon": 0.001, "data_format": data_format,
                       "exponential_avg_factor": 1.0})
    assert len(outs) == (6 if op.endswith("V3") else 5)
    axes = tuple(a for a in range(4) if a != c_axis)
    use_mean = x.mean(axis=axes) if is_training else mean
    use_var = x.var(axis=axes) if is_training else var
    bshape = [1, 1, 1, 1]
    bshape[c_axis] = c
    want = ((x - use_mean.reshape(bshape)) / np.sqrt(use_var.reshape(bshape) + 0.001)
            * scale.reshape(bshape) + offset.reshape(bshape))
    np.testing.assert_allclose(np.asarray(outs[0]), want, rtol=1e-4, atol=1e-4)
    n = x.size // c
    np.testing.assert_allclose(np.asarray(outs[1]), use_mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(outs[2]), use_var * n / (n - 1) if is_training else var, rtol=1e-4)


@pytest.mark.parametrize("op", ["FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("dtype", [np.float16] + ([bfloat16] if bfloat16 is not None else []),
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_16_bit(op, dtype, data_format):
    """x and y in half or bfloat16, the statistics in float, computed in float."""
    x = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    c_axis = 3 if data_format == "NHWC" else 1
    c = x.shape[c_axis]
    scale, offset = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    outs = execute_op(op, [x, scale, offset, np.zeros(0, np.float32), np.zeros(0, np.float32)],
                      {"is_training": True, "epsilon": 0.001, "data_format": data_format})
    assert np.asarray(outs[0]).dtype == np.dtype(dtype) and np.asarray(outs[1]).dtype == np.float32
    xf = x.astype(np.float32)
    axes = tuple(a for a in range(4) if a != c_axis)
    bshape = [1, 1, 1, 1]
    bshape[c_axis] = c
    want = ((xf - xf.mean(axis=axes).reshape(bshape)) / np.sqrt(xf.var(axis=axes).reshape(bshape) + 0.001)
            * scale.reshape(bshape) + offset.reshape(bshape))
    close(outs[0], want, dtype, scale=4)
    np.testing.assert_allclose(np.asarray(outs[1]), xf.mean(axis=axes), rtol=1e-5, atol=1e-5)


def test_fused_batch_norm_generated_wrappers():
    x = rng.standard_normal((1, 2, 2, 3)).astype(np.float32)
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    y = ops.fused_batch_norm(x, ones, zeros, zeros, ones, is_training=False, epsilon=0.0)
    np.testing.assert_allclose(np.asarray(y[0]), x, rtol=1e-6)
    y = ops.fused_batch_norm_v2(x, ones, zeros, zeros, ones, is_training=False, epsilon=0.0)
    np.testing.assert_allclose(np.asarray(y[0]), x, rtol=1e-6)
    with pytest.raises(errors.InvalidArgumentError):
        ops.fused_batch_norm(x, np.ones(2, np.float32), zeros, zeros, ones, is_training=False)


# ---- TensorFlow's outputs -----------------------------------------------------------------

def _fixture_cases():
    if not FIXTURES.exists():
        return []
    with np.load(FIXTURES) as data:
        return json.loads(str(data["cases"]))


@pytest.mark.parametrize("name, op, attrs", _fixture_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_matches_tensorflow(name, op, attrs):
    with np.load(FIXTURES) as data:
        inputs = [data[f"{name}.in{i}"] for i in range(3) if f"{name}.in{i}" in data]
        want = data[f"{name}.out"]
    got = np.asarray(execute_op(op, inputs, attrs)[0])
    assert got.shape == want.shape
    if op == "ResizeNearestNeighbor":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
