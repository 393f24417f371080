"""The gather/scatter/segment family's CUDA kernels (GatherNd, ScatterNd, TensorScatter*,
the segment reductions, DynamicStitch / DynamicPartition, ResourceGather and
ResourceScatter*, Mul/Div/Min/Max included, ResourceScatterNd* and ResourceGatherNd) equal the CPU kernels for every dtype both register, duplicates and
empty segments included, with the same errors for bad indices (checked on the host on
both devices)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op

from gpu_compare import FLOATS, MOVE_TYPES, _raises_on_both, name, random

REALS = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64]
NUMBERS = REALS + [np.complex64, np.complex128]


def _op(op, attrs=None):
    def fn(*inputs):
        return execute_op(op, list(inputs), attrs or {})
    fn.__name__ = op
    return fn


def _small(rng, shape, dtype):
    """Small integers: sums and products exact in every dtype and any order."""
    v = rng.integers(1, 4, shape)
    return v.astype(dtype) if np.dtype(dtype) != np.bool_ else v > 1


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
@pytest.mark.parametrize("tindices", [np.int16, np.int32, np.int64], ids=name)
def test_gather_nd(gpu_matches_cpu, rng, dtype, tindices):
    params = random(rng, (4, 3, 2), dtype)
    gpu_matches_cpu(_op("GatherNd"), params, np.array([[[0, 1], [3, 2]], [[1, 0], [3, 2]]], tindices))
    gpu_matches_cpu(_op("GatherNd"), params, np.array([[3], [0]], tindices))


@pytest.mark.parametrize("dtype", NUMBERS, ids=name)
@pytest.mark.parametrize("tindices", [np.int32, np.int64], ids=name)
def test_scatters(gpu_matches_cpu, rng, dtype, tindices):
    idx = np.array([[1, 0], [3, 1], [1, 0], [4, 1]], tindices)
    base, ups = _small(rng, (5, 2), dtype), _small(rng, (4,), dtype)
    gpu_matches_cpu(_op("ScatterNd"), np.array([[1], [3], [1]], tindices),
                    _small(rng, (3, 2), dtype), np.array([5, 2], tindices))
    ops = ["TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub"]
    if dtype in REALS:
        ops += ["TensorScatterMax", "TensorScatterMin"]
    for op in ops:
        gpu_matches_cpu(_op(op), base, idx, ups)


@pytest.mark.parametrize("dtype", NUMBERS, ids=name)
def test_segment_reductions(gpu_matches_cpu, rng, dtype):
    data = _small(rng, (6, 3), dtype)
    ids, sorted_ids = np.int32([0, 2, -1, 2, 0, 4]), np.int64([0, 0, 2, 3, 3, 3])
    unsorted = ["UnsortedSegmentProd"] + (["UnsortedSegmentMax", "UnsortedSegmentMin"]
                                          if dtype in REALS else [])
    for op in unsorted:
        gpu_matches_cpu(_op(op), data, ids, np.int32(6))
    for op in ["SegmentSum", "SegmentMean", "SegmentProd"] + (
            ["SegmentMax", "SegmentMin"] if dtype in REALS else []):
        gpu_matches_cpu(_op(op), data, sorted_ids)
    if dtype in REALS:
        picks, segs = np.int32([0, 3, 3, 1, 2]), np.int64([1, 1, 1, 3, 3])
        ops = ["SparseSegmentSum"] + (["SparseSegmentMean", "SparseSegmentSqrtN"]
                                      if dtype in FLOATS else [])
        for op in ops:
            gpu_matches_cpu(_op(op), data, picks, segs)
            # num_segments past the last id: trailing empty segments
            gpu_matches_cpu(_op(op + "WithNumSegments"), data, picks, segs, np.int64(6))
        gpu_matches_cpu(_op("SparseSegmentSumWithNumSegments"), data, np.int32([]),
                        np.int32([]), np.int32(2))


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_stitch_and_partition(gpu_matches_cpu, rng, dtype):
    indices = [np.int32([[0, 4], [2, 1]]), np.int32([5, 2])]
    data = [random(rng, (2, 2, 3), dtype), random(rng, (2, 3), dtype)]
    gpu_matches_cpu(lambda: execute_op("DynamicStitch", [indices, data], {}))
    gpu_matches_cpu(lambda: execute_op("ParallelDynamicStitch", [indices, data], {}))
    gpu_matches_cpu(_op("DynamicPartition", {"num_partitions": 4}), random(rng, (3, 2, 2), dtype),
                    np.int32([[2, 0], [2, 2], [0, 0]]))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.complex64], ids=name)
def test_resource_gather_and_scatters(rng, dtype):
    table, ids = _small(rng, (4, 3), dtype), np.int64([[3, 0], [3, 1]])
    updates = _small(rng, (2, 2, 3), dtype)
    results = {}
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            v = opgen.Variable(table)
            (rows,) = execute_op("ResourceGather", [v.handle, ids], {"dtype": v.dtype})
            out = [rows.numpy()]
            for op in ("ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate"):
                execute_op(op, [v.handle, ids, updates], {})
                out.append(v.numpy())
            execute_op("ResourceScatterAdd", [v.handle, np.int32([1]), np.asarray(updates.flat[0])], {})
            out.append(v.numpy())
        results[device] = out
    for got, want in zip(results["/GPU:0"], results["/CPU:0"]):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8, np.complex64],
                         ids=name)
def test_resource_scatter_mul_div_min_max(rng, dtype):
    table, ids = _small(rng, (4, 3), dtype), np.int64([[3, 0], [3, 1]])  # 3 repeated
    updates = _small(rng, (2, 2, 3), dtype)
    ops = ["ResourceScatterMul", "ResourceScatterDiv"]
    if not np.issubdtype(dtype, np.complexfloating):
        ops += ["ResourceScatterMin", "ResourceScatterMax"]
    results = {}
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            v = opgen.Variable(table)
            out = []
            for op in ops:
                execute_op(op, [v.handle, ids, updates], {})
                out.append(v.numpy())
        results[device] = out
    for got, want in zip(results["/GPU:0"], results["/CPU:0"]):
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8, np.complex64],
                         ids=name)
def test_resource_scatter_nd_and_gather_nd(rng, dtype):
    table = _small(rng, (4, 3, 2), dtype)
    ids = np.int32([[3, 0], [1, 2], [3, 0]])  # [3, 0] repeated
    updates = _small(rng, (3, 2), dtype)
    ops = ["ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub"]
    if not np.issubdtype(dtype, np.complexfloating):
        ops += ["ResourceScatterNdMin", "ResourceScatterNdMax"]
    results = {}
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            v = opgen.Variable(table)
            (rows,) = execute_op("ResourceGatherNd", [v.handle, ids], {"dtype": v.dtype})
            out = [rows.numpy()]
            for op in ops:
                execute_op(op, [v.handle, ids, updates], {})
                out.append(v.numpy())
        results[device] = out
    for got, want in zip(results["/GPU:0"], results["/CPU:0"]):
        np.testing.assert_array_equal(got, want)


def test_resource_scatter_div_by_zero_is_refused_on_both():
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            v = opgen.Variable(np.int32([[5, 7], [9, -3]]))
            with pytest.raises(errors.InvalidArgumentError, match="updates must not contain 0"):
                execute_op("ResourceScatterDiv", [v.handle, np.int32([0]), np.int32([[2, 0]])], {})
            np.testing.assert_array_equal(v.numpy(), [[5, 7], [9, -3]])


def test_errors_match():
    p = np.zeros((3, 2), np.float32)
    _raises_on_both(errors.InvalidArgumentError, _op("GatherNd"), p, np.int32([[3, 0]]))
    _raises_on_both(errors.InvalidArgumentError, _op("SparseSegmentSumWithNumSegments"), p,
                    np.int32([0, 1]), np.int32([0, 3]), np.int32(3))
    _raises_on_both(errors.InvalidArgumentError, _op("ScatterNd"), np.int32([[4]]),
                    np.float32([1]), np.int32([4]))
    _raises_on_both(errors.InvalidArgumentError, _op("SegmentSum"), np.float32([1, 2, 3]),
                    np.int32([1, 0, 2]))
    _raises_on_both(errors.InvalidArgumentError, _op("UnsortedSegmentMax"), np.float32([1, 2]),
                    np.int32([0, 5]), np.int32(3))
    _raises_on_both(errors.InvalidArgumentError, _op("DynamicPartition", {"num_partitions": 2}),
                    np.float32([1, 2]), np.int32([0, 2]))
