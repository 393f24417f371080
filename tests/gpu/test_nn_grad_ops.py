"""Issue 22's backprop ops (Conv2DBackpropFilter, the depthwise and Conv3D backprops, MaxPoolGrad,
MaxPoolGradGrad, AvgPoolGrad, FusedBatchNormGrad / V2 / V3, ResizeBilinearGrad, ResizeNearestNeighborGrad)
on the GPU equal the CPU kernels, for every registered dtype, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import gemm_tolerance

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
MAX_POOL_TYPES = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                           np.uint64]


def name(dtype) -> str:
    return np.dtype(dtype).name


def random(rng, shape, dtype):
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(0, 5, shape).astype(dtype)  # ties for MaxPoolGrad
    return (rng.standard_normal(shape) * 2).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding, strides", [("SAME", (1, 1)), ("VALID", (2, 2)), ("SAME", (2, 1))])
def test_conv2d_backprop_filter(gpu_matches_cpu, rng, dtype, padding, strides):
    x = random(rng, (3, 9, 8, 5), dtype)
    out = ops.conv2d(x.astype(np.float32), np.zeros((3, 3, 5, 6), np.float32), strides=[1, *strides, 1],
                     padding=padding).numpy().shape
    dy = random(rng, out, dtype)
    gpu_matches_cpu(ops.conv2d_backprop_filter, x, np.array([3, 3, 5, 6], np.int32), dy,
                    strides=[1, *strides, 1], padding=padding, **gemm_tolerance(dtype, 3 * 81))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_backprops(gpu_matches_cpu, rng, dtype, padding, multiplier):
    x = random(rng, (2, 9, 8, 7), dtype)
    f = random(rng, (3, 3, 7, multiplier), dtype)
    oh, ow = (5, 4) if padding == "SAME" else (4, 3)
    dy = random(rng, (2, oh, ow, 7 * multiplier), dtype)
    attrs = {"strides": [1, 2, 2, 1], "padding": padding}
    gpu_matches_cpu(ops.depthwise_conv2d_native_backprop_input, np.array(x.shape, np.int32), f, dy,
                    **attrs, **gemm_tolerance(dtype, 9 * multiplier))
    gpu_matches_cpu(ops.depthwise_conv2d_native_backprop_filter, x, np.array(f.shape, np.int32), dy,
                    **attrs, **gemm_tolerance(dtype, 2 * oh * ow))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv3d_backprops(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 5, 6, 4, 3), dtype)
    f = random(rng, (2, 3, 2, 3, 4), dtype)
    out = (2, 5, 3, 4, 4) if padding == "SAME" else (2, 4, 2, 3, 4)
    dy = random(rng, out, dtype)
    attrs = {"strides": [1, 1, 2, 1, 1], "padding": padding}
    gpu_matches_cpu(ops.conv3d_backprop_input_v2, np.array(x.shape, np.int32), f, dy, **attrs,
                    **gemm_tolerance(dtype, 48))
    gpu_matches_cpu(ops.conv3d_backprop_filter_v2, x, np.array(f.shape, np.int32), dy, **attrs,
                    **gemm_tolerance(dtype, 2 * 5 * 3 * 4))


@pytest.mark.parametrize("dtype", MAX_POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 7, 8, 3), dtype)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 1, 1], "padding": padding}
    y = ops.max_pool(x, **attrs).numpy()
    dy = random(rng, y.shape, dtype)
    gpu_matches_cpu(ops.max_pool_grad, x, y, dy, **attrs, **gemm_tolerance(dtype, 9))


@pytest.mark.parametrize("dtype", MAX_POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad_grad(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 7, 8, 3), dtype)  # integer ties: the first equal element on both
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 1, 1], "padding": padding}
    y = ops.max_pool(x, **attrs).numpy()
    y.reshape(-1)[::5] = y.reshape(-1)[::5] + 1  # some outputs not in their window: zeros
    gpu_matches_cpu(ops.max_pool_grad_grad, x, y, random(rng, x.shape, dtype), **attrs)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_avg_pool_grad(gpu_matches_cpu, rng, dtype, padding):
    attrs = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": padding}
    out = (2, 4, 4, 3) if padding == "SAME" else (2, 3, 4, 3)
    gpu_matches_cpu(ops.avg_pool_grad, np.array([2, 7, 8, 3], np.int32), random(rng, out, dtype), **attrs,
                    **gemm_tolerance(dtype, 6))


@pytest.mark.parametrize("op", ["fused_batch_norm_grad_v2", "fused_batch_norm_grad_v3"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16] + ([bfloat16] if bfloat16 else []), ids=name)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad(gpu_matches_cpu, rng, op, dtype, fmt, training):
    x = random(rng, (3, 6, 5, 4), dtype)
    dy = random(rng, x.shape, dtype)
    c = x.shape[1] if fmt == "NCHW" else x.shape[3]
    stats = [rng.uniform(0.5, 2, c).astype(np.float32) for _ in range(3)]
    extra = [np.zeros(c, np.float32)] if op.endswith("v3") else []
    gpu_matches_cpu(getattr(ops, op), dy, x, *stats, *extra, data_format=fmt, is_training=training,
                    **gemm_tolerance(dtype, 90))


def test_fused_batch_norm_grad_v1(gpu_matches_cpu, rng):
    x = random(rng, (2, 4, 4, 3), np.float32)
    gpu_matches_cpu(ops.fused_batch_norm_grad, random(rng, x.shape, np.float32), x,
                    *[rng.uniform(0.5, 2, 3).astype(np.float32) for _ in range(3)])


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize_bilinear_grad(gpu_matches_cpu, rng, dtype, align, half):
    grads = random(rng, (2, 9, 5, 3), np.float32)
    gpu_matches_cpu(ops.resize_bilinear_grad, grads, random(rng, (2, 4, 7, 3), dtype),
                    align_corners=align, half_pixel_centers=half, **gemm_tolerance(dtype, 8))


@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.uint8, np.int32], ids=name)
@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize_nearest_neighbor_grad(gpu_matches_cpu, rng, dtype, align, half):
    gpu_matches_cpu(ops.resize_nearest_neighbor_grad, random(rng, (2, 9, 5, 3), dtype),
                    np.array([4, 7], np.int32), align_corners=align, half_pixel_centers=half,
                    **gemm_tolerance(dtype, 8))


def test_errors_match_the_cpu():
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="filter_sizes"):
            ops.conv2d_backprop_filter(np.zeros((1, 4, 4, 2), np.float32), np.array([2, 2, 3, 3], np.int32),
                                       np.zeros((1, 4, 4, 3), np.float32), strides=[1, 1, 1, 1],
                                       padding="SAME").numpy()
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="MaxPoolGrad"):
            ops.max_pool_grad(np.zeros((1, 4, 4, 2), np.float32), np.zeros((1, 2, 2, 2), np.float32),
                              np.zeros((1, 3, 3, 2), np.float32), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                              padding="VALID").numpy()
