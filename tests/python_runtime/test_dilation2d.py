"""Dilation2D, Dilation2DBackpropInput and Dilation2DBackpropFilter on the CPU against
TensorFlow 2.21 (its own interpreter, tests/tf_reference.py; skipped without it): outputs
over strides, rates, paddings and dtypes (ties included), the registered gradient against
tf.GradientTape's, and TensorFlow's messages for bad operands and attrs."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import ops
from nn_extra_reference import Case, check, run_tensorflow

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7741)
try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16,
          np.uint32, np.uint64] + ([bfloat16] if bfloat16 is not None else [])

WINDOWS = [((1, 1), (1, 1), "VALID"), ((1, 1), (1, 1), "SAME"), ((2, 2), (1, 1), "SAME"),
           ((1, 2), (2, 1), "VALID"), ((2, 1), (2, 2), "SAME"), ((3, 2), (1, 3), "SAME")]


def out_shape(shape, fshape, s, r, padding):
    dims = []
    for d in (0, 1):
        eff = (fshape[d] - 1) * r[d] + 1
        n = shape[1 + d]
        dims.append(-(-n // s[d]) if padding == "SAME" else (n - eff + s[d]) // s[d])
    return (shape[0], *dims, shape[3])


def cases():
    out = []
    for k, (s, r, padding) in enumerate(WINDOWS):
        attrs = {"strides": [1, *s, 1], "rates": [1, *r, 1], "padding": padding}
        for m, (shape, fshape, ties) in enumerate([((2, 6, 7, 3), (3, 2, 3), False), ((1, 5, 5, 2), (2, 3, 2), True)]):
            if ties:
                x = rng.integers(0, 3, shape).astype(np.float32)
                f = rng.integers(0, 2, fshape).astype(np.float32)
            else:
                x = rng.permutation(np.arange(np.prod(shape))).reshape(shape).astype(np.float32) / 7
                f = rng.permutation(np.arange(np.prod(fshape))).reshape(fshape).astype(np.float32) / 11
            dy = rng.uniform(-1, 1, out_shape(shape, fshape, s, r, padding)).astype(np.float32)
            tag = f"{k}-{m}"
            ops3 = {"input": x, "filter": f, "out_backprop": dy}
            out += [Case(f"dil-{tag}", "Dilation2D", {"input": x, "filter": f}, attrs),
                    Case(f"bin-{tag}", "Dilation2DBackpropInput", ops3, attrs),
                    Case(f"bfil-{tag}", "Dilation2DBackpropFilter", ops3, attrs),
                    Case(f"tape-{tag}", "Dilation2D", {"input": x, "filter": f}, attrs, wrt=["input", "filter"],
                         dy=dy)]
    attrs = {"strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1], "padding": "SAME"}
    for dtype in DTYPES:
        x = rng.integers(0, 20, (1, 5, 4, 2)).astype(dtype)
        f = rng.integers(0, 5, (2, 2, 2)).astype(dtype)
        dy = rng.integers(0, 5, (1, 5, 2, 2)).astype(dtype)
        name = np.dtype(dtype).name
        out += [Case(f"dil-{name}", "Dilation2D", {"input": x, "filter": f}, attrs),
                Case(f"bin-{name}", "Dilation2DBackpropInput", {"input": x, "filter": f, "out_backprop": dy}, attrs),
                Case(f"bfil-{name}", "Dilation2DBackpropFilter", {"input": x, "filter": f, "out_backprop": dy},
                     attrs)]
    x = rng.uniform(-1, 1, (2, 5, 5, 2)).astype(np.float32)
    f = np.zeros((2, 2, 2), np.float32)
    one = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "VALID"}
    out += [
        Case("dil-empty", "Dilation2D", {"input": x, "filter": np.zeros((6, 2, 2), np.float32)}, one),
        Case("err-input", "Dilation2D", {"input": x[0], "filter": f}, one),
        Case("err-filter", "Dilation2D", {"input": x, "filter": f[0]}, one),
        Case("err-depth", "Dilation2D", {"input": x, "filter": np.zeros((2, 2, 3), np.float32)}, one),
        Case("err-stride", "Dilation2D", {"input": x, "filter": f}, {**one, "strides": [2, 1, 1, 1]}),
        Case("err-rate", "Dilation2D", {"input": x, "filter": f}, {**one, "rates": [1, 1, 1, 2]}),
        Case("err-bin", "Dilation2DBackpropInput", {"input": x, "filter": f, "out_backprop": x[:, :3, :4]}, one),
        Case("err-bfil", "Dilation2DBackpropFilter", {"input": x, "filter": f, "out_backprop": x[:, :3, :4]}, one),
    ]
    return out


CASES = cases()


@pytest.fixture(scope="module")
def tensorflow():
    return run_tensorflow(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_matches_tensorflow(case, tensorflow):
    half = any(v.dtype == np.float16 or (bfloat16 is not None and v.dtype == bfloat16) for v in case.inputs.values())
    check(case, tensorflow, rtol=1e-2 if half else 1e-5, atol=1e-2 if half else 1e-5)


def test_dilation_by_a_flat_filter_is_max_pooling():
    """Independent of TensorFlow: a zero filter makes it MaxPool (every tap in bounds)."""
    x = rng.uniform(-1, 1, (2, 7, 6, 3)).astype(np.float32)
    got = ops.dilation2d(x, np.zeros((3, 2, 3), np.float32), strides=[1, 2, 1, 1], rates=[1, 1, 1, 1],
                         padding="VALID").numpy()
    want = ops.max_pool(x, ksize=[1, 3, 2, 1], strides=[1, 2, 1, 1], padding="VALID").numpy()
    np.testing.assert_array_equal(got, want)
