"""Element-wise kernels on every dtype TensorFlow registers them for (less complex)
equal numpy: same-shape, scalar, broadcast and empty operands; integer semantics as
TensorFlow's (floor division, wrapping overflow)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernel_dtypes import (FLOATS, INTS, REALS, SIGNED, SIGNED_INTS, UNSIGNED_INTS,
                           assert_close, in_float, is_float16, is_int, name, run, values)
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(11)

SHAPES = [((5,), (5,)), ((2, 3), ()), ((), (4,)), ((4, 1), (2, 1, 3)), ((0, 3), (3,))]


def trunc_div(x, y):
    if is_int(x.dtype):
        q = np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64))
        return (np.sign(x.astype(np.int64)) * np.sign(y.astype(np.int64)) * q).astype(x.dtype)
    return x / y


def floor_div(x, y):
    return np.floor_divide(x, y) if is_int(x.dtype) else np.floor(x / y)


BINARY = [
    ("AddV2", np.add, REALS, {}),
    ("Sub", np.subtract, REALS, {}),
    ("Mul", np.multiply, REALS, {}),
    ("Div", trunc_div, REALS, {"nonzero": True}),
    ("RealDiv", np.divide, FLOATS, {"nonzero": True}),
    ("FloorDiv", floor_div, REALS, {"nonzero": True}),
    ("FloorMod", np.mod, REALS, {"nonzero": True}),
    ("Maximum", np.maximum, REALS, {}),
    ("Minimum", np.minimum, REALS, {}),
    ("SquaredDifference", lambda x, y: (x - y) * (x - y),
     FLOATS + [np.int32, np.int64], {}),
]
COMPARISONS = [("Less", np.less), ("LessEqual", np.less_equal), ("Greater", np.greater),
               ("GreaterEqual", np.greater_equal), ("Equal", np.equal),
               ("NotEqual", np.not_equal)]


def binary_cases(table):
    return [pytest.param(op, fn, dtype, xs, ys, kw, id=f"{op}-{name(dtype)}-{xs}-{ys}")
            for op, fn, dtypes, kw in table for dtype in dtypes for xs, ys in SHAPES]


@pytest.mark.parametrize("op, reference, dtype, xs, ys, kw", binary_cases(BINARY))
def test_binary_ops_match_numpy(op, reference, dtype, xs, ys, kw):
    x = values(rng, xs, dtype)
    y = values(rng, ys, dtype, nonzero=kw.get("nonzero", False))
    with np.errstate(over="ignore"):
        want = in_float(reference, x, y)
    assert_close(run(op, [x, y]), want)


@pytest.mark.parametrize("op, reference, dtype, xs, ys, kw", binary_cases(
    [(op, fn, REALS, {}) for op, fn in COMPARISONS]))
def test_comparisons_match_numpy(op, reference, dtype, xs, ys, kw):
    x, y = values(rng, xs, dtype), values(rng, ys, dtype)
    if x.size and y.size:
        y.flat[0] = x.flat[0]  # at least one tie
    assert_close(run(op, [x, y]), reference(x, y))


@pytest.mark.parametrize("op, reference", [("Equal", np.equal), ("NotEqual", np.not_equal)])
def test_bool_equality(op, reference):
    x, y = values(rng, (4, 3), np.bool_), values(rng, (3,), np.bool_)
    assert_close(run(op, [x, y]), reference(x, y))


@pytest.mark.parametrize("dtype", SIGNED, ids=name)
def test_pow(dtype):
    if is_int(dtype):
        x = values(rng, (3, 4), dtype, low=-0.5, high=0.5)
        y = rng.integers(0, 6, size=(4,)).astype(dtype)
    else:
        x = values(rng, (3, 4), dtype, low=0.1, high=3)
        y = values(rng, (4,), dtype, low=-3, high=3)
    with np.errstate(over="ignore"):
        want = in_float(np.power, x, y)
    assert_close(run("Pow", [x, y]), want)


def test_integer_pow_refuses_negative_exponents():
    with pytest.raises(errors.InvalidArgumentError, match="negative integer powers"):
        run("Pow", [np.array([2], np.int32), np.array([-1], np.int32)])


def unary_domain(op):
    return {"Log": (0.05, 4), "Log1p": (0, 4), "Sqrt": (0, 4), "Rsqrt": (0.05, 4),
            "Reciprocal": (0.1, 3)}.get(op, (-4, 4))


def selu(x):
    scale, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    return np.where(x < 0, scale * alpha * np.expm1(x), scale * x).astype(x.dtype)


FLOAT_UNARY = [
    ("Exp", np.exp), ("Log", np.log), ("Log1p", np.log1p), ("Sqrt", np.sqrt),
    ("Rsqrt", lambda x: 1 / np.sqrt(x)), ("Reciprocal", lambda x: 1 / x), ("Tanh", np.tanh),
    ("Sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("Erf", np.vectorize(math.erf, otypes=[np.float64])),
    ("Softplus", lambda x: np.logaddexp(np.zeros_like(x), x)),
    ("Elu", lambda x: np.where(x < 0, np.expm1(x), x)), ("Selu", selu),
]
REAL_UNARY = [
    ("Neg", np.negative, SIGNED), ("Abs", np.abs, SIGNED), ("Sign", np.sign, SIGNED),
    ("Square", np.square, REALS), ("Relu", lambda x: np.maximum(x, x.dtype.type(0)), REALS),
    ("Relu6", lambda x: np.clip(x, x.dtype.type(0), x.dtype.type(6)), REALS),
]


@pytest.mark.parametrize("shape", [(7,), (2, 3), (0, 4)])
@pytest.mark.parametrize("op, reference, dtype", [
    pytest.param(op, fn, dtype, id=f"{op}-{name(dtype)}") for op, fn in FLOAT_UNARY for dtype in FLOATS])
def test_float_unary_ops_match_numpy(op, reference, dtype, shape):
    low, high = unary_domain(op)
    x = values(rng, shape, dtype, low=low, high=high)
    want = in_float(lambda a: np.asarray(reference(a)).astype(a.dtype), x)
    assert_close(run(op, [x]), want)


@pytest.mark.parametrize("op, reference, dtype", [
    pytest.param(op, fn, dtype, id=f"{op}-{name(dtype)}") for op, fn, dts in REAL_UNARY for dtype in dts])
def test_real_unary_ops_match_numpy(op, reference, dtype):
    x = values(rng, (3, 5), dtype, low=-8, high=8)
    with np.errstate(over="ignore"):
        want = in_float(reference, x)
    assert_close(run(op, [x]), want)


def test_large_float32_exp_and_tanh_keep_their_limits():
    x = np.array([-200, -104, -90, -88, -1e-8, 0, 1e-8, 20, 88, 88.8, 200, np.inf, -np.inf, np.nan],
                 np.float32)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x)
        # Subnormal results flush to zero, as in TensorFlow (exp(-90) is 0 there).
        want[np.abs(want) < np.finfo(np.float32).tiny] = 0
        np.testing.assert_allclose(run("Exp", [x]), want, rtol=2e-6, atol=0)
        np.testing.assert_allclose(run("Tanh", [x]), np.tanh(x), rtol=2e-6, atol=1e-30)
        np.testing.assert_allclose(run("Sigmoid", [x]), 1 / (1 + np.exp(-x)), rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("dtype", SIGNED_INTS, ids=name)
def test_signed_integer_overflow_wraps(dtype):
    info = np.iinfo(dtype)
    big = np.array([info.max, info.min, info.min], dtype)
    one = np.array([1, -1, 1], dtype)
    with np.errstate(over="ignore"):
        assert_close(run("AddV2", [big, one]), big + one)
        assert_close(run("Mul", [big, big]), big * big)
        assert_close(run("Neg", [big]), -big)
        assert_close(run("Abs", [big]), np.abs(big))
        # MIN / -1 overflows: the wrapped quotient, not a crash
        assert_close(run("FloorDiv", [big, np.array([-1, -1, -1], dtype)]), np.negative(big))


@pytest.mark.parametrize("dtype", UNSIGNED_INTS, ids=name)
def test_unsigned_integer_arithmetic_wraps(dtype):
    x = np.array([0, 1, np.iinfo(dtype).max], dtype)
    y = np.array([1, 2, 3], dtype)
    assert_close(run("Sub", [x, y]), x - y)
    assert_close(run("AddV2", [x, y]), x + y)
    assert_close(run("FloorDiv", [x, y]), x // y)
    assert_close(run("FloorMod", [x, y]), x % y)


@pytest.mark.parametrize("dtype", SIGNED_INTS, ids=name)
def test_integer_floor_division_rounds_down(dtype):
    x = np.array([7, -7, 7, -7, 0, -1], dtype)
    y = np.array([2, 2, -2, -2, 3, 5], dtype)
    assert_close(run("FloorDiv", [x, y]), np.floor_divide(x, y))
    assert_close(run("FloorMod", [x, y]), np.mod(x, y))
    assert_close(run("Div", [x, y]), np.array([3, -3, -3, 3, 0, 0], dtype))


@pytest.mark.parametrize("op", ["Div", "FloorDiv", "FloorMod"])
@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_integer_division_by_zero_is_an_error(op, dtype):
    with pytest.raises(errors.InvalidArgumentError, match="division by zero"):
        run(op, [np.array([1, 2], dtype), np.array([1, 0], dtype)])


@pytest.mark.parametrize("dtype", REALS + [np.bool_], ids=name)
def test_select_v2_broadcasts_condition_and_branches(dtype):
    condition = values(rng, (2, 1, 3), np.bool_)
    t, e = values(rng, (4, 1), dtype), values(rng, (3,), dtype)
    assert_close(run("SelectV2", [condition, t, e]), np.where(condition, t, e))


@pytest.mark.parametrize("dtype", FLOATS + SIGNED_INTS + [np.uint8, np.uint16], ids=name)
def test_clip_by_value(dtype):
    x = values(rng, (3, 4), dtype)
    lo, hi = values(rng, (), dtype, low=0, high=1), values(rng, (4,), dtype, low=0, high=2.5)
    # where lo > hi, lo wins (TensorFlow clips to hi first)
    assert_close(run("ClipByValue", [x, lo, hi]), np.maximum(np.minimum(x, hi), lo))


@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_add_n_rounds_each_sum(dtype):
    xs = [values(rng, (2, 3), dtype) for _ in range(3)]
    with np.errstate(over="ignore"):
        want = xs[0] + xs[1] + xs[2]  # numpy rounds each addition to the dtype too
    assert_close(run("AddN", [xs]), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64], ids=name)
def test_large_inputs_split_across_threads_agree(dtype):
    n = (1 << 18) + 77  # several chunks, not a multiple of the chunk size
    x = values(rng, (n,), dtype)
    y = values(rng, (n,), dtype, nonzero=True)
    assert_close(run("Mul", [x, y]), in_float(np.multiply, x, y))
    assert_close(run("Sub", [x, y[:1]]), in_float(np.subtract, x, y[:1]))
    assert_close(run("Maximum", [x.reshape(-1, 1)[:1000], y[:977]]),
                 np.maximum(x.reshape(-1, 1)[:1000], y[:977]))
    if not is_int(dtype):
        assert_close(run("Exp", [x]), in_float(np.exp, x))
    if is_float16(dtype):
        assert run("Neg", [x]).dtype == x.dtype


@pytest.mark.parametrize("op, reference", [("Maximum", np.maximum), ("Minimum", np.minimum)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16], ids=name)
def test_maximum_and_minimum_propagate_nan(dtype, op, reference):
    x = np.array([np.nan, 1, np.nan, -2], dtype)
    y = np.array([1, np.nan, np.nan, 3], dtype)
    np.testing.assert_array_equal(run(op, [x, y]), reference(x, y))  # NaNs compare equal here


def test_concurrent_callers_share_the_worker_pool():
    # Callers that find the pool busy run their loops inline: same results, no deadlock.
    import threading
    x = values(rng, (300_000,), np.float32)
    y = values(rng, (300_000,), np.float32)
    want = x * y
    failures = []

    def work():
        for _ in range(5):
            if not np.array_equal(run("Mul", [x, y]), want):
                failures.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures and not any(t.is_alive() for t in threads)


@pytest.mark.parametrize("op_name, want", [("equal", False), ("not_equal", True)])
def test_equality_of_incompatible_shapes_without_error_is_one_bool(op_name, want):
    """TensorFlow's semantics: with incompatible_shape_error=False, operands that cannot
    broadcast are unequal, a scalar; broadcastable ones compare element-wise; with the
    default (True) the shapes are an error."""
    from opgen import ops
    op = getattr(ops, op_name)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(4, dtype=np.float32)
    got = op(x, y, incompatible_shape_error=False).numpy()
    assert got.shape == () and got.dtype == np.bool_ and bool(got) is want
    z = np.array([0, 9, 2], np.float32)
    np.testing.assert_array_equal(op(x, z, incompatible_shape_error=False).numpy(),
                                  (x == z) if want is False else (x != z))
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
        op(x, y)
