"""The fake-quantization ops, LRN / LRNGrad, the max-pool variants (MaxPoolV2 and its
backprops, MaxPoolWithArgmax / MaxPoolGradWithArgmax) and Dilation2D with its backprops on
the GPU equal the CPU kernels,
for every registered dtype, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import FLOATS

MAX_POOL_TYPES = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16]
REAL_TYPES = MAX_POOL_TYPES + [np.uint32, np.uint64]


def name(dtype) -> str:
    return np.dtype(dtype).name


def random(rng, shape, dtype=np.float32):
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(0, 5, shape).astype(dtype)  # ties
    return (rng.standard_normal(shape) * 2).astype(dtype)


@pytest.mark.parametrize("attrs", [{}, {"num_bits": 4, "narrow_range": True}, {"num_bits": 16}])
def test_fake_quant(gpu_matches_cpu, rng, attrs):
    x, dy = random(rng, (7, 33, 5)), random(rng, (7, 33, 5))
    lo, hi = np.float32(-1.5), np.float32(2.25)
    mins = np.float32([-1, -3, 0, 0, -0.5])  # channel 3: a zero range
    maxs = np.float32([1, 0.5, 2, 0, 3])
    gpu_matches_cpu(ops.fake_quant_with_min_max_args, x, min=-2.0, max=1.0, **attrs, rtol=0, atol=0)
    gpu_matches_cpu(ops.fake_quant_with_min_max_args_gradient, dy, x, min=-2.0, max=1.0, **attrs, rtol=0, atol=0)
    gpu_matches_cpu(ops.fake_quant_with_min_max_vars, x, lo, hi, **attrs, rtol=0, atol=0)
    gpu_matches_cpu(ops.fake_quant_with_min_max_vars_gradient, dy, x, lo, hi, **attrs, rtol=1e-5, atol=1e-4)
    gpu_matches_cpu(ops.fake_quant_with_min_max_vars_per_channel, x, mins, maxs, **attrs, rtol=0, atol=0)
    gpu_matches_cpu(ops.fake_quant_with_min_max_vars_per_channel_gradient, dy, x, mins, maxs, **attrs,
                    rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=name)
@pytest.mark.parametrize("attrs", [{}, {"depth_radius": 2, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}])
def test_lrn(gpu_matches_cpu, rng, dtype, attrs):
    x, dy = random(rng, (2, 5, 4, 13), dtype), random(rng, (2, 5, 4, 13), dtype)
    y = ops.lrn(x, **attrs).numpy()
    tol = 1e-5 if dtype == np.float32 else 2e-3
    gpu_matches_cpu(ops.lrn, x, **attrs, rtol=tol, atol=tol)
    gpu_matches_cpu(ops.lrn_grad, dy, x, y, **attrs, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", MAX_POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_v2(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 9, 7, 3), dtype)
    k, s = np.int32([1, 3, 2, 1]), np.int32([1, 2, 2, 1])
    gpu_matches_cpu(ops.max_pool_v2, x, k, s, padding=padding, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", REAL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad_v2(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (2, 9, 7, 3), dtype)
    k, s = np.int32([1, 3, 2, 1]), np.int32([1, 2, 2, 1])
    y = ops.max_pool(x.astype(np.float64), ksize=list(k), strides=list(s), padding=padding).numpy().astype(dtype)
    gpu_matches_cpu(ops.max_pool_grad_v2, x, y, random(rng, y.shape, dtype), k, s, padding=padding)
    gpu_matches_cpu(ops.max_pool_grad_grad_v2, x, y, random(rng, x.shape, dtype), k, s, padding=padding)


@pytest.mark.parametrize("dtype", REAL_TYPES, ids=name)
@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("targmax", [np.int32, np.int64], ids=name)
def test_max_pool_with_argmax(gpu_matches_cpu, rng, dtype, include, targmax):
    x = random(rng, (3, 8, 7, 4), dtype)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "include_batch_in_index": include}
    y, am = gpu_matches_cpu(ops.max_pool_with_argmax, x, Targmax=targmax, **attrs, rtol=0, atol=0)
    if targmax == np.int64:  # TensorFlow's gradient kernels take int64 argmax only; so do ours
        gpu_matches_cpu(ops.max_pool_grad_with_argmax, x, random(rng, y.shape, dtype), am, **attrs)


@pytest.mark.parametrize("dtype", REAL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_dilation2d(gpu_matches_cpu, rng, dtype, padding):
    x, f = random(rng, (2, 7, 6, 3), dtype), random(rng, (3, 2, 3), dtype)
    attrs = {"strides": [1, 2, 1, 1], "rates": [1, 1, 2, 1], "padding": padding}
    y = gpu_matches_cpu(ops.dilation2d, x, f, **attrs, rtol=0, atol=0)[0]
    dy = random(rng, y.shape, dtype)
    gpu_matches_cpu(ops.dilation2d_backprop_input, x, f, dy, **attrs)
    gpu_matches_cpu(ops.dilation2d_backprop_filter, x, f, dy, **attrs)


def test_errors_match_the_cpu():
    x = np.zeros((1, 4, 4, 2), np.float32)
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="num_bits"):
            ops.fake_quant_with_min_max_args(x, num_bits=1).numpy()
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="min has incorrect size"):
            ops.fake_quant_with_min_max_vars_per_channel(x, np.zeros(3, np.float32), np.ones(2, np.float32)).numpy()
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="4-dimensional"):
            ops.lrn(x[0]).numpy()
        with opgen.device(device), pytest.raises(errors.UnimplementedError, match="batch dimension"):
            ops.max_pool_v2(x, np.int32([2, 2, 2, 1]), np.int32([1, 2, 2, 1]), padding="VALID").numpy()
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="same depth"):
            ops.dilation2d(x, np.zeros((2, 2, 3), np.float32), strides=[1] * 4, rates=[1] * 4,
                           padding="VALID").numpy()
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="Invalid argmax index"):
            ops.max_pool_grad_with_argmax(x, np.ones((1, 2, 2, 2), np.float32), np.full((1, 2, 2, 2), 99, np.int64),
                                          ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID").numpy()
