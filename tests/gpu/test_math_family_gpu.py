"""EuclideanNorm, Cross, CumulativeLogsumexp, ApproximateEqual, Inv / InvGrad,
PopulationCount, AccumulateNV2 and ConjugateTranspose on the GPU equal the CPU kernels
(themselves checked against TensorFlow in tests/python_runtime/test_math_family_ops.py),
for every dtype both devices register; errors are the CPU's."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import errors, execute_op

from gpu_compare import FLOATS, _raises_on_both, name, random

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
COMPLEX = [np.complex64, np.complex128]


def _op(op, **attrs):
    def run(*inputs):
        return execute_op(op, list(inputs), attrs)
    run.__name__ = op
    return run


def _values(rng, shape, dtype):
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return random(rng, shape, dtype)


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=name)
def test_euclidean_norm(gpu_matches_cpu, rng, dtype):
    x = _values(rng, (3, 40, 5), dtype)
    for axes, keep in [(1, False), ([0, 2], True), ([0, 1, 2], False), ([], False), (-1, True)]:
        gpu_matches_cpu(_op("EuclideanNorm", keep_dims=keep), x, np.int32(axes))
    gpu_matches_cpu(_op("EuclideanNorm"), _values(rng, (0, 3), dtype), np.int64(0))
    gpu_matches_cpu(_op("EuclideanNorm"), _values(rng, (5000,), dtype), np.int32(0))


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=name)
def test_cross(gpu_matches_cpu, rng, dtype):
    for shape in [(3,), (4, 5, 3), (0, 3)]:
        gpu_matches_cpu(_op("Cross"), _values(rng, shape, dtype), _values(rng, shape, dtype))


def test_cross_errors_on_both():
    _raises_on_both(errors.FailedPreconditionError, _op("Cross"), np.ones((2, 4), np.float32),
                    np.ones((2, 4), np.float32))
    _raises_on_both(errors.InvalidArgumentError, _op("Cross"), np.ones((2, 3), np.float32),
                    np.ones((3,), np.float32))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_cumulative_logsumexp(gpu_matches_cpu, rng, dtype):
    x = _values(rng, (4, 30), dtype)
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                gpu_matches_cpu(_op("CumulativeLogsumexp", exclusive=exclusive, reverse=reverse),
                                x, np.int32(axis))
    gpu_matches_cpu(_op("CumulativeLogsumexp"), np.array([-np.inf, -np.inf, 1, np.inf], dtype),
                    np.int64(0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=name)
def test_approximate_equal(gpu_matches_cpu, rng, dtype):
    x = _values(rng, (6, 7), dtype)
    y = (x + rng.uniform(-0.3, 0.3, x.shape)).astype(dtype)
    for tolerance in (1e-5, 0.1):
        gpu_matches_cpu(_op("ApproximateEqual", tolerance=tolerance), x, y)
    _raises_on_both(errors.InvalidArgumentError, _op("ApproximateEqual"), x, x[:2])


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX, ids=name)
def test_inv_and_inv_grad(gpu_matches_cpu, rng, dtype):
    x = _values(rng, (5, 6), dtype) + np.array(0.5, dtype)
    gpu_matches_cpu(_op("Inv"), x)
    gpu_matches_cpu(_op("InvGrad"), x, _values(rng, (5, 6), dtype))


@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_population_count(gpu_matches_cpu, rng, dtype):
    info = np.iinfo(dtype)
    x = np.concatenate([random(rng, (50,), dtype), np.array([info.min, info.max, 0], dtype)])
    got, = gpu_matches_cpu(_op("PopulationCount"), x)
    assert got.dtype == np.uint8


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=name)
def test_accumulate_nv2(gpu_matches_cpu, rng, dtype):
    xs = [_values(rng, (4, 5), dtype) for _ in range(3)]
    gpu_matches_cpu(lambda *a: execute_op("AccumulateNV2", [list(a)], {"shape": [4, 5]}), *xs)


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX + [np.bool_], ids=name)
def test_conjugate_transpose(gpu_matches_cpu, rng, dtype):
    x = _values(rng, (3, 4, 5), dtype)
    for perm in ([2, 0, 1], [0, 2, 1], [0, 1, 2]):
        got, = gpu_matches_cpu(_op("ConjugateTranspose"), x, np.int32(perm))
        np.testing.assert_array_equal(got, np.conj(np.transpose(x, perm)) if np.iscomplexobj(x)
                                      else np.transpose(x, perm))
