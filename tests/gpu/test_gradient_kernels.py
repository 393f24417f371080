"""The GPU's kernels for gradient graphs equal the CPU's: the fused element-wise
gradients (SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad) for every float
type, BroadcastGradientArgs (host memory on the GPU too), and a whole gradient graph
placed on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from gpu_compare import assert_gpu_matches_cpu

try:
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"])
def test_fused_gradients(op, dtype):
    rng = np.random.default_rng(3)
    y = rng.uniform(0.2, 2.0, (3, 37)).astype(dtype)
    dy = rng.uniform(-2.0, 2.0, (3, 37)).astype(dtype)
    assert_gpu_matches_cpu(lambda a, b: opgen.execute_op(op, [a, b], {}), y, dy)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_broadcast_gradient_args(dtype):
    s0, s1 = np.array([2, 1, 3], dtype), np.array([4, 1], dtype)
    got = assert_gpu_matches_cpu(
        lambda a, b: opgen.execute_op("BroadcastGradientArgs", [a, b], {}), s0, s1, on_host=(0, 1))
    assert [g.tolist() for g in got] == [[1], [0, 2]]


def test_gradient_graph_on_the_gpu():
    g = opgen.Graph()
    with g.as_default(), opgen.device("/GPU:0"):
        x = opgen.ops.placeholder(opgen.float32)  # unknown shape: BroadcastGradientArgs runs
        b = opgen.ops.placeholder(opgen.float32)
        y = opgen.ops.sum(opgen.ops.tanh(opgen.ops.mul(x, b)), [0, 1])
        dx, db = opgen.gradients(y, [x, b])
    xv = np.float32([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    bv = np.float32([1.0, 2.0, -0.5])
    got = opgen.Session(g).run([dx, db], {x: xv, b: bv})
    t = 1 - np.tanh(xv * bv) ** 2
    np.testing.assert_allclose(got[0], t * bv, rtol=1e-5)
    np.testing.assert_allclose(got[1], (t * xv).sum(0), rtol=1e-5)
