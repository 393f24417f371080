"""The GPU's reductions equal the CPU's: Sum, Mean, Max, Min, Prod over sets of axes
(keep_dims, negative axes, int32 and int64 reduction_indices, empty inputs, scalars,
NaN), ArgMax / ArgMin (ties, NaN, bool, both output types) and Softmax / LogSoftmax
over the last axis. Shapes are chosen to reach every kernel path: warp and block per
row, rows split across blocks, columns with and without split, the general pattern."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None

FLOAT16S = [np.float16] + ([bfloat16] if bfloat16 is not None else [])
FLOATS = [np.float32, np.float64] + FLOAT16S
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REALS = FLOATS + INTS

REDUCERS = {"sum": ops.sum, "mean": ops.mean, "max": ops.max, "min": ops.min, "prod": ops.prod}

# (shape, axes): each layout the kernel distinguishes.
SMALL_CASES = [
    ((), []),                      # a scalar, nothing reduced
    ((7,), [0]),                   # everything, one warp
    ((7,), [-1]),
    ((3, 4, 5), []),               # nothing reduced: a copy
    ((3, 4, 5), [2]),              # [kept, reduced]: rows
    ((3, 4, 5), [-3]),             # [reduced, kept]: columns
    ((3, 4, 5), [1]),              # [kept, reduced, kept]
    ((3, 4, 5), [0, 2]),           # [reduced, kept, reduced]: general
    ((2, 3, 4, 5), [1, 3]),        # [kept, reduced, kept, reduced]: general
    ((3, 4, 5), [0, 1, 2]),        # everything
    ((3, 1, 5), [1]),              # a size-1 axis: nothing really reduced
    ((3, 4, 5), [2, 2]),           # a repeated axis
]
EMPTY_CASES = [
    ((0,), [0]),                   # empty reduction: the identity
    ((0, 4), [0]),
    ((4, 0), [1]),
    ((2, 0, 3), [1]),
    ((0, 4), [1]),                 # empty output
    ((0, 4), []),
]
# Large enough for the multi-block paths; float32 / float16 / int32 only.
LARGE_CASES = [
    ((300, 3001), [1]),            # a block per row
    ((5, 200003), [-1]),           # few long rows: split into segments
    (((1 << 20) + 3,), [0]),       # everything: segments, an unaligned tail
    ((3001, 300), [0]),            # few columns, many rows: split
    ((2, 60001, 3), [1]),          # very few columns
    ((64, 64, 64), [0, 2]),        # general, inputs cut into chunks
    ((7, 3, 50001), [0, 2]),       # general, chunks across the inner rows
    ((3, 5000, 7), [0, 2]),        # general, many outputs
    ((600, 700), [0, 1]),
]


def name(dtype) -> str:
    return np.dtype(dtype).name


def values(rng, shape, dtype, low=-3.0, high=3.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else int(low * 10)
        return rng.integers(lo, int(high * 10) + 1, size=shape).astype(dtype)
    return np.asarray(rng.uniform(low, high, size=shape).astype(dtype), dtype=dtype)


def tolerance(op: str, dtype, x: np.ndarray, axes) -> dict:
    """Sums of many floats differ by the order they are added in: allow the error a
    sum of `count` values of magnitude max|x| can have in float32 (half and bfloat16
    sum in float32 too) or float64."""
    if not np.issubdtype(np.dtype(dtype), np.floating) and dtype is not bfloat16:
        return {}
    if op not in ("sum", "mean") or x.size == 0:
        return {}
    count = 1
    for a in (axes if len(axes) else []):
        count *= x.shape[a]
    eps = 1e-15 if np.dtype(dtype) == np.float64 else 1e-7
    magnitudes = np.abs(x.astype(np.float64))
    magnitudes = magnitudes[np.isfinite(magnitudes)]  # NaN and inf results match exactly
    scale = float(magnitudes.max()) if magnitudes.size else 1.0
    atol = 4 * eps * count * scale / (count if op == "mean" else 1)
    base = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-14}
    return {"atol": max(atol, base.get(np.dtype(dtype), 1.6e-2))}


def _reduce_inputs(rng, op, dtype, shape):
    if op == "prod":  # products of many values near 1 stay finite
        return values(rng, shape, dtype, 0.5, 1.5) if np.dtype(dtype).kind == "f" or dtype is bfloat16 \
            else values(rng, shape, dtype)
    return values(rng, shape, dtype)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("shape,axes", SMALL_CASES + EMPTY_CASES, ids=str)
@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_reduce(gpu_matches_cpu, rng, op, dtype, shape, axes, keep_dims):
    x = _reduce_inputs(rng, op, dtype, shape)
    gpu_matches_cpu(REDUCERS[op], x, np.array(axes, np.int32), keep_dims=keep_dims,
                    **tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_reduce_int64_axes(gpu_matches_cpu, rng, op, index_dtype):
    x = values(rng, (3, 4, 5), np.float32)
    gpu_matches_cpu(REDUCERS[op], x, np.array([-1, 0], index_dtype), keep_dims=True,
                    **tolerance(op, np.float32, x, [-1, 0]))


@pytest.mark.parametrize("shape,axes", LARGE_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=name)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reduce_large(gpu_matches_cpu, rng, op, dtype, shape, axes):
    x = values(rng, shape, dtype)
    gpu_matches_cpu(REDUCERS[op], x, np.array(axes, np.int64), **tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8, np.int8] + FLOAT16S, ids=name)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_reduce_large_other_dtypes(gpu_matches_cpu, rng, op, dtype):
    """The segment and column-split paths of the other accumulator types (int8 and
    uint8 sums wrap; integer means sum in 64 bits)."""
    for shape, axes in [(((1 << 18) + 5,), [0]), ((4001, 7), [0]), ((3, 5000), [1])]:
        x = _reduce_inputs(rng, op, dtype, shape)
        gpu_matches_cpu(REDUCERS[op], x, np.array(axes, np.int32), **tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_reduce_nan_and_inf(gpu_matches_cpu, rng, op, dtype):
    """NaN propagates through every reduction (Max and Min too), wherever it sits."""
    for shape, axes, spots in [
        ((5, 9), [1], [(0, 0), (1, 8), (2, 4)]),                 # rows
        ((9, 5), [0], [(0, 0), (8, 1), (4, 2)]),                 # columns
        ((5000,), [0], [(4999,)]),                               # everything, one tail NaN
        (((1 << 18) + 1,), [0], [(77777,)]),                     # segments
        ((4, 3, 5), [0, 2], [(1, 1, 1)]),                        # general
    ]:
        x = values(rng, shape, dtype, 0.5, 1.5)
        for s in spots:
            x[s] = np.nan
        if len(shape) == 2:
            x[-1, -1] = np.inf
            x[-1, 0] = -np.inf
        gpu_matches_cpu(REDUCERS[op], x, np.array(axes, np.int32), **tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_reduce_bad_axis(op):
    x = np.ones((2, 3), np.float32)
    for device in ["/CPU:0", "/GPU:0"]:
        with opgen.device(device), pytest.raises(opgen.errors.InvalidArgumentError):
            REDUCERS[op](x, np.array([2], np.int32))
        with opgen.device(device), pytest.raises(opgen.errors.InvalidArgumentError):
            REDUCERS[op](np.float32(1.0), np.array([0], np.int32))


# ---- ArgMax / ArgMin ----------------------------------------------------------------

ARG_OPS = {"arg_max": ops.arg_max, "arg_min": ops.arg_min}
ARG_CASES = [
    ((7,), 0),
    ((3, 4, 5), 2),
    ((3, 4, 5), -1),
    ((3, 4, 5), 0),
    ((3, 4, 5), 1),
    ((1, 5), 0),
    ((0, 5), 1),                 # empty output
    ((300, 3001), 1),            # long rows
    ((3001, 30), 0),             # long columns
]


@pytest.mark.parametrize("output_type", ["int64", "int32"])
@pytest.mark.parametrize("shape,axis", ARG_CASES, ids=str)
@pytest.mark.parametrize("dtype", REALS + [np.bool_], ids=name)
@pytest.mark.parametrize("op", sorted(ARG_OPS))
def test_arg_reduce(gpu_matches_cpu, rng, op, dtype, shape, axis, output_type):
    # Few distinct values, so ties are common: the first index wins on both.
    x = values(rng, shape, dtype, -0.2, 0.2) if dtype is not np.bool_ else values(rng, shape, dtype)
    if np.dtype(dtype).kind == "f" or dtype is bfloat16:
        x = np.round(x.astype(np.float32) * 5).astype(dtype)
    gpu_matches_cpu(ARG_OPS[op], x, np.array(axis, np.int32), output_type=output_type)
    gpu_matches_cpu(ARG_OPS[op], x, np.array(axis, np.int64), output_type=output_type)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(ARG_OPS))
def test_arg_reduce_nan(gpu_matches_cpu, rng, op, dtype):
    """As TensorFlow and the CPU kernel: NaN is passed over wherever it is; all NaN gives 0."""
    for shape, axis in [((6, 40), 1), ((40, 6), 0), ((6, 5000), 1)]:
        x = values(rng, shape, dtype)
        flat = np.moveaxis(x, axis, -1)  # a view: rows along the reduced axis
        flat[0, 0] = np.nan             # NaN first
        flat[1, 3] = np.nan             # NaN inside
        flat[2, :] = np.nan             # all NaN
        flat[3, -1] = np.nan            # NaN last
        flat[4, 2] = np.inf
        flat[4, 7] = -np.inf
        gpu_matches_cpu(ARG_OPS[op], x, np.array(axis, np.int32))


@pytest.mark.parametrize("op", sorted(ARG_OPS))
def test_arg_reduce_errors(op):
    for x, axis in [(np.ones((2, 3), np.float32), 2), (np.ones((2, 0), np.float32), 1)]:
        for device in ["/CPU:0", "/GPU:0"]:
            with opgen.device(device), pytest.raises(opgen.errors.InvalidArgumentError):
                ARG_OPS[op](x, np.array(axis, np.int32))


# ---- Softmax / LogSoftmax -----------------------------------------------------------

SOFTMAX_OPS = {"softmax": ops.softmax, "log_softmax": ops.log_softmax}


@pytest.mark.parametrize("shape", [(5,), (3, 7), (2, 3, 33), (4, 1000), (3, 3001), (2, 0), (0, 4),
                                   (2, 0, 3)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(SOFTMAX_OPS))
def test_softmax(gpu_matches_cpu, rng, op, dtype, shape):
    x = values(rng, shape, dtype, -10.0, 10.0)
    gpu_matches_cpu(SOFTMAX_OPS[op], x)


@pytest.mark.parametrize("depth", [6, 3000])
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(SOFTMAX_OPS))
def test_softmax_nan_and_inf(gpu_matches_cpu, rng, op, dtype, depth):
    """A NaN or +inf anywhere makes the row NaN; -inf gives 0 (log: -inf); a row of
    only -inf is NaN; large logits stay finite."""
    x = values(rng, (7, depth), dtype, -5.0, 5.0)
    x[0, 0] = np.nan
    x[1, depth // 2] = np.nan
    x[2, 1] = np.inf
    x[3, 2] = -np.inf
    x[4, :] = -np.inf
    x[5, :3] = 60000.0 if np.dtype(dtype) == np.float16 else 1e30
    x[6, 0] = -np.inf
    x[6, -1] = np.inf
    gpu_matches_cpu(SOFTMAX_OPS[op], x)


@pytest.mark.parametrize("op", sorted(SOFTMAX_OPS))
def test_softmax_scalar_is_an_error(op):
    for device in ["/CPU:0", "/GPU:0"]:
        with opgen.device(device), pytest.raises(opgen.errors.InvalidArgumentError):
            SOFTMAX_OPS[op](np.float32(1.0))
