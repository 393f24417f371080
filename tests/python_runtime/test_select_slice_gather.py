"""SelectV2, ClipByValue, AddN, Slice, Pad, Tile, GatherV2 and Range equal numpy."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(9)
TYPES = [np.float32, np.float64, np.int32, np.int64]


def values(shape, dtype):
    return (rng.standard_normal(shape) * 10).astype(dtype)


def run(op, inputs, attrs=None):
    return np.asarray(execute_op(op, inputs, attrs or {})[0])


@pytest.mark.parametrize("dtype", TYPES)
def test_select_and_clip_broadcast_three_ways(dtype):
    cond = rng.integers(0, 2, (4, 1)).astype(bool)
    t, e = values((1, 5), dtype), values((4, 5), dtype)
    np.testing.assert_array_equal(run("SelectV2", [cond, t, e]), np.where(cond, t, e))
    x = values((3, 4), dtype)
    lo, hi = np.array(-2, dtype), values((4,), dtype) ** 2
    np.testing.assert_array_equal(run("ClipByValue", [x, lo, hi]), np.minimum(np.maximum(x, lo), hi))


@pytest.mark.parametrize("dtype", TYPES)
def test_add_n(dtype):
    xs = [values((2, 3), dtype) for _ in range(4)]
    np.testing.assert_allclose(run("AddN", [xs]), sum(xs[1:], xs[0]), rtol=1e-6)
    with pytest.raises(errors.InvalidArgumentError, match="same shape"):
        execute_op("AddN", [[np.ones(2, dtype), np.ones(3, dtype)]], {})


@pytest.mark.parametrize("dtype", TYPES + [np.bool_])
def test_slice_pad_tile(dtype):
    x = values((4, 5, 3), dtype)
    np.testing.assert_array_equal(run("Slice", [x, [1, 0, 1], [2, -1, 2]]), x[1:3, :, 1:3])
    np.testing.assert_array_equal(run("Pad", [x, [[1, 0], [0, 2], [1, 1]]]),
                                  np.pad(x, [(1, 0), (0, 2), (1, 1)]))
    np.testing.assert_array_equal(run("Tile", [x, [2, 1, 3]]), np.tile(x, (2, 1, 3)))
    with pytest.raises(errors.InvalidArgumentError, match="exceed"):
        execute_op("Slice", [x, [3, 0, 0], [2, 1, 1]], {})


@pytest.mark.parametrize("seed", range(40))
def test_row_copies_match_numpy(seed):
    # Slice, Pad, Tile and StridedSlice copy whole rows after merging the trailing
    # dimensions they leave intact, on all cores for big tensors: random ranks (0-5),
    # operands that leave 0..rank trailing dims whole, and sizes on both sides of the
    # parallel threshold.
    r = np.random.default_rng(seed)
    rank = int(r.integers(0, 6))
    big = seed % 4 == 0
    shape = tuple(int(r.integers(1, 40 if big and d >= rank - 2 else 5)) for d in range(rank))
    dtype = [np.float32, np.uint8, np.int64, np.float16][seed % 4]
    x = (r.standard_normal(shape) * 10).astype(dtype)
    whole = int(r.integers(0, rank + 1))  # how many trailing dims each op leaves alone
    changed = [d < rank - whole for d in range(rank)]

    begin = [int(r.integers(0, n)) if c else 0 for n, c in zip(shape, changed)]
    size = [int(r.integers(0, n - b + 1)) if c else -1 for n, b, c in zip(shape, begin, changed)]
    want = x[tuple(slice(b, None if s < 0 else b + s) for b, s in zip(begin, size))]
    np.testing.assert_array_equal(run("Slice", [x, np.array(begin, np.int64).reshape(rank),
                                                np.array(size, np.int64).reshape(rank)]), want)

    pads = [[int(r.integers(0, 3)), int(r.integers(0, 3))] if c else [0, 0] for c in changed]
    np.testing.assert_array_equal(run("Pad", [x, np.array(pads, np.int32).reshape(rank, 2)]),
                                  np.pad(x, pads) if rank else x)

    reps = [int(r.integers(1, 3)) if c else 1 for c in changed]
    np.testing.assert_array_equal(run("Tile", [x, np.array(reps, np.int32).reshape(rank)]),
                                  np.tile(x, reps) if rank else x)

    if rank:
        steps = [int(r.choice([-2, -1, 1, 2, 3])) if c else 1 for c in changed]
        starts = [int(r.integers(0, n)) if c else 0 for n, c in zip(shape, changed)]
        got = run("StridedSlice", [x, np.array(starts, np.int32), np.full(rank, 0, np.int32),
                                   np.array(steps, np.int32)], {"end_mask": (1 << rank) - 1})
        np.testing.assert_array_equal(got, x[tuple(slice(s, None, k) for s, k in zip(starts, steps))])


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather(axis, index_dtype):
    params = values((4, 5, 6), np.float32)
    indices = rng.integers(0, params.shape[axis], (2, 3)).astype(index_dtype)
    np.testing.assert_array_equal(run("GatherV2", [params, indices, axis]),
                                  np.take(params, indices, axis=axis))
    with pytest.raises(errors.InvalidArgumentError, match="not in"):
        execute_op("GatherV2", [params, np.array([9], index_dtype), 0], {})
    with pytest.raises(errors.UnimplementedError, match="batch_dims"):
        execute_op("GatherV2", [params, indices, 0], {"batch_dims": 1})


@pytest.mark.parametrize("start, limit, delta", [(0, 10, 3), (5, -3, -2), (0.5, 2.0, 0.25), (3, 3, 1)])
def test_range(start, limit, delta):
    got = run("Range", [start, limit, delta])
    want = np.arange(start, limit, delta, dtype=np.float32 if isinstance(start, float) else np.int32)
    np.testing.assert_allclose(got, want)
    assert got.dtype == want.dtype


def test_range_with_zero_delta_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match="delta"):
        execute_op("Range", [0, 5, 0], {})
