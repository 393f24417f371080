"""The GPU kernels of issue 17's ops equal the CPU's: Einsum (the Keras equations and
general ones), Erfc, Sin, Cos, Floor, Ceil, Round, Softsign, LeakyRelu with NaN and
infinities, Select (v1), StopGradient, IdentityN, Split, SplitV, OneHot, BroadcastTo,
Where, TopKV2, Cumsum, Cumprod, ArgMax's int16/uint16 indices, All and Any; and the
same errors for bad operands."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from gpu_compare import gemm_tolerance
from test_elementwise import FLOATS, REALS, name, values

ALL = REALS + [np.bool_, np.complex64, np.complex128]


def data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dtype)
    return values(rng, shape, dtype, specials=False)


EINSUM = [
    ("abc,cde->abde", [(2, 5, 8), (8, 3, 4)]),
    ("aecd,abcd->acbe", [(2, 6, 3, 4), (2, 5, 3, 4)]),
    ("acbe,aecd->abcd", [(2, 3, 5, 6), (2, 6, 3, 4)]),
    ("abcd,cde->abe", [(2, 5, 3, 4), (3, 4, 8)]),
    ("ab,bc->ac", [(4, 6), (6, 5)]),
    ("...b,bc->...c", [(2, 3, 6), (6, 5)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 5)]),
    ("abc->cab", [(2, 3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("abc,bd->ad", [(2, 3, 4), (3, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ij,jk->ik", [(2, 0), (0, 4)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64]
                         + [d for d in FLOATS if name(d) == "bfloat16"], ids=name)
@pytest.mark.parametrize("equation, shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_matches_cpu(gpu_matches_cpu, rng, dtype, equation, shapes):
    inputs = [values(rng, s, dtype, specials=False, low=-1, high=1) if np.dtype(dtype).kind == "f"
              or name(dtype) == "bfloat16" else rng.integers(-5, 6, size=s).astype(dtype)
              for s in shapes]
    gpu_matches_cpu(lambda *xs: ops.einsum(list(xs), equation=equation), *inputs,
                    **gemm_tolerance(dtype, 16))


def test_einsum_errors_alike():
    from test_elementwise import assert_same_error
    assert_same_error(lambda a, b: ops.einsum([a, b], equation="ij,jk->ik"),
                      np.ones((2, 3), np.float32), np.ones((4, 4), np.float32), phrase="dimension")


UNARY = [ops.erfc, ops.sin, ops.cos, ops.floor, ops.ceil, ops.round]


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("fn", UNARY + ["softsign", "leaky_relu"],
                         ids=lambda f: f if isinstance(f, str) else f.__name__)
def test_unary_ops_match_cpu(gpu_matches_cpu, rng, fn, dtype):
    x = values(rng, (64, 33), dtype)  # with NaN, infinities and signed zeros
    if fn == "softsign":
        gpu_matches_cpu(lambda v: ops.softsign(features=v), x)
    elif fn == "leaky_relu":
        gpu_matches_cpu(lambda v: ops.leaky_relu(features=v, alpha=0.3), x)
    else:
        gpu_matches_cpu(fn, x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=name)
def test_round_integers_match_cpu(gpu_matches_cpu, rng, dtype):
    gpu_matches_cpu(ops.round, values(rng, (100,), dtype))


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_data_movement_matches_cpu(gpu_matches_cpu, rng, dtype):
    x = data(rng, (4, 6, 2), dtype)
    gpu_matches_cpu(ops.stop_gradient, x)
    gpu_matches_cpu(lambda a, b: ops.identity_n([a, b]), x, x[0])
    gpu_matches_cpu(lambda v: ops.split(np.int32(1), v, num_split=3), x)
    for tlen in (np.int8, np.int32, np.int64):
        gpu_matches_cpu(lambda v: ops.split_v(v, np.array([1, -1, 2], tlen), np.int32(1),
                                              num_split=3), x)
    on, off = data(rng, (2,), dtype)
    for ti in (np.uint8, np.int8, np.int32, np.int64):
        idx = np.array([[0, 2, 7], [1, 1, 3]], ti)
        gpu_matches_cpu(lambda i, a, b: ops.one_hot(i, np.int32(4), a, b, axis=1), idx, on, off)
    for tidx in (np.int32, np.int64):
        gpu_matches_cpu(lambda v: ops.broadcast_to(v, np.array([3, 4, 6, 2], tidx)), x[:1])
    cond = rng.random((4, 6, 2)) < 0.5
    gpu_matches_cpu(ops.select, cond, x, x[::-1].copy())
    gpu_matches_cpu(ops.select, np.array([True, False, True, True]), x, x[::-1].copy())
    gpu_matches_cpu(ops.select, np.array(False), x, x[::-1].copy())
    gpu_matches_cpu(ops.where, x)


@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_scans_top_k_arg_max_match_cpu(gpu_matches_cpu, rng, dtype):
    x = values(rng, (3, 5, 9), dtype, specials=False, low=0.5, high=1.5)
    for fn in (ops.cumsum, ops.cumprod):
        for tidx in (np.int32, np.int64):
            gpu_matches_cpu(lambda v: fn(v, tidx(1), exclusive=True, reverse=True), x)
            gpu_matches_cpu(lambda v: fn(v, tidx(-1)), x)
    for index_type in ("int16", "int32", "int64"):
        gpu_matches_cpu(lambda v: ops.top_kv2(v, np.int32(4), index_type=index_type), x)
    for out in ("int16", "uint16"):
        gpu_matches_cpu(lambda v: ops.arg_max(v, np.int32(2), output_type=out), x)


def test_all_any_match_cpu(gpu_matches_cpu, rng):
    x = rng.random((3, 4, 5)) < 0.7
    for axes in ([0], [1, 2], [], [0, 1, 2]):
        for tidx in (np.int32, np.int64):
            gpu_matches_cpu(lambda v: ops.all(v, np.array(axes, tidx), keep_dims=True), x)
            gpu_matches_cpu(lambda v: ops.any(v, np.array(axes, tidx)), x)


def test_bad_operands_fail_alike():
    from test_elementwise import assert_same_error
    x = np.ones((4, 6), np.float32)
    assert_same_error(lambda v: ops.split(np.int32(1), v, num_split=4), x, phrase="evenly divide")
    assert_same_error(lambda v: ops.top_kv2(v, np.int32(7)), x, phrase="at least k")
    assert_same_error(lambda v: ops.broadcast_to(v, np.array([3, 6], np.int32)), x, phrase="compatible")
