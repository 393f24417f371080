"""The Keras preprocessing layers' ops with CUDA kernels (ScaleAndTranslate and its
gradient, Bincount, DenseBincount, RaggedBincount, SparseBincount) and CropAndResize with
its gradients on the GPU equal the CPU kernels, for every dtype both
devices register, with the same errors for bad operands."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

from gpu_compare import RESIZE_TYPES, _raises_on_both, name, random

FILTERS = ["lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic",
           "mitchellcubic"]


@pytest.mark.parametrize("dtype", RESIZE_TYPES, ids=name)
def test_scale_and_translate_dtypes(gpu_matches_cpu, rng, dtype):
    x = random(rng, (2, 5, 7, 3), dtype)
    gpu_matches_cpu(ops.scale_and_translate, x, np.int32([9, 4]), np.float32([1.8, 0.6]),
                    np.float32([0.3, -0.5]), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("kernel_type", FILTERS)
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_filters_and_gradient(gpu_matches_cpu, rng, kernel_type, antialias):
    x = random(rng, (2, 6, 5, 3), np.float32)
    attrs = {"kernel_type": kernel_type, "antialias": antialias}
    for size, scale in (([9, 8], [1.5, 1.6]), ([3, 2], [0.5, 0.4])):
        scale, trans = np.float32(scale), np.float32([0.25, -0.75])
        gpu_matches_cpu(ops.scale_and_translate, x, np.int32(size), scale, trans,
                        rtol=1e-5, atol=1e-5, **attrs)
        grads = random(rng, (2, *size, 3), np.float32)
        gpu_matches_cpu(ops.scale_and_translate_grad, grads, x, scale, trans, rtol=1e-5,
                        atol=1e-5, **attrs)


@pytest.mark.parametrize("tidx", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=name)
@pytest.mark.parametrize("binary", [False, True])
def test_dense_bincount(gpu_matches_cpu, rng, tidx, dtype, binary):
    for shape in ((40,), (5, 17)):
        values = rng.integers(0, 12, shape).astype(tidx)
        weights = rng.integers(0, 4, shape).astype(dtype)  # integers: sums exact in any order
        for w in (weights, np.zeros((0,), dtype)):
            gpu_matches_cpu(ops.dense_bincount, values, tidx(10), w, binary_output=binary)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=name)
def test_bincount(gpu_matches_cpu, rng, dtype):
    values = rng.integers(0, 12, (6, 7)).astype(np.int32)
    gpu_matches_cpu(ops.bincount, values, np.int32(10), rng.integers(0, 4, (6, 7)).astype(dtype))


def test_errors_match():
    image = np.ones((1, 3, 3, 1), np.float32)
    _raises_on_both(errors.InvalidArgumentError, ops.scale_and_translate, image, np.int32([2, 2]),
                    np.float32([0.0, 1.0]), np.float32([0.0, 0.0]))
    _raises_on_both(errors.InvalidArgumentError, ops.dense_bincount, np.int32([[[1]]]),
                    np.int32(3), np.zeros((0,), np.float32))


@pytest.mark.parametrize("tidx", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=name)
@pytest.mark.parametrize("binary", [False, True])
def test_ragged_and_sparse_bincount(gpu_matches_cpu, rng, tidx, dtype, binary):
    values = rng.integers(0, 12, 20).astype(tidx)
    weights = rng.integers(0, 4, 20).astype(dtype)
    splits = np.int64([0, 4, 4, 13, 20])
    gpu_matches_cpu(ops.ragged_bincount, splits, values, tidx(10), weights, binary_output=binary)
    for shape in ([50], [4, 6, 3]):
        flat = rng.choice(int(np.prod(shape)), 20, replace=False)
        indices = np.stack(np.unravel_index(flat, shape), 1).astype(np.int64)
        gpu_matches_cpu(ops.sparse_bincount, indices, values, np.int64(shape), tidx(10), weights,
                        binary_output=binary)


# CropAndResize (tests/python_runtime/test_crop_and_resize.py compares the CPU kernels
# with TensorFlow): boxes inside, flipped, across and outside the image, a point.
CROP_BOXES = np.float32([[0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.1, 0.3], [-0.3, -0.2, 0.5, 1.4],
                         [1.2, 1.1, 1.6, 1.9], [0.37, 0.61, 0.37, 0.61]])
CROP_IND = np.int32([0, 1, 1, 0, 1])
CROP_TYPES = [np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16, np.uint16,
              np.int32, np.int64]  # the OpDef's (no bfloat16)


@pytest.mark.parametrize("dtype", CROP_TYPES, ids=name)
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize(gpu_matches_cpu, rng, dtype, method):
    image = random(rng, (2, 5, 7, 3), dtype)
    for crop in ([3, 5], [1, 1], [6, 2]):
        gpu_matches_cpu(ops.crop_and_resize, image, CROP_BOXES, CROP_IND, np.int32(crop),
                        method=method, extrapolation_value=-2.0, rtol=1e-5, atol=1e-5)
        grads = random(rng, (len(CROP_BOXES), *crop, 3), np.float32)
        # atomicAdd sums in another order than the CPU's box order
        gpu_matches_cpu(ops.crop_and_resize_grad_boxes, grads, image, CROP_BOXES, CROP_IND,
                        rtol=1e-4, atol=1e-3)
        if np.dtype(dtype) in (np.float16, np.float32, np.float64):
            gpu_matches_cpu(ops.crop_and_resize_grad_image, grads, CROP_BOXES, CROP_IND,
                            np.int32(image.shape), T=dtype, method=method,
                            rtol=1e-2 if np.dtype(dtype) == np.float16 else 1e-5,
                            atol=1e-2 if np.dtype(dtype) == np.float16 else 1e-5)


def test_crop_and_resize_errors_on_both_devices(rng):
    image = random(rng, (2, 5, 7, 3), np.float32)
    _raises_on_both(errors.OutOfRangeError, ops.crop_and_resize, image, CROP_BOXES,
                    np.int32([0, 1, 2, 0, 1]), np.int32([3, 3]))
    _raises_on_both(errors.InvalidArgumentError, ops.crop_and_resize, image,
                    np.float32([[0, 0, np.nan, 1]]), np.int32([0]), np.int32([3, 3]))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.int64,
                                   np.complex128], ids=name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_image_patches(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 7, 8, 3), dtype)
    for k, s, r in (((3, 2), (2, 1), (2, 3)), ((1, 1), (1, 1), (1, 1)), ((4, 5), (3, 2), (1, 1))):
        gpu_matches_cpu(ops.extract_image_patches, x, ksizes=[1, *k, 1], strides=[1, *s, 1],
                        rates=[1, *r, 1], padding=padding, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16], ids=name)
def test_rgb_hsv(gpu_matches_cpu, rng, dtype):
    x = np.concatenate([random(rng, (1, 4, 5, 3), np.float32) % 1.0,
                        np.float32([[[[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0],
                                      [0.2, 0.7, 0.7]]]])], axis=1).astype(dtype)
    tol = 1e-3 if np.dtype(dtype) == np.float16 else 1e-6
    gpu_matches_cpu(ops.rgb_to_hsv, x, rtol=tol, atol=tol)
    gpu_matches_cpu(ops.hsv_to_rgb, x, rtol=tol, atol=tol)


def test_color_adjustments(gpu_matches_cpu, rng):
    x = random(rng, (2, 4, 5, 3), np.float32) % 1.0
    for f in (0.0, 0.3, -0.7, 1.8):
        gpu_matches_cpu(ops.adjust_hue, x, np.float32(f), rtol=1e-5, atol=1e-5)
        gpu_matches_cpu(ops.adjust_saturation, x, np.float32(abs(f)), rtol=1e-5, atol=1e-5)
        gpu_matches_cpu(ops.adjust_contrastv2, x, np.float32(f), rtol=1e-5, atol=1e-5)
