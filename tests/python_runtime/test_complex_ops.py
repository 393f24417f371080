"""The complex family (Complex, Real, Imag, Angle, Conj) and complex64/complex128
arithmetic, transcendental functions, Sign, Pow, equality, Prod, scans and matrix
products: forward values against numpy, with broadcasting; the gradients of complex
inputs against TensorFlow 2.21's tf.GradientTape (a child process, $OPGEN_TF_PYTHON).
Finite differences of the same gradients are test_gradient_coverage.py's."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import opgen
from opgen import as_dtype
from opgen.runtime import execute_op
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)
COMPLEX = [(np.complex64, np.float32), (np.complex128, np.float64)]


def _z(shape, dtype):
    return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)


def _run(op, inputs, attrs=None):
    return np.asarray(execute_op(op, inputs, attrs or {})[0])


def _tol(dtype):
    return dict(rtol=2e-6, atol=1e-6) if np.dtype(dtype) in (np.complex64, np.float32) else \
        dict(rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("ctype, part", COMPLEX, ids=["complex64", "complex128"])
def test_complex_broadcasts_its_parts(ctype, part):
    re, im = rng.uniform(-3, 3, (2, 1, 3)).astype(part), rng.uniform(-3, 3, (4, 1)).astype(part)
    got = _run("Complex", [re, im], {"Tout": as_dtype(ctype)})
    assert got.dtype == ctype and got.shape == (2, 4, 3)
    np.testing.assert_array_equal(got, re + 1j * im)


@pytest.mark.parametrize("ctype, part", COMPLEX, ids=["complex64", "complex128"])
@pytest.mark.parametrize("op, ref", [("Real", np.real), ("Imag", np.imag), ("Angle", np.angle)])
def test_parts_and_angle_against_numpy(ctype, part, op, ref):
    z = _z((3, 4), ctype)
    z[0, :4] = [complex(-1, 0.0), complex(-1, -0.0), 0j, complex(np.inf, np.inf)]
    got = _run(op, [z], {"Tout": as_dtype(part)})
    assert got.dtype == part
    np.testing.assert_allclose(got, ref(z), **_tol(part))
    if op == "Angle":  # the sign of a zero imaginary part picks pi or -pi, as numpy's
        assert got[0, 0] == np.float32(np.pi) if part == np.float32 else got[0, 0] == np.pi
        assert got[0, 1] < 0


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_conj(ctype):
    z = _z((2, 5), ctype)
    np.testing.assert_array_equal(_run("Conj", [z]), np.conj(z))


def test_parts_need_the_matching_tout():
    with pytest.raises(opgen.errors.NotFoundError, match="Real"):
        execute_op("Real", [_z((2,), np.complex64)], {"Tout": as_dtype(np.float64)})


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op, ref", [("AddV2", np.add), ("Add", np.add), ("Sub", np.subtract),
                                     ("Mul", np.multiply), ("RealDiv", np.divide),
                                     ("Div", np.divide)])
def test_binary_arithmetic_broadcasts(ctype, op, ref):
    x, y = _z((2, 3, 4), ctype), _z((3, 1), ctype)
    for a, b in ((x, y), (y, x), (x, x[0, 0, 0]), (x[1], x[0])):
        got = _run(op, [a, b])
        assert got.dtype == ctype
        np.testing.assert_allclose(got, ref(a, b), **_tol(ctype))


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op, ref", [("Neg", np.negative), ("Square", np.square),
                                     ("Reciprocal", np.reciprocal)])
def test_unary_arithmetic(ctype, op, ref):
    z = _z((3, 5), ctype)
    np.testing.assert_allclose(_run(op, [z]), ref(z), **_tol(ctype))


def _sign(z):
    magnitude = np.abs(z)
    return np.where(magnitude == 0, 0, z / np.where(magnitude == 0, 1, magnitude))


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op, ref", [
    ("Exp", np.exp), ("Log", np.log), ("Sqrt", np.sqrt), ("Rsqrt", lambda z: 1 / np.sqrt(z)),
    ("Tanh", np.tanh), ("Sigmoid", lambda z: 1 / (1 + np.exp(-z))), ("Sign", _sign)])
def test_transcendental_functions_and_sign(ctype, op, ref):
    z = _z((3, 5), ctype)
    z[0, :3] = [0j, complex(-1, 0.0), complex(-1, -0.0)]  # branch cuts keep the zero's sign
    if op in ("Log", "Rsqrt"):
        z[0, 0] = 1j
    got = _run(op, [z])
    assert got.dtype == ctype
    np.testing.assert_allclose(got, ref(z.astype(np.complex128)).astype(ctype),
                               rtol=1e-5 if ctype == np.complex64 else 1e-13, atol=1e-6)


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_pow_and_equality_broadcast(ctype):
    x, y = _z((2, 3), ctype), _z((3,), ctype)
    np.testing.assert_allclose(_run("Pow", [x, y]), np.power(x.astype(np.complex128), y),
                               rtol=1e-5 if ctype == np.complex64 else 1e-12)
    w = x.copy()
    w[0, 1] = np.conj(w[0, 1])  # same real part, other imaginary part
    for op, ref in (("Equal", np.equal), ("NotEqual", np.not_equal)):
        np.testing.assert_array_equal(_run(op, [x, w]), ref(x, w))
        np.testing.assert_array_equal(_run(op, [x, x[1]]), ref(x, x[1]))
    # shapes that do not broadcast: unequal everywhere, or an error, as the attr says
    assert _run("NotEqual", [x, y[:2]], {"incompatible_shape_error": False}) == np.bool_(True)
    with pytest.raises(opgen.errors.InvalidArgumentError):
        _run("Equal", [x, y[:2]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
def test_div_no_nan_is_zero_where_the_divisor_is(dtype):
    x = _z((2, 4), np.complex128)
    y = _z((4,), np.complex128)
    x[0, :3], y[:2] = [np.nan, np.inf, 0], 0
    if np.dtype(dtype).kind == "f":
        x, y = x.real, y.real
    x, y = x.astype(dtype), y.astype(dtype)
    got = _run("DivNoNan", [x, y])
    want = np.where(y == 0, 0, x / np.where(y == 0, 1, y))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_prod_and_cumulative(ctype):
    z = _z((3, 4), ctype)
    tol = dict(rtol=1e-5) if ctype == np.complex64 else dict(rtol=1e-13)
    np.testing.assert_allclose(_run("Prod", [z, np.int32(0)]), z.prod(0), **tol)
    np.testing.assert_allclose(_run("Cumsum", [z, np.int32(1)]), z.cumsum(1), **tol)
    np.testing.assert_allclose(_run("Cumprod", [z, np.int32(0)], {"exclusive": True}),
                               np.concatenate([np.ones((1, 4)), z.cumprod(0)[:-1]]), **tol)


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes_and_batch_matmul_adjoints(ctype, flags):
    """MatMul's transpose_a/b transpose; BatchMatMulV2's adj_x/y also conjugate."""
    fa, fb = flags
    a, b = _z((3, 4) if fa else (4, 3), ctype), _z((5, 3) if fb else (3, 5), ctype)
    tol = dict(rtol=1e-5, atol=1e-5) if ctype == np.complex64 else dict(rtol=1e-13)
    got = _run("MatMul", [a, b], {"transpose_a": fa, "transpose_b": fb})
    np.testing.assert_allclose(got, (a.T if fa else a) @ (b.T if fb else b), **tol)
    x = np.stack([a, 2 * a])  # [2, ...] batch against an unbatched y
    got = _run("BatchMatMulV2", [x, b], {"adj_x": fa, "adj_y": fb})
    adj = lambda m: np.conj(np.swapaxes(m, -1, -2))  # noqa: E731
    np.testing.assert_allclose(got, (adj(x) if fa else x) @ (adj(b) if fb else b), **tol)


def test_division_keeps_huge_and_tiny_divisors_finite():
    """The quotient is scaled by the divisor's larger part: |y|^2 would overflow."""
    x = np.complex128([1e300 + 1e300j, 1e-300 + 2e-300j])
    y = np.complex128([2e300 - 1e300j, 3e-300 + 1e-300j])
    np.testing.assert_allclose(_run("RealDiv", [x, y]), x / y, rtol=1e-15)


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_add_n_sum_and_mean(ctype):
    z = _z((3, 4, 2), ctype)
    np.testing.assert_allclose(_run("AddN", [[z, z, 2 * z]]), 4 * z, **_tol(ctype))
    np.testing.assert_allclose(_run("Sum", [z, np.int32([0, 2])]), z.sum((0, 2)), **_tol(ctype))
    np.testing.assert_allclose(_run("Mean", [z, np.int32(1)], {"keep_dims": True}),
                               z.mean(1, keepdims=True), **_tol(ctype))


def test_cast_to_and_from_complex():
    z = np.complex128([1.5 - 2j, -0.0 + 3j, 1e40 + 1j, 0 + 1j])
    np.testing.assert_array_equal(_run("Cast", [z], {"DstT": as_dtype(np.float64)}), z.real)
    np.testing.assert_array_equal(_run("Cast", [z], {"DstT": as_dtype(np.int32)})[:2], [1, 0])
    # to bool the real part decides, as TensorFlow's (1j is false)
    np.testing.assert_array_equal(_run("Cast", [z], {"DstT": as_dtype(np.bool_)}),
                                  [True, False, True, False])
    narrowed = _run("Cast", [z], {"DstT": as_dtype(np.complex64)})
    assert narrowed.dtype == np.complex64 and np.isinf(narrowed[2].real)
    np.testing.assert_array_equal(narrowed[[0, 1, 3]], z[[0, 1, 3]].astype(np.complex64))
    got = _run("Cast", [np.int64([3, -4])], {"DstT": as_dtype(np.complex64)})
    np.testing.assert_array_equal(got, np.complex64([3, -4]))


# ---- gradients against TensorFlow ------------------------------------------------------

# loss(z, w) of complex z, w; each a real scalar, the same expression in both libraries.
LOSSES = {
    "abs": "reduce_sum(abs(z))",
    "real_mul": "reduce_sum(real(z * w))",
    "imag_div": "reduce_sum(imag(z / w))",
    "angle": "reduce_sum(angle(z))",
    "conj": "reduce_sum(real(conj(z) * w))",
    "reciprocal": "reduce_sum(abs(reciprocal(square(z)) - w))",
    "parts": "reduce_sum(real(z) * imag(w) + abs(complex(imag(z), real(w))))",
    "exp_log": "reduce_sum(imag(exp(z) * w) + real(log(z) * w))",
    "sqrt_rsqrt": "reduce_sum(imag(sqrt(z) * w) + real(rsqrt(z * w)))",
    "tanh_sigmoid": "reduce_sum(real(tanh(z) * w) + imag(sigmoid(z * w)))",
    "pow": "reduce_sum(imag(pow(z, w)) + real(pow(w, z)))",
    "prod": "reduce_sum(real(prod0(z) * w) + imag(prod0(z * w)))",
    "matmul": "reduce_sum(imag(mm(z * w, z)) + real(mm(z, z * w)))",
    "batch_matmul_adjoint": "reduce_sum(real(bmm_adj_y(z * w, z) * bmm_adj_y(z, z * w)))"
                            " + reduce_sum(imag(bmm_adj_x(z, z * w)))",
}

TF_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow as tf
    from tensorflow.math import abs, real, imag, angle, conj, reciprocal, square, reduce_sum
    from tensorflow.math import exp, log, sqrt, rsqrt, tanh, sigmoid, pow
    from tensorflow import complex
    prod0 = lambda t: tf.reduce_prod(t, 0)
    mm = lambda a, b: tf.raw_ops.MatMul(a=a, b=b, transpose_b=True)
    bmm_adj_y = lambda a, b: tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_y=True)
    bmm_adj_x = lambda a, b: tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_x=True)
    spec = json.load(open(sys.argv[1]))
    out = {}
    for name, case in spec.items():
        z = tf.constant(np.array(case["z"][0]) + 1j * np.array(case["z"][1]), case["dtype"])
        w = tf.constant(np.array(case["w"][0]) + 1j * np.array(case["w"][1]), case["dtype"])
        with tf.GradientTape() as tape:
            tape.watch([z, w])
            loss = eval(case["loss"])
        gz, gw = tape.gradient(loss, [z, w])
        out[name] = [None if g is None else [np.real(g).tolist(), np.imag(g).tolist()]
                     for g in (gz, gw)]
    json.dump(out, open(sys.argv[2], "w"))
""")


def _opgen_loss(g, expr, z, w):
    """The loss built from opgen ops (the same names as TensorFlow's)."""
    part = opgen.float32 if z.dtype == opgen.complex64 else opgen.float64

    def op(name, *inputs, **attrs):
        return g.create_op(name, list(inputs), attrs).outputs[0]

    def axes(t):
        return op("Range", opgen.constant(np.int32(0)), op("Rank", t), opgen.constant(np.int32(1)))

    names = {
        "reduce_sum": lambda t: op("Sum", t, axes(t)),
        "abs": lambda t: op("ComplexAbs", t, Tout=part) if t.dtype.is_complex else op("Abs", t),
        "real": lambda t: op("Real", t, Tout=part), "imag": lambda t: op("Imag", t, Tout=part),
        "angle": lambda t: op("Angle", t, Tout=part), "conj": lambda t: op("Conj", t),
        "reciprocal": lambda t: op("Reciprocal", t), "square": lambda t: op("Square", t),
        "complex": lambda a, b: op("Complex", a, b, Tout=z.dtype), "z": z, "w": w,
        **{name: (lambda n: lambda t: op(n, t))(name.capitalize())
           for name in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")},
        "pow": lambda a, b: op("Pow", a, b),
        "prod0": lambda t: op("Prod", t, opgen.constant(np.int32(0))),
        "mm": lambda a, b: op("MatMul", a, b, transpose_b=True),
        "bmm_adj_y": lambda a, b: op("BatchMatMulV2", a, b, adj_y=True),
        "bmm_adj_x": lambda a, b: op("BatchMatMulV2", a, b, adj_x=True),
    }

    class T:  # operators of the expression on graph tensors
        def __init__(self, t):
            self.t = t

        def __mul__(self, o):
            return T(op("Mul", self.t, o.t))

        def __truediv__(self, o):
            return T(op("RealDiv", self.t, o.t))

        def __add__(self, o):
            return T(op("AddV2", self.t, o.t))

        def __sub__(self, o):
            return T(op("Sub", self.t, o.t))

    wrapped = {k: (T(v) if not callable(v) else
                   (lambda f: lambda *a: T(f(*[x.t for x in a])))(v)) for k, v in names.items()}
    return eval(expr, {}, wrapped).t


@pytest.fixture(scope="module")
def tensorflow_gradients(tmp_path_factory):
    tf_python()  # skip before any work when there is no TensorFlow
    spec, values = {}, {}
    for ctype in (np.complex64, np.complex128):
        for name, loss in LOSSES.items():
            z, w = _z((2, 3), ctype), _z((3,), ctype)  # w broadcast over z's rows
            key = f"{name}-{np.dtype(ctype).name}"
            values[key] = (z, w)
            spec[key] = {"loss": loss, "dtype": np.dtype(ctype).name,
                         "z": [z.real.tolist(), z.imag.tolist()],
                         "w": [w.real.tolist(), w.imag.tolist()]}
    folder = tmp_path_factory.mktemp("complex_tf")
    (folder / "spec.json").write_text(json.dumps(spec))
    run_tf(["-c", TF_SCRIPT, folder / "spec.json", folder / "out.json"], cwd=folder)
    return values, json.loads((folder / "out.json").read_text())


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradient_matches_tensorflow(name, ctype, tensorflow_gradients):
    values, theirs = tensorflow_gradients
    key = f"{name}-{np.dtype(ctype).name}"
    z_value, w_value = values[key]
    g = opgen.Graph()
    with g.as_default():
        z = opgen.ops.placeholder(as_dtype(ctype), shape=z_value.shape)
        w = opgen.ops.placeholder(as_dtype(ctype), shape=w_value.shape)
        loss = _opgen_loss(g, LOSSES[name], z, w)
        grads = opgen.gradients(loss, [z, w])
    with opgen.Session(graph=g) as s:
        got = s.run([gr for gr in grads if gr is not None], {z: z_value, w: w_value})
    expected = [None if e is None else np.array(e[0]) + 1j * np.array(e[1]) for e in theirs[key]]
    assert [gr is None for gr in grads] == [e is None for e in expected]
    tol = dict(rtol=2e-4, atol=2e-5) if ctype == np.complex64 else dict(rtol=1e-10, atol=1e-12)
    for mine, ref in zip(got, [e for e in expected if e is not None]):
        assert mine.dtype == ctype
        np.testing.assert_allclose(mine, ref, **tol)


def test_eager_tape_differentiates_complex_abs():
    """The tape takes the same registry: d|z| = z / |z|, 0 at 0 (TensorFlow's values)."""
    from opgen import ops
    z = opgen.constant(np.complex64([3 + 4j, 0j, -1 + 1j]))
    with opgen.GradientTape() as tape:
        tape.watch(z)
        y = ops.sum(ops.complex_abs(z, Tout=opgen.float32), np.int32([0]))
    got = tape.gradient(y, z).numpy()
    np.testing.assert_allclose(got, [0.6 + 0.8j, 0, (-1 + 1j) / np.sqrt(2)], rtol=1e-6)
