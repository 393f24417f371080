"""The GPU's element-wise kernels equal the CPU's on random inputs: every op and every
dtype the CPU registers (less complex), same-shape, scalar, broadcast and empty
operands, NaN and infinities, the same errors for bad shapes and integer division by
zero, and Equal/NotEqual's incompatible_shape_error."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

try:
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED_INTS = [np.uint8, np.uint16, np.uint32, np.uint64]
INTS = SIGNED_INTS + UNSIGNED_INTS
REALS = FLOATS + INTS
SIGNED = FLOATS + SIGNED_INTS
REALS_AND_BOOL = REALS + [np.bool_]


def name(dtype) -> str:
    return np.dtype(dtype).name


def is_float(dtype) -> bool:
    return np.dtype(dtype) in [np.dtype(d) for d in FLOATS]


def values(rng, shape, dtype, nonzero=False, specials=True, low=-3.0, high=3.0):
    """Random values of dtype: floats in [low, high) with some NaN, infinities and signed
    zeros; integers over the type's whole range (so that arithmetic wraps) with its
    minimum, -1, 0 and 1 among them; non-zero where asked."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if is_float(dtype):
        x = rng.uniform(low, high, size=shape)
        if specials and x.size:
            flat = x.reshape(-1)
            picks = rng.random(flat.size) < 0.05
            flat[picks] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0], size=int(picks.sum()))
        return x.astype(dtype)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if x.size:
        flat = x.reshape(-1)
        picks = rng.random(flat.size) < 0.05
        edge = [info.min, 0, 1] + ([-1] if info.min < 0 else [info.max])
        flat[picks] = rng.choice(np.array(edge, dtype=dtype), size=int(picks.sum()))
        if nonzero:
            flat[flat == 0] = 1
    return x


def assert_same_error(fn, *args, phrase: str = "", **kwargs):
    """fn raises on the CPU and on the GPU, the same exception class both times, with
    `phrase` in both messages."""
    with opgen.device("/CPU:0"):
        with pytest.raises(errors.OpError) as cpu:
            fn(*args, **kwargs)
    with opgen.device("/GPU:0"):
        with pytest.raises(errors.OpError) as gpu:
            fn(*args, **kwargs)
    assert type(gpu.value) is type(cpu.value), (cpu.value, gpu.value)
    assert phrase in str(cpu.value) and phrase in str(gpu.value), (cpu.value, gpu.value)


# Shapes of (x, y): same, scalar either side, broadcast both ways, empty, a large one
# (the vectorised path and its tail), and ranks that collapse to several dims.
BINARY_SHAPES = [
    ((5,), (5,)),
    ((2, 3), ()),
    ((), (4,)),
    ((4, 1), (2, 1, 3)),
    ((0, 3), (3,)),
    ((3, 0), (1, 1)),
    ((100003,), (100003,)),
    ((100003,), ()),
    ((37, 1, 50), (1, 20, 50)),
    ((3, 1), (1, 5)),
    ((2, 3, 1, 4, 1, 2), (3, 5, 4, 6, 2)),
    ((2, 1, 2, 1, 2, 1, 2, 1, 2), (1, 2, 1, 2, 1, 2, 1, 2, 1)),
]

BINARY = [
    (ops.add_v2, REALS, {}),
    (ops.add, FLOATS + SIGNED_INTS + [np.uint8], {}),  # the OpDef allows no wider unsigned
    (ops.sub, REALS, {}),
    (ops.mul, REALS, {}),
    (ops.real_div, REALS, {"nonzero": True}),
    (ops.div, REALS, {"nonzero": True}),
    (ops.floor_div, REALS, {"nonzero": True}),
    (ops.floor_mod, REALS, {"nonzero": True}),
    (ops.maximum, REALS, {}),
    (ops.minimum, REALS, {}),
    (ops.squared_difference, FLOATS + [np.int32, np.int64], {}),
    (ops.less, REALS, {}),
    (ops.less_equal, REALS, {}),
    (ops.greater, REALS, {}),
    (ops.greater_equal, REALS, {}),
    (ops.equal, REALS_AND_BOOL, {}),
    (ops.not_equal, REALS_AND_BOOL, {}),
]


def binary_cases():
    return [pytest.param(fn, dtype, xs, ys, kw, id=f"{fn.__name__}-{name(dtype)}-{xs}-{ys}")
            for fn, dtypes, kw in BINARY for dtype in dtypes for xs, ys in BINARY_SHAPES]


@pytest.mark.parametrize("fn, dtype, xs, ys, kw", binary_cases())
def test_binary_ops_match_cpu(gpu_matches_cpu, rng, fn, dtype, xs, ys, kw):
    x = values(rng, xs, dtype)
    y = values(rng, ys, dtype, nonzero=kw.get("nonzero", False) and not is_float(dtype))
    if x.size and y.size and x.shape == y.shape and not kw.get("nonzero", False):
        y.flat[0] = x.flat[0]  # a tie for the comparisons
    with np.errstate(all="ignore"):
        gpu_matches_cpu(fn, x, y)


@pytest.mark.parametrize("dtype", SIGNED, ids=name)
@pytest.mark.parametrize("xs, ys", BINARY_SHAPES[:9])
def test_pow_matches_cpu(gpu_matches_cpu, rng, dtype, xs, ys):
    x = values(rng, xs, dtype)
    if is_float(dtype):
        y = values(rng, ys, dtype)
    else:
        y = rng.integers(0, 9, size=ys).astype(dtype)  # non-negative exponents
    with np.errstate(all="ignore"):
        gpu_matches_cpu(ops.pow, x, y)


@pytest.mark.parametrize("fn", [ops.logical_and, ops.logical_or], ids=lambda f: f.__name__)
@pytest.mark.parametrize("xs, ys", BINARY_SHAPES)
def test_logical_binary_match_cpu(gpu_matches_cpu, rng, fn, xs, ys):
    gpu_matches_cpu(fn, values(rng, xs, np.bool_), values(rng, ys, np.bool_))


@pytest.mark.parametrize("fn", [ops.add_v2, ops.mul, ops.less, ops.equal, ops.logical_and],
                         ids=lambda f: f.__name__)
def test_incompatible_shapes_fail_alike(rng, fn):
    dtype = np.bool_ if fn is ops.logical_and else np.float32
    assert_same_error(fn, values(rng, (2, 3), dtype), values(rng, (4,), dtype),
                      phrase="Incompatible shapes: [2,3] vs. [4]")


@pytest.mark.parametrize("dtype", INTS, ids=name)
@pytest.mark.parametrize("fn", [ops.div, ops.real_div, ops.floor_div, ops.floor_mod],
                         ids=lambda f: f.__name__)
def test_integer_division_by_zero_fails_alike(rng, fn, dtype):
    x = values(rng, (1000,), dtype)
    y = values(rng, (1000,), dtype, nonzero=True)
    y[537] = 0
    assert_same_error(fn, x, y, phrase="Integer division by zero")
    # checked even when the output is empty
    assert_same_error(fn, values(rng, (0,), dtype), np.zeros((1,), dtype),
                      phrase="Integer division by zero")


@pytest.mark.parametrize("dtype", SIGNED_INTS, ids=name)
def test_negative_integer_powers_fail_alike(rng, dtype):
    y = rng.integers(0, 5, size=(50,)).astype(dtype)
    y[7] = -1
    assert_same_error(ops.pow, values(rng, (50,), dtype), y,
                      phrase="Integers to negative integer powers are not allowed")


@pytest.mark.parametrize("fn, want", [(ops.equal, False), (ops.not_equal, True)],
                         ids=["equal", "not_equal"])
def test_equality_of_incompatible_shapes_without_error_is_a_scalar(gpu_matches_cpu, rng, fn, want):
    x, y = values(rng, (2, 3), np.float32), values(rng, (4,), np.float32)
    got = gpu_matches_cpu(fn, x, y, incompatible_shape_error=False)[0]
    assert got.shape == () and got.dtype == np.bool_ and bool(got) is want
    # broadcastable operands compare element-wise as usual
    gpu_matches_cpu_args = (values(rng, (2, 3), np.float32), values(rng, (3,), np.float32))
    with opgen.device("/CPU:0"):
        cpu = fn(*gpu_matches_cpu_args, incompatible_shape_error=False).numpy()
    with opgen.device("/GPU:0"):
        gpu = fn(*gpu_matches_cpu_args, incompatible_shape_error=False).numpy()
    np.testing.assert_array_equal(gpu, cpu)


UNARY = [
    (ops.neg, SIGNED),
    (ops.abs, SIGNED),
    (ops.sign, SIGNED),
    (ops.relu, REALS),
    (ops.relu6, REALS),
    (ops.square, REALS),
    (ops.reciprocal, FLOATS),
    (ops.exp, FLOATS),
    (ops.log, FLOATS),
    (ops.log1p, FLOATS),
    (ops.sqrt, FLOATS),
    (ops.rsqrt, FLOATS),
    (ops.tanh, FLOATS),
    (ops.sigmoid, FLOATS),
    (ops.erf, FLOATS),
    (ops.softplus, FLOATS),
    (ops.elu, FLOATS),
    (ops.selu, FLOATS),
]
UNARY_SHAPES = [(7,), (), (0,), (3, 0, 2), (64, 33), (100003,)]


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("fn, dtype", [pytest.param(fn, d, id=f"{fn.__name__}-{name(d)}")
                                       for fn, dtypes in UNARY for d in dtypes])
def test_unary_ops_match_cpu(gpu_matches_cpu, rng, fn, dtype, shape):
    # exp, softplus and friends over a range that reaches overflow in half precision
    x = values(rng, shape, dtype, low=-12.0, high=12.0)
    with np.errstate(all="ignore"):
        gpu_matches_cpu(fn, x)


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
def test_logical_not_matches_cpu(gpu_matches_cpu, rng, shape):
    gpu_matches_cpu(ops.logical_not, values(rng, shape, np.bool_))


TERNARY_SHAPES = [
    ((5,), (5,), (5,)),
    ((2, 3), (), (3,)),
    ((4, 1, 3), (1, 5, 1), (5, 3)),
    ((0,), (), ()),
    ((100003,), (100003,), ()),
    ((), (100003,), (100003,)),
    ((300, 1), (1, 400), (300, 400)),
]


@pytest.mark.parametrize("shapes", TERNARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", REALS_AND_BOOL, ids=name)
def test_select_v2_matches_cpu(gpu_matches_cpu, rng, dtype, shapes):
    cs, ts, es = shapes
    gpu_matches_cpu(ops.select_v2, values(rng, cs, np.bool_), values(rng, ts, dtype),
                    values(rng, es, dtype))


@pytest.mark.parametrize("shapes", TERNARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS + SIGNED_INTS + [np.uint8, np.uint16], ids=name)
def test_clip_by_value_matches_cpu(gpu_matches_cpu, rng, dtype, shapes):
    ts, lo, hi = shapes
    gpu_matches_cpu(ops.clip_by_value, values(rng, ts, dtype), values(rng, lo, dtype),
                    values(rng, hi, dtype))


@pytest.mark.parametrize("fn", [ops.select_v2, ops.clip_by_value], ids=lambda f: f.__name__)
def test_ternary_incompatible_shapes_fail_alike(rng, fn):
    first = np.bool_ if fn is ops.select_v2 else np.float32
    assert_same_error(fn, values(rng, (2, 3), first), values(rng, (4,), np.float32),
                      values(rng, (), np.float32), phrase="Incompatible shapes: [2,3], [4] and []")


@pytest.mark.parametrize("shape, count", [((100003,), 3), ((7,), 1), ((3, 0), 2), ((), 4)], ids=str)
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_add_n_matches_cpu(gpu_matches_cpu, rng, dtype, shape, count):
    with np.errstate(all="ignore"):
        gpu_matches_cpu(ops.add_n, [values(rng, shape, dtype) for _ in range(count)])


def test_add_n_shape_mismatch_fails_alike(rng):
    assert_same_error(ops.add_n, [values(rng, (3, 4), np.float32), values(rng, (4, 3), np.float32)],
                      phrase="AddN: inputs must have the same shape")


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("fn", [ops.relu, ops.relu6, ops.abs, ops.sign], ids=lambda f: f.__name__)
def test_special_values_match_cpu(gpu_matches_cpu, fn, dtype):
    """Issue 18: Relu keeps NaN and -0.0; Abs and Sign of -0.0 are +0.0 (as TensorFlow)."""
    x = np.array([np.nan, -0.0, 0.0, -1.0, 2.0, -np.inf, np.inf, 7.0]).astype(dtype)
    gpu_matches_cpu(fn, x)


# Issue 20: the bitwise ops behind `&`, `|`, `^`, `~` on integer tensors, and ComplexAbs
# behind abs() of complex tensors.
@pytest.mark.parametrize("fn", [ops.bitwise_and, ops.bitwise_or, ops.bitwise_xor],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("xs, ys", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_bitwise_ops_match_cpu(gpu_matches_cpu, rng, fn, dtype, xs, ys):
    gpu_matches_cpu(fn, values(rng, xs, dtype), values(rng, ys, dtype))


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_invert_matches_cpu(gpu_matches_cpu, rng, dtype, shape):
    gpu_matches_cpu(ops.invert, values(rng, shape, dtype))


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype, tout", [(np.complex64, np.float32), (np.complex128, np.float64)],
                         ids=["complex64", "complex128"])
def test_complex_abs_matches_cpu(gpu_matches_cpu, rng, dtype, tout, shape):
    parts = rng.uniform(-1e3, 1e3, size=(2, *shape))
    x = (parts[0] + 1j * parts[1]).astype(dtype)
    gpu_matches_cpu(lambda v: ops.complex_abs(v, Tout=opgen.as_dtype(tout)), x)
