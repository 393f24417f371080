"""MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve and
MatrixTriangularSolve: values against numpy.linalg and TensorFlow 2.21 (in its own
interpreter, $OPGEN_TF_PYTHON), eagerly and in a graph, every registered dtype, batched
and broadcast; singular inputs and bad shapes as TensorFlow; gradients against
tf.GradientTape (test_gradient_coverage.py checks them against central differences)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(5)
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float16": 2e-2, "float32": 2e-5, "float64": 1e-12, "complex64": 2e-5, "complex128": 1e-12}


def _matrices(shape, dtype, spd=False):
    x = rng.normal(size=shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.normal(size=shape)
    n = shape[-1]
    if spd:
        x = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
    else:
        x = x + n * np.eye(n)
    return x.astype(dtype)


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _in_graph(op, inputs, attrs=None):
    g = opgen.Graph()
    with g.as_default():
        nodes = [opgen.ops.placeholder(opgen.as_dtype(v.dtype), shape=v.shape) for v in inputs]
        outs = g.create_op(op, nodes, attrs or {}).outputs
    return outs, opgen.Session(g).run(list(outs), dict(zip(nodes, inputs)))


def _close(got, want, dtype):
    tol = TOL[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


def _adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_numpy_eager_and_in_a_graph(dtype):
    a = _matrices((2, 3, 4, 4), dtype)
    spd = _matrices((3, 5, 5), dtype, spd=True)
    b = rng.normal(size=(2, 3, 4, 2)).astype(dtype)
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    checks = [
        ("MatrixInverse", [a], {}, [np.linalg.inv(a64)]),
        ("MatrixInverse", [a], {"adjoint": True}, [np.linalg.inv(_adjoint(a64))]),
        ("MatrixDeterminant", [a], {}, [np.linalg.det(a64)]),
        ("Cholesky", [spd], {}, [np.linalg.cholesky(spd.astype(np.complex128))]),
        ("MatrixSolve", [a, b], {}, [np.linalg.solve(a64, b64)]),
        ("MatrixSolve", [a, b], {"adjoint": True}, [np.linalg.solve(_adjoint(a64), b64)]),
    ]
    sign, logdet = np.linalg.slogdet(a64)
    checks.append(("LogMatrixDeterminant", [a], {}, [sign, logdet]))
    lower = np.tril(a64)
    upper = np.triu(a64)
    for low in (True, False):
        for adj in (False, True):
            t = lower if low else upper
            t = _adjoint(t) if adj else t
            checks.append(("MatrixTriangularSolve", [a, b], {"lower": low, "adjoint": adj},
                           [np.linalg.solve(t, b64)]))
    for op, inputs, attrs, wants in checks:
        got = _run(op, inputs, attrs)
        assert all(g.dtype == np.dtype(dtype) for g in got), op
        for g, w in zip(got, wants):
            _close(g, w.real if not dtype.startswith("complex") else w, dtype)
        nodes, values = _in_graph(op, inputs, attrs)
        for node, value, g in zip(nodes, values, got):
            assert tuple(node.shape) == g.shape
            np.testing.assert_array_equal(value, g)


def test_half_inverse_and_broadcast_triangular_solve():
    a = _matrices((3, 3), "float64")
    got = _run("MatrixInverse", [a.astype(np.float16)])[0]
    assert got.dtype == np.float16
    _close(got, np.linalg.inv(a.astype(np.float16).astype(np.float64)), "float16")
    # matrix [2, 1, 3, 3] against rhs [4, 3, 2]: the batch broadcasts to [2, 4]
    m = _matrices((2, 1, 3, 3), "float64")
    rhs = rng.normal(size=(4, 3, 2))
    got = _run("MatrixTriangularSolve", [m, rhs])[0]
    assert got.shape == (2, 4, 3, 2)
    _close(got, np.linalg.solve(np.tril(m), rhs), "float64")


def test_singular_and_degenerate_inputs_as_tensorflow():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for x in (singular, np.zeros((2, 2)), np.array([[np.nan, 1.0], [1.0, 1.0]])):
        with pytest.raises(errors.InvalidArgumentError, match=r"Input is not invertible\."):
            _run("MatrixInverse", [x])
    with pytest.raises(errors.InvalidArgumentError, match=r"Input matrix is not invertible\."):
        _run("MatrixSolve", [np.zeros((2, 2)), np.ones((2, 1))])
    assert _run("MatrixDeterminant", [singular])[0] == 0
    sign, logdet = _run("LogMatrixDeterminant", [np.zeros((2, 2))])
    assert sign == 0 and logdet == -np.inf
    sign, logdet = _run("LogMatrixDeterminant", [np.array([[0.0, 1.0], [1.0, 0.0]])])
    assert sign == -1 and logdet == 0
    assert np.isnan(_run("Cholesky", [-np.eye(2)])[0]).all()  # not positive definite
    out = _run("MatrixTriangularSolve", [np.zeros((2, 2)), np.ones((2, 1))])[0]
    assert not np.isfinite(out).any()  # a zero diagonal: inf / nan, no error
    assert _run("MatrixInverse", [np.zeros((0, 0))])[0].shape == (0, 0)
    np.testing.assert_array_equal(_run("MatrixDeterminant", [np.zeros((3, 0, 0))])[0], [1, 1, 1])
    assert [v.tolist() for v in _run("LogMatrixDeterminant", [np.zeros((0, 0))])] == [1.0, 0.0]


def test_shape_errors_as_tensorflow():
    cases = [
        ("MatrixInverse", [np.zeros((2, 3))], "Input matrix must be square."),
        ("MatrixInverse", [np.zeros((2,))], "Input tensor 0 must have rank >= 2, got 1"),
        ("Cholesky", [np.zeros((2, 3))], "Input matrix must be square."),
        ("MatrixDeterminant", [np.zeros((2, 3))], "Input matrix must be square."),
        ("MatrixSolve", [np.eye(2), np.ones((3, 1))], "Input matrix and rhs are incompatible."),
        ("MatrixSolve", [np.ones((2, 2, 2)), np.ones((3, 2, 1))],
         "All input tensors must have the same outer dimensions."),
        ("MatrixSolve", [np.ones((2, 3)), np.ones((2, 1))],
         r"First input \(lhs\) must be a square matrix."),
        ("MatrixTriangularSolve", [np.eye(2), np.ones((3, 1))],
         r"In\[0\] mismatch In\[1\] shape: 2 vs. 3: \[2,2\] \[3,1\] 1 0"),
        ("MatrixTriangularSolve", [np.ones((2, 3)), np.ones((2, 1))],
         r"In\[0\] matrices in the last dimensions must be square \(3 =/= 2\)"),
        ("MatrixTriangularSolve", [np.ones((2, 2, 2)), np.ones((3, 2, 1))],
         r"must have compatible batch dimensions: \[2,2,2\] vs. \[3,2,1\]"),
    ]
    for op, inputs, message in cases:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            _run(op, inputs)


# ---- against TensorFlow: values and gradients of sum(w * output) --------------------------

TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    cases = json.load(open(sys.argv[1]))
    data = dict(np.load(sys.argv[2]))
    out = {}
    for c in cases:
        inputs = [tf.constant(data[f"{c['id']}/{i}"]) for i in range(c["n"])]
        with tf.GradientTape() as tape:
            for t in inputs:
                tape.watch(t)
            y = getattr(tf.raw_ops, c["op"])(**dict(zip(c["names"], inputs)), **c["attrs"])
            y = y[c["output"]] if isinstance(y, (list, tuple)) else y
            loss = tf.math.real(tf.reduce_sum(y * data[c["id"] + "/w"]))
        out[c["id"]] = y.numpy()
        for i, g in enumerate(tape.gradient(loss, inputs)):
            out[f"{c['id']}/grad{i}"] = g.numpy()
    np.savez(sys.argv[3], **out)
""")


def _tf_cases():
    cases, arrays = [], {}
    for dtype in ("float64", "complex128"):
        a = _matrices((2, 3, 3), dtype)
        spd = _matrices((2, 3, 3), dtype, spd=True)
        b = rng.normal(size=(2, 3, 2)).astype(dtype)
        specs = [("MatrixInverse", ["input"], [a], {"adjoint": False}, 0),
                 ("MatrixInverse", ["input"], [a], {"adjoint": True}, 0),
                 ("MatrixDeterminant", ["input"], [a], {}, 0),
                 ("LogMatrixDeterminant", ["input"], [a], {}, 1),
                 ("Cholesky", ["input"], [spd], {}, 0),
                 ("MatrixSolve", ["matrix", "rhs"], [a, b], {"adjoint": True}, 0),
                 ("MatrixTriangularSolve", ["matrix", "rhs"], [a[:1], b], {"lower": False}, 0),
                 ("MatrixTriangularSolve", ["matrix", "rhs"], [a, b], {"adjoint": True}, 0)]
        for k, (op, names, values, attrs, output) in enumerate(specs):
            key = f"{op}-{dtype}-{k}"
            for i, v in enumerate(values):
                arrays[f"{key}/{i}"] = v
            cases.append({"id": key, "op": op, "names": names, "n": len(values),
                          "attrs": attrs, "output": output, "dtype": dtype})
    return cases, arrays


TF_CASES, TF_ARRAYS = _tf_cases()


def _opgen_side(case):
    """The op in a graph: its output and the gradients of Re(sum(w * output))."""
    values = [TF_ARRAYS[f"{case['id']}/{i}"] for i in range(case["n"])]
    g = opgen.Graph()
    with g.as_default():
        nodes = [opgen.ops.placeholder(opgen.as_dtype(v.dtype), shape=v.shape) for v in values]
        y = g.create_op(case["op"], nodes, case["attrs"]).outputs[case["output"]]
        w = opgen.ops.placeholder(y.dtype)
        grads = opgen.gradients(y, nodes, grad_ys=[w])
    session = opgen.Session(g)
    feed = dict(zip(nodes, values))
    value = session.run(y, feed)
    w_value = rng.normal(size=value.shape).astype(value.dtype)
    TF_ARRAYS[case["id"] + "/w"] = w_value
    # TensorFlow's complex gradient of Re(sum(w * y)) is the gradient fed conj(w)
    feed[w] = np.conj(w_value)
    return value, session.run(grads, feed)


@pytest.fixture(scope="module")
def tf_ref():
    tf_python()  # skip before the opgen side's work when there is no TensorFlow
    ours = {c["id"]: _opgen_side(c) for c in TF_CASES}
    return ours, run_tf_script(TF_SCRIPT, TF_ARRAYS, TF_CASES)


@pytest.mark.parametrize("case", TF_CASES, ids=[c["id"] for c in TF_CASES])
def test_values_and_gradients_match_tensorflow(case, tf_ref):
    ours, theirs = tf_ref
    value, grads = ours[case["id"]]
    np.testing.assert_allclose(value, theirs[case["id"]], rtol=1e-10, atol=1e-10)
    for i, got in enumerate(grads):
        np.testing.assert_allclose(got, theirs[f"{case['id']}/grad{i}"], rtol=1e-9, atol=1e-9,
                                   err_msg=f"input {i}")
