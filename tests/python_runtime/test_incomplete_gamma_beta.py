"""Igamma, Igammac, IgammaGradA, RandomGammaGrad, Polygamma, Zeta and Betainc (ops/
special_math_ops.cc) on float and double: against closed forms and independent
references (numeric integrals and sums written here, the math module), TensorFlow's edge
values written out, broadcasting (Betainc's own rule), errors, a graph run in a Session,
and TensorFlow 2.21 itself on random inputs (a child process, $OPGEN_TF_PYTHON; skipped
without it)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from tf_reference import run_tf

import opgen
from kernel_dtypes import name, run
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(2027)
F32_64 = [np.float32, np.float64]
RTOL = {np.float32: 2e-6, np.float64: 1e-12}
nan, inf = np.nan, np.inf


def close(got, want, dtype, scale=1.0):
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=RTOL[dtype] * scale,
                               atol=RTOL[dtype] * scale * 1e-3)


def simpson(f, h):
    w = np.ones(len(f))
    w[1:-1:2], w[2:-1:2] = 4, 2
    return float((w * f).sum() * h / 3)


def lower_gamma_integral(a: float, x: float) -> float:
    """P(a, x) by Simpson's rule on a smooth integrand: t = u^(1/a) for a < 1
    (e^-t du / a), t = u^2 otherwise (2 u^(2a-1) e^(-u^2) du)."""
    n = 20000
    if a < 1:
        u = np.linspace(0.0, x ** a, n + 1)
        return simpson(np.exp(-u ** (1.0 / a)), u[1] - u[0]) / a / math.gamma(a)
    u = np.linspace(0.0, math.sqrt(x), n + 1)
    return simpson(2 * u ** (2 * a - 1) * np.exp(-u * u), u[1] - u[0]) / math.gamma(a)


def beta_integral(a: float, b: float, x: float) -> float:
    """I_x(a, b) by Simpson's rule, for a, b >= 1 (a smooth integrand)."""
    t = np.linspace(0.0, x, 20001)
    return simpson(t ** (a - 1) * (1 - t) ** (b - 1), t[1] - t[0]) * math.gamma(a + b) / math.gamma(a) / math.gamma(b)


def hurwitz_reference(s: float, q: float) -> float:
    """zeta(s, q) by summing 10^6 terms and the integral of the rest."""
    k = np.arange(1_000_000, dtype=np.float64)
    n = q + 1_000_000
    return float(np.sum((q + k) ** -s) + n ** (1 - s) / (s - 1) + 0.5 * n ** -s)


# ---- closed forms ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_igamma_closed_forms(dtype):
    x = np.array([0.01, 0.3, 1.0, 2.5, 7.0, 30.0], dtype)
    x64 = x.astype(np.float64)
    close(run("Igamma", [np.ones_like(x), x]), -np.expm1(-x64), dtype)  # a = 1: 1 - e^-x
    close(run("Igammac", [np.ones_like(x), x]), np.exp(-x64), dtype, 4)
    # a = 1/2: erf(sqrt(x)); a = 2: 1 - (1 + x) e^-x.
    close(run("Igamma", [np.full_like(x, 0.5), x]), [math.erf(math.sqrt(v)) for v in x64], dtype, 4)
    close(run("Igammac", [np.full_like(x, 0.5), x]), [math.erfc(math.sqrt(v)) for v in x64], dtype, 64)
    close(run("Igammac", [np.full_like(x, 2.0), x]), (1 + x64) * np.exp(-x64), dtype, 4)
    a = np.array([0.3, 1.7, 4.0, 12.0], dtype)
    xa = np.array([0.4, 2.2, 3.1, 15.0], dtype)
    want = [lower_gamma_integral(float(p), float(q)) for p, q in zip(a, xa)]
    close(run("Igamma", [a, xa]), want, dtype, 1e4 if dtype == np.float64 else 4)
    total = run("Igamma", [a, xa]).astype(np.float64) + run("Igammac", [a, xa])
    np.testing.assert_allclose(total, 1.0, rtol=4 * RTOL[dtype])


@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_igamma_grad_a_and_random_gamma_grad_against_differences(dtype):
    a = np.array([0.2, 0.9, 2.5, 6.0, 40.0], np.float64)
    x = np.array([0.1, 1.3, 2.0, 9.0, 38.0], np.float64)
    h = 1e-6 * a
    slope = (run("Igamma", [a + h, x]) - run("Igamma", [a - h, x])) / (2 * h)
    got = run("IgammaGradA", [a.astype(dtype), x.astype(dtype)])
    close(got, slope, dtype, 2e4 if dtype == np.float64 else 4)
    # The sample's derivative: -dP/da over the gamma density at the sample.
    density = np.exp((a - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in a]))
    close(run("RandomGammaGrad", [a.astype(dtype), x.astype(dtype)]), -slope / density, dtype,
          2e4 if dtype == np.float64 else 8)


@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_zeta_and_polygamma_closed_forms(dtype):
    pi = math.pi
    s = np.array([2, 4, 6, 2, 3], dtype)
    q = np.array([1, 1, 1, 0.5, 2], dtype)
    close(run("Zeta", [s, q]), [pi ** 2 / 6, pi ** 4 / 90, pi ** 6 / 945, pi ** 2 / 2,
                                 1.2020569031595942 - 1], dtype, 2)
    s2, q2 = np.array([1.5, 3.3, 11.0], dtype), np.array([0.7, 3.0, 0.9], dtype)
    close(run("Zeta", [s2, q2]), [hurwitz_reference(float(a), float(b)) for a, b in zip(s2, q2)],
          dtype, 1e3 if dtype == np.float64 else 2)
    x = np.array([0.3, 1.0, 2.5, 7.0], dtype)
    close(run("Polygamma", [np.zeros_like(x), x]), run("Digamma", [x]), dtype)
    # psi'(1) = pi^2/6, psi''(1) = -2 zeta(3), psi'(1/2) = pi^2/2, psi'''(1) = pi^4/15.
    n = np.array([1, 2, 1, 3], dtype)
    close(run("Polygamma", [n, np.array([1, 1, 0.5, 1], dtype)]),
          [pi ** 2 / 6, -2 * 1.2020569031595942, pi ** 2 / 2, pi ** 4 / 15], dtype, 2)


@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_betainc_closed_forms(dtype):
    x = np.array([0.05, 0.3, 0.5, 0.77, 0.99], dtype)
    x64 = x.astype(np.float64)
    one = np.ones_like(x)
    close(run("Betainc", [one, one, x]), x64, dtype)                            # uniform
    close(run("Betainc", [np.full_like(x, 3.0), one, x]), x64 ** 3, dtype, 4)   # x^a
    close(run("Betainc", [one, np.full_like(x, 2.5), x]), -np.expm1(2.5 * np.log1p(-x64)), dtype, 4)
    close(run("Betainc", [np.full_like(x, 0.5), np.full_like(x, 0.5), x]),
          2 / math.pi * np.arcsin(np.sqrt(x64)), dtype, 4)                      # arcsine law
    a, b = np.array([2.5, 4.0, 20.0], dtype), np.array([2.0, 7.5, 3.0], dtype)
    xs = np.array([0.4, 0.35, 0.9], dtype)
    close(run("Betainc", [a, b, xs]), [beta_integral(*map(float, v)) for v in zip(a, b, xs)],
          dtype, 1e3 if dtype == np.float64 else 4)


# ---- edges as TensorFlow's ------------------------------------------------------------------

def test_edges_as_tensorflow():
    d = np.float64
    a = d([0, 0, 1, 1, -1, 2, 2, 2, inf, inf, nan, nan])
    x = d([0, 1, 0, inf, 1, -1, inf, nan, 1, inf, 1, 0])
    np.testing.assert_array_equal(run("Igamma", [a, x]), [0, nan, 0, 1, nan, nan, 1, nan, 0, 0, nan, 0])
    np.testing.assert_array_equal(run("Igammac", [a, x]), [nan, nan, 1, 0, nan, nan, 0, nan, 1, 0, nan, nan])
    np.testing.assert_array_equal(run("IgammaGradA", [a, x]), [0, nan, 0, 0, nan, nan, 0, nan, 0, 0, nan, 0])
    n = d([0, 1, 2, -1, 1.5, 1, 1, 3, 0, nan, inf])
    xp = d([1, -1, 0, 1, 1, inf, 1e-300, -inf, 0, 1, 1])
    got = run("Polygamma", [n, xp])
    np.testing.assert_array_equal(got[1:], [inf, nan, nan, nan, 0, inf, inf, nan, nan, inf])
    s = d([1, 0.5, 2, 2, 3, 4, 3, inf, 2, 1, -2])
    q = d([1, 1, 0, -1, -2, -2, -inf, 1, inf, nan, 1])
    np.testing.assert_array_equal(run("Zeta", [s, q]), [inf, nan, inf, inf, nan, inf, nan, 1, 0, inf, nan])
    # Negative non-integer q with an integer s: the sum taken as it stands.
    np.testing.assert_allclose(run("Zeta", [d([3]), d([-2.5])]),
                               [-2.5 ** -3 - 1.5 ** -3 - 0.5 ** -3 + 8.41439832211716], rtol=1e-12)
    A = d([0, 1, -1, 1, 2, 2, inf, nan, 1, 0])
    B = d([1, 0, 1, 1, 3, 3, 1, 1, inf, 1])
    X = d([0.5, 0.5, 0.5, 1.5, 0, 1, 0.5, 1, 0, 0])
    np.testing.assert_array_equal(run("Betainc", [A, B, X]), [nan, nan, nan, nan, 0, 1, nan, 1, 0, nan])


# ---- shapes -----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Igamma", "Igammac", "IgammaGradA", "RandomGammaGrad", "Polygamma", "Zeta"])
@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_binary_ops_broadcast(op, dtype):
    a = np.array([[1.0], [2.0], [3.0]], dtype)
    x = np.array([0.5, 1.5, 4.0, 9.0], dtype)
    got = run(op, [a, x])
    assert got.shape == (3, 4)
    for i in range(3):
        np.testing.assert_array_equal(got[i], run(op, [np.full(4, a[i, 0], dtype), x]))
    assert run(op, [np.zeros((0, 4), dtype), x]).shape == (0, 4)
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
        run(op, [np.ones(3, dtype), np.ones(2, dtype)])


@pytest.mark.parametrize("dtype", F32_64, ids=name)
def test_betainc_scalars_broadcast_other_shapes_must_agree(dtype):
    x = np.array([[0.2, 0.5], [0.7, 0.9]], dtype)
    full = run("Betainc", [np.full_like(x, 2.0), np.full_like(x, 3.0), x])
    np.testing.assert_array_equal(run("Betainc", [dtype(2), dtype(3), x]), full)
    np.testing.assert_array_equal(run("Betainc", [np.full_like(x, 2.0), dtype(3), x]), full)
    np.testing.assert_array_equal(run("Betainc", [dtype(2), np.full_like(x, 3.0), dtype(0.5)]),
                                  np.full(x.shape, run("Betainc", [dtype(2), dtype(3), dtype(0.5)])))
    assert run("Betainc", [dtype(2), dtype(3), dtype(0.5)]).shape == ()
    with pytest.raises(errors.InvalidArgumentError, match=r"Shapes of a and b are inconsistent: \[2\] vs\. \[3\]"):
        run("Betainc", [np.ones(2, dtype), np.ones(3, dtype), dtype(0.5)])
    with pytest.raises(errors.InvalidArgumentError, match=r"Shapes of a and b are inconsistent: \[2\] vs\. \[1,2\]"):
        run("Betainc", [np.ones(2, dtype), np.ones((1, 2), dtype), dtype(0.5)])
    with pytest.raises(errors.InvalidArgumentError, match=r"Shapes of a and x are inconsistent"):
        run("Betainc", [np.ones(2, dtype), dtype(1), np.full(3, 0.5, dtype)])


def test_dtypes_tensorflow_registers():
    """Float and double only: Igamma's OpDef allows half and bfloat16, TensorFlow's
    kernels do not take them, nor opgen's."""
    for op in ("Igamma", "Igammac"):
        with pytest.raises(errors.NotFoundError, match=op):
            run(op, [np.float16([1]), np.float16([1])])
    with pytest.raises(errors.OpError):
        run("Zeta", [np.int32([2]), np.int32([1])])


def test_in_a_graph_run_by_a_session():
    g = opgen.Graph()
    with g.as_default():
        a = opgen.ops.placeholder(opgen.float64, shape=[None], name="a")
        x = opgen.ops.placeholder(opgen.float64, shape=[None], name="x")
        outs = [opgen.ops.igamma(a, x), opgen.ops.igammac(a, x), opgen.ops.zeta(a + 1.0, x),
                opgen.ops.polygamma(a, x), opgen.ops.betainc(a, a, x / 10.0)]
        assert list(outs[4].shape) == [None]
    av, xv = np.float64([1.0, 2.0, 3.0]), np.float64([0.5, 2.0, 4.0])
    with opgen.Session(g) as sess:
        got = sess.run(outs, {a: av, x: xv})
    for k, op in enumerate(["Igamma", "Igammac"]):
        np.testing.assert_array_equal(got[k], run(op, [av, xv]))
    np.testing.assert_array_equal(got[2], run("Zeta", [av + 1, xv]))
    np.testing.assert_array_equal(got[3], run("Polygamma", [av, xv]))
    np.testing.assert_array_equal(got[4], run("Betainc", [av, av, xv / 10]))
    np.testing.assert_allclose(got[0][0], -math.expm1(-0.5), rtol=1e-15)  # a = 1


# ---- TensorFlow 2.21 on the same inputs -------------------------------------------------------

TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
out = {}
for key, case in spec.items():
    args = {k: tf.constant(np.array(v, case["dtype"])) for k, v in case["inputs"].items()}
    out[key] = getattr(tf.raw_ops, case["op"])(**args).numpy()
np.savez(sys.argv[2], **out)
"""


def tf_cases():
    cases = {}
    local = np.random.default_rng(7)
    n = 200
    for dtype in ("float32", "float64"):
        def add(op, dtype=dtype, **inputs):
            # float32 inputs also go to TensorFlow's float64 kernel (the "exact" case):
            # TensorFlow's float kernels compute in float, opgen's in double.
            inputs = {k: v.astype(dtype).tolist() for k, v in inputs.items()}
            cases[f"{op}-{dtype}"] = {"op": op, "dtype": dtype, "inputs": inputs}
            if dtype == "float32":
                cases[f"{op}-float32-exact"] = {"op": op, "dtype": "float64", "inputs": inputs}
        a = np.exp(local.uniform(-3, 5, n))
        x = a * np.exp(local.uniform(-1.5, 1.5, n))
        for op in ("Igamma", "Igammac", "IgammaGradA"):
            add(op, a=a, x=x)
        add("RandomGammaGrad", alpha=a, sample=x)
        add("Polygamma", a=local.integers(0, 6, n).astype(float), x=local.uniform(-6, 15, n))
        add("Zeta", x=local.uniform(1.05, 30, n), q=np.exp(local.uniform(-3, 4, n)))
        add("Betainc", a=np.exp(local.uniform(-2, 4, n)), b=np.exp(local.uniform(-2, 4, n)),
            x=local.uniform(0, 1, n))
    return cases


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("incomplete_gamma_beta_tf")
    cases = tf_cases()
    (folder / "spec.json").write_text(json.dumps(cases))
    run_tf(["-c", TF_SCRIPT, str(folder / "spec.json"), str(folder / "out.npz")], cwd=folder)
    return cases, dict(np.load(folder / "out.npz"))


@pytest.mark.parametrize("key", sorted(k for k in tf_cases() if not k.endswith("-exact")))
def test_matches_tensorflow(tf_results, key):
    cases, want = tf_results
    case = cases[key]
    got = run(case["op"], [np.array(v, case["dtype"]) for v in case["inputs"].values()])
    if case["dtype"] == "float32":
        # Computed in double and rounded once: within an ulp or two of TensorFlow's
        # float64 kernel on the same inputs; TensorFlow's float kernel computes in float
        # (its series lose digits where P or Q is small): a few thousand ulps of it.
        np.testing.assert_allclose(got, want[key + "-exact"].astype(np.float32), rtol=3e-7, atol=1e-37)
        # TensorFlow's float RandomGammaGrad gives -0 where its float dP/da underflows
        # (its float64 kernel and opgen do not): those elements are left out.
        kept = want[key] != 0 if case["op"] == "RandomGammaGrad" else slice(None)
        np.testing.assert_allclose(got[kept], want[key][kept], rtol=5e-4, atol=1e-30)
    else:
        # TensorFlow's double series lose digits where a is large.
        np.testing.assert_allclose(got, want[key], rtol=1e5 * np.finfo(np.float64).eps, atol=1e-300)
