"""The GPU kernels of the random ops give the CPU's numbers: bit for bit for uniform
floats and integers (the generator is counter-based and the conversions exact), within
a few ulps for normal and truncated normal values (CUDA's log/sin/cos against the host's
libm); the key/counter ops' outputs stay in host memory."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops

from gpu_compare import assert_gpu_matches_cpu

SHAPES = [[5], [3, 7], [0], [1001]]
KEY, COUNTER = np.array([7], np.uint64), np.array([3, 9], np.uint64)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [opgen.float32, opgen.float64, opgen.float16, opgen.bfloat16])
def test_uniform_is_bit_exact(shape, dtype):
    for fn in (lambda: ops.stateless_random_uniform_v2(np.array(shape, np.int32), KEY, COUNTER,
                                                        np.int32(1), dtype=dtype),
               lambda: ops.stateless_random_uniform(np.array(shape, np.int32),
                                                    np.array([4, 5], np.int64), dtype=dtype)):
        assert_gpu_matches_cpu(fn, rtol=0, atol=0)


@pytest.mark.parametrize("shape", SHAPES)
def test_integers_are_bit_exact(shape):
    s = np.array(shape, np.int32)
    for dtype in (opgen.int32, opgen.int64, opgen.uint32, opgen.uint64):
        assert_gpu_matches_cpu(lambda dt=dtype: ops.stateless_random_uniform_full_int_v2(
            s, KEY, COUNTER, np.int32(1), dtype=dt), rtol=0, atol=0)
        assert_gpu_matches_cpu(lambda dt=dtype: ops.stateless_random_uniform_full_int(
            s, np.array([4, 5], np.int64), dtype=dt), rtol=0, atol=0)
    assert_gpu_matches_cpu(lambda: ops.stateless_random_uniform_int_v2(
        s, KEY, COUNTER, np.int32(1), np.int64(-5), np.int64(2**40)), rtol=0, atol=0)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [opgen.float32, opgen.float64])
def test_normals_match_within_ulps(shape, dtype):
    s = np.array(shape, np.int32)
    tol = 1e-5 if dtype == opgen.float32 else 1e-12
    assert_gpu_matches_cpu(lambda: ops.stateless_random_normal_v2(s, KEY, COUNTER, np.int32(1),
                                                                  dtype=dtype), rtol=tol, atol=tol)
    assert_gpu_matches_cpu(lambda: ops.stateless_truncated_normal_v2(s, KEY, COUNTER, np.int32(1),
                                                                     dtype=dtype), rtol=tol, atol=tol)


def test_key_counter_ops_keep_their_outputs_on_the_host():
    assert_gpu_matches_cpu(lambda: ops.stateless_random_get_key_counter_alg(np.array([1, 2], np.int64)),
                           rtol=0, atol=0, on_host=(0, 1, 2))
