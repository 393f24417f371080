"""InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub} and
DataFormat{VecPermute,DimMap} on the GPU equal the CPU kernels (themselves checked
against TensorFlow 2.21 in tests/python_runtime/test_array_family_ops.py), for every
dtype both devices register; bad operands fail on both."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import FLOATS, MOVE_TYPES, _raises_on_both, name, random

REALS = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
DIAG_TYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.complex64, np.complex128]


@pytest.mark.parametrize("tdtype", [np.int32, np.int64], ids=name)
def test_in_top_k(gpu_matches_cpu, rng, tdtype):
    p = rng.integers(0, 4, (300, 7)).astype(np.float32)  # many ties
    p[5, 2], p[9, 0] = np.nan, np.inf
    targets = rng.integers(-1, 8, 300).astype(tdtype)
    for k in (0, 1, 3, 7):
        gpu_matches_cpu(ops.in_top_kv2, p, targets, tdtype(k))
        gpu_matches_cpu(ops.in_top_k, p, targets, k=k)
    gpu_matches_cpu(ops.in_top_kv2, np.zeros((0, 3), np.float32), np.zeros(0, tdtype), tdtype(1))


@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("op", [ops.lower_bound, ops.upper_bound], ids=["lower", "upper"])
def test_bounds(gpu_matches_cpu, rng, op, dtype):
    srt = np.sort(random(rng, (4, 33), dtype), axis=1)
    vals = random(rng, (4, 50), dtype)
    for out_type in (opgen.int32, opgen.int64):
        gpu_matches_cpu(op, srt, vals, out_type=out_type)
    gpu_matches_cpu(op, np.zeros((4, 0), dtype), vals)


@pytest.mark.parametrize("dtype", DIAG_TYPES, ids=name)
def test_diag_and_diag_part(gpu_matches_cpu, rng, dtype):
    for shape in [(5,), (2, 3, 2), (0,)]:
        d, = gpu_matches_cpu(ops.diag, random(rng, shape, dtype))
        gpu_matches_cpu(ops.diag_part, d)


def test_bitcast_keeps_the_buffer_on_the_gpu(gpu_matches_cpu, rng):
    x = random(rng, (3, 4), np.float64)
    gpu_matches_cpu(ops.bitcast, x, opgen.uint16)
    gpu_matches_cpu(ops.bitcast, x.view(np.uint8).reshape(3, 4, 8), opgen.complex64)


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_inplace_ops(gpu_matches_cpu, rng, dtype):
    x = random(rng, (6, 3, 5), dtype)
    v = random(rng, (4, 3, 5), dtype)
    i = np.int32([5, -1, 2, 0])  # -1 wraps to 5: a repeated row
    gpu_matches_cpu(ops.inplace_update, x, i, v)
    if dtype is not np.bool_:
        gpu_matches_cpu(ops.inplace_add, x, i, v)
        gpu_matches_cpu(ops.inplace_sub, x, i, v)
    gpu_matches_cpu(ops.inplace_update, x, np.zeros(0, np.int32), np.zeros((0, 3, 5), dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("src, dst", [("NHWC", "NCHW"), ("NCDHW", "NDHWC")])
def test_data_format_ops(gpu_matches_cpu, dtype, src, dst):
    n = len(src)
    gpu_matches_cpu(ops.data_format_dim_map, np.arange(-n, 2 * n, dtype=dtype),
                    src_format=src, dst_format=dst)
    for x in (np.arange(n, dtype=dtype), np.arange(2 * n, dtype=dtype).reshape(n, 2),
              np.arange(n - 2, dtype=dtype)):
        gpu_matches_cpu(ops.data_format_vec_permute, x, src_format=src, dst_format=dst)


def test_errors_on_both():
    _raises_on_both(errors.InvalidArgumentError, ops.in_top_kv2, np.float32([1, 2]),
                    np.int32([0]), np.int32(1))
    _raises_on_both(errors.InvalidArgumentError, ops.lower_bound, np.float32([[1]]),
                    np.float32([[1], [2]]))
    _raises_on_both(errors.InvalidArgumentError, ops.diag_part, np.ones((2, 3), np.float32))
    _raises_on_both(errors.InvalidArgumentError, ops.bitcast, np.int32([1, 2, 3]), opgen.int64)
    _raises_on_both(errors.InvalidArgumentError, ops.inplace_add, np.ones((3, 2), np.float32),
                    np.int32([0]), np.ones((1, 3), np.float32))
    _raises_on_both(errors.InvalidArgumentError, ops.data_format_vec_permute, np.int32([1, 2, 3]))
