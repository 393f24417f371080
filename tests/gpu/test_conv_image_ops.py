"""DepthwiseConv2dNative, Conv2DBackpropInput, Conv3D, the space/batch/depth moves,
MirrorPad, the resizes and FusedBatchNorm / V2 on the GPU equal the CPU kernels, for every
registered dtype, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

from gpu_compare import (
    FLOATS,
    MOVE_TYPES,
    RESIZE_TYPES,
    _raises_on_both,
    bfloat16,
    gemm_tolerance,
    name,
    random,
)



@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides, dilations, multiplier", [((1, 1), (1, 1), 1), ((2, 2), (1, 1), 1),
                                                            ((1, 2), (2, 1), 2)])
def test_depthwise(gpu_matches_cpu, rng, dtype, padding, strides, dilations, multiplier):
    x = random(rng, (2, 9, 8, 19), dtype)
    f = random(rng, (3, 3, 19, multiplier), dtype)
    gpu_matches_cpu(ops.depthwise_conv2d_native, x, f, strides=[1, *strides, 1], padding=padding,
                    dilations=[1, *dilations, 1], **gemm_tolerance(dtype, 9))


@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_backprop_input(gpu_matches_cpu, rng, dtype, padding):
    f = random(rng, (3, 3, 3, 4), dtype)
    oh, ow = (4, 4) if padding == "SAME" else (3, 3)
    dy = random(rng, (2, oh, ow, 4), dtype)
    gpu_matches_cpu(ops.conv2d_backprop_input, np.array([2, 7, 8, 3], np.int32), f, dy,
                    strides=[1, 2, 2, 1], padding=padding, **gemm_tolerance(dtype, 36))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv3d(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 5, 6, 4, 3), dtype)
    f = random(rng, (2, 3, 2, 3, 4), dtype)
    gpu_matches_cpu(ops.conv3d, x, f, strides=[1, 2, 1, 1, 1], padding=padding,
                    **gemm_tolerance(dtype, 36))


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
@pytest.mark.parametrize("index", [np.int32, np.int64], ids=name)
def test_space_batch_depth_moves(gpu_matches_cpu, rng, dtype, index):
    x = random(rng, (2, 5, 7, 3), dtype)
    block, pads = np.array([2, 3], index), np.array([[1, 0], [1, 1]], index)
    moved = gpu_matches_cpu(ops.space_to_batch_nd, x, block, pads)[0]
    gpu_matches_cpu(ops.batch_to_space_nd, moved, block, pads)
    y = random(rng, (2, 4, 6, 8), dtype)
    gpu_matches_cpu(ops.depth_to_space, y, block_size=2)
    gpu_matches_cpu(ops.space_to_depth, y, block_size=2)
    for mode in ("REFLECT", "SYMMETRIC"):
        gpu_matches_cpu(ops.mirror_pad, y, np.array([[0, 1], [2, 3], [1, 0], [0, 0]], index), mode=mode)


@pytest.mark.parametrize("dtype", RESIZE_TYPES, ids=name)
@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize(gpu_matches_cpu, rng, dtype, align, half):
    x = random(rng, (2, 5, 7, 3), dtype)
    for size in ([3, 4], [11, 9]):
        size = np.array(size, np.int32)
        gpu_matches_cpu(ops.resize_bilinear, x, size, align_corners=align, half_pixel_centers=half)
        gpu_matches_cpu(ops.resize_nearest_neighbor, x, size, align_corners=align, half_pixel_centers=half)


@pytest.mark.parametrize("fn", [ops.fused_batch_norm, ops.fused_batch_norm_v2, ops.fused_batch_norm_v3])
@pytest.mark.parametrize("is_training", [False, True])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm(gpu_matches_cpu, rng, fn, is_training, data_format):
    x = random(rng, (2, 5, 4, 5), np.float32)
    scale, offset = random(rng, (5,), np.float32), random(rng, (5,), np.float32)
    mean, var = random(rng, (5,), np.float32), np.abs(random(rng, (5,), np.float32)) + 0.5
    gpu_matches_cpu(fn, x, scale, offset, mean, var, is_training=is_training, data_format=data_format,
                    rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16] + ([bfloat16] if bfloat16 is not None else []), ids=name)
@pytest.mark.parametrize("fn", [ops.fused_batch_norm_v2, ops.fused_batch_norm_v3])
def test_fused_batch_norm_16_bit(gpu_matches_cpu, rng, dtype, fn):
    x = random(rng, (2, 3, 4, 5), dtype)
    scale, offset = random(rng, (5,), np.float32), random(rng, (5,), np.float32)
    empty = np.zeros(0, np.float32)
    gpu_matches_cpu(fn, x, scale, offset, empty, empty, is_training=True, rtol=2e-2, atol=2e-2)


def test_same_errors():
    _raises_on_both(errors.InvalidArgumentError, ops.depth_to_space, np.ones((1, 2, 2, 6), np.float32),
                    block_size=2)
    _raises_on_both(errors.InvalidArgumentError, ops.space_to_batch_nd, np.ones((1, 5, 4, 1), np.float32),
                    np.array([2, 2], np.int32), np.zeros((2, 2), np.int32))
    _raises_on_both(errors.InvalidArgumentError, ops.mirror_pad, np.ones((3, 4), np.float32),
                    np.array([[3, 0], [0, 0]], np.int32), mode="REFLECT")
    _raises_on_both(errors.InvalidArgumentError, ops.resize_bilinear, np.ones((1, 4, 4, 1), np.float32),
                    np.array([0, 2], np.int32))
