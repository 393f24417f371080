"""Svd, Qr, SelfAdjointEigV2, Lu and MatrixSolveLs: invariants against numpy.linalg
(decompositions are unique only up to the signs / phases of singular vectors and
eigenvectors: reconstruction, orthonormality, the values), every registered dtype,
batched, eagerly and in a graph; degenerate inputs and TensorFlow's messages; values
where they are unique and gradients of sign-invariant losses against TensorFlow 2.21
(in its own interpreter, $OPGEN_TF_PYTHON)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(11)
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float16": 2e-2, "float32": 3e-5, "float64": 1e-12, "complex64": 3e-5, "complex128": 1e-12}


def _random(shape, dtype):
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _hermitian(shape, dtype):
    x = _random(shape, dtype)
    return (x + _adj(x)).astype(dtype)


def _adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _close(got, want, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


def _eye_like(x, k):
    return np.broadcast_to(np.eye(k), x.shape[:-2] + (k, k))


def _graph_matches_eager(op, inputs, attrs, eager):
    g = opgen.Graph()
    with g.as_default():
        nodes = [opgen.ops.placeholder(opgen.as_dtype(v.dtype), shape=v.shape) for v in inputs]
        outs = g.create_op(op, nodes, attrs).outputs
    values = opgen.Session(g).run(list(outs), dict(zip(nodes, inputs)))
    for node, value, want in zip(outs, values, eager):
        if want.ndim:  # an output turned off is a scalar at run time, [0] statically
            assert tuple(node.shape) == want.shape, op
        np.testing.assert_array_equal(value, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 4), (2, 1, 3, 6), (4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_invariants(dtype, shape, full):
    a = _random(shape, dtype)
    m, n = shape[-2:]
    p = min(m, n)
    s, u, v = _run("Svd", [a], {"full_matrices": full})
    assert s.dtype == u.dtype == v.dtype == np.dtype(dtype)
    assert u.shape == shape[:-2] + (m, m if full else p) and v.shape == shape[:-2] + (n, n if full else p)
    want = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    _close(s, want, dtype)
    assert np.all(s.imag == 0) and np.all(np.diff(s.real, axis=-1) <= 0)
    _close(_adj(u) @ u, _eye_like(u, u.shape[-1]), dtype, 10)
    _close(_adj(v) @ v, _eye_like(v, v.shape[-1]), dtype, 10)
    rebuilt = (u[..., :, :p] * s[..., None, :]) @ _adj(v[..., :, :p])
    _close(rebuilt, a, dtype, 10)
    s_only, u0, v0 = _run("Svd", [a], {"compute_uv": False})
    _close(s_only, s, dtype)
    assert u0.shape == v0.shape == () and u0 == 0 and v0 == 0
    _graph_matches_eager("Svd", [a], {"full_matrices": full}, [s, u, v])


@pytest.mark.parametrize("dtype", DTYPES + ["float16"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 4), (2, 1, 3, 6), (4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_invariants(dtype, shape, full):
    a = _random(shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    q, r = _run("Qr", [a], {"full_matrices": full})
    assert q.dtype == r.dtype == np.dtype(dtype)
    assert q.shape == shape[:-2] + (m, m if full else k) and r.shape == shape[:-2] + ((m if full else k), n)
    scale = 50 if dtype == "float16" else 10
    wide = a.astype(np.complex128)
    _close(q @ r, wide, dtype, scale)
    _close(_adj(q) @ q, _eye_like(q, q.shape[-1]), dtype, scale)
    assert np.all(np.tril(r, -1) == 0)
    # R is unique up to the signs (phases) of its rows: |R| equals numpy's
    want_r = np.linalg.qr(wide, mode="complete" if full else "reduced")[1]
    _close(np.abs(r), np.abs(want_r), dtype, scale)
    _graph_matches_eager("Qr", [a], {"full_matrices": full}, [q, r])


@pytest.mark.parametrize("dtype", DTYPES)
def test_self_adjoint_eig_invariants_and_lower_triangle(dtype):
    h = _hermitian((2, 3, 5, 5), dtype)
    e, v = _run("SelfAdjointEigV2", [h])
    assert e.dtype == v.dtype == np.dtype(dtype) and e.shape == (2, 3, 5) and v.shape == (2, 3, 5, 5)
    _close(e, np.linalg.eigvalsh(h.astype(np.complex128)), dtype, 10)
    _close(h @ v, v * e[..., None, :], dtype, 10)
    _close(_adj(v) @ v, _eye_like(v, 5), dtype, 10)
    e_only, v0 = _run("SelfAdjointEigV2", [h], {"compute_v": False})
    _close(e_only, e, dtype, 10)
    assert v0.shape == () and v0 == 0
    # only the lower triangle is read: junk above the diagonal changes nothing
    junk = np.tril(h) + np.triu(_random(h.shape, dtype), 1)
    np.testing.assert_array_equal(_run("SelfAdjointEigV2", [junk])[0], e)
    _graph_matches_eager("SelfAdjointEigV2", [h], {}, [e, v])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("idx", ["int32", "int64"])
def test_lu_reconstructs_with_partial_pivoting(dtype, idx):
    a = _random((2, 3, 4, 4), dtype)
    lu, p = _run("Lu", [a], {"output_idx_type": opgen.as_dtype(idx)})
    assert lu.dtype == np.dtype(dtype) and p.dtype == np.dtype(idx) and p.shape == (2, 3, 4)
    lower = np.tril(lu, -1) + np.eye(4)
    upper = np.triu(lu)
    _close(lower @ upper, np.take_along_axis(a, p[..., None].astype(np.int64), axis=-2), dtype, 10)
    assert np.all(np.abs(lower) <= 1 + 1e-6)  # the largest pivot in each column was taken
    assert all(sorted(row) == [0, 1, 2, 3] for row in p.reshape(-1, 4).tolist())
    _graph_matches_eager("Lu", [a], {"output_idx_type": opgen.as_dtype(idx)}, [lu, p])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 6, 3), (2, 3, 6)])
def test_matrix_solve_ls_against_numpy(dtype, shape):
    a = _random(shape, dtype)
    b = _random(shape[:-1] + (2,), dtype)
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    want = np.stack([np.linalg.lstsq(x, y, rcond=None)[0] for x, y in zip(a64, b64)])
    for fast in (True, False):
        x, = _run("MatrixSolveLs", [a, b, np.float64(0)], {"fast": fast})
        assert x.dtype == np.dtype(dtype) and x.shape == (2, shape[-1], 2)
        _close(x, want, dtype, 100)
    # l2 > 0: (A^H A + l2 I)^-1 A^H b when tall, A^H (A A^H + l2 I)^-1 b when wide
    l2 = 0.5
    if shape[-2] >= shape[-1]:
        ridge = np.linalg.solve(_adj(a64) @ a64 + l2 * np.eye(shape[-1]), _adj(a64) @ b64)
    else:
        ridge = _adj(a64) @ np.linalg.solve(a64 @ _adj(a64) + l2 * np.eye(shape[-2]), b64)
    x, = _run("MatrixSolveLs", [a, b, np.float64(l2)])
    _close(x, ridge, dtype, 100)
    # fast=False ignores l2_regularizer (TensorFlow's)
    x_slow, = _run("MatrixSolveLs", [a, b, np.float64(l2)], {"fast": False})
    _close(x_slow, want, dtype, 100)
    _graph_matches_eager("MatrixSolveLs", [a, b, np.float64(l2)], {}, [x])


def test_rank_deficient_least_squares_as_tensorflow():
    # whether the Gramian's Cholesky factor fails depends on rounding, as in TensorFlow
    # (float64: this one fails there too)
    with pytest.raises(errors.InvalidArgumentError, match=r"Input matrix was rank deficient or "
                       r"ill-conditioned. Try setting fast=False or provide a larger l2_regularizer > 0\."):
        _run("MatrixSolveLs", [np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones((3, 1)),
                               np.float64(0)])
    a = np.array([[1.0, 1.0], [1.0, 1.0]])
    b = np.ones((2, 1))
    x, = _run("MatrixSolveLs", [a, b, np.float64(0)], {"fast": False})
    np.testing.assert_allclose(x, [[0.5], [0.5]], atol=1e-12)  # the minimum-norm solution
    x, = _run("MatrixSolveLs", [a.astype(np.float32), b.astype(np.float32), np.float64(1)])
    np.testing.assert_allclose(x, [[0.4], [0.4]], rtol=1e-6)
    x, = _run("MatrixSolveLs", [np.array([[np.nan, 1.0], [1, 1]]), b, np.float64(0)], {"fast": False})
    np.testing.assert_array_equal(x, np.zeros((2, 1)))  # Eigen finds rank 0


def test_degenerate_and_non_finite_inputs_as_tensorflow():
    nan, inf = np.nan, np.inf
    s, u, v = _run("Svd", [np.array([[nan, 1.0], [1.0, 1.0]])])
    assert np.isnan(s).all() and np.isnan(u).all() and np.isnan(v).all()
    for m in ([[nan, 1.0], [1.0, 1.0]], [[1.0, 0.0], [inf, 1.0]]):
        with pytest.raises(errors.InvalidArgumentError, match=r"Self-adjoint eigen decomposition was "
                           r"not successful. The input might not be valid\."):
            _run("SelfAdjointEigV2", [np.array(m)])
    e, v = _run("SelfAdjointEigV2", [np.array([[1.0, nan], [2.0, 1.0]])])  # above: not read
    np.testing.assert_allclose(e, [-1, 3])
    e, v = _run("SelfAdjointEigV2", [np.array([[inf, 0.0], [0.0, 1.0]])])
    assert np.isnan(e).all() and (v == np.eye(2)).all()
    for m in ([[1.0, 2.0], [2.0, 4.0]], np.zeros((2, 2)), [[nan, 1.0], [1.0, 1.0]]):
        with pytest.raises(errors.InvalidArgumentError, match=r"Input is not invertible\."):
            _run("Lu", [np.array(m)])
    lu, p = _run("Lu", [np.array([[0.0, 1.0], [1.0, 1.0]])])
    np.testing.assert_array_equal(lu, [[1, 1], [0, 1]])
    np.testing.assert_array_equal(p, [1, 0])
    # empty matrices: the full factors are identities
    s, u, v = _run("Svd", [np.zeros((3, 0))], {"full_matrices": True})
    assert s.shape == (0,) and (u == np.eye(3)).all() and v.shape == (0, 0)
    q, r = _run("Qr", [np.zeros((2, 0))], {"full_matrices": True})
    assert (q == np.eye(2)).all() and r.shape == (2, 0)
    assert [x.shape for x in _run("Svd", [np.zeros((2, 0, 0))])] == [(2, 0), (2, 0, 0), (2, 0, 0)]
    assert [x.shape for x in _run("Lu", [np.zeros((2, 0, 0))])] == [(2, 0, 0), (2, 0)]
    x, = _run("MatrixSolveLs", [np.zeros((0, 2)), np.zeros((0, 3)), np.float64(0)])
    np.testing.assert_array_equal(x, np.zeros((2, 3)))  # TensorFlow leaves it uninitialized


def test_shape_errors_as_tensorflow():
    l2 = np.float64(0)
    cases = [
        ("Svd", [np.zeros((2,))], "Input tensor 0 must have rank >= 2, got 1"),
        ("Qr", [np.zeros((2,))], "Input tensor 0 must have rank >= 2, got 1"),
        ("SelfAdjointEigV2", [np.zeros((2, 3))], r"Input matrix must be square\."),
        ("SelfAdjointEigV2", [np.zeros((2,))], "Input tensor 0 must have rank >= 2, got 1"),
        ("Lu", [np.zeros((2, 3))], r"Input matrix must be square\."),
        ("Lu", [np.zeros((2,))], "Input tensor must have rank >= 2, got 1"),
        ("MatrixSolveLs", [np.zeros((3, 2)), np.zeros((2, 1)), l2], r"Input matrix and rhs are incompatible\."),
        ("MatrixSolveLs", [np.zeros((2, 2, 2)), np.zeros((3, 2, 1)), l2],
         r"All input tensors must have the same outer dimensions\."),
        ("MatrixSolveLs", [np.zeros((2,)), np.zeros((3, 2, 1)), l2], "Input tensor 0 must have rank >= 2, got 1"),
        ("MatrixSolveLs", [np.eye(2), np.ones((2, 1)), np.zeros(1)],
         r"l2_regularizer must be scalar, got shape \[1\]"),
        ("MatrixSolveLs", [np.eye(2), np.ones((2, 1)), np.float64(-1)], r"l2_regularizer must be >= 0\."),
        ("MatrixSolveLs", [np.eye(2), np.ones((2, 1)), np.float64(np.nan)], r"l2_regularizer must be >= 0\."),
    ]
    for op, inputs, message in cases:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            _run(op, inputs)
    # no matrices: l2_regularizer is not looked at (TensorFlow checks it per matrix)
    x, = _run("MatrixSolveLs", [np.zeros((0, 3, 3)), np.ones((0, 3, 1)), np.zeros(2)])
    assert x.shape == (0, 3, 1)


# ---- against TensorFlow: unique values, and gradients of sign-invariant losses ----------
# Each case's loss is Re(sum(w * y)) ("lin") or sum(w * |y|^2) ("abs2", invariant under the
# signs / phases of singular vectors and eigenvectors) over the listed outputs.

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
            for t in inputs[:c["diff"]]:
                tape.watch(t)
            ys = getattr(tf.raw_ops, c["op"])(**dict(zip(c["names"], inputs)), **c["attrs"])
            ys = ys if isinstance(ys, (list, tuple)) else [ys]
            loss = 0
            for k, (i, kind) in enumerate(c["terms"]):
                w = data[f"{c['id']}/w{k}"]
                if ys[i].dtype.is_integer:
                    continue
                if kind == "lin":
                    loss += tf.math.real(tf.reduce_sum(ys[i] * w))
                else:
                    loss += tf.reduce_sum(tf.math.real(ys[i] * tf.math.conj(ys[i])) * w)
        for i, (idx, kind) in enumerate(c["terms"]):
            if kind == "lin":
                out[f"{c['id']}/y{i}"] = ys[idx].numpy()
        for i, g in enumerate(tape.gradient(loss, inputs[:c["diff"]])):
            out[f"{c['id']}/grad{i}"] = g.numpy()
    np.savez(sys.argv[3], **out)
""")


def _tf_cases():
    cases, arrays = [], {}

    def add(op, names, values, attrs, terms, diff=1):
        key = f"{op}-{len(cases)}-{values[0].dtype}"
        for i, v in enumerate(values):
            arrays[f"{key}/{i}"] = v
        cases.append({"id": key, "op": op, "names": names, "n": len(values), "attrs": attrs,
                      "terms": terms, "diff": diff})

    for dtype in ("float64", "complex128"):
        for shape, full in (((2, 4, 3), False), ((3, 4), False), ((4, 4), False), ((3, 4), True),
                            ((2, 4, 3), True)):
            add("Svd", ["input"], [_random(shape, dtype)], {"full_matrices": full},
                [(0, "lin"), (1, "abs2"), (2, "abs2")])
        add("Svd", ["input"], [_random((2, 3, 4), dtype)], {"compute_uv": False}, [(0, "lin")])
        for shape, full in (((2, 4, 3), False), ((3, 3), True), ((3, 5), False), ((2, 3, 5), True)):
            add("Qr", ["input"], [_random(shape, dtype)], {"full_matrices": full},
                [(0, "lin"), (1, "lin")])
        add("SelfAdjointEigV2", ["input"], [_hermitian((2, 4, 4), dtype)], {},
            [(0, "lin"), (1, "abs2")])
        # a non-Hermitian input: the gradient keeps to the lower triangle that was read
        add("SelfAdjointEigV2", ["input"], [_random((3, 3), dtype)], {}, [(0, "lin"), (1, "abs2")])
        add("SelfAdjointEigV2", ["input"], [_hermitian((4, 4), dtype)], {"compute_v": False},
            [(0, "lin")])
        for shape in ((2, 5, 3), (3, 5)):
            add("MatrixSolveLs", ["matrix", "rhs", "l2_regularizer"],
                [_random(shape, dtype), _random(shape[:-1] + (2,), dtype), np.float64(0.25)],
                {}, [(0, "lin")], diff=2)
        add("MatrixSolveLs", ["matrix", "rhs", "l2_regularizer"],
            [_random((4, 2), dtype), _random((4, 3), dtype), np.float64(0)], {"fast": False},
            [(0, "lin")], diff=0)
        add("Lu", ["input"], [_random((2, 4, 4), dtype)], {"output_idx_type": "int64"},
            [(0, "lin"), (1, "lin")], diff=0)
    return cases, arrays


TF_CASES, TF_ARRAYS = _tf_cases()


def _opgen_side(case):
    values = [TF_ARRAYS[f"{case['id']}/{i}"] for i in range(case["n"])]
    attrs = dict(case["attrs"])
    if "output_idx_type" in attrs:
        attrs["output_idx_type"] = opgen.as_dtype(attrs["output_idx_type"])
    g = opgen.Graph()
    ops = opgen.ops
    with g.as_default():
        nodes = [ops.placeholder(opgen.as_dtype(np.asarray(v).dtype), shape=np.shape(v)) for v in values]
        outs = g.create_op(case["op"], nodes, attrs).outputs
        loss, feeds, ys = None, {}, []
        for k, (i, kind) in enumerate(case["terms"]):
            y = outs[i]
            shape = tuple(y.shape)
            if kind == "lin":
                w_value = rng.normal(size=shape)
                if y.dtype.is_complex:
                    w_value = w_value + 1j * rng.normal(size=shape)
                w_value = w_value.astype(y.dtype.as_numpy_dtype) if y.dtype.is_floating or \
                    y.dtype.is_complex else w_value.astype(np.float64)
                ys.append(y)
            else:
                w_value = rng.normal(size=shape).astype(
                    np.float64 if y.dtype in (opgen.float64, opgen.complex128) else np.float32)
            TF_ARRAYS[f"{case['id']}/w{k}"] = w_value
            if not (y.dtype.is_floating or y.dtype.is_complex):
                continue  # Lu's permutation: compared, not differentiated
            w = ops.placeholder(opgen.as_dtype(w_value.dtype), shape=shape)
            feeds[w] = w_value
            axes = list(range(len(shape)))
            if kind == "lin":
                term = ops.sum(ops.mul(y, w), axes)
                term = ops.real(term, Tout=opgen.float64) if y.dtype.is_complex else term
            else:
                sq = ops.real(ops.mul(y, ops.conj(y)), Tout=opgen.float64) if y.dtype.is_complex \
                    else ops.mul(y, y)
                term = ops.sum(ops.mul(sq, w), axes)
            loss = term if loss is None else ops.add_v2(loss, term)
        grads = opgen.gradients(loss, nodes[:case["diff"]]) if case["diff"] else []
    session = opgen.Session(g)
    feeds.update(zip(nodes, values))
    return session.run(ys, feeds), session.run(grads, feeds) if grads else []


@pytest.fixture(scope="module")
def tf_ref():
    tf_python()
    ours = {c["id"]: _opgen_side(c) for c in TF_CASES}
    return ours, run_tf_script(TF_SCRIPT, TF_ARRAYS, TF_CASES)


@pytest.mark.parametrize("case", TF_CASES, ids=[c["id"] for c in TF_CASES])
def test_values_and_gradients_match_tensorflow(case, tf_ref):
    ours, theirs = tf_ref
    values, grads = ours[case["id"]]
    for i, got in enumerate(values):
        np.testing.assert_allclose(got, theirs[f"{case['id']}/y{i}"], rtol=1e-9, atol=1e-9,
                                   err_msg=f"output {i}")
    for i, got in enumerate(grads):
        np.testing.assert_allclose(got, theirs[f"{case['id']}/grad{i}"], rtol=1e-7, atol=1e-8,
                                   err_msg=f"gradient of input {i}")


@pytest.mark.parametrize("op,shape,attrs,error,message", [
    ("Svd", (2, 5), {"full_matrices": True}, errors.UnimplementedError,
     r"svd gradient is not implemented for abs\(m - n\) > 1 when full_matrices is True"),
    ("Svd", (None, 3), {}, errors.UnimplementedError,
     "SVD gradient has not been implemented for input with unknown inner matrix shape"),
    ("Qr", (4, 2), {"full_matrices": True}, errors.UnimplementedError,
     "QrGrad not implemented when nrows > ncols and full_matrices is true"),
    ("Qr", (None, 2), {}, errors.UnimplementedError, "QrGrad not implemented with dynamic shapes"),
    ("MatrixSolveLs", (3, 2), {"fast": False}, errors.InvalidArgumentError,
     "Gradient not defined for fast=False"),
    ("Lu", (3, 3), {}, errors.NotFoundError, "No gradient defined"),
])
def test_gradients_tensorflow_does_not_build_are_refused(op, shape, attrs, error, message):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=shape)
        inputs = [x]
        if op == "MatrixSolveLs":
            inputs += [opgen.ops.placeholder(opgen.float64, shape=(3, 1)),
                       opgen.ops.placeholder(opgen.float64, shape=())]
        y = g.create_op(op, inputs, attrs).outputs[0]
        with pytest.raises(error, match=message):
            opgen.gradients(y, [x])


def test_self_adjoint_eig_gradient_with_an_unknown_shape():
    """The adjoint of a tensor of unknown rank is built at run time: the same gradient."""
    h = _hermitian((2, 3, 3), "float64")
    results = []
    for shape in (None, (2, 3, 3)):
        g = opgen.Graph()
        with g.as_default():
            x = opgen.ops.placeholder(opgen.float64, shape=shape)
            e, v = g.create_op("SelfAdjointEigV2", [x], {}).outputs
            y = opgen.ops.add_v2(opgen.ops.sum(e, [0, 1]), opgen.ops.sum(opgen.ops.mul(v, v), [0, 1, 2]))
            grads = opgen.gradients(y, [x])
        results.append(opgen.Session(g).run(grads, {x: h})[0])
    np.testing.assert_array_equal(results[0], results[1])
    # d(sum e)/dA is the identity's lower triangle with halves folded back: I
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=None)
        e = g.create_op("SelfAdjointEigV2", [x], {"compute_v": False}).outputs[0]
        grads = opgen.gradients(opgen.ops.sum(e, [0, 1]), [x])
    np.testing.assert_allclose(opgen.Session(g).run(grads, {x: h})[0], np.broadcast_to(np.eye(3), h.shape),
                               atol=1e-12)
