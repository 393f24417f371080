"""The element-wise op family (math, comparisons, logic, activations) equals numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(7)
FLOATS = [np.float32, np.float64]
NUMERIC = FLOATS + [np.int32, np.int64]
SHAPES = [((6,), (6,)), ((2, 3), ()), ((4, 1), (1, 3)), ((0, 2), (2,))]


def values(shape, dtype, positive=False, nonzero=False):
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(1 if positive else -20, 20, size=shape).astype(dtype)
    else:
        x = rng.uniform(0.1 if positive else -3, 3, size=shape).astype(dtype)
    if nonzero:
        x[x == 0] = 3
    return x


def run(op, *inputs):
    return np.asarray(execute_op(op, list(inputs), {})[0])


def floor_mod(x, y):
    return np.mod(x, y) if np.issubdtype(x.dtype, np.integer) else np.fmod(np.fmod(x, y) + y, y)


BINARY = [
    ("Add", np.add, NUMERIC), ("Maximum", np.maximum, NUMERIC), ("Minimum", np.minimum, NUMERIC),
    ("SquaredDifference", lambda x, y: (x - y) ** 2, NUMERIC),
    ("FloorDiv", np.floor_divide, NUMERIC), ("FloorMod", floor_mod, NUMERIC),
    ("Div", np.divide, FLOATS), ("Pow", np.power, FLOATS),
    ("Less", np.less, NUMERIC), ("LessEqual", np.less_equal, NUMERIC),
    ("Greater", np.greater, NUMERIC), ("GreaterEqual", np.greater_equal, NUMERIC),
    ("Equal", np.equal, NUMERIC), ("NotEqual", np.not_equal, NUMERIC),
]


@pytest.mark.parametrize("op, reference, types", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("xs, ys", SHAPES)
def test_binary_ops(op, reference, types, xs, ys):
    for dtype in types:
        divides = op in ("FloorDiv", "FloorMod", "Div")
        x = values(xs, dtype, positive=(op == "Pow"))
        y = values(ys, dtype, nonzero=divides) if op != "Pow" else values(ys, dtype) % 3
        got, want = run(op, x, y), reference(x, y)
        assert got.dtype == want.dtype, (op, dtype)
        np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-12,
                                   err_msg=f"{op} {np.dtype(dtype).name}")


def test_logical_ops():
    x = rng.integers(0, 2, (3, 4)).astype(bool)
    y = rng.integers(0, 2, (4,)).astype(bool)
    np.testing.assert_array_equal(run("LogicalAnd", x, y), x & y)
    np.testing.assert_array_equal(run("LogicalOr", x, y), x | y)
    np.testing.assert_array_equal(run("LogicalNot", x), ~x)
    np.testing.assert_array_equal(run("Equal", x, y), x == y)


_erf = np.vectorize(math.erf, otypes=[np.float64])
UNARY = [
    ("Abs", np.abs, NUMERIC, False), ("Sign", np.sign, NUMERIC, False),
    ("Square", np.square, NUMERIC, False), ("Relu6", lambda x: np.clip(x * 3, 0, 6) / 3, None, False),
    ("Reciprocal", np.reciprocal, FLOATS, True), ("Exp", np.exp, FLOATS, False),
    ("Log", np.log, FLOATS, True), ("Log1p", np.log1p, FLOATS, True),
    ("Sqrt", np.sqrt, FLOATS, True), ("Rsqrt", lambda x: 1 / np.sqrt(x), FLOATS, True),
    ("Tanh", np.tanh, FLOATS, False), ("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), FLOATS, False),
    ("Erf", _erf, FLOATS, False), ("Softplus", lambda x: np.logaddexp(x, 0), FLOATS, False),
    ("Elu", lambda x: np.where(x < 0, np.expm1(x), x), FLOATS, False),
    ("Selu", lambda x: 1.0507009873554805 * np.where(x < 0, 1.6732632423543772 * np.expm1(x), x),
     FLOATS, False),
]


@pytest.mark.parametrize("op, reference, types, positive", UNARY, ids=[u[0] for u in UNARY])
def test_unary_ops(op, reference, types, positive):
    if op == "Relu6":  # values spread across both clip points
        for dtype in NUMERIC:
            x = (values((50,), dtype) * 1).astype(dtype)
            np.testing.assert_array_equal(run("Relu6", x), np.clip(x, 0, 6))
        return
    for dtype in types:
        for shape in [(), (17,), (3, 5), (0,)]:
            x = values(shape, dtype, positive=positive)
            got, want = run(op, x), reference(x).astype(dtype)
            assert got.dtype == np.dtype(dtype) and got.shape == x.shape
            np.testing.assert_allclose(got, want, rtol=3e-6 if dtype == np.float32 else 1e-12,
                                       atol=1e-7, err_msg=f"{op} {np.dtype(dtype).name}")


def test_softplus_does_not_overflow():
    x = np.array([-100.0, 0.0, 100.0, 1000.0])
    np.testing.assert_allclose(run("Softplus", x), np.logaddexp(x, 0))


def test_integer_floor_division_by_zero_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match="division by zero"):
        execute_op("FloorMod", [np.array([3], np.int64), np.array([0], np.int64)], {})


def test_unregistered_dtype_names_the_kernels_registered():
    with pytest.raises(errors.NotFoundError, match="DT_DOUBLE"):
        execute_op("SquaredDifference", [np.array([2], np.complex64), np.array([3], np.complex64)],
                   {})


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_large_tensors_split_across_threads_give_the_same_results(dtype):
    # Above the parallel threshold (2**18 elements) the loops run on every core.
    n = (1 << 20) + 77  # not a multiple of the chunk size
    x, y = values((n,), dtype), values((n,), dtype, nonzero=True)
    np.testing.assert_array_equal(run("Mul", x, y), x * y)
    np.testing.assert_array_equal(run("Sub", x, y[:1]), x - y[0])
    np.testing.assert_array_equal(run("Maximum", x[:1], y), np.maximum(x[0], y))
    np.testing.assert_array_equal(run("Abs", x), np.abs(x))


# Issue 20: the bitwise ops behind `&`, `|`, `^`, `~` on integer tensors (TensorFlow
# registers them for every integer type) and ComplexAbs behind abs() of complex ones.
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
BITWISE = [("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or),
           ("BitwiseXor", np.bitwise_xor)]


def whole_range(shape, dtype):
    """Integers over dtype's whole range, its extremes among them."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if x.size >= 2:
        x.reshape(-1)[:2] = [info.min, info.max]
    return x


@pytest.mark.parametrize("op, reference", BITWISE, ids=[b[0] for b in BITWISE])
@pytest.mark.parametrize("xs, ys", SHAPES)
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_bitwise_ops(op, reference, xs, ys, dtype):
    x, y = whole_range(xs, dtype), whole_range(ys, dtype)
    got = run(op, x, y)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, reference(x, y), err_msg=f"{op} {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_invert(dtype):
    x = whole_range((5, 7), dtype)
    got = run("Invert", x)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.invert(x))


@pytest.mark.parametrize("op", ["BitwiseAnd", "Invert"])
def test_bitwise_ops_refuse_floats_and_bools(op):
    for dtype in (np.float32, np.bool_):
        inputs = [np.zeros(2, dtype)] * (1 if op == "Invert" else 2)
        with pytest.raises((errors.InvalidArgumentError, errors.NotFoundError)):
            execute_op(op, inputs, {})


@pytest.mark.parametrize("dtype, tout", [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_complex_abs(dtype, tout):
    from opgen import as_dtype
    parts = rng.uniform(-50, 50, size=(2, 4, 6))
    x = (parts[0] + 1j * parts[1]).astype(dtype)
    # parts whose squares overflow (or underflow) the type: hypot's result is exact
    big = np.finfo(tout).max / 4
    tiny = np.finfo(tout).tiny * 4
    x[0, :4] = [3 * big / 5 + 4j * big / 5, 3 * tiny + 4j * tiny, np.inf + 1j, np.nan + 0j]
    got = np.asarray(execute_op("ComplexAbs", [x], {"Tout": as_dtype(tout)})[0])
    assert got.dtype == np.dtype(tout) and got.shape == x.shape
    np.testing.assert_allclose(got, np.abs(x), rtol=1e-6 if tout == np.float32 else 1e-14)
    assert got[0, 0] == pytest.approx(big, rel=1e-6) and got[0, 2] == np.inf


def test_complex_abs_runs_only_for_matching_tout():
    from opgen import as_dtype
    x = np.array([3 + 4j], np.complex64)
    np.testing.assert_array_equal(execute_op("ComplexAbs", [x], {})[0].numpy(), [5.0])  # Tout=float
    with pytest.raises(errors.NotFoundError, match="ComplexAbs"):
        execute_op("ComplexAbs", [x], {"Tout": as_dtype(np.float64)})
