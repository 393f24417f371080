"""Windowed ops at the edges of their sizes (issue 18): a window larger than the input
with VALID padding is an InvalidArgumentError naming the op and the sizes (eager
kernels and graph shape functions alike), and a huge window or stride costs what the
window clipped to the input costs, without int64 overflow in the output size."""

from __future__ import annotations

import time

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

ONES = np.ones((1, 4, 4, 1), np.float32)
BIG = 2**31 - 1


def ones(*shape):
    return np.ones(shape, np.float32)


# (op, inputs, attrs, words the message must hold): VALID windows larger than the input.
TOO_LARGE = [
    ("MaxPool", [ones(1, 2, 5, 1)], {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1]},
     ["MaxPool", "3x3", "2x5"]),
    ("AvgPool", [ones(1, 5, 2, 1)], {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1]},
     ["AvgPool", "3x3", "5x2"]),
    ("MaxPool", [ONES], {"ksize": [1, BIG, BIG, 1], "strides": [1, 1, 1, 1]},
     ["MaxPool", str(BIG)]),
    ("Conv2D", [ones(1, 2, 2, 1), ones(3, 3, 1, 1)], {"strides": [1, 1, 1, 1]},
     ["Conv2D", "3x3", "2x2"]),
    # 3 taps dilated by 3 span 7 rows: more than the 5 there are.
    ("Conv2D", [ones(1, 5, 5, 1), ones(3, 3, 1, 1)],
     {"strides": [1, 1, 1, 1], "dilations": [1, 3, 3, 1]}, ["Conv2D", "5x5"]),
    ("DepthwiseConv2dNative", [ones(1, 2, 6, 2), ones(3, 3, 2, 1)], {"strides": [1, 1, 1, 1]},
     ["DepthwiseConv2dNative", "2x6"]),
    ("Conv3D", [ones(1, 2, 4, 4, 1), ones(3, 2, 2, 1, 1)], {"strides": [1, 1, 1, 1, 1]},
     ["Conv3D", "[1,2,4,4,1]"]),
]


@pytest.mark.parametrize("op, inputs, attrs, words", TOO_LARGE,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TOO_LARGE)])
def test_valid_window_larger_than_the_input_is_refused_eagerly(op, inputs, attrs, words):
    with pytest.raises(errors.InvalidArgumentError) as info:
        execute_op(op, inputs, dict(attrs, padding="VALID"))
    for word in words:
        assert word in str(info.value), str(info.value)


@pytest.mark.parametrize("op, inputs, attrs, words", TOO_LARGE,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TOO_LARGE)])
def test_valid_window_larger_than_the_input_is_refused_by_the_shape_function(op, inputs,
                                                                             attrs, words):
    g = opgen.Graph()
    placeholders = [g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": list(v.shape)},
                                name=f"in{i}").outputs[0] for i, v in enumerate(inputs)]
    with pytest.raises(errors.InvalidArgumentError) as info:
        g.create_op(op, placeholders, dict(attrs, padding="VALID"), name="windowed")
    assert "windowed" in str(info.value) or op in str(info.value), str(info.value)


@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
def test_a_window_as_large_as_the_input_still_fits(op):
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)
    got = np.asarray(execute_op(op, [x], {"ksize": [1, 3, 4, 1], "strides": [1, 1, 1, 1],
                                          "padding": "VALID"})[0])
    want = x.max() if op == "MaxPool" else x.mean()
    np.testing.assert_allclose(got, np.full((1, 1, 1, 1), want, np.float32))


@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
def test_a_huge_same_window_costs_the_clipped_window(op):
    # The call took 66 s, linear in the requested window.
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    start = time.perf_counter()
    got = np.asarray(execute_op(op, [x], {"ksize": [1, BIG, BIG, 1], "strides": [1, 1, 1, 1],
                                          "padding": "SAME"})[0])
    assert time.perf_counter() - start < 2.0
    # Every output's window covers the whole 4x4 image.
    want = x.max() if op == "MaxPool" else x.mean()
    np.testing.assert_allclose(got, np.full((1, 4, 4, 1), want, np.float32))


@pytest.mark.parametrize("ksize, stride", [(2**63 - 1, 1), (2**63 - 1, 2**63 - 1), (3, 2**63 - 1),
                                           (2**62, 2**62)])
def test_extreme_ksize_and_strides_do_not_overflow(ksize, stride):
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    got = np.asarray(execute_op("MaxPool", [x], {"ksize": [1, ksize, ksize, 1],
                                                 "strides": [1, stride, stride, 1],
                                                 "padding": "SAME"})[0])
    out = -(-4 // stride)  # ceil(4 / stride), as SAME gives
    assert got.shape == (1, out, out, 1)
    # The SAME window around output (0, 0): rows and columns from pad_before on.
    effective = ksize
    covered = (out - 1) * stride + effective
    pad = max(covered - 4, 0) // 2
    rows = slice(max(-pad, 0), min(-pad + ksize, 4))
    np.testing.assert_array_equal(got[0, 0, 0, 0], x[0, rows, rows, 0].max())
    with pytest.raises(errors.InvalidArgumentError, match="MaxPool"):
        execute_op("MaxPool", [x], {"ksize": [1, ksize, ksize, 1], "strides": [1, stride, stride, 1],
                                    "padding": "VALID"} if ksize > 4 else
                   {"ksize": [1, 5, 5, 1], "strides": [1, stride, stride, 1], "padding": "VALID"})
