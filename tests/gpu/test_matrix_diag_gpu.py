"""MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 and L2Loss on the GPU equal the CPU
kernels for every dtype both devices register, with the same errors; the FFT family has
no GPU kernel and runs on the host under a GPU placement."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import FLOATS, MOVE_TYPES, _raises_on_both, name, random

BANDS = [((3, 4), 0), ((2, 5, 3), [-2, 1]), ((2, 4, 4), [1, 3]), ((1, 3, 6), [-2, -1])]
ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


@pytest.mark.parametrize("dtype", MOVE_TYPES, ids=name)
def test_diagonal_ops_all_dtypes(gpu_matches_cpu, rng, dtype):
    pad = random(rng, (), dtype)
    for shape, k in BANDS:
        x = random(rng, shape, dtype)
        for align in ALIGNS:
            (part,) = gpu_matches_cpu(ops.matrix_diag_part_v3, x, np.int32(k), pad, align=align)
            diag = random(rng, part.shape, dtype)
            gpu_matches_cpu(ops.matrix_set_diag_v3, x, diag, np.int32(k), align=align)
            gpu_matches_cpu(ops.matrix_diag_v3, diag, np.int32(k), np.int32(-1), np.int32(-1),
                            pad, align=align)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_l2_loss(gpu_matches_cpu, rng, dtype):
    for shape in ((7,), (33, 129), (0, 3)):
        gpu_matches_cpu(ops.l2_loss, random(rng, shape, dtype), rtol=1e-5, atol=1e-5)


def test_errors_match():
    x = np.ones((3, 4), np.float32)
    _raises_on_both(errors.InvalidArgumentError, ops.matrix_diag_part_v3, x, np.int32([2, 1]),
                    np.float32(0))
    _raises_on_both(errors.InvalidArgumentError, ops.matrix_set_diag_v3, x,
                    np.ones(2, np.float32), np.int32(0))
    _raises_on_both(errors.InvalidArgumentError, ops.matrix_diag_v3, x[0], np.int32([0, 1]),
                    np.int32(-1), np.int32(-1), np.float32(0))


def test_fft_under_a_gpu_placement_runs_on_the_host(rng):
    x = (rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8))).astype(np.complex64)
    with opgen.device("/GPU:0"):
        y = ops.fft(x)
        r = ops.rfft(x.real.copy(), np.int32([8]))
    assert y.device.endswith("CPU:0") and r.device.endswith("CPU:0")
    np.testing.assert_allclose(y.numpy(), np.fft.fft(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.numpy(), np.fft.rfft(x.real), rtol=1e-5, atol=1e-5)


def test_linalg_under_a_gpu_placement_runs_on_the_host(rng):
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    with opgen.device("/GPU:0"):
        inv = ops.matrix_inverse(a)
    assert inv.device.endswith("CPU:0")
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a), rtol=1e-10, atol=1e-10)
