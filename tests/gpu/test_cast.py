"""The GPU's Cast, Fill, ZerosLike and OnesLike equal the CPU's, bit for bit: Cast for
every pair of real types and bool (NaN, infinities, out-of-range values, half and
bfloat16 rounding ties included), the others for every fixed-size type."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

try:
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
CAST_TYPES = FLOATS + INTS + [np.bool_]
ALL_TYPES = CAST_TYPES + [np.complex64, np.complex128]

# Values where conversions differ: NaN, infinities, signed zeros, ties for half and
# bfloat16, the edges of every integer range and beyond, huge and tiny magnitudes.
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128.0,
            -128.5, 255.5, 256.0, 32767.5, 65504.0, 65519.0, 65520.0, 1.00048828125,
            1.0009765625, 1.00390625, 2147483520.0, 2147483648.0, -2147483648.0,
            -2147483904.0, 4294967296.0, 9.2233720368547748e18, -9.2233720368547758e18,
            1.8446744073709552e19, 1e20, -1e20, 1e-8, 6e-8, 3.3895313892515355e38, 3e38]


def name(dtype) -> str:
    return np.dtype(dtype).name


def source(rng, dtype, shape=(4099,)):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        edges = np.array([info.min, info.max, 0, 1], dtype=dtype)
        k = min(x.size, edges.size)
        x.reshape(-1)[:k] = edges[:k]
        return x
    with np.errstate(over="ignore"):
        x = np.asarray(rng.uniform(-3, 3, size=shape) * 2.0 ** rng.integers(0, 70, size=shape))
        k = min(x.size, len(SPECIALS))
        x.reshape(-1)[:k] = SPECIALS[:k]
        return np.asarray(x.astype(dtype))


@pytest.mark.parametrize("dst", CAST_TYPES, ids=name)
@pytest.mark.parametrize("src", CAST_TYPES, ids=name)
def test_cast_matches_cpu_bit_for_bit(gpu_matches_cpu, rng, src, dst):
    x = source(rng, src)
    got = gpu_matches_cpu(ops.cast, x, DstT=name(dst))[0]
    with opgen.device("/CPU:0"):
        want = ops.cast(x, DstT=name(dst)).numpy()
    # NaN payloads aside, every bit is the CPU's
    nan = np.isnan(want.astype(np.float64)) if np.dtype(dst) in [np.dtype(f) for f in FLOATS] \
        else np.zeros(want.shape, bool)
    np.testing.assert_array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8))


@pytest.mark.parametrize("shape", [(0,), (), (3, 0, 5), (1,), (17,)], ids=str)
@pytest.mark.parametrize("src, dst", [(np.float32, np.int32), (np.int64, np.float16),
                                      (np.bool_, np.float64), (np.uint8, np.uint8)])
def test_cast_shapes(gpu_matches_cpu, rng, src, dst, shape):
    gpu_matches_cpu(ops.cast, source(rng, src, shape), DstT=name(dst))


def test_cast_truncate_attr_is_accepted(gpu_matches_cpu, rng):
    gpu_matches_cpu(ops.cast, source(rng, np.float32), DstT="float16", Truncate=True)


@pytest.mark.parametrize("src", [np.float32, np.float64], ids=name)
def test_cast_truncate_to_bfloat16_matches_cpu(gpu_matches_cpu, rng, src):
    """float32 to bfloat16 rounds toward zero with Truncate=True (float64 still rounds to
    nearest, as in TensorFlow); NaN stays NaN."""
    if bfloat16 is None:
        pytest.skip("ml_dtypes is not installed")
    x = source(rng, src)
    got = gpu_matches_cpu(ops.cast, x, DstT="bfloat16", Truncate=True)[0]
    with opgen.device("/CPU:0"):
        want = ops.cast(x, DstT="bfloat16", Truncate=True).numpy()
    nan = np.isnan(want.astype(np.float64))
    np.testing.assert_array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16))


def value_of(rng, dtype):
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return np.array(rng.normal() + 1j * rng.normal(), dtype=dtype)
    return source(rng, dtype, ()).astype(dtype) if dtype != np.bool_ else np.array(True)


@pytest.mark.parametrize("index", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dims", [(3, 4), (0, 5), (), (100003,), (2, 1, 3)], ids=str)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=name)
def test_fill_matches_cpu(gpu_matches_cpu, rng, dtype, dims, index):
    gpu_matches_cpu(ops.fill, np.array(dims, dtype=index), value_of(rng, dtype))


@pytest.mark.parametrize("dims, value_shape", [((-1, 2), ()), ((3,), (1,))], ids=str)
def test_fill_errors_alike(rng, dims, value_shape):
    dims = np.array(dims, dtype=np.int32)
    value = np.ones(value_shape, np.float32)
    with opgen.device("/CPU:0"):
        with pytest.raises(errors.OpError) as cpu:
            ops.fill(dims, value)
    with opgen.device("/GPU:0"):
        with pytest.raises(errors.OpError) as gpu:
            ops.fill(dims, value)
    assert type(gpu.value) is type(cpu.value)
    assert "Fill:" in str(gpu.value)


@pytest.mark.parametrize("shape", [(7,), (), (0,), (2, 0), (100003,)], ids=str)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=name)
def test_zeros_like_and_ones_like_match_cpu(gpu_matches_cpu, rng, dtype, shape):
    x = np.broadcast_to(value_of(rng, dtype), shape).copy()
    gpu_matches_cpu(ops.zeros_like, x)
    gpu_matches_cpu(ops.ones_like, x)
