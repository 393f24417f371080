"""Ops that only move bytes (Identity, Reshape, Transpose, Concat, Pack, Slice,
StridedSlice, Tile, Pad, Gather, Fill, ZerosLike, OnesLike ...) work for every
fixed-size dtype, complex included; property tests for transposes, slices and
broadcasting against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from kernel_dtypes import ALL, REALS, assert_close, in_float, name, run, values

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(23)

dtype_param = pytest.mark.parametrize("dtype", ALL, ids=name)


def same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8),
                                  np.ascontiguousarray(want).reshape(-1).view(np.uint8))


@dtype_param
def test_shape_ops(dtype):
    x = values(rng, (2, 3, 4), dtype)
    same(run("Identity", [x]), x)
    same(run("Reshape", [x, np.array([4, -1], np.int64)]), x.reshape(4, -1))
    same(run("ExpandDims", [x, np.array(1, np.int32)]), x[:, None])
    same(run("Squeeze", [x[:, :1]], {"squeeze_dims": [1]}), x[:, 0])
    np.testing.assert_array_equal(run("Shape", [x], {"out_type": "int64"}), [2, 3, 4])
    assert int(run("Size", [x], {"out_type": "int32"})) == 24
    assert int(run("Rank", [x])) == 3


@dtype_param
def test_transpose(dtype):
    x = values(rng, (2, 3, 4), dtype)
    for perm in ([2, 0, 1], [1, 0, 2], [0, 1, 2], [2, 1, 0]):
        same(run("Transpose", [x, np.array(perm, np.int32)]), x.transpose(perm))
    same(run("Transpose", [x[:0], np.array([2, 1, 0], np.int32)]), x[:0].transpose(2, 1, 0))
    scalar = values(rng, (), dtype)
    same(run("Transpose", [scalar, np.zeros(0, np.int32)]), scalar)


@dtype_param
def test_concat_pack_unpack(dtype):
    pieces = [values(rng, (2, k, 3), dtype) for k in (1, 0, 4)]
    same(run("ConcatV2", [pieces, np.array(1, np.int32)]), np.concatenate(pieces, 1))
    equal = [values(rng, (3, 2), dtype) for _ in range(3)]
    same(run("Pack", [equal], {"axis": 1}), np.stack(equal, 1))
    for got, want in zip(run_all("Unpack", [np.stack(equal)], {"num": 3, "axis": 0}), equal):
        same(got, want)


def run_all(op, inputs, attrs):
    from kernel_dtypes import as_numpy
    from opgen.runtime import execute_op
    return [as_numpy(t) for t in execute_op(op, list(inputs), attrs)[0]]


@dtype_param
def test_slice_tile_pad_gather(dtype):
    x = values(rng, (4, 3, 5), dtype)
    same(run("Slice", [x, np.array([1, 0, 2]), np.array([2, -1, 3])]), x[1:3, :, 2:5])
    same(run("Tile", [x, np.array([2, 1, 2], np.int32)]), np.tile(x, (2, 1, 2)))
    same(run("Pad", [x, np.array([[1, 0], [0, 2], [1, 1]], np.int32)]),
         np.pad(x, [(1, 0), (0, 2), (1, 1)]))
    indices = np.array([[2, 0], [1, 1]], np.int64)
    same(run("GatherV2", [x, indices, np.array(2, np.int32)]), np.take(x, indices, axis=2))
    masks = {"begin_mask": 0, "end_mask": 2, "ellipsis_mask": 0, "new_axis_mask": 0,
             "shrink_axis_mask": 0}
    same(run("StridedSlice", [x, np.array([3, 0, 1]), np.array([0, 0, 5]), np.array([-2, 1, 2])],
             masks), x[3:0:-2, :, 1:5:2])


@dtype_param
def test_fill_zeros_ones(dtype):
    x = values(rng, (2, 3), dtype)
    value = values(rng, (), dtype)
    same(run("Fill", [np.array([3, 2], np.int32), value]), np.full((3, 2), value, dtype))
    same(run("ZerosLike", [x]), np.zeros_like(x))
    same(run("OnesLike", [x]), np.ones_like(x))
    same(run("Fill", [np.array([0, 2], np.int64), value]), np.zeros((0, 2), dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.complex128], ids=name)
@pytest.mark.parametrize("count", [1, 5, 16384, 16385, 100003])
def test_fill_of_many_elements_repeats_the_value_exactly(dtype, count):
    # Fill copies what it already wrote in growing, then cache-sized, blocks: counts on
    # both sides of a block (64 KiB / element size) and one not a multiple of it.
    value = values(rng, (), dtype)
    same(run("Fill", [np.array([count], np.int64), value]), np.full((count,), value, dtype))


@settings(max_examples=30, deadline=None, derandomize=True)  # the same examples every run
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.int8, np.float16, np.complex128]))
def test_random_transposes(data, dtype):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=4))
    perm = data.draw(st.permutations(range(len(shape))))
    x = values(rng, shape, dtype)
    same(run("Transpose", [x, np.array(perm, np.int64).reshape(-1)]), x.transpose(perm))


@settings(max_examples=30, deadline=None, derandomize=True)  # the same examples every run
@given(data=st.data(), dtype=st.sampled_from([np.float64, np.uint16, np.bool_]))
def test_random_slices(data, dtype):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=6))
    begin = [data.draw(st.integers(0, d)) for d in shape]
    size = [data.draw(st.integers(-1, d - b)) for d, b in zip(shape, begin)]
    x = values(rng, shape, dtype)
    want = x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    same(run("Slice", [x, np.array(begin, np.int32), np.array(size, np.int32)]), want)


@settings(max_examples=60, deadline=None, derandomize=True)  # the same examples every run
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0,
                                                max_side=4),
       op=st.sampled_from([("AddV2", np.add), ("Mul", np.multiply), ("Maximum", np.maximum),
                           ("Less", np.less)]),
       dtype=st.sampled_from(REALS))
def test_random_broadcasts(shapes, op, dtype):
    (xs, ys), _ = shapes
    x, y = values(rng, xs, dtype), values(rng, ys, dtype)
    name_, fn = op
    with np.errstate(over="ignore"):
        want = in_float(fn, x, y) if name_ != "Less" else fn(x, y)
    assert_close(run(name_, [x, y]), want)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.complex128])
@pytest.mark.parametrize("shape,multiples", [((3,), [70001]), ((2, 5), [3, 9000]),
                                             ((1,), [131073]), ((4, 3, 1), [2, 1, 40000])])
def test_tile_by_large_multiples_across_the_copy_block(dtype, shape, multiples):
    """Tile writes a row's first piece, then copies what it wrote in doubling blocks of up
    to 64 KiB (a copy per piece took seconds under ASan: a fuzz timeout)."""
    from opgen import ops
    x = (np.arange(np.prod(shape)) + 1).reshape(shape).astype(dtype)
    np.testing.assert_array_equal(ops.tile(x, np.int32(multiples)).numpy(), np.tile(x, multiples))
