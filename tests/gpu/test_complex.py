"""The GPU's complex kernels equal the CPU's: the complex family (Complex, Real, Imag,
Angle, Conj) and the complex64/complex128 kernels of the arithmetic, AddN, Sum, Mean,
Cast, the transcendental functions, Sign, Pow, the equalities, Prod, the scans, the fused
gradient ops and the matrix products, on same-shape, broadcast, scalar and empty operands."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops

PAIRS = [(np.complex64, np.float32), (np.complex128, np.float64)]
IDS = ["complex64", "complex128"]
SHAPES = [((5,), (5,)), ((2, 3), ()), ((4, 1), (2, 1, 3)), ((0, 3), (3,)), ((300, 257), (257,))]


def _z(rng, shape, dtype, low=-3.0, high=3.0):
    return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)


@pytest.mark.parametrize("xs, ys", SHAPES, ids=str)
@pytest.mark.parametrize("ctype, part", PAIRS, ids=IDS)
def test_complex_matches_cpu(gpu_matches_cpu, rng, ctype, part, xs, ys):
    re, im = rng.uniform(-3, 3, xs).astype(part), rng.uniform(-3, 3, ys).astype(part)
    gpu_matches_cpu(lambda a, b: ops.complex(a, b, Tout=opgen.as_dtype(ctype)), re, im)


@pytest.mark.parametrize("fn", [ops.real, ops.imag, ops.angle], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(7,), (), (0,), (64, 33)], ids=str)
@pytest.mark.parametrize("ctype, part", PAIRS, ids=IDS)
def test_parts_match_cpu(gpu_matches_cpu, rng, fn, ctype, part, shape):
    gpu_matches_cpu(lambda v: fn(v, Tout=opgen.as_dtype(part)), _z(rng, shape, ctype))


@pytest.mark.parametrize("fn", [ops.conj, ops.neg, ops.square, ops.reciprocal],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_unary_matches_cpu(gpu_matches_cpu, rng, fn, ctype):
    gpu_matches_cpu(fn, _z(rng, (33, 17), ctype))


@pytest.mark.parametrize("fn", [ops.add_v2, ops.add, ops.sub, ops.mul, ops.real_div, ops.div],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("xs, ys", SHAPES, ids=str)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_binary_matches_cpu(gpu_matches_cpu, rng, fn, ctype, xs, ys):
    gpu_matches_cpu(fn, _z(rng, xs, ctype), _z(rng, ys, ctype, 0.5, 2.0))


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_add_n_sum_and_mean_match_cpu(gpu_matches_cpu, rng, ctype):
    z = _z(rng, (40, 33, 5), ctype)
    gpu_matches_cpu(lambda a, b: ops.add_n([a, b, a]), z, z[::-1].copy())
    for fn in (ops.sum, ops.mean):
        for axes in (np.int32([0]), np.int32([1, 2]), np.int32([0, 1, 2])):
            gpu_matches_cpu(lambda v, a=axes, f=fn: f(v, a), z, rtol=1e-5)


@pytest.mark.parametrize("other", [np.float32, np.float64, np.float16, np.int32, np.int64,
                                   np.uint8, np.bool_, np.complex64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_cast_matches_cpu(gpu_matches_cpu, rng, ctype, other):
    z = _z(rng, (50,), ctype, -100, 100)
    gpu_matches_cpu(lambda v: ops.cast(v, DstT=opgen.as_dtype(other)), z)
    x = (rng.uniform(-100, 100, 50) > 0 if other == np.bool_ else
         rng.uniform(-100, 100, 50).astype(other) if np.dtype(other).kind != "c" else
         _z(rng, (50,), other))
    gpu_matches_cpu(lambda v: ops.cast(v, DstT=opgen.as_dtype(ctype)), x)


@pytest.mark.parametrize("fn", [ops.exp, ops.log, ops.sqrt, ops.rsqrt, ops.tanh, ops.sigmoid,
                                ops.sign], ids=lambda f: f.__name__)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_transcendental_and_sign_match_cpu(gpu_matches_cpu, rng, fn, ctype):
    z = _z(rng, (33, 17), ctype)
    z[0, :3] = [complex(-1, 0.0), complex(-1, -0.0), complex(-100, 1)]  # branch cuts, overflow
    gpu_matches_cpu(fn, z, rtol=1e-5 if ctype == np.complex64 else 1e-12)


@pytest.mark.parametrize("xs, ys", SHAPES[:4], ids=str)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_pow_and_equality_match_cpu(gpu_matches_cpu, rng, ctype, xs, ys):
    x, y = _z(rng, xs, ctype, 0.5, 2.0), _z(rng, ys, ctype, -1.0, 1.0)
    gpu_matches_cpu(ops.pow, x, y, rtol=1e-5 if ctype == np.complex64 else 1e-12)
    gpu_matches_cpu(ops.equal, x, x[..., :1] if x.ndim else x)
    gpu_matches_cpu(ops.not_equal, x, y)


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_prod_scans_and_fused_gradients_match_cpu(gpu_matches_cpu, rng, ctype):
    z = _z(rng, (40, 33), ctype, 0.5, 1.2)
    rtol = 1e-5 if ctype == np.complex64 else 1e-12
    gpu_matches_cpu(lambda v: ops.prod(v, np.int32([0])), z, rtol=rtol)
    gpu_matches_cpu(lambda v: ops.cumsum(v, np.int32(1)), z, rtol=rtol)
    gpu_matches_cpu(lambda v: ops.cumprod(v, np.int32(0), exclusive=True), z[:8], rtol=rtol)
    for fn in (ops.sqrt_grad, ops.rsqrt_grad, ops.tanh_grad, ops.sigmoid_grad,
               ops.reciprocal_grad):
        gpu_matches_cpu(fn, z, z[::-1].copy(), rtol=rtol)


@pytest.mark.parametrize("flags", [(False, False), (True, True), (False, True)], ids=str)
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128], ids=IDS)
def test_matmul_and_batch_matmul_match_cpu(gpu_matches_cpu, rng, ctype, flags):
    fa, fb = flags
    a, b = _z(rng, (6, 5) if fa else (5, 6), ctype), _z(rng, (7, 6) if fb else (6, 7), ctype)
    rtol = 1e-5 if ctype == np.complex64 else 1e-12
    gpu_matches_cpu(lambda p, q: ops.mat_mul(p, q, transpose_a=fa, transpose_b=fb), a, b, rtol=rtol)
    x = np.stack([a, 2 * a, -a])
    gpu_matches_cpu(lambda p, q: ops.batch_mat_mul_v2(p, q, adj_x=fa, adj_y=fb), x, b, rtol=rtol)
