"""EuclideanNorm, Cross, CumulativeLogsumexp, ApproximateEqual, Inv / InvGrad,
PopulationCount, AccumulateNV2 and ConjugateTranspose: values and gradients against
TensorFlow 2.21 (a child process, tf.raw_ops) over dtypes, shapes and attrs, against
numpy where it has the op, and errors with TensorFlow's messages."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from tf_reference import run_tf

import opgen
from opgen import ops
from opgen.runtime import errors, execute_op

from .kernel_dtypes import bfloat16

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(21)


def _run(op, inputs, attrs=None):
    (out,) = execute_op(op, inputs, attrs or {})
    return out.numpy()


def _vals(shape, dtype, low=-3.0, high=3.0):
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -20
        return rng.integers(lo, 20, size=shape).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def _tol(dtype):
    d = np.dtype(dtype)
    if d == np.float16:
        return {"rtol": 4e-3, "atol": 4e-3}
    if bfloat16 is not None and d == np.dtype(bfloat16):
        return {"rtol": 3e-2, "atol": 3e-2}
    if d in (np.float32, np.complex64):
        return {"rtol": 2e-5, "atol": 2e-6}
    if d in (np.float64, np.complex128):
        return {"rtol": 1e-12, "atol": 1e-12}
    return {"rtol": 0, "atol": 0}


FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


# ---- The cases TensorFlow computes ------------------------------------------------------
# Each: (op, [(arg name, value)], attrs, names of the args to differentiate). Args are
# passed to tf.raw_ops by name; the gradient is taken against weights 1, 2, 3, ...

CASES: list[tuple] = []


def _case(op, args, attrs=None, grad=()):
    CASES.append((op, args, attrs or {}, list(grad)))


for dt in FLOATS + INTS + [np.complex64, np.complex128]:
    x = _vals((2, 3, 4), dt)
    for axes, keep in [(1, False), ([0, 2], True), (-1, False), ([], False), ([-3, 1], True)]:
        g = ("input",) if dt in (np.float64, np.complex128) else ()
        _case("EuclideanNorm", [("input", x), ("reduction_indices", np.array(axes, np.int32))],
              {"keep_dims": keep}, g)
_case("EuclideanNorm", [("input", _vals((3, 5), np.float32)),
                        ("reduction_indices", np.int64([0, 1]))], {"keep_dims": True}, ["input"])
_case("EuclideanNorm", [("input", np.zeros((0, 3), np.float32)),
                        ("reduction_indices", np.int32(0))], {})
_case("EuclideanNorm", [("input", np.float64(-2.5)), ("reduction_indices", np.int32([]))], {})
_case("EuclideanNorm", [("input", np.int8([100, 100, 3])), ("reduction_indices", np.int32(0))], {})
_case("EuclideanNorm", [("input", np.float16([300, 400])), ("reduction_indices", np.int32(0))], {})

for dt in FLOATS + INTS:
    g = ("a", "b") if dt == np.float64 else ()
    _case("Cross", [("a", _vals((2, 4, 3), dt)), ("b", _vals((2, 4, 3), dt))], {}, g)
_case("Cross", [("a", _vals((3,), np.float32)), ("b", _vals((3,), np.float32))], {}, ["a", "b"])
_case("Cross", [("a", np.zeros((0, 3), np.float64)), ("b", np.zeros((0, 3), np.float64))], {})
_case("Cross", [("a", np.int8([100, -90, 7])), ("b", np.int8([-80, 120, 5]))], {})

for dt in FLOATS:
    x = _vals((3, 5), dt)
    for axis, exclusive, reverse in [(0, False, False), (1, True, False), (-1, False, True),
                                     (0, True, True)]:
        g = ("x",) if dt in (np.float64, np.float32) else ()
        _case("CumulativeLogsumexp", [("x", x), ("axis", np.int32(axis))],
              {"exclusive": exclusive, "reverse": reverse}, g)
_case("CumulativeLogsumexp", [("x", np.float32([-np.inf, -np.inf, 1, 500, 500])),
                              ("axis", np.int64(0))], {})
_case("CumulativeLogsumexp", [("x", np.float64([[-np.inf, 2.0, -np.inf, 1e300]])),
                              ("axis", np.int32(1))], {"reverse": True})
_case("CumulativeLogsumexp", [("x", np.zeros((2, 0), np.float32)), ("axis", np.int32(1))], {})
# TensorFlow's NaN and infinity rules: a NaN after -inf is dropped, inf + inf is NaN
for reverse in (False, True):
    _case("CumulativeLogsumexp", [("x", np.float32([np.nan, 1, 2, np.nan, np.inf, np.inf, -np.inf])),
                                  ("axis", np.int32(0))], {"reverse": reverse})
_case("EuclideanNorm", [("input", np.complex64([[np.inf, 1], [1 + 2j, 3j], [np.nan * 1j, 1]])),
                        ("reduction_indices", np.int32(1))], {})

for dt in (np.float32, np.float64):
    x = _vals((4, 5), dt)
    y = (x + rng.uniform(-0.2, 0.2, x.shape)).astype(dt)
    for tol in (1e-5, 0.1, 0.5):
        _case("ApproximateEqual", [("x", x), ("y", y)], {"tolerance": tol})
_case("ApproximateEqual", [("x", np.float32([np.nan, np.inf, 1, 0])),
                           ("y", np.float32([np.nan, np.inf, 1 + 1e-6, -0.0]))], {})

for dt in FLOATS + [np.complex64, np.complex128]:
    x = _vals((2, 3), dt, 0.5, 2.0)
    g = ("x",) if dt in (np.float64, np.complex128) else ()
    _case("Inv", [("x", x)], {}, g)
    g = ("y", "dy") if dt in (np.float64, np.complex128) else ()
    _case("InvGrad", [("y", x), ("dy", _vals((2, 3), dt))], {}, g)

for dt in INTS:
    info = np.iinfo(dt)
    x = np.array([0, 1, 3, info.max, info.min, 7 % (info.max + 1)], dt)
    _case("PopulationCount", [("x", x)], {})

for dt in FLOATS + [np.complex128] + INTS:
    args = [_vals((2, 3), dt) for _ in range(3)]
    _case("AccumulateNV2", [("inputs", args)], {"shape": [2, 3]},
          ["inputs"] if dt == np.float64 else ())

for dt in [np.complex64, np.complex128, np.float32, np.int32, np.bool_]:
    x = rng.random((2, 3, 4)) < 0.5 if dt == np.bool_ else _vals((2, 3, 4), dt)
    for perm in ([2, 0, 1], [0, 1, 2], [1, 0, 2]):
        g = ("x",) if dt in (np.complex128,) else ()
        _case("ConjugateTranspose", [("x", x), ("perm", np.int32(perm))], {}, g)
_case("ConjugateTranspose", [("x", _vals((3, 2), np.complex64)), ("perm", np.int64([1, 0]))], {})
_case("ConjugateTranspose", [("x", np.zeros((0, 2), np.complex128)), ("perm", np.int32([1, 0]))], {})


TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    spec = json.load(open(sys.argv[1]))
    data = np.load(sys.argv[2])
    out = {}
    def const(key):  # bfloat16 travels as float32 (npz has no bfloat16), marked by "@bf16"
        if key + "@bf16" in data:
            return tf.cast(tf.constant(data[key + "@bf16"]), tf.bfloat16)
        return tf.constant(data[key])
    def value(t):
        return (tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t).numpy()
    for k, (op, names, counts, attrs, grads) in enumerate(spec):
        args = {}
        for name, count in zip(names, counts):
            key = "axis" if name == "reduction_indices" else name  # tf.raw_ops' arg name
            if count < 0:
                args[key] = const(f"{k}/{name}")
            else:
                args[key] = [const(f"{k}/{name}/{i}") for i in range(count)]
        run = op
        if op == "AccumulateNV2":  # TensorFlow has no kernel (a graph pass rewrites it)
            run, attrs = "AddN", {}
        with tf.GradientTape(persistent=True) as tape:
            for name in grads:
                tape.watch(args[name])
            y = getattr(tf.raw_ops, run)(**args, **attrs)
        out[f"{k}"] = value(y)
        if grads:
            w = tf.reshape(tf.range(1, tf.size(y) + 1), y.shape)
            w = tf.cast(w, y.dtype) if y.dtype.is_complex else tf.cast(w, y.dtype) / 7
            for name in grads:
                g = tape.gradient(y, args[name], output_gradients=w)
                g = g if isinstance(g, list) else [g]
                for i, gi in enumerate(g):
                    out[f"{k}/grad/{name}/{i}"] = value(gi)
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def tf_ref(tmp_path_factory):
    folder = tmp_path_factory.mktemp("math_family_tf")
    spec, data = [], {}

    def put(key, v):
        v = np.asarray(v)
        if bfloat16 is not None and v.dtype == np.dtype(bfloat16):
            data[key + "@bf16"] = v.astype(np.float32)
        else:
            data[key] = v

    for k, (op, args, attrs, grads) in enumerate(CASES):
        names, counts = [], []
        for name, value in args:
            names.append(name)
            if isinstance(value, list):
                counts.append(len(value))
                for i, v in enumerate(value):
                    put(f"{k}/{name}/{i}", v)
            else:
                counts.append(-1)
                put(f"{k}/{name}", value)
        spec.append([op, names, counts, attrs, grads])
    (folder / "spec.json").write_text(json.dumps(spec))
    np.savez(folder / "in.npz", **data)
    run_tf(["-c", TF_SCRIPT, str(folder / "spec.json"), str(folder / "in.npz"),
            str(folder / "out.npz")], cwd=folder, timeout=600)
    return dict(np.load(folder / "out.npz"))


def _label(case):
    op, args, attrs, _ = case
    first = args[0][1]
    first = first[0] if isinstance(first, list) else first
    return f"{op}-{np.asarray(first).dtype.name}-{json.dumps(attrs, sort_keys=True)}"


def _opgen_attrs(attrs):
    return {k: (opgen.TensorShape(v) if k == "shape" else v) for k, v in attrs.items()}


def _check_one(k, tf_ref):
    op, args, attrs, grads = CASES[k]
    inputs = [v for _, v in args]
    got = _run(op, inputs, attrs)
    want = tf_ref[f"{k}"]
    from_bf16 = bfloat16 is not None and got.dtype == np.dtype(bfloat16)
    assert (want.dtype == np.float32 if from_bf16 else got.dtype == want.dtype), (op, got, want)
    assert got.shape == want.shape, (op, got, want)
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {attrs}")
    else:
        np.testing.assert_allclose(got.astype(np.complex128 if np.iscomplexobj(got) else np.float64),
                                   want.astype(np.complex128 if np.iscomplexobj(want) else np.float64),
                                   **_tol(got.dtype), err_msg=f"{op} {attrs}")
    if not grads:
        return
    watched = {}
    consts = []
    for name, v in args:
        if name in grads:
            watched[name] = [opgen.constant(u) for u in v] if isinstance(v, list) else opgen.constant(v)
            consts.append(watched[name])
        else:
            consts.append(v)
    with opgen.GradientTape(persistent=True) as tape:
        for t in watched.values():
            for u in (t if isinstance(t, list) else [t]):
                tape.watch(u)
        (y,) = execute_op(op, consts, attrs)
    w = np.arange(1, y.numpy().size + 1).reshape(y.numpy().shape)
    w = w.astype(y.numpy().dtype) if np.iscomplexobj(y.numpy()) else (w / 7).astype(y.numpy().dtype)
    for name, t in watched.items():
        g = tape.gradient(y, t, output_gradients=opgen.constant(w))
        g = g if isinstance(g, list) else [g]
        for i, gi in enumerate(g):
            ref = tf_ref[f"{k}/grad/{name}/{i}"]
            tol = {"rtol": 1e-10, "atol": 1e-10} if ref.dtype in (np.float64, np.complex128) else \
                {"rtol": 1e-4, "atol": 1e-5}
            np.testing.assert_allclose(gi.numpy(), ref, **tol, err_msg=f"d{op}/d{name} {attrs}")


@pytest.mark.parametrize("op", sorted({c[0] for c in CASES}))
def test_values_and_gradients_match_tensorflow(tf_ref, op):
    ks = [k for k, c in enumerate(CASES) if c[0] == op]
    assert ks
    for k in ks:
        _check_one(k, tf_ref)


# ---- numpy ------------------------------------------------------------------------------

def test_cross_and_norm_match_numpy():
    a, b = _vals((5, 3), np.float64), _vals((5, 3), np.float64)
    np.testing.assert_allclose(_run("Cross", [a, b]), np.cross(a, b), rtol=1e-12)
    x = _vals((4, 6), np.complex128)
    np.testing.assert_allclose(_run("EuclideanNorm", [x, np.int32(1)]),
                               np.linalg.norm(x, axis=1), rtol=1e-12)
    c = _vals((3, 4), np.complex64)
    np.testing.assert_array_equal(_run("ConjugateTranspose", [c, np.int32([1, 0])]), c.conj().T)


def test_cumulative_logsumexp_matches_numpy():
    x = _vals((4, 6), np.float64)
    want = np.logaddexp.accumulate(x, axis=1)
    np.testing.assert_allclose(_run("CumulativeLogsumexp", [x, np.int32(-1)]), want, rtol=1e-12)
    rev = _run("CumulativeLogsumexp", [x, np.int32(0)], {"reverse": True, "exclusive": True})
    want = np.logaddexp.accumulate(x[::-1], axis=0)[::-1]
    np.testing.assert_allclose(rev[:-1], want[1:], rtol=1e-12)
    assert np.all(rev[-1] == -np.inf)


def test_population_count_matches_numpy_bit_counts():
    x = rng.integers(-2**62, 2**62, 50, dtype=np.int64)
    want = np.array([bin(int(v) & (2**64 - 1)).count("1") for v in x], np.uint8)
    np.testing.assert_array_equal(_run("PopulationCount", [x]), want)


def test_accumulate_nv2_is_the_sum_and_declares_its_shape():
    xs = [_vals((3, 2), np.int32) for _ in range(4)]
    np.testing.assert_array_equal(_run("AccumulateNV2", [xs], {"shape": [3, 2]}), sum(xs))
    g = opgen.Graph()
    with g.as_default():
        p = [ops.placeholder(opgen.float32, shape=None) for _ in range(2)]
        (y,) = execute_op("AccumulateNV2", [p], {"shape": [3, 2]})
        assert tuple(y.shape) == (3, 2)


# ---- errors, with TensorFlow's messages ------------------------------------------------------

@pytest.mark.parametrize("op, inputs, attrs, exc, match", [
    ("Cross", [np.ones((2, 3), np.float32), np.ones((3,), np.float32)], {},
     errors.InvalidArgumentError, r"Both inputs must be of same shape: \[2,3\] vs. \[3\]"),
    ("Cross", [np.ones((2, 4), np.float32), np.ones((2, 4), np.float32)], {},
     errors.FailedPreconditionError, "Cross-products are only defined for 3-element vectors"),
    ("Cross", [np.float32(1), np.float32(2)], {}, errors.InvalidArgumentError,
     "Input must be at least 1D"),
    ("ApproximateEqual", [np.ones(2, np.float32), np.ones(3, np.float32)], {},
     errors.InvalidArgumentError,
     r"x and y must be of the same shape. x shape: \[2\]. y shape: \[3\]"),
    ("EuclideanNorm", [np.ones((2, 3), np.float32), np.int32(2)], {},
     errors.InvalidArgumentError, "Invalid reduction dimension"),
    ("CumulativeLogsumexp", [np.ones((2, 3), np.float32), np.int32(2)], {},
     errors.InvalidArgumentError, "out of range"),
    ("CumulativeLogsumexp", [np.float32(1), np.int32(0)], {}, errors.InvalidArgumentError,
     "rank >= 1"),
    ("ConjugateTranspose", [np.ones((2, 3), np.complex64), np.int32([0, 0])], {},
     errors.InvalidArgumentError, "is not a permutation"),
    ("AccumulateNV2", [[np.ones(2, np.float32), np.ones(3, np.float32)]], {"shape": [2]},
     errors.InvalidArgumentError, "same shape"),
    ("AccumulateNV2", [[np.ones((2, 3), np.float32)] * 2], {"shape": [3, 2]},
     errors.InvalidArgumentError, r"not compatible with expected shape \[3,2\]"),
])
def test_bad_operands_are_errors(op, inputs, attrs, exc, match):
    with pytest.raises(exc, match=match):
        _run(op, inputs, attrs)


@pytest.mark.parametrize("op, inputs", [
    ("Inv", [np.int32([1, 2])]),
    ("ApproximateEqual", [np.int32([1]), np.int32([1])]),
    ("CumulativeLogsumexp", [np.int32([1]), np.int32(0)]),
])
def test_dtypes_without_a_kernel_are_not_found_as_in_tensorflow(op, inputs):
    with pytest.raises((errors.NotFoundError, errors.InvalidArgumentError)):
        _run(op, inputs)


def test_approximate_equal_and_population_count_have_no_gradient():
    x = opgen.constant(np.float32([1.0, 2.0]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        (z,) = execute_op("ApproximateEqual", [x, x], {})
    assert tape.gradient(z, x) is None


# ---- generated wrappers, in a graph ----------------------------------------------------------

def test_generated_wrappers_in_a_graph_with_gradients():
    """The generated functions build the ops into a graph; shapes are inferred and the
    graph gradients (TF_AddGradients) equal the eager ones checked above against numpy's."""
    a, b = _vals((4, 3), np.float64), _vals((4, 3), np.float64)
    g = opgen.Graph()
    with g.as_default():
        pa = ops.placeholder(opgen.float64, shape=[None, 3], name="a")
        pb = ops.placeholder(opgen.float64, shape=[4, None], name="b")
        c = ops.cross(pa, pb)
        n = ops.euclidean_norm(c, np.int32(1), keep_dims=True)
        s = ops.cumulative_logsumexp(ops.reshape(n, np.int32([-1])), np.int32(0), reverse=True)
        assert tuple(c.shape) == (4, 3) and tuple(n.shape) == (4, 1)
        (da,) = opgen.gradients(ops.sum(s, np.int32(0)), [pa])
    with opgen.Session(g) as sess:
        got_c, got_n, got_da = sess.run([c, n, da], {pa: a, pb: b})
    want_c = np.cross(a, b)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-12)
    np.testing.assert_allclose(got_n[:, 0], np.linalg.norm(want_c, axis=1), rtol=1e-12)
    # d/da of sum(reverse logcumsumexp(|a x b|)) by central differences
    def f(x):
        norms = np.linalg.norm(np.cross(x, b), axis=1)
        return np.logaddexp.accumulate(norms[::-1])[::-1].sum()
    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        num[i] = (f(a + d) - f(a - d)) / (2 * eps)
    np.testing.assert_allclose(got_da, num, rtol=1e-5, atol=1e-7)
