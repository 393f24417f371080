"""BiasAddV1 (BiasAdd's first version: the channel is always the last dimension) on the
CPU against TensorFlow 2.21 (its own interpreter, tests/tf_reference.py; skipped without
it): outputs over ranks and dtypes, its gradient against tf.GradientTape's, and the
errors for bad operands."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from nn_extra_reference import Case, check, run_tensorflow

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(551)
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8, np.int16, np.uint8, np.uint16]


def cases():
    out = []
    for shape in [(3, 4), (2, 3, 5), (2, 2, 3, 4), (0, 3)]:
        x = rng.uniform(-3, 3, shape).astype(np.float32)
        b = rng.uniform(-1, 1, shape[-1:]).astype(np.float32)
        tag = "x".join(map(str, shape))
        out += [Case(f"v1-{tag}", "BiasAddV1", {"value": x, "bias": b}),
                Case(f"tape-{tag}", "BiasAddV1", {"value": x, "bias": b}, wrt=["value", "bias"],
                     dy=rng.uniform(-1, 1, shape).astype(np.float32))]
    for dtype in DTYPES:
        x = rng.integers(0, 9, (2, 3, 4)).astype(dtype)
        b = rng.integers(0, 9, (4,)).astype(dtype)
        out.append(Case(f"v1-{np.dtype(dtype).name}", "BiasAddV1", {"value": x, "bias": b}))
    x = rng.uniform(-3, 3, (2, 3)).astype(np.float32)
    out += [Case("err-rank1", "BiasAddV1", {"value": x[0], "bias": x[0]}, message="BiasAddV1: "),
            Case("err-bias", "BiasAddV1", {"value": x, "bias": x[0, :2]}, message="bias")]
    return out


CASES = cases()


@pytest.fixture(scope="module")
def tensorflow():
    return run_tensorflow(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_matches_tensorflow(case, tensorflow):
    check(case, tensorflow, rtol=1e-3, atol=1e-3)


def test_bias_add_v1_is_bias_add_nhwc():
    x = rng.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
    b = rng.uniform(-1, 1, 4).astype(np.float32)
    np.testing.assert_array_equal(ops.bias_add_v1(x, b).numpy(), x + b)
