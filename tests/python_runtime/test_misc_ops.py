"""Issue 17's general ops against numpy references: the element-wise Erfc, Sin, Cos,
Floor, Ceil, Round (halves to even), Softsign and LeakyRelu on every float dtype, with
NaN, infinities and signed zeros as TensorFlow 2.21's CPU kernels give them (the
literals below are what it printed, see TF_SPECIALS); the v1
Select; StopGradient and IdentityN (forwarding, no copy); Split, SplitV, OneHot,
BroadcastTo, Where, TopKV2, Cumsum, Cumprod; ArgMax's int16/uint16 indices; All, Any;
and INVALID_ARGUMENT naming the problem for bad operands."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernel_dtypes import (ALL, FLOATS, REALS, as_numpy, is_float16,
                           is_int, name, values)
from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(29)


def arr(t):
    return as_numpy(t)


def same_bits(got, want):
    got, want = np.asarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


# ---- element-wise -----------------------------------------------------------------------

def leaky(x, alpha=0.2):
    # alpha is a float attr: TensorFlow's kernel (and ours) casts the float32 value to T,
    # so float64 results carry float32's 0.2.
    return np.where(x > 0, x, x * np.float64(np.float32(alpha)))


UNARY = {
    "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    "sin": np.sin,
    "cos": np.cos,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "leaky_relu": leaky,
}


def call(op, x, **attrs):
    fn = getattr(ops, op)
    if op in ("softsign", "leaky_relu"):
        return arr(fn(features=x, **attrs))
    return arr(fn(x))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_ops_match_numpy(op, dtype):
    x = rng.uniform(-4, 4, size=(3, 41)).astype(dtype)
    x.flat[:6] = [0.5, -0.5, 1.5, 2.5, -2.5, 0.0]  # the halves Round takes to even
    got = call(op, x)
    want = UNARY[op](x.astype(np.float64)).astype(dtype)
    tol = {"float32": 2e-6, "float64": 1e-12}.get(name(dtype), 8e-3)
    assert got.dtype == np.dtype(dtype) and got.shape == x.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
    if op in ("floor", "ceil", "round"):
        same_bits(got, want)  # exact, signed zeros included


def test_round_keeps_integers():
    x = np.array([-3, 7, 0, 2**40], np.int64)
    same_bits(arr(ops.round(x)), x)
    same_bits(arr(ops.round(x[:3].astype(np.int32))), x[:3].astype(np.int32))


# TensorFlow 2.21's CPU results for SPECIALS (float32), as it printed them:
# tf.raw_ops.<Op>(x=SPECIALS) and tf.raw_ops.LeakyRelu(features=SPECIALS, alpha=0.2).
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e30, -1e-30],
                    np.float32)
nan, inf = float("nan"), float("inf")
TF_SPECIALS = {
    "erfc": [nan, 0.0, 2.0, 1.0, 1.0, 0.4795001149177551, 1.5204999446868896, 0.0338948555290699,
             0.00040695202187635005, 1.9995930194854736, 0.0, 1.0],
    "sin": [nan, nan, nan, -0.0, 0.0, 0.4794255495071411, -0.4794255495071411, 0.9974949955940247,
            0.5984721183776855, -0.5984721183776855, -0.791163444519043, -1.0000000031710769e-30],
    "cos": [nan, nan, nan, 1.0, 1.0, 0.8775825500488281, 0.8775825500488281, 0.07073719799518585,
            -0.8011435866355896, -0.8011435866355896, -0.6116048097610474, 1.0],
    "floor": [nan, inf, -inf, -0.0, 0.0, 0.0, -1.0, 1.0, 2.0, -3.0, 1.0000000150474662e+30, -1.0],
    "ceil": [nan, inf, -inf, -0.0, 0.0, 1.0, -0.0, 2.0, 3.0, -2.0, 1.0000000150474662e+30, -0.0],
    "round": [nan, inf, -inf, -0.0, 0.0, 0.0, -0.0, 2.0, 2.0, -2.0, 1.0000000150474662e+30, -0.0],
    "softsign": [nan, nan, nan, -0.0, 0.0, 0.3333333432674408, -0.3333333432674408,
                 0.6000000238418579, 0.7142857313156128, -0.7142857313156128, 1.0,
                 -1.0000000031710769e-30],
    "leaky_relu": [nan, inf, -inf, -0.0, 0.0, 0.5, -0.10000000149011612, 1.5, 2.5, -0.5,
                   1.0000000150474662e+30, -1.9999999593223797e-31],
}


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", sorted(TF_SPECIALS))
def test_nan_inf_and_signed_zeros_as_tensorflow(op, dtype):
    want = np.array(TF_SPECIALS[op], np.float32)
    x = SPECIALS.astype(dtype)
    got = call(op, x).astype(np.float32)
    # Inputs the dtype cannot hold (1e30 overflows half, -1e-30 underflows it) are left out.
    exact = (x.astype(np.float32) == SPECIALS) | np.isnan(SPECIALS)
    if dtype != np.float32:  # other dtypes: TF's float32 answer rounded to them
        want = want.astype(dtype).astype(np.float32)
    keep = exact
    g, w = got[keep], want[keep]
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=op)
    finite = ~np.isnan(w)
    tol = 2e-6 if dtype in (np.float32, np.float64) else 8e-3
    np.testing.assert_allclose(g[finite], w[finite], rtol=tol, atol=1e-30, err_msg=op)
    zeros = finite & (w == 0)
    np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]), err_msg=op)


def test_leaky_relu_alpha():
    x = np.array([-1.0, 2.0, -0.0, np.nan], np.float64)
    got = arr(ops.leaky_relu(features=x, alpha=1.5))
    np.testing.assert_array_equal(got[:2], [-1.5, 2.0])  # a select, not max(x, alpha * x)
    assert np.signbit(got[2]) and np.isnan(got[3])
    np.testing.assert_allclose(arr(ops.leaky_relu(features=np.float32(-2.0))), -0.4, rtol=1e-6)


# ---- Select (v1) ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_select_v1_condition_forms(dtype):
    t, e = values(rng, (3, 4), dtype), values(rng, (3, 4), dtype)
    cond = rng.random((3, 4)) < 0.5
    same_bits(arr(ops.select(cond, t, e)), np.where(cond, t, e))
    rows = np.array([True, False, True])
    same_bits(arr(ops.select(rows, t, e)), np.where(rows[:, None], t, e))
    same_bits(arr(ops.select(np.array(False), t, e)), e)
    same_bits(arr(ops.select(np.array(True), t[:0], e[:0])), t[:0])


def test_select_v1_bad_shapes():
    t = np.ones((3, 4), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="same shape"):
        ops.select(np.array(True), t, np.ones((4, 3), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="condition"):
        ops.select(np.array([True, False]), t, t)


# ---- StopGradient, IdentityN --------------------------------------------------------------

def address(t):
    return np.asarray(t).__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_stop_gradient_and_identity_n_forward(dtype):
    x = values(rng, (2, 3), dtype)
    tx = ops.identity(x)
    same_bits(arr(ops.stop_gradient(tx)), x)
    outs = ops.identity_n([tx, np.arange(3, dtype=np.int64)])
    assert len(outs) == 2
    same_bits(arr(outs[0]), x)
    same_bits(arr(outs[1]), np.arange(3, dtype=np.int64))


def test_stop_gradient_and_identity_n_share_the_input_buffer():
    t = ops.identity(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert address(ops.stop_gradient(t)) == address(t)
    assert address(ops.identity_n([t, t])[1]) == address(t)


# ---- Split, SplitV ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_split_and_split_v(dtype):
    x = values(rng, (4, 6, 2), dtype)
    for axis in (0, 1, -1):
        got = ops.split(np.int32(axis), x, num_split=2)
        for g, w in zip(got, np.split(x, 2, axis=axis)):
            same_bits(arr(g), w)
    got = ops.split_v(x, np.array([1, -1, 2], np.int64), np.int32(1), num_split=3)
    for g, w in zip(got, np.split(x, [1, 4], axis=1)):
        same_bits(arr(g), w)
    got = ops.split_v(x, np.array([0, 4], np.int32), np.int32(0), num_split=2)
    same_bits(arr(got[0]), x[:0])
    same_bits(arr(got[1]), x)
    got = ops.split_v(x, np.array([3, 3], np.int8), np.int32(-2), num_split=2)
    same_bits(arr(got[1]), x[:, 3:])


def test_split_errors():
    x = np.ones((4, 6), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="evenly divide"):
        ops.split(np.int32(1), x, num_split=4)
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        ops.split(np.int32(2), x, num_split=2)
    with pytest.raises(errors.InvalidArgumentError, match="one -1"):
        ops.split_v(x, np.array([2, -1, -1], np.int64), np.int32(1), num_split=3)
    with pytest.raises(errors.InvalidArgumentError, match="add up"):
        ops.split_v(x, np.array([2, 3], np.int64), np.int32(1), num_split=2)
    with pytest.raises(errors.InvalidArgumentError, match="negative"):
        ops.split_v(x, np.array([7, -2], np.int64), np.int32(1), num_split=2)


# ---- OneHot, BroadcastTo ----------------------------------------------------------------

def one_hot(indices, depth, on, off, axis):
    hot = (indices[..., None] == np.arange(depth))
    out = np.where(hot, on, off)
    return np.moveaxis(out, -1, axis if axis >= 0 else -1)


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_one_hot(dtype):
    on, off = values(rng, (2,), dtype)
    indices = np.array([[0, 2, -1], [5, 1, 3]], np.int64)  # -1 and 5 are off everywhere
    for axis in (-1, 0, 1, 2):
        got = arr(ops.one_hot(indices, np.int32(4), on, off, axis=axis))
        same_bits(got, one_hot(indices, 4, on, off, axis).astype(dtype))
    for ti in (np.int32, np.uint8, np.int8):
        same_bits(arr(ops.one_hot(np.array([1, 0], ti), np.int32(3), on, off)),
                  one_hot(np.array([1, 0]), 3, on, off, -1).astype(dtype))
    assert arr(ops.one_hot(indices, np.int32(0), on, off)).shape == (2, 3, 0)


def test_one_hot_errors():
    with pytest.raises(errors.InvalidArgumentError, match="depth"):
        ops.one_hot(np.array([1]), np.int32(-1), np.float32(1), np.float32(0))
    with pytest.raises(errors.InvalidArgumentError, match="axis"):
        ops.one_hot(np.array([1]), np.int32(2), np.float32(1), np.float32(0), axis=3)


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_broadcast_to(dtype):
    x = values(rng, (3, 1), dtype)
    for shape in [(3, 4), (2, 3, 4), (3, 1), (2, 3, 0)]:
        same_bits(arr(ops.broadcast_to(x, np.array(shape, np.int32))), np.broadcast_to(x, shape))
    s = values(rng, (), dtype)
    same_bits(arr(ops.broadcast_to(s, np.array([2, 2], np.int64))), np.broadcast_to(s, (2, 2)))


def test_broadcast_to_errors():
    with pytest.raises(errors.InvalidArgumentError, match=r"compatible|broadcast"):
        ops.broadcast_to(np.ones((3, 2), np.float32), np.array([3, 4], np.int32))
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        ops.broadcast_to(np.ones((3, 2), np.float32), np.array([2], np.int32))


# ---- Where ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_where_coordinates(dtype):
    x = values(rng, (3, 4, 2), dtype)
    x.reshape(-1)[::3] = np.zeros(1, dtype)[0]
    got = arr(ops.where(x))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argwhere(x))
    assert arr(ops.where(x[:0])).shape == (0, 3)


def test_where_floats_as_tensorflow():
    # TF: Where([0.0, -0.0, nan, 1.0, inf]) is [[2], [3], [4]]: -0.0 is zero, NaN is not.
    x = np.array([0.0, -0.0, np.nan, 1.0, np.inf], np.float32)
    np.testing.assert_array_equal(arr(ops.where(x)), [[2], [3], [4]])
    np.testing.assert_array_equal(arr(ops.where(x.astype(np.float16))), [[2], [3], [4]])
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        ops.where(np.array(True))  # TensorFlow refuses a scalar too


# ---- TopKV2 -----------------------------------------------------------------------------

def top_k(x, k):
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order


@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_top_k(dtype):
    x = values(rng, (3, 5, 9), dtype)
    x[0, 0, :4] = x[0, 0, 4]  # ties: the lower index first
    for k in (0, 1, 4, 9):
        v, i = ops.top_kv2(x, np.int32(k))
        wv, wi = top_k(x, k)
        same_bits(arr(v), wv)
        np.testing.assert_array_equal(arr(i), wi)
        assert arr(i).dtype == np.int32


def test_top_k_ties_and_index_types():
    # TF: TopKV2([[2, 1, 2, 3, 1, 3]], k=4) gives values [3, 3, 2, 2], indices [3, 5, 0, 2].
    x = np.array([[2, 1, 2, 3, 1, 3]], np.int32)
    for index_type, k_type in [("int16", np.int16), ("int64", np.int64), ("int32", np.int32)]:
        v, i = ops.top_kv2(x, k_type(4), index_type=index_type)
        np.testing.assert_array_equal(arr(v), [[3, 3, 2, 2]])
        np.testing.assert_array_equal(arr(i), [[3, 5, 0, 2]])
        assert arr(i).dtype == np.dtype(index_type)


def test_top_k_errors():
    with pytest.raises(errors.InvalidArgumentError, match="at least k"):
        ops.top_kv2(np.ones((2, 3), np.float32), np.int32(4))
    with pytest.raises(errors.InvalidArgumentError, match="non-negative"):
        ops.top_kv2(np.ones((2, 3), np.float32), np.int32(-1))
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        ops.top_kv2(np.float32(1), np.int32(0))


# ---- Cumsum, Cumprod --------------------------------------------------------------------

def scan(x, axis, prod, exclusive, reverse):
    acc = x.astype(np.float64) if not is_int(x.dtype) else x
    if reverse:
        acc = np.flip(acc, axis)
    out = np.cumprod(acc, axis) if prod else np.cumsum(acc, axis)
    if exclusive:
        first = np.ones_like(np.take(out, [0], axis)) if prod else np.zeros_like(np.take(out, [0], axis))
        out = np.concatenate([first, np.take(out, range(out.shape[axis] - 1), axis)], axis)
    if reverse:
        out = np.flip(out, axis)
    return out.astype(x.dtype)


@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("prod", [False, True], ids=["cumsum", "cumprod"])
def test_cumulative(dtype, prod):
    x = values(rng, (3, 4, 5), dtype, low=0.5, high=1.5) if prod else values(rng, (3, 4, 5), dtype)
    if prod and is_int(dtype):
        x = rng.integers(0, 3, size=x.shape).astype(dtype)
    fn = ops.cumprod if prod else ops.cumsum
    for axis in (0, 1, 2, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                got = arr(fn(x, np.int32(axis), exclusive=exclusive, reverse=reverse))
                want = scan(x, axis, prod, exclusive, reverse)
                if is_float16(dtype) or dtype in (np.float32, np.float64):
                    tol = 1e-12 if dtype == np.float64 else (2e-6 if dtype == np.float32 else 1.6e-2)
                    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                               rtol=tol, atol=tol)
                else:
                    np.testing.assert_array_equal(got, want)


def test_cumulative_literal_and_errors():
    # TF: Cumprod([1, 2, 3, 4], exclusive=True, reverse=True) is [24, 12, 4, 1].
    got = arr(ops.cumprod(np.array([1.0, 2.0, 3.0, 4.0]), np.int64(0), exclusive=True, reverse=True))
    np.testing.assert_array_equal(got, [24.0, 12.0, 4.0, 1.0])
    with pytest.raises(errors.InvalidArgumentError, match="axis"):
        ops.cumsum(np.ones((2, 3), np.float32), np.int32(2))
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        ops.cumsum(np.float32(1), np.int32(0))


# ---- ArgMax's narrow indices, All, Any ---------------------------------------------------

@pytest.mark.parametrize("dtype", REALS + [np.bool_], ids=name)
def test_arg_max_int16_and_uint16_indices(dtype):
    x = values(rng, (4, 7), dtype)
    for out in ("int16", "uint16"):
        got = arr(ops.arg_max(x, np.int32(1), output_type=out))
        assert got.dtype == np.dtype(out)
        np.testing.assert_array_equal(got, np.argmax(x.astype(np.float64), axis=1))


def test_all_any():
    x = rng.random((3, 4, 5)) < 0.7
    for axes in ([0], [1, 2], [-1], [0, 1, 2], []):
        for keep in (False, True):
            a = np.array(axes, np.int32)
            np.testing.assert_array_equal(arr(ops.all(x, a, keep_dims=keep)),
                                          np.all(x, axis=tuple(axes), keepdims=keep))
            np.testing.assert_array_equal(arr(ops.any(x, a.astype(np.int64), keep_dims=keep)),
                                          np.any(x, axis=tuple(axes), keepdims=keep))
    assert bool(arr(ops.all(x[:0], np.array([0, 1, 2], np.int32)))) is True
    assert bool(arr(ops.any(x[:0], np.array([0, 1, 2], np.int32)))) is False
    with pytest.raises(errors.InvalidArgumentError, match="reduction"):
        ops.all(x, np.array([3], np.int32))
