"""The ops the Keras layer sweep added (MaxPool3D, AvgPool3D, ResizeBicubic, ResizeArea,
MatrixBandPart, Bucketize, Expm1) and their backprop ops (MaxPool3DGrad, AvgPool3DGrad,
MaxPool3DGradGrad, ResizeBicubicGrad) on the GPU equal the CPU kernels, for every dtype
both devices register, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import MOVE_TYPES, RESIZE_TYPES, _raises_on_both, name, random

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None

POOL_TYPES = [np.float32] + ([bfloat16] if bfloat16 is not None else [])


@pytest.mark.parametrize("dtype", POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("fn", [ops.max_pool3d, ops.avg_pool3d], ids=["max", "avg"])
def test_pool3d(gpu_matches_cpu, rng, dtype, padding, fn):
    x = random(rng, (2, 5, 6, 7, 3), dtype)
    gpu_matches_cpu(fn, x, ksize=[1, 3, 2, 2, 1], strides=[1, 2, 1, 2, 1], padding=padding)


@pytest.mark.parametrize("dtype", POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool3d_backprops(gpu_matches_cpu, rng, dtype, padding):
    """Small integers, so that windows tie and the sums are exact in both orders."""
    shape, window = (2, 5, 6, 7, 3), {"ksize": [1, 3, 2, 2, 1], "strides": [1, 2, 1, 2, 1], "padding": padding}
    x = rng.integers(-3, 4, shape).astype(dtype)
    with opgen.device("/CPU:0"):
        y = ops.max_pool3d(x, **window).numpy()
    dy = rng.integers(-3, 4, y.shape).astype(dtype)
    gpu_matches_cpu(ops.max_pool3d_grad, x, y, dy, **window)
    gpu_matches_cpu(ops.max_pool3d_grad_grad, x, y, rng.integers(-3, 4, shape).astype(dtype), **window)
    gpu_matches_cpu(ops.avg_pool3d_grad, np.array(shape, np.int32), dy, **window)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=name)
@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize_bicubic_grad(gpu_matches_cpu, rng, dtype, align, half):
    for (ih, iw), (oh, ow) in (((5, 7), (3, 4)), ((5, 7), (11, 9)), ((1, 3), (4, 5))):
        grads = random(rng, (2, oh, ow, 3), np.float32)
        gpu_matches_cpu(ops.resize_bicubic_grad, grads, np.zeros((2, ih, iw, 3), dtype),
                        align_corners=align, half_pixel_centers=half, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", RESIZE_TYPES, ids=name)
@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize_bicubic_and_area(gpu_matches_cpu, rng, dtype, align, half):
    x = random(rng, (2, 5, 7, 3), dtype)
    for size in ([3, 4], [11, 9]):
        size = np.array(size, np.int32)
        gpu_matches_cpu(ops.resize_bicubic, x, size, align_corners=align, half_pixel_centers=half,
                        rtol=1e-5, atol=1e-4)
        gpu_matches_cpu(ops.resize_area, x, size, align_corners=align, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_matrix_band_part(gpu_matches_cpu, rng, dtype):
    x = random(rng, (2, 4, 5), dtype)
    for lower, upper in ((1, 0), (-1, 0), (0, -1), (2, 3)):
        gpu_matches_cpu(ops.matrix_band_part, x, np.int64(lower), np.int64(upper))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=name)
def test_bucketize(gpu_matches_cpu, rng, dtype):
    x = random(rng, (3, 17), dtype)
    gpu_matches_cpu(ops.bucketize, x, boundaries=[-3.0, 0.0, 0.5, 2.0, 20.0])


def test_expm1(gpu_matches_cpu, rng):
    gpu_matches_cpu(ops.expm1, random(rng, (4, 9), np.float32) / 8)


def test_errors_match():
    _raises_on_both(errors.InvalidArgumentError, ops.matrix_band_part, np.ones((3, 4), np.float32),
                    np.int64(4), np.int64(0))
    _raises_on_both(errors.InvalidArgumentError, ops.max_pool3d, np.ones((1, 1, 4, 4, 1), np.float32),
                    ksize=[1, 2, 2, 2, 1], strides=[1, 1, 1, 1, 1], padding="VALID")
    window = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
    x = np.ones((1, 4, 4, 4, 1), np.float32)
    _raises_on_both(errors.InvalidArgumentError, ops.max_pool3d_grad, x, x[:, :3, :3, :3], x[:, :2, :2, :2],
                    **window)
    _raises_on_both(errors.InvalidArgumentError, ops.avg_pool3d_grad, np.array([1, 4, 4, 4, 1], np.int32),
                    x[:, :3, :3, :3], **window)
    _raises_on_both(errors.InvalidArgumentError, ops.resize_bicubic_grad, np.ones((1, 4, 4), np.float32),
                    x[0, :2])
