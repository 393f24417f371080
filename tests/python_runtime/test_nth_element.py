"""NthElement on the CPU against TensorFlow 2.21 (its own interpreter,
tests/tf_reference.py; skipped without it): values over ranks, n, reverse and dtypes
(ties included), its gradient against tf.GradientTape's (ties share it), and TensorFlow's
messages for bad operands."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from nn_extra_reference import Case, check, run_tensorflow

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(3301)
try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16,
          np.uint32, np.uint64] + ([bfloat16] if bfloat16 is not None else [])


def cases():
    out = []
    for shape in [(7,), (3, 5), (2, 3, 6), (0, 4)]:
        for n in (0, 2, shape[-1] - 1):
            for reverse in (False, True):
                x = rng.integers(-4, 5, shape).astype(np.float32)  # ties
                tag = f"{'x'.join(map(str, shape))}-{n}-{int(reverse)}"
                out.append(Case(f"nth-{tag}", "NthElement", {"input": x, "n": np.int32(n)}, {"reverse": reverse}))
                if shape[0]:
                    dy = rng.uniform(-1, 1, shape[:-1]).astype(np.float32)
                    out.append(Case(f"tape-{tag}", "NthElement", {"input": x, "n": np.int32(n)},
                                    {"reverse": reverse}, wrt=["input"], dy=dy))
    for dtype in DTYPES:
        x = rng.integers(0, 50, (4, 9)).astype(dtype)
        out.append(Case(f"nth-{np.dtype(dtype).name}", "NthElement", {"input": x, "n": np.int32(4)},
                        {"reverse": True}))
    x = rng.uniform(-3, 3, (3, 4)).astype(np.float32)
    out += [Case("err-scalar", "NthElement", {"input": x[0, 0], "n": np.int32(0)}),
            Case("err-n-vector", "NthElement", {"input": x, "n": np.int32([1])}),
            Case("err-n-negative", "NthElement", {"input": x, "n": np.int32(-1)}),
            Case("err-n-big", "NthElement", {"input": x, "n": np.int32(4)})]
    return out


CASES = cases()


@pytest.fixture(scope="module")
def tensorflow():
    return run_tensorflow(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_matches_tensorflow(case, tensorflow):
    check(case, tensorflow, rtol=1e-6, atol=1e-6)


def test_nth_element_is_numpy_partition():
    x = rng.uniform(-3, 3, (5, 11))
    np.testing.assert_array_equal(ops.nth_element(x, np.int32(3)).numpy(), np.sort(x, -1)[:, 3])
    np.testing.assert_array_equal(ops.nth_element(x, np.int32(3), reverse=True).numpy(), np.sort(x, -1)[:, -4])
