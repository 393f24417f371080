"""The GPU's array kernels (runtime/kernels/cuda/array.cu, concat_split.cu,
slicing.cu, constant.cu) equal the CPU's: Const,
Identity, NoOp, Reshape, ExpandDims, Squeeze, Transpose, ConcatV2, Pack, Unpack, Slice,
StridedSlice, GatherV2, Tile, Pad, Shape, Size, Rank and Range, for every dtype the CPU
registers them for (complex included), on several shapes including empty ones and negative
axes; bad arguments raise the same exception class on both devices.

These ops only move bytes (Range aside), so results must be bit-equal: every comparison
passes rtol=atol=0."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_runtime"))
from strided_slice_args import strided_slice_args  # noqa: E402

try:
    from ml_dtypes import bfloat16
except ImportError:  # ml_dtypes is a dependency; without it bfloat16 cases are left out
    bfloat16 = None

DTYPES = ([np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
          + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
             np.bool_, np.complex64, np.complex128])
INDEX_TYPES = [np.int32, np.int64]
EXACT = {"rtol": 0, "atol": 0}


def dtype_id(dtype) -> str:
    return np.dtype(dtype).name


def values(rng, shape, dtype):
    """Random, never all-zero values of `dtype` (NaN and infinities among the floats)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    x = (rng.standard_normal(shape) * 100).astype(np.float32)
    if x.size >= 4:
        x.flat[:3] = [np.nan, np.inf, -np.inf]
    if np.issubdtype(dtype, np.complexfloating):  # 8- and 16-byte words; distinct halves
        return (x + 1j * (rng.standard_normal(shape) * 100)).astype(dtype)
    return x.astype(dtype)


def gpu_equals_cpu(gpu_matches_cpu, fn, *args, **kwargs):
    return gpu_matches_cpu(fn, *args, **EXACT, **kwargs)


def assert_same_error(fn, *args, **kwargs):
    """fn raises an OpError of the same class on the CPU and on the GPU."""
    raised = []
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            with pytest.raises(errors.OpError) as info:
                fn(*args, **kwargs)
        raised.append(type(info.value))
    assert raised[0] is raised[1], f"CPU raised {raised[0].__name__}, GPU {raised[1].__name__}"
    return raised[0]


dtypes = pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
index_types = pytest.mark.parametrize("index_type", INDEX_TYPES, ids=dtype_id)

# ---- Const, Identity, NoOp --------------------------------------------------------------


@dtypes
@pytest.mark.parametrize("shape", [(), (7,), (3, 0), (33, 65)])
def test_const(gpu_matches_cpu, rng, dtype, shape):
    value = values(rng, shape, dtype)
    for _ in range(2):  # the second run outputs the tensor uploaded by the first
        (got,) = gpu_equals_cpu(gpu_matches_cpu, ops.const, value, np.dtype(dtype))
    assert got.shape == shape


@dtypes
@pytest.mark.parametrize("shape", [(), (5,), (0, 4), (3, 4, 5)])
def test_identity(gpu_matches_cpu, rng, dtype, shape):
    gpu_equals_cpu(gpu_matches_cpu, ops.identity, values(rng, shape, dtype))


def test_no_op_runs_on_the_gpu():
    with opgen.device("/GPU:0"):
        ops.no_op()


# ---- Reshape, ExpandDims, Squeeze -------------------------------------------------------


@dtypes
@index_types
@pytest.mark.parametrize("shape, new_shape", [
    ((2, 3, 4), (4, 6)), ((2, 3, 4), (-1,)), ((2, 3, 4), (3, -1, 2)), ((6,), (1, 6, 1)),
    ((1,), ()), ((), (1, 1)), ((0, 3), (3, 0, 5)), ((0, 3), (-1, 3)),
])
def test_reshape(gpu_matches_cpu, rng, dtype, index_type, shape, new_shape):
    (got,) = gpu_equals_cpu(gpu_matches_cpu, ops.reshape, values(rng, shape, dtype),
                            np.array(new_shape, index_type))
    assert got.size == int(np.prod(shape))


@pytest.mark.parametrize("shape, new_shape", [((2, 3), (4, 2)), ((2, 3), (-1, -1)),
                                              ((2, 3), (-2, 3)), ((0, 3), (-1, 0))])
def test_reshape_errors(rng, shape, new_shape):
    cls = assert_same_error(ops.reshape, values(rng, shape, np.float32), np.array(new_shape, np.int32))
    assert cls is errors.InvalidArgumentError


@dtypes
@index_types
@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((3, 4), 0), ((3, 4), 2), ((3, 4), -1),
                                        ((3, 4), -3), ((0, 2), 1)])
def test_expand_dims(gpu_matches_cpu, rng, dtype, index_type, shape, dim):
    gpu_equals_cpu(gpu_matches_cpu, ops.expand_dims, values(rng, shape, dtype), np.array(dim, index_type))


@pytest.mark.parametrize("dim", [3, -4])
def test_expand_dims_errors(rng, dim):
    assert_same_error(ops.expand_dims, values(rng, (3, 4), np.float32), np.array(dim, np.int32))


@dtypes
@pytest.mark.parametrize("shape, axes", [((1, 3, 1, 4), []), ((1, 3, 1, 4), [0]), ((1, 3, 1, 4), [-2, 0]),
                                         ((1, 1), []), ((1, 0, 1), [2]), ((5,), [])])
def test_squeeze(gpu_matches_cpu, rng, dtype, shape, axes):
    gpu_equals_cpu(gpu_matches_cpu, ops.squeeze, values(rng, shape, dtype), squeeze_dims=axes)


@pytest.mark.parametrize("axes", [[1], [4], [-5]])
def test_squeeze_errors(rng, axes):
    assert_same_error(ops.squeeze, values(rng, (1, 3, 1, 4), np.float32), squeeze_dims=axes)


# ---- Transpose --------------------------------------------------------------------------

TRANSPOSES = [
    ((33, 65), (1, 0)),            # tiled, partial tiles on both edges
    ((130, 257), (1, 0)),          # several tiles
    ((4, 33, 17), (0, 2, 1)),      # batched tiles
    ((2, 3, 5, 7), (0, 1, 3, 2)),  # last two axes, batch merged from two dims
    ((2, 3, 4), (2, 0, 1)),        # general strided
    ((2, 3, 4, 5), (1, 0, 2, 3)),  # contiguous inner rows: wide words where aligned
    ((2, 1, 3, 1, 4), (4, 3, 2, 1, 0)),
    ((3, 2, 2, 3, 2, 2, 3, 2, 2), (8, 6, 4, 2, 0, 7, 5, 3, 1)),  # nine dims, none mergeable
    ((5,), (0,)), ((), ()), ((0, 3), (1, 0)), ((4, 0, 2), (2, 1, 0)),
]


@dtypes
@pytest.mark.parametrize("shape, perm", TRANSPOSES)
def test_transpose(gpu_matches_cpu, rng, dtype, shape, perm):
    x = values(rng, shape, dtype)
    if len(shape) > 8:
        # The GPU kernel merges adjacent dims; nine dims that cannot merge are refused.
        with opgen.device("/GPU:0"):
            with pytest.raises(errors.UnimplementedError):
                ops.transpose(x, np.array(perm, np.int32))
        return
    gpu_equals_cpu(gpu_matches_cpu, ops.transpose, x, np.array(perm, np.int32))


@index_types
def test_transpose_perm_types(gpu_matches_cpu, rng, index_type):
    gpu_equals_cpu(gpu_matches_cpu, ops.transpose, values(rng, (6, 7, 8), np.float32),
                   np.array([1, 2, 0], index_type))


@pytest.mark.parametrize("perm", [(0, 0), (0,), (0, 2)])
def test_transpose_errors(rng, perm):
    assert_same_error(ops.transpose, values(rng, (2, 3), np.float32), np.array(perm, np.int32))


# ---- ConcatV2, Pack, Unpack ---------------------------------------------------------------


@dtypes
@pytest.mark.parametrize("shapes, axis", [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 5), (2, 1)], 1), ([(2, 3), (2, 5)], -1),
    ([(3, 2, 4), (3, 0, 4), (3, 5, 4)], -2), ([(0, 3), (0, 3)], 1), ([(7,), (0,), (9,)], 0),
])
def test_concat(gpu_matches_cpu, rng, dtype, shapes, axis):
    pieces = [values(rng, s, dtype) for s in shapes]
    gpu_equals_cpu(gpu_matches_cpu, ops.concat_v2, pieces, np.array(axis, np.int32))


@index_types
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_concat_many_pieces(gpu_matches_cpu, rng, index_type, axis):
    # More pieces than one launch takes, of odd sizes (no wide words).
    pieces = [values(rng, [3 if d != axis else 1 + i % 3 for d in range(3)], np.int16) for i in range(70)]
    gpu_equals_cpu(gpu_matches_cpu, ops.concat_v2, pieces, np.array(axis, index_type))


@pytest.mark.parametrize("shapes, axis", [([(2, 3), (3, 3)], 1), ([(2, 3), (2, 3)], 2),
                                          ([(2, 3), (2, 3)], -3), ([(2, 3), (2, 3, 1)], 0)])
def test_concat_errors(rng, shapes, axis):
    pieces = [values(rng, s, np.float32) for s in shapes]
    assert_same_error(ops.concat_v2, pieces, np.array(axis, np.int32))


@dtypes
@pytest.mark.parametrize("shape, n, axis", [((3, 4), 2, 0), ((3, 4), 3, 1), ((3, 4), 3, 2), ((3, 4), 2, -1),
                                            ((), 4, 0), ((0, 2), 3, 1), ((5,), 1, 0)])
def test_pack(gpu_matches_cpu, rng, dtype, shape, n, axis):
    pieces = [values(rng, shape, dtype) for _ in range(n)]
    gpu_equals_cpu(gpu_matches_cpu, ops.pack, pieces, axis=axis)


def test_pack_many_pieces(gpu_matches_cpu, rng):
    pieces = [values(rng, (5, 3), np.float32) for _ in range(100)]
    gpu_equals_cpu(gpu_matches_cpu, ops.pack, pieces, axis=1)


@pytest.mark.parametrize("shapes, axis", [([(2, 3), (3, 2)], 0), ([(2, 3), (2, 3)], 3),
                                          ([(2, 3), (2, 3)], -4)])
def test_pack_errors(rng, shapes, axis):
    assert_same_error(ops.pack, [values(rng, s, np.float32) for s in shapes], axis=axis)


@dtypes
@pytest.mark.parametrize("shape, axis", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 0, 3), 0),
                                         ((4,), 0), ((2, 3, 5), 1)])
def test_unpack(gpu_matches_cpu, rng, dtype, shape, axis):
    x = values(rng, shape, dtype)
    outputs = gpu_equals_cpu(gpu_matches_cpu, ops.unpack, x, num=shape[axis], axis=axis)
    assert len(outputs) == shape[axis]


@pytest.mark.parametrize("num, axis", [(2, 0), (3, 2), (3, -3)])
def test_unpack_errors(rng, num, axis):
    assert_same_error(ops.unpack, values(rng, (3, 4), np.float32), num=num, axis=axis)


# ---- Slice, StridedSlice ------------------------------------------------------------------


@dtypes
@index_types
@pytest.mark.parametrize("shape, begin, size", [
    ((4, 5, 3), (1, 0, 1), (2, -1, 2)), ((10,), (3,), (4,)), ((6, 8), (2, 0), (3, 8)),
    ((6, 8), (0, 4), (-1, -1)), ((3, 4), (1, 1), (0, 2)), ((), (), ()), ((0, 3), (0, 1), (0, 2)),
])
def test_slice(gpu_matches_cpu, rng, dtype, index_type, shape, begin, size):
    gpu_equals_cpu(gpu_matches_cpu, ops.slice, values(rng, shape, dtype), np.array(begin, index_type),
                   np.array(size, index_type))


@pytest.mark.parametrize("begin, size", [((3, 0), (2, 1)), ((0,), (1,)), ((-1, 0), (1, 1)), ((0, 0), (1, -2))])
def test_slice_errors(rng, begin, size):
    assert_same_error(ops.slice, values(rng, (4, 5), np.float32), np.array(begin, np.int32),
                      np.array(size, np.int32))


S = slice
STRIDED_SLICES = [
    ((10,), (S(2, 8, 3),)), ((10,), (S(None, None, -1),)), ((10,), (S(-3, None),)),
    ((10,), (S(8, 1, -2),)), ((10,), (S(20, -20, -1),)), ((10,), (S(5, 2),)),
    ((4, 6), (1,)), ((4, 6), (-1, S(None, None, 2))), ((4, 6), (Ellipsis, 3)),
    ((4, 6), (None, S(1, 3), None)), ((2, 3, 4), (Ellipsis, None, S(1, None))),
    ((2, 3, 4), (0, Ellipsis, -1)), ((2, 3, 4), (S(None, None, -1), S(None, None, -1), S(None, None, -1))),
    ((2, 3, 4, 5), (S(None), 1, S(None, None, 2), S(1, 4))), ((0, 4), (S(None), S(1, 3))),
    ((3, 4), ()),
]


@dtypes
@index_types
@pytest.mark.parametrize("shape, spec", STRIDED_SLICES)
def test_strided_slice(gpu_matches_cpu, rng, dtype, index_type, shape, spec):
    x = values(rng, shape, dtype)
    begin, end, strides, masks = strided_slice_args(spec)
    if not begin:
        begin, end, strides = [0], [0], [1]
        masks["begin_mask"] = masks["end_mask"] = 1
    (got,) = gpu_equals_cpu(gpu_matches_cpu, ops.strided_slice, x, np.array(begin, index_type),
                            np.array(end, index_type), np.array(strides, index_type), **masks)
    assert got.shape == x[spec].shape


@pytest.mark.parametrize("begin, end, strides, masks", [
    ([0], [1], [0], {}), ([5], [6], [1], {"shrink_axis_mask": 1}),
    ([0, 0], [1, 1], [1, 1], {"ellipsis_mask": 3}), ([0, 0, 0], [1, 1, 1], [1, 1, 1], {}),
    ([0], [1, 2], [1], {}),
])
def test_strided_slice_errors(rng, begin, end, strides, masks):
    assert_same_error(ops.strided_slice, values(rng, (4, 6), np.float32), np.array(begin, np.int32),
                      np.array(end, np.int32), np.array(strides, np.int32), **masks)


# ---- GatherV2 -----------------------------------------------------------------------------


@dtypes
@pytest.mark.parametrize("shape, indices_shape, axis", [
    ((5, 4), (3,), 0), ((5, 4), (2, 3), 1), ((4, 5, 6), (7,), -1), ((4, 5, 6), (2, 2), -2),
    ((6,), (), 0), ((3, 0), (4,), 0), ((3, 4), (0,), 1),
])
def test_gather(gpu_matches_cpu, rng, dtype, shape, indices_shape, axis):
    params = values(rng, shape, dtype)
    indices = rng.integers(0, shape[axis], size=indices_shape).astype(np.int32)
    gpu_equals_cpu(gpu_matches_cpu, ops.gather_v2, params, indices, np.array(axis, np.int32))


@pytest.mark.parametrize("indices_type", [np.int16, np.int32, np.int64], ids=dtype_id)
@index_types
def test_gather_index_types(gpu_matches_cpu, rng, indices_type, index_type):
    params = values(rng, (300, 17), np.float64)
    indices = rng.integers(0, 300, size=(50,)).astype(indices_type)
    gpu_equals_cpu(gpu_matches_cpu, ops.gather_v2, params, indices, np.array(0, index_type))
    gpu_equals_cpu(gpu_matches_cpu, ops.gather_v2, params.T.copy(), indices, np.array(-1, index_type))


@pytest.mark.parametrize("indices", [[0, 5, 1], [-1], [2, 9, -3]])
def test_gather_bad_index(rng, indices):
    params = values(rng, (5, 4), np.float32)
    cls = assert_same_error(ops.gather_v2, params, np.array(indices, np.int64), np.array(0, np.int32))
    assert cls is errors.InvalidArgumentError
    with opgen.device("/GPU:0"):  # the first bad index is the one reported, as on the CPU
        with pytest.raises(errors.InvalidArgumentError, match=f"index {[i for i in indices if not 0 <= i < 5][0]} "):
            ops.gather_v2(params, np.array(indices, np.int64), np.array(0, np.int32))


def test_gather_errors(rng):
    params = values(rng, (5, 4), np.float32)
    indices = np.array([1, 2], np.int32)
    assert_same_error(ops.gather_v2, params, indices, np.array(2, np.int32))
    assert_same_error(ops.gather_v2, params, indices, np.array(0, np.int32), batch_dims=1)


# ---- Tile, Pad ------------------------------------------------------------------------------


@dtypes
@index_types
@pytest.mark.parametrize("shape, multiples", [
    ((2, 3), (2, 3)), ((2, 3), (1, 4)), ((2, 3), (3, 1)), ((4,), (5,)), ((), ()),
    ((2, 3), (0, 2)), ((0, 3), (2, 2)), ((2, 1, 3), (1, 7, 1)), ((16, 8), (2, 2)),
])
def test_tile(gpu_matches_cpu, rng, dtype, index_type, shape, multiples):
    gpu_equals_cpu(gpu_matches_cpu, ops.tile, values(rng, shape, dtype), np.array(multiples, index_type))


@pytest.mark.parametrize("multiples", [(2,), (1, -1)])
def test_tile_errors(rng, multiples):
    assert_same_error(ops.tile, values(rng, (2, 3), np.float32), np.array(multiples, np.int32))


@dtypes
@index_types
@pytest.mark.parametrize("shape, paddings", [
    ((4, 5, 3), [[1, 0], [0, 2], [1, 1]]), ((7,), [[3, 4]]), ((3, 8), [[2, 1], [0, 0]]),
    ((3, 8), [[0, 0], [8, 8]]), ((), []), ((0, 3), [[1, 1], [0, 2]]), ((2, 3), [[0, 0], [0, 0]]),
])
def test_pad(gpu_matches_cpu, rng, dtype, index_type, shape, paddings):
    gpu_equals_cpu(gpu_matches_cpu, ops.pad, values(rng, shape, dtype),
                   np.array(paddings, index_type).reshape(len(shape), 2))


@pytest.mark.parametrize("paddings", [[[1, 1]], [[0, -1], [0, 0]]])
def test_pad_errors(rng, paddings):
    assert_same_error(ops.pad, values(rng, (2, 3), np.float32), np.array(paddings, np.int32))


# ---- Shape, Size, Rank: host-memory outputs -------------------------------------------------


@dtypes
@pytest.mark.parametrize("shape", [(), (0,), (3, 4), (2, 0, 5)])
def test_shape_size_rank(gpu_matches_cpu, rng, dtype, shape):
    x = values(rng, shape, dtype)
    for out_type in (np.int32, np.int64):
        (got,) = gpu_matches_cpu(ops.shape, x, out_type=np.dtype(out_type), on_host=(0,))
        assert list(got) == list(shape)
        (got,) = gpu_matches_cpu(ops.size, x, out_type=np.dtype(out_type), on_host=(0,))
        assert int(got) == int(np.prod(shape))
    (got,) = gpu_matches_cpu(ops.rank, x, on_host=(0,))
    assert int(got) == len(shape)


# ---- Range --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("start, limit, delta", [(0, 10, 3), (5, -3, -2), (3, 3, 1), (-7, 100000, 7),
                                                 (0.5, 2.0, 0.25), (-1.3, 1000.1, 0.1)])
def test_range(gpu_matches_cpu, dtype, start, limit, delta):
    if np.issubdtype(dtype, np.integer) and isinstance(start, float):
        pytest.skip("float bounds for an integer range")
    args = [np.array(v, dtype) for v in (start, limit, delta)]
    (got,) = gpu_equals_cpu(gpu_matches_cpu, ops.range, *args)
    assert got.dtype == np.dtype(dtype)


@pytest.mark.parametrize("start, limit, delta", [(0, 5, 0), (5, 0, 1), (0, 5, -1)])
def test_range_errors(start, limit, delta):
    args = [np.array(v, np.int32) for v in (start, limit, delta)]
    cls = assert_same_error(ops.range, *args)
    assert cls is errors.InvalidArgumentError
