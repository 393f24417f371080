"""The older op forms (Concat, Gather, Reverse, BatchMatMul, the v1 / V2 diagonals,
SpaceToBatch / BatchToSpace, Segment*V2, HistogramFixedWidth, ParallelConcat) on the GPU
equal the CPU kernels (which tests/python_runtime/test_legacy_ops.py compares with
TensorFlow); they run the newer ops' CUDA kernels, HistogramFixedWidth its own."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

from gpu_compare import MOVE_TYPES, _raises_on_both, name, random


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_moves(gpu_matches_cpu, rng, dtype):
    x = random(rng, (4, 3, 2), dtype)
    got, = gpu_matches_cpu(ops.concat, np.int32(1), [x, random(rng, (4, 1, 2), dtype)])
    assert got.shape == (4, 4, 2)
    gpu_matches_cpu(ops.gather, x, np.int32([[3, 0], [1, 1]]))
    gpu_matches_cpu(ops.reverse, x, np.array([True, False, True]))
    gpu_matches_cpu(ops.parallel_concat, [x[:1], x[1:2], x[2:3]], shape=[3, 3, 2])
    gpu_matches_cpu(ops.matrix_diag, x[0])
    gpu_matches_cpu(ops.matrix_diag_part, x)
    gpu_matches_cpu(ops.matrix_set_diag, x, random(rng, (4, 2), dtype))
    gpu_matches_cpu(ops.matrix_diag_part_v2, random(rng, (2, 3, 5), dtype), np.int32([-1, 2]),
                    random(rng, (), dtype))
    gpu_matches_cpu(ops.matrix_diag_v2, random(rng, (2, 2, 3), dtype), np.int32([0, 1]),
                    np.int32(-1), np.int32(-1), random(rng, (), dtype))
    gpu_matches_cpu(ops.matrix_set_diag_v2, random(rng, (2, 4, 3), dtype),
                    random(rng, (2, 3, 3), dtype), np.int32([-1, 1]))
    image = random(rng, (2, 4, 6, 3), dtype)
    gpu_matches_cpu(ops.space_to_batch, image, np.int32([[0, 0], [1, 1]]), block_size=2)
    gpu_matches_cpu(ops.batch_to_space, random(rng, (8, 2, 3, 1), dtype), np.int64([[0, 1], [1, 0]]),
                    block_size=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64], ids=name)
def test_batch_mat_mul(gpu_matches_cpu, rng, dtype):
    gpu_matches_cpu(ops.batch_mat_mul, random(rng, (2, 3, 4), dtype), random(rng, (2, 5, 4), dtype),
                    adj_y=True, rtol=1e-5, atol=1e-5)
    _raises_on_both(errors.InvalidArgumentError, ops.batch_mat_mul, random(rng, (2, 3, 4), dtype),
                    random(rng, (3, 4, 5), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=name)
def test_segment_v2(gpu_matches_cpu, rng, dtype):
    data, ids = random(rng, (5, 3), dtype), np.int32([0, 0, 2, 2, 3])
    for fn in (ops.segment_sum_v2, ops.segment_prod_v2, ops.segment_max_v2, ops.segment_min_v2):
        gpu_matches_cpu(fn, data, ids, np.int32(6), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=name)
def test_histogram_fixed_width(gpu_matches_cpu, rng, dtype):
    values = (random(rng, (50, 7), np.float64) * 10).astype(dtype)
    for nbins in (1, 9, 100):
        gpu_matches_cpu(ops.histogram_fixed_width, values, np.array([-3, 4], dtype),
                        np.int32(nbins), on_host=())
    _raises_on_both(errors.InvalidArgumentError, ops.histogram_fixed_width, values,
                    np.array([4, 4], dtype), np.int32(3))
