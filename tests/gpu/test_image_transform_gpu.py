"""ImageProjectiveTransformV2/V3 on the GPU equal the CPU kernels (which the CPU tests
compare with TensorFlow bit for bit), for every dtype (TensorFlow's GPU types and bfloat16), every
interpolation and fill mode, bit for bit (the CUDA file is built without fused
multiply-adds), with the same errors for bad operands."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

from gpu_compare import _raises_on_both, bfloat16, name, random

TYPES = [np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64] + ([bfloat16] if bfloat16 is not None else [])
MODES = ["REFLECT", "WRAP", "CONSTANT", "NEAREST"]
# shifts far outside, zooms, a flip; rotations, a projective map, a shear
EXACT = np.float32([[1, 0, 9.5, 0, 1, -7, 0, 0], [0.5, 0, -3, 0, 2, 1, 0, 0],
                    [-1, 0, 6, 0, 1, 0.25, 0, 0]])
GENERAL = np.float32([[0.8, -0.6, 2.1, 0.6, 0.8, -1.3, 0, 0], [1.2, 0.3, -0.7, -0.1, 0.9, 0.4,
                                                                0.01, -0.02],
                      [1, 0.35, -1.5, -0.2, 1, 0.5, 0, 0]])


@pytest.mark.parametrize("dtype", TYPES, ids=name)
@pytest.mark.parametrize("mode", MODES)
def test_transforms_match_cpu(gpu_matches_cpu, rng, dtype, mode):
    x = random(rng, (3, 5, 7, 2), dtype)
    gpu_matches_cpu(ops.image_projective_transform_v3, x, EXACT, np.int32([6, 4]),
                    np.float32(3), interpolation="NEAREST", fill_mode=mode)
    gpu_matches_cpu(ops.image_projective_transform_v2, x, EXACT[:1], np.int32([4, 9]),
                    interpolation="NEAREST", fill_mode=mode)
    for interpolation in ("NEAREST", "BILINEAR"):
        gpu_matches_cpu(ops.image_projective_transform_v3, x, GENERAL, np.int32([6, 8]),
                        np.float32(-2), interpolation=interpolation, fill_mode=mode, rtol=0,
                        atol=0)


def test_errors_match():
    x = np.zeros((2, 3, 4, 1), np.float32)
    t = np.zeros((2, 8), np.float32)
    for args in ((x[0], t, np.int32([3, 4]), np.float32(0)),
                 (x, t[:, :6], np.int32([3, 4]), np.float32(0)),
                 (x, t, np.int32([0, 4]), np.float32(0)),
                 (x, t, np.int32([3, 4]), np.float32([0]))):
        _raises_on_both(errors.InvalidArgumentError, ops.image_projective_transform_v3, *args,
                        interpolation="NEAREST")
