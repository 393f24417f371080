"""The debugging and sequence ops with CUDA kernels (CheckNumerics, CheckNumericsV2,
EnsureShape, Snapshot, Roll, ReverseSequence, LinSpace, SparseToDense) on the GPU equal the CPU kernels,
for every dtype both devices register, with the same errors."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

from gpu_compare import FLOATS, MOVE_TYPES, _raises_on_both, name, random


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_check_numerics(gpu_matches_cpu, rng, dtype):
    x = random(rng, (3, 70), dtype)
    for op in (ops.check_numerics, ops.check_numerics_v2):
        gpu_matches_cpu(op, x, message="m")
        for bad in (np.nan, -np.inf, np.inf):
            y = x.copy()
            y[2, 69] = bad  # the last element: every block of the scan must report
            _raises_on_both(errors.InvalidArgumentError, op, y, message="m")


def test_check_numerics_messages_name_what_the_device_found():
    import opgen
    x = np.float32([1, np.nan, -np.inf, np.inf])
    with opgen.device("/GPU:0"), pytest.raises(errors.InvalidArgumentError,
                                               match="had -Inf, \\+Inf, and NaN values"):
        ops.check_numerics_v2(x, message="m").numpy()
    with opgen.device("/GPU:0"), pytest.raises(errors.InvalidArgumentError,
                                               match="m : Tensor had Inf and NaN values"):
        ops.check_numerics(x, message="m").numpy()


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_moves(gpu_matches_cpu, rng, dtype):
    x = random(rng, (3, 4, 5), dtype)
    gpu_matches_cpu(ops.snapshot, x)
    gpu_matches_cpu(ops.ensure_shape, x, shape=[3, -1, 5])
    gpu_matches_cpu(ops.roll, x, np.int32([1, -7, 2]), np.int64([0, 2, 0]))
    gpu_matches_cpu(ops.reverse_sequence, x, np.int64([0, 5, 2, 3]), seq_dim=2, batch_dim=1)
    _raises_on_both(errors.InvalidArgumentError, ops.ensure_shape, x, shape=[3, 5])
    _raises_on_both(errors.InvalidArgumentError, ops.reverse_sequence, x, np.int64([0, 6, 2, 3]),
                    seq_dim=2, batch_dim=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=name)
def test_lin_space(gpu_matches_cpu, dtype):
    for num in (1, 2, 7, 1000):
        gpu_matches_cpu(ops.lin_space, dtype(-1.5), dtype(2.25), np.int32(num))
    _raises_on_both(errors.InvalidArgumentError, ops.lin_space, dtype(0), dtype(1), np.int64(0))


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_sparse_to_dense(gpu_matches_cpu, rng, dtype):
    values, fill = random(rng, (3,), dtype), random(rng, (), dtype)
    for index in (np.int32, np.int64):
        indices = index([[0, 1], [1, 3], [2, 0]])
        gpu_matches_cpu(ops.sparse_to_dense, indices, index([3, 4]), values, fill)
        gpu_matches_cpu(ops.sparse_to_dense, indices[::-1], index([3, 4]), values[0], fill,
                        validate_indices=False)
    _raises_on_both(errors.InvalidArgumentError, ops.sparse_to_dense, np.int32([[1], [0]]),
                    np.int32([4]), values[:2], fill)
