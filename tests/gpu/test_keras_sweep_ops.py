"""The ops the Keras layer sweep added (MaxPool3D, AvgPool3D, ResizeBicubic, ResizeArea,
MatrixBandPart, Bucketize, Expm1) on the GPU equal the CPU kernels, for every dtype both
devices register, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

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
