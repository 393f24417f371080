"""The GPU kernels of ops/special_math_ops.cc equal the CPU's (the same functors,
kernels/elementwise_math_spec.h): the inverse and hyperbolic trigonometric functions,
Rint, Lgamma, Digamma, Erfinv, Ndtri, the scaled Bessel functions, and with broadcasting
Atan2, Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, Xlog1py, MulNoNan, the shifts and
NextAfter, over each op's dtypes, with NaN, infinities and signed zeros; the incomplete
gamma and beta family, Polygamma and Zeta (float, double); and the same
error for an integer division by zero."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

from test_elementwise import assert_same_error, name, values

F32_64 = [np.float32, np.float64]
HALF_UP = F32_64 + [np.float16]
BF16 = [d for d in __import__("test_elementwise").FLOATS if name(d) == "bfloat16"]
FLOATS = HALF_UP + BF16
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

UNARY = [(op, FLOATS) for op in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                                 "acosh", "atanh")]
UNARY += [(op, HALF_UP) for op in ("lgamma", "digamma", "bessel_i0e", "bessel_i1e")]
UNARY += [(op, F32_64) for op in ("rint", "erfinv", "ndtri")]
BINARY = [("atan2", FLOATS), ("xlogy", FLOATS), ("xdivy", FLOATS), ("xlog1py", FLOATS),
          ("mul_no_nan", FLOATS), ("truncate_div", FLOATS), ("mod", F32_64),
          ("truncate_mod", F32_64), ("next_after", F32_64)]


@pytest.mark.parametrize("op, dtype", [pytest.param(op, d, id=f"{op}-{name(d)}")
                                       for op, dtypes in UNARY for d in dtypes])
def test_unary_match_cpu(gpu_matches_cpu, rng, op, dtype):
    low, high = (-1.2, 1.2) if op in ("asin", "acos", "atanh", "erfinv") else (-0.2, 1.2) \
        if op == "ndtri" else (-6, 6)
    gpu_matches_cpu(getattr(ops, op), values(rng, (64, 33), dtype, low=low, high=high))


@pytest.mark.parametrize("op, dtype", [pytest.param(op, d, id=f"{op}-{name(d)}")
                                       for op, dtypes in BINARY for d in dtypes])
def test_binary_match_cpu(gpu_matches_cpu, rng, op, dtype):
    x = values(rng, (16, 1, 9), dtype)
    y = values(rng, (5, 9), dtype, low=0.1 if "log" in op else -3.0)
    gpu_matches_cpu(getattr(ops, op), x, y)


@pytest.mark.parametrize("op", ["truncate_div", "mod", "truncate_mod", "left_shift",
                                "right_shift"])
@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_integer_ops_match_cpu(gpu_matches_cpu, rng, op, dtype):
    if op in ("mod", "truncate_mod") and dtype not in (np.int32, np.int64):
        pytest.skip("Mod and TruncateMod take int32 and int64 only")
    x = values(rng, (16, 1, 9), dtype)
    if "shift" in op:
        bits = 8 * np.dtype(dtype).itemsize
        lo = 0 if np.dtype(dtype).kind == "u" else -3
        y = rng.integers(lo, bits + 3, size=(5, 9)).astype(dtype)
    else:
        y = values(rng, (5, 9), dtype, nonzero=True)
    gpu_matches_cpu(getattr(ops, op), x, y)


@pytest.mark.parametrize("op", ["truncate_div", "mod", "truncate_mod"])
def test_integer_division_by_zero_errors_alike(op):
    assert_same_error(getattr(ops, op), np.int32([4, 5]), np.int32([2, 0]), phrase="division by zero")


# The incomplete gamma and beta family (kernels/incomplete_gamma_beta_spec.h): float and
# double, with broadcasting, NaN and infinities among the operands. CUDA's libm differs
# from the host's by an ulp or so inside the series: a relative bound of 1e-12 in double.
GAMMA_FAMILY = ["igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "polygamma", "zeta"]


@pytest.mark.parametrize("op", GAMMA_FAMILY)
@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_gamma_family_matches_cpu(gpu_matches_cpu, rng, op, dtype):
    a = rng.uniform(0.05, 40, (16, 1, 9))
    if op == "polygamma":
        a = np.floor(a / 8)
    elif op == "zeta":
        a = 1 + a / 10
    x = rng.uniform(-0.5, 60, (5, 9))
    a.flat[:3], x.flat[:3] = [np.nan, np.inf, 0], [0, np.inf, np.nan]
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    gpu_matches_cpu(getattr(ops, op), a.astype(dtype), x.astype(dtype), rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_betainc_matches_cpu(gpu_matches_cpu, rng, dtype):
    a, b = rng.uniform(0.1, 30, (7, 11)), rng.uniform(0.1, 30, (7, 11))
    x = rng.uniform(-0.1, 1.1, (7, 11))
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    gpu_matches_cpu(ops.betainc, a.astype(dtype), b.astype(dtype), x.astype(dtype), rtol=rtol, atol=1e-30)
    gpu_matches_cpu(ops.betainc, dtype(2.5), b.astype(dtype), dtype(0.3), rtol=rtol, atol=1e-30)
    with pytest.raises(errors.InvalidArgumentError, match="Shapes of a and b are inconsistent"), \
            opgen.device("/GPU:0"):
        ops.betainc(a.astype(dtype), b[:3].astype(dtype), x.astype(dtype))
