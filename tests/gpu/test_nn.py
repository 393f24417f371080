"""BiasAdd, FusedBatchNormV3, Conv2D, MaxPool and AvgPool on the GPU equal the CPU
kernels: every registered dtype, both layouts where the CPU has them, paddings,
strides, dilations, empty tensors, NaN in pooling, and the same errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import gemm_tolerance

try:
    from ml_dtypes import bfloat16
except ImportError:  # a dependency of opgen; without it the bfloat16 cases are left out
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REALS = FLOATS + INTS
# MaxPool's OpDef allows no uint32 or uint64.
MAX_POOL_TYPES = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16]


def name(dtype) -> str:
    return np.dtype(dtype).name


def is_int(dtype) -> bool:
    return np.issubdtype(np.dtype(dtype), np.integer)


def random(rng, shape, dtype, full_range=False):
    """Normal floats; small integers, or (full_range) any value of the type."""
    if is_int(dtype):
        info = np.iinfo(dtype)
        low, high = (info.min, info.max) if full_range else (max(info.min, -20), 21)
        return rng.integers(low, high, shape, dtype=dtype, endpoint=full_range)
    return rng.standard_normal(shape).astype(dtype)


def _raises_on_both(exception, fn, *args, **kwargs):
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(exception):
            result = fn(*args, **kwargs)
            for r in (result if isinstance(result, (list, tuple)) else [result]):
                r.numpy()


# ---- BiasAdd -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("data_format, shape", [
    ("NHWC", (2, 3)), ("NHWC", (2, 3, 4, 5)), ("NHWC", (4, 1)), ("NHWC", (0, 6)),
    ("NCHW", (2, 3, 4, 5)), ("NCHW", (2, 3)), ("NCHW", (2, 3, 0, 5)),
])
def test_bias_add(gpu_matches_cpu, rng, dtype, data_format, shape):
    value = random(rng, shape, dtype, full_range=True)  # integers wrap around on both
    channels = shape[1] if data_format == "NCHW" else shape[-1]
    bias = random(rng, (channels,), dtype, full_range=True)
    gpu_matches_cpu(ops.bias_add, value, bias, data_format=data_format)


def test_bias_add_large(gpu_matches_cpu, rng):
    gpu_matches_cpu(ops.bias_add, random(rng, (256, 32, 32, 48), np.float32),
                    random(rng, (48,), np.float32))


def test_bias_add_errors(rng):
    _raises_on_both(errors.InvalidArgumentError, ops.bias_add,
                    random(rng, (2, 3), np.float32), random(rng, (4,), np.float32))
    _raises_on_both(errors.InvalidArgumentError, ops.bias_add,
                    random(rng, (3,), np.float32), random(rng, (3,), np.float32))


# ---- FusedBatchNormV3 ------------------------------------------------------------------------

def _batch_norm_inputs(rng, channels):
    scale = random(rng, (channels,), np.float32)
    offset = random(rng, (channels,), np.float32)
    mean = random(rng, (channels,), np.float32)
    variance = np.abs(random(rng, (channels,), np.float32)) + 0.5
    return scale, offset, mean, variance


@pytest.mark.parametrize("is_training", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (7, 3), (64, 8, 8, 40), (1, 1, 1, 6), (0, 4)])
def test_fused_batch_norm(gpu_matches_cpu, rng, is_training, shape):
    x = (random(rng, shape, np.float32) * 3 + 1).astype(np.float32)
    gpu_matches_cpu(ops.fused_batch_norm_v3, x, *_batch_norm_inputs(rng, shape[-1]),
                    epsilon=0.001, is_training=is_training, rtol=1e-5, atol=1e-5)


def test_fused_batch_norm_training_blends_running_statistics(gpu_matches_cpu, rng):
    x = random(rng, (5, 6, 7, 3), np.float32)
    scale, offset, mean, variance = _batch_norm_inputs(rng, 3)
    gpu_matches_cpu(ops.fused_batch_norm_v3, x, scale, offset, mean, variance,
                    exponential_avg_factor=0.25, is_training=True, rtol=1e-5, atol=1e-5)
    # Training without running statistics: empty mean and variance.
    empty = np.zeros((0,), np.float32)
    gpu_matches_cpu(ops.fused_batch_norm_v3, x, scale, offset, empty, empty,
                    is_training=True, rtol=1e-5, atol=1e-5)


def test_fused_batch_norm_errors(rng):
    x = random(rng, (2, 3, 4, 5), np.float32)
    scale, offset, mean, variance = _batch_norm_inputs(rng, 5)
    _raises_on_both(errors.InvalidArgumentError, ops.fused_batch_norm_v3, x, scale[:4], offset,
                    mean, variance, is_training=False)
    _raises_on_both(errors.InvalidArgumentError, ops.fused_batch_norm_v3, x, scale, offset,
                    mean[:2], variance, is_training=False)
    # NCHW: x's channels are its second dimension (3), not the 5 statistics
    _raises_on_both(errors.InvalidArgumentError, ops.fused_batch_norm_v3, x, scale, offset, mean,
                    variance, data_format="NCHW", is_training=False)


# ---- Conv2D --------------------------------------------------------------------------------

CONV_TYPES = FLOATS + [np.int32]


@pytest.mark.parametrize("dtype", CONV_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("strides, dilations", [((1, 1), (1, 1)), ((2, 2), (1, 1)),
                                                ((1, 2), (1, 1)), ((1, 1), (2, 2)),
                                                ((2, 1), (1, 3))])
def test_conv2d(gpu_matches_cpu, rng, dtype, padding, strides, dilations):
    x = random(rng, (2, 9, 8, 3), dtype)
    f = random(rng, (3, 2, 3, 4), dtype)
    gpu_matches_cpu(ops.conv2d, x, f, strides=[1, *strides, 1], padding=padding,
                    dilations=[1, *dilations, 1], **gemm_tolerance(dtype, 3 * 2 * 3))


@pytest.mark.parametrize("dtype", CONV_TYPES, ids=name)
def test_conv2d_explicit_padding(gpu_matches_cpu, rng, dtype):
    x = random(rng, (2, 6, 7, 2), dtype)
    f = random(rng, (3, 3, 2, 5), dtype)
    gpu_matches_cpu(ops.conv2d, x, f, strides=[1, 2, 1, 1], padding="EXPLICIT",
                    explicit_paddings=[0, 0, 2, 1, 0, 3, 0, 0], **gemm_tolerance(dtype, 18))


@pytest.mark.parametrize("dtype", CONV_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_conv2d_1x1_is_one_gemm(gpu_matches_cpu, rng, dtype, padding):
    x = random(rng, (3, 5, 6, 16), dtype)
    f = random(rng, (1, 1, 16, 8), dtype)
    gpu_matches_cpu(ops.conv2d, x, f, strides=[1, 1, 1, 1], padding=padding,
                    **gemm_tolerance(dtype, 16))
    # Strided 1x1 windows skip pixels: the im2col path.
    gpu_matches_cpu(ops.conv2d, x, f, strides=[1, 2, 2, 1], padding=padding,
                    **gemm_tolerance(dtype, 16))


def test_conv2d_larger(gpu_matches_cpu, rng):
    x = random(rng, (8, 32, 32, 32), np.float32)
    f = random(rng, (3, 3, 32, 64), np.float32)
    gpu_matches_cpu(ops.conv2d, x, f, strides=[1, 1, 1, 1], padding="SAME",
                    **gemm_tolerance(np.float32, 288))


@pytest.mark.parametrize("x_shape, f_shape, padding", [
    ((0, 5, 5, 2), (3, 3, 2, 4), "SAME"),   # no images
    ((2, 5, 5, 0), (3, 3, 0, 4), "SAME"),   # no input channels: zeros
    ((2, 5, 5, 3), (3, 3, 3, 0), "SAME"),   # no output channels
])
def test_conv2d_empty(gpu_matches_cpu, rng, x_shape, f_shape, padding):
    gpu_matches_cpu(ops.conv2d, random(rng, x_shape, np.float32), random(rng, f_shape, np.float32),
                    strides=[1, 1, 1, 1], padding=padding)


def test_conv2d_errors(rng):
    x = random(rng, (1, 4, 4, 2), np.float32)
    _raises_on_both(errors.InvalidArgumentError, ops.conv2d, x, random(rng, (2, 2, 3, 1), np.float32),
                    strides=[1, 1, 1, 1], padding="VALID")
    _raises_on_both(errors.UnimplementedError, ops.conv2d, x, random(rng, (2, 2, 2, 1), np.float32),
                    strides=[1, 1, 1, 1], padding="VALID", data_format="NCHW")
    _raises_on_both(errors.UnimplementedError, ops.conv2d, x, random(rng, (2, 2, 2, 1), np.float32),
                    strides=[2, 1, 1, 1], padding="VALID")
    # A VALID window larger than the image (issue 18: it gave an empty tensor).
    _raises_on_both(errors.InvalidArgumentError, ops.conv2d, random(rng, (2, 2, 2, 2), np.float32),
                    random(rng, (3, 3, 2, 4), np.float32), strides=[1, 1, 1, 1], padding="VALID")


# ---- MaxPool and AvgPool -----------------------------------------------------------------------

WINDOWS = [((2, 2), (2, 2)), ((3, 3), (1, 1)), ((3, 2), (2, 1)), ((1, 1), (1, 1)), ((4, 4), (3, 3))]


@pytest.mark.parametrize("dtype", MAX_POOL_TYPES, ids=name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize, strides", WINDOWS)
def test_max_pool(gpu_matches_cpu, rng, dtype, padding, ksize, strides):
    x = random(rng, (2, 7, 5, 3), dtype, full_range=True)
    gpu_matches_cpu(ops.max_pool, x, ksize=[1, *ksize, 1], strides=[1, *strides, 1],
                    padding=padding)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize, strides", WINDOWS)
def test_avg_pool(gpu_matches_cpu, rng, dtype, padding, ksize, strides):
    x = random(rng, (2, 7, 5, 3), dtype)
    gpu_matches_cpu(ops.avg_pool, x, ksize=[1, *ksize, 1], strides=[1, *strides, 1],
                    padding=padding)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_max_pool_nan_and_infinities(gpu_matches_cpu, rng, dtype):
    x = random(rng, (1, 6, 6, 2), dtype)
    x[0, 0, 0, 0] = np.nan
    x[0, 2:4, 2:4, 1] = np.nan  # a whole window of NaN
    x[0, 5, 5, 0] = np.inf
    x[0, 4, 1, 1] = -np.inf
    gpu_matches_cpu(ops.max_pool, x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    gpu_matches_cpu(ops.avg_pool, x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")


def test_max_pool_explicit_padding(gpu_matches_cpu, rng):
    x = random(rng, (2, 6, 5, 3), np.float32)
    gpu_matches_cpu(ops.max_pool, x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="EXPLICIT",
                    explicit_paddings=[0, 0, 1, 2, 2, 1, 0, 0])


def test_pool_larger(gpu_matches_cpu, rng):
    x = random(rng, (32, 56, 56, 64), np.float32)
    gpu_matches_cpu(ops.max_pool, x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    gpu_matches_cpu(ops.avg_pool, x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")


@pytest.mark.parametrize("shape, ksize, padding", [((0, 4, 4, 3), 2, "SAME"),
                                                   ((2, 4, 4, 0), 2, "SAME")])
def test_pool_empty(gpu_matches_cpu, rng, shape, ksize, padding):
    x = random(rng, shape, np.float32)
    for op in (ops.max_pool, ops.avg_pool):
        gpu_matches_cpu(op, x, ksize=[1, ksize, ksize, 1], strides=[1, 1, 1, 1], padding=padding)


def test_pool_errors(rng):
    _raises_on_both(errors.InvalidArgumentError, ops.max_pool, random(rng, (4, 4, 3), np.float32),
                    ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    _raises_on_both(errors.UnimplementedError, ops.avg_pool, random(rng, (1, 4, 4, 3), np.float32),
                    ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID", data_format="NCHW")
    for op in (ops.max_pool, ops.avg_pool):  # a VALID window larger than the image
        _raises_on_both(errors.InvalidArgumentError, op, random(rng, (2, 2, 2, 3), np.float32),
                        ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding="VALID")


@pytest.mark.parametrize("ksize", [2**31 - 1, 2**63 - 1])
def test_pool_huge_window_costs_the_clipped_window(gpu_matches_cpu, rng, ksize):
    # Issue 18: the window loop ran over ksize, not over the image (66 s on the CPU).
    x = random(rng, (2, 4, 5, 3), np.float32)
    for op in (ops.max_pool, ops.avg_pool):
        gpu_matches_cpu(op, x, ksize=[1, ksize, ksize, 1], strides=[1, 1, 1, 1], padding="SAME")
