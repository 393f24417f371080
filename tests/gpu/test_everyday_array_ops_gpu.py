"""PadV2, ShapeN, BroadcastArgs, Empty, PreventGradient and GuaranteeConst on the GPU
equal the CPU kernels, for every dtype both devices register; the shape outputs stay in
host memory, as TensorFlow's GPU kernels keep them."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import MOVE_TYPES, _raises_on_both, name, random

# Padding on every dim, only on the outer one (inner dims merge), an empty input padded
# out, and no padding at all.
PAD_CASES = [((3, 4), [[1, 2], [0, 3]]), ((2, 3, 5), [[0, 1], [0, 0], [0, 0]]),
             ((0, 2), [[1, 1], [2, 0]]), ((7,), [[0, 0]])]


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_pad_v2(gpu_matches_cpu, rng, dtype):
    for shape, pads in PAD_CASES:
        x = random(rng, shape, dtype)
        value = np.array(True if np.dtype(dtype) == np.bool_ else 3, dtype)
        got, = gpu_matches_cpu(ops.pad_v2, x, np.int32(pads), value)
        np.testing.assert_array_equal(got, np.pad(x, pads, constant_values=value))


def test_pad_v2_errors_on_both():
    _raises_on_both(errors.InvalidArgumentError, ops.pad_v2, np.float32([1, 2]),
                    np.int32([[1, 1]]), np.float32([0, 1]))


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_identities_and_empty(gpu_matches_cpu, rng, dtype):
    x = random(rng, (4, 3), dtype)
    gpu_matches_cpu(ops.prevent_gradient, x)
    gpu_matches_cpu(ops.guarantee_const, x)
    got, = gpu_matches_cpu(ops.empty, np.int32([2, 5]), dtype=opgen.as_dtype(dtype), init=True)
    np.testing.assert_array_equal(got, np.zeros((2, 5), dtype))


def test_shape_n_and_broadcast_args_stay_on_the_host(gpu_matches_cpu, rng):
    x, y = random(rng, (2, 3), np.float32), random(rng, (5,), np.float32)
    gpu_matches_cpu(ops.shape_n, [x, y], on_host=(0, 1))
    got, = gpu_matches_cpu(ops.broadcast_args, np.int64([2, 1, 3]), np.int64([4, 1]),
                           on_host=(0,))
    np.testing.assert_array_equal(got, [2, 4, 3])
