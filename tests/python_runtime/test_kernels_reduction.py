"""Reductions (Sum, Mean, Prod, Max, Min) and ArgMax / ArgMin on every dtype TensorFlow
registers, over fixed and random axes, against numpy. Floating-point sums are compared
with a bound that grows with the summed magnitudes; integer results exactly (sums and
products wrap, integer means truncate)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from kernel_dtypes import (FLOATS, REALS, is_float16, is_int, name, run, tolerance, values)

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(5)

REDUCTIONS = ["Sum", "Mean", "Prod", "Max", "Min"]


def reference(op, x, axes, keep_dims):
    """What TensorFlow computes: floats (half and bfloat16 widened) in float64 here,
    integers in their own type, wrapping."""
    axes = tuple(axes)
    if is_int(x.dtype):
        if op == "Mean":  # summed in 64 bits, so int8 means do not wrap; truncated
            total = np.sum(x.astype(np.int64), axis=axes, keepdims=keep_dims)
            count = max(int(np.prod([x.shape[a] for a in axes])), 1)
            return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
        fn = {"Sum": np.sum, "Prod": np.prod}.get(op)
        if fn is not None:
            return fn(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
    wide = x.astype(np.float64) if not is_int(x.dtype) else x
    fn = {"Sum": np.sum, "Mean": np.mean, "Prod": np.prod, "Max": np.max, "Min": np.min}[op]
    return np.asarray(fn(wide, axis=axes, keepdims=keep_dims)).astype(x.dtype)


def check(op, x, axes, keep_dims=False):
    got = run(op, [x, np.array(axes, np.int32)], {"keep_dims": keep_dims})
    want = reference(op, x, [a % x.ndim for a in axes], keep_dims)
    assert got.shape == want.shape and got.dtype == want.dtype
    if is_int(x.dtype):
        np.testing.assert_array_equal(got, want)
        return
    # Rounding of a float sum grows with the magnitudes summed, not with the result.
    scale = np.sum(np.abs(x.astype(np.float64)), axis=tuple(a % x.ndim for a in axes),
                   keepdims=keep_dims) if op in ("Sum", "Mean") else np.abs(want.astype(np.float64))
    if op == "Mean" and x.size:
        scale = scale / max(int(np.prod([x.shape[a] for a in axes])), 1)
    tol = tolerance(x.dtype)
    np.testing.assert_array_less(np.abs(got.astype(np.float64) - want.astype(np.float64)),
                                 tol["rtol"] * (scale + np.abs(want.astype(np.float64))) + tol["atol"] + 1e-300)


@pytest.mark.parametrize("axes", [[0, 1, 2], [0], [-1], [1], [0, 2], [1, 2]])
@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_reductions_match_numpy(dtype, op, axes):
    low, high = (-1.2, 1.2) if op == "Prod" else (-3, 3)
    x = values(rng, (3, 4, 5), dtype, low=low, high=high)
    check(op, x, axes)


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8], ids=name)
def test_keep_dims_and_no_axes(dtype, op):
    x = values(rng, (2, 3), dtype)
    check(op, x, [1], keep_dims=True)
    check(op, x, [0, 1], keep_dims=True)
    got = run(op, [x, np.zeros(0, np.int32)], {"keep_dims": False})  # no axes: unchanged
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64], ids=name)
def test_empty_reductions_give_the_identity(dtype):
    x = np.zeros((0, 3), dtype)
    for op, identity in [("Sum", 0), ("Prod", 1)]:
        got = run(op, [x, np.array([0], np.int32)])
        np.testing.assert_array_equal(got, np.full(3, identity, dtype))
    assert run("Max", [x, np.array([1], np.int32)]).shape == (0,)
    if not is_int(dtype):  # 0 / 0; the maximum of nothing is -inf, as in TensorFlow
        assert np.isnan(run("Mean", [x, np.array([0], np.int32)])).all()
        np.testing.assert_array_equal(run("Max", [x, np.array([0], np.int32)]), np.full(3, -np.inf))
        np.testing.assert_array_equal(run("Min", [x, np.array([0], np.int32)]), np.full(3, np.inf))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32], ids=name)
def test_integer_means_do_not_wrap(dtype):
    x = np.array([[100, 100, 101], [1, 2, 2]], dtype)
    np.testing.assert_array_equal(run("Mean", [x, np.array([1], np.int32)]), np.array([100, 1], dtype))


@pytest.mark.parametrize("op", ["Max", "Min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16], ids=name)
def test_max_and_min_propagate_nan(dtype, op):
    x = values(rng, (3, 40), dtype)
    x[1, 17] = np.nan
    got = run(op, [x, np.array([1], np.int32)])
    assert np.isnan(got[1]) and not np.isnan(got[[0, 2]]).any()
    assert np.isnan(run(op, [x, np.array([0, 1], np.int32)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=name)
def test_long_float_sums_stay_accurate(dtype):
    # Summed one by one in float32, a million values of 0.01 would be off by ~1%.
    x = np.full((3, 1 << 20), 0.01, dtype)
    got = run("Sum", [x, np.array([1], np.int32)]).astype(np.float64)
    exact = float(dtype(0.01)) * (1 << 20)
    np.testing.assert_allclose(got, exact, rtol=1e-6 if dtype == np.float32 else 1e-3)
    got_all = float(run("Mean", [x, np.array([0, 1], np.int32)]))
    np.testing.assert_allclose(got_all, float(dtype(0.01)), rtol=1e-6 if dtype == np.float32 else 1e-3)


@pytest.mark.parametrize("op, reference_fn", [("ArgMax", np.argmax), ("ArgMin", np.argmin)])
@pytest.mark.parametrize("dtype", REALS + [np.bool_], ids=name)
def test_arg_reductions_pick_the_first_extreme(dtype, op, reference_fn):
    x = values(rng, (4, 6), dtype, low=-1, high=1)  # small range: ties are likely
    for axis in (0, 1, -1):
        for output_type in ("int32", "int64"):
            got = run(op, [x, np.array(axis, np.int32)], {"output_type": output_type})
            want = reference_fn(x, axis=axis).astype(output_type)
            np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, derandomize=True)  # the same examples every run
@given(data=st.data(), op=st.sampled_from(REDUCTIONS),
       dtype=st.sampled_from([np.float32, np.float16, np.int32, np.int8]),
       keep_dims=st.booleans())
def test_reductions_over_random_axes(data, op, dtype, keep_dims):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5))
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape),
                              unique_by=lambda a: a % len(shape)))
    if op in ("Max", "Min") and any(shape[a] == 0 for a in axes):
        return  # numpy has no identity for these; TensorFlow's (the type's lowest) differs
    x = values(rng, shape, dtype, low=-1.1 if op == "Prod" else -3, high=1.1 if op == "Prod" else 3)
    if axes and x.size:
        check(op, x, axes, keep_dims)


def test_float16_reductions_accumulate_in_float():
    # 4096 ones: a half accumulator would stop at 2048 (2049 is not a half).
    x = np.ones(4096, np.float16)
    assert float(run("Sum", [x, np.array([0], np.int32)])) == 4096
    assert is_float16(np.float16) and np.float16 in FLOATS
