"""PadV2, ShapeN, BroadcastArgs and VariableShape: the small ops that tf.pad with
constant_values, tf.shape_n, tf.broadcast_dynamic_shape and tf.shape of a resource
variable emit. Values against numpy and against TensorFlow 2.21 (a child process),
eagerly and in a graph, for every dtype the CPU kernels register; errors as
TensorFlow's."""

from __future__ import annotations

import json
import re
import textwrap

import numpy as np
import pytest
from tf_reference import run_tf

import opgen
from opgen import ops
from opgen.runtime import errors, execute_op

from .kernel_dtypes import ALL, name

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)


def _run(op, inputs, attrs=None):
    """The op's outputs as numpy arrays, a list output's elements flattened in."""
    out = []
    for t in execute_op(op, inputs, attrs or {}):
        out.extend(u.numpy() for u in t) if isinstance(t, list) else out.append(t.numpy())
    return out


def _values(dtype, shape):
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.integers(0, 100, shape).astype(dtype)


def _pad_value(dtype):
    if np.dtype(dtype) == np.bool_:
        return np.bool_(True)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        return np.array(3 - 2j, dtype)
    return np.array(7, dtype)


# (shape, paddings): padding on every dim, none on the inner ones (rows copied whole),
# a scalar, an empty input padded out, and a padding-free copy.
PAD_CASES = [((2, 3), [[1, 2], [0, 3]]), ((2, 3, 4), [[0, 1], [0, 0], [0, 0]]), ((), []),
             ((0, 2), [[1, 1], [2, 0]]), ((3, 1, 2), [[0, 0], [0, 0], [0, 0]]),
             ((4,), [[5, 0]])]


# ---- PadV2 ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=name)
@pytest.mark.parametrize("tpaddings", [np.int32, np.int64], ids=name)
def test_pad_v2_matches_numpy(dtype, tpaddings):
    for shape, pads in PAD_CASES:
        x = _values(dtype, shape)
        v = _pad_value(dtype)
        paddings = np.array(pads, tpaddings).reshape(len(shape), 2)
        (got,) = _run("PadV2", [x, paddings, v])
        want = np.pad(x, [tuple(p) for p in pads], constant_values=v) if shape else x
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


def test_pad_v2_negative_zero_and_nan_values_are_kept_bit_for_bit():
    x = np.float32([1.5])
    for v in (np.float32(-0.0), np.float32(np.nan), np.float32(np.inf)):
        (got,) = _run("PadV2", [x, np.int32([[2, 1]]), v])
        assert got.view(np.uint32).tolist() == [v.view(np.uint32)] * 2 + [x.view(np.uint32)[0],
                                                                            v.view(np.uint32)]


@pytest.mark.parametrize("inputs, match", [
    ([np.float32([1, 2]), np.int32([[1, 1]]), np.float32([0, 1])],
     "constant_values must be a scalar"),
    ([np.float32([1, 2]), np.int32([[-1, 1]]), np.float32(0)], "non-negative"),
    ([np.float32([1, 2]), np.int32([[1, 1], [0, 0]]), np.float32(0)], r"paddings must have shape"),
])
def test_pad_v2_bad_operands_are_errors(inputs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run("PadV2", inputs)


def test_pad_v2_in_a_graph_and_its_gradient():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[2, 3], name="x")
        y = ops.pad_v2(x, np.int32([[1, 0], [2, 1]]), np.float32(-4))
        assert tuple(y.shape) == (3, 6)
    value = rng.normal(size=(2, 3)).astype(np.float32)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: value}),
                                      np.pad(value, [(1, 0), (2, 1)], constant_values=-4))


# ---- ShapeN --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL + [object], ids=lambda d: "string" if d is object else name(d))
@pytest.mark.parametrize("out_type", [np.int32, np.int64], ids=name)
def test_shape_n_gives_each_inputs_shape(dtype, out_type):
    shapes = [(2, 3), (), (0, 4, 1)]
    if dtype is object:
        inputs = [np.full(s, b"ab", dtype=object) for s in shapes]
    else:
        inputs = [_values(dtype, s) for s in shapes]
    got = _run("ShapeN", [inputs], {"out_type": opgen.as_dtype(out_type)})
    assert len(got) == 3
    for out, s in zip(got, shapes):
        assert out.dtype == np.dtype(out_type)
        np.testing.assert_array_equal(out, np.array(s, out_type).reshape(len(s)))


def test_shape_n_in_a_graph_infers_ranks():
    g = opgen.Graph()
    with g.as_default():
        a = ops.placeholder(opgen.float32, shape=[None, 3], name="a")
        b = ops.placeholder(opgen.float32, shape=[2, 2, 2], name="b")
        sa, sb = ops.shape_n([a, b])
    with opgen.Session(g) as sess:
        ra, rb = sess.run([sa, sb], {a: np.zeros((5, 3), np.float32),
                                     b: np.zeros((2, 2, 2), np.float32)})
    np.testing.assert_array_equal(ra, [5, 3])
    np.testing.assert_array_equal(rb, [2, 2, 2])


# ---- BroadcastArgs -------------------------------------------------------------------

BROADCAST_CASES = [([2, 1, 3], [4, 1]), ([], [3, 2]), ([5], [1]), ([0, 1], [1, 7]),
                   ([1], [0]), ([2, 3], [2, 3])]


@pytest.mark.parametrize("t", [np.int32, np.int64], ids=name)
def test_broadcast_args_matches_numpy(t):
    for a, b in BROADCAST_CASES:
        (got,) = _run("BroadcastArgs", [np.array(a, t), np.array(b, t)])
        assert got.dtype == np.dtype(t)
        np.testing.assert_array_equal(got, np.broadcast_shapes(tuple(a), tuple(b)))


def test_broadcast_args_errors():
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2, ?3\] vs. \[4\]"):
        _run("BroadcastArgs", [np.int32([2, 3]), np.int32([4])])
    with pytest.raises(errors.InvalidArgumentError, match=r"In\[0\] must be a vector"):
        _run("BroadcastArgs", [np.int32([[2, 3]]), np.int32([4])])


def test_broadcast_args_in_a_graph():
    g = opgen.Graph()
    with g.as_default():
        a = ops.placeholder(opgen.int64, shape=[3], name="a")
        r = ops.broadcast_args(a, np.int64([4, 1]))
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(r, {a: np.int64([2, 1, 1])}), [2, 4, 1])


# ---- VariableShape -------------------------------------------------------------------

@pytest.mark.parametrize("out_type", [np.int32, np.int64], ids=name)
def test_variable_shape_eagerly(out_type):
    for value in (np.zeros((3, 0, 2), np.float32), np.float64(1.0), np.ones(5, np.int64)):
        v = opgen.Variable(value)
        (got,) = _run("VariableShape", [v.handle], {"out_type": opgen.as_dtype(out_type)})
        assert got.dtype == np.dtype(out_type)
        np.testing.assert_array_equal(got, np.array(np.shape(value), out_type).reshape(-1))


def test_variable_shape_in_a_graph_follows_assignments():
    g = opgen.Graph()
    with g.as_default():
        h = ops.var_handle_op(dtype=opgen.float32, shape=[None], shared_name="vs_test")
        x = ops.placeholder(opgen.float32, shape=[None], name="x")
        assign = ops.assign_variable_op(h, x, validate_shape=False)
        shape = ops.variable_shape(h)
    with opgen.Session(g) as sess:
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(shape)
        for n in (4, 1):
            sess.run(assign, {x: np.zeros(n, np.float32)})
            np.testing.assert_array_equal(sess.run(shape), [n])


# ---- TensorFlow 2.21 -----------------------------------------------------------------

TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    spec = json.load(open(sys.argv[1]))
    out = {}
    for k, c in enumerate(spec["pad"]):
        x = np.array(c["x"], c["dtype"])
        pads = np.array(c["pads"], np.int64).reshape(-1, 2)
        out[f"pad/{k}"] = tf.pad(x, pads, constant_values=np.array(c["v"], c["dtype"])).numpy()
        with tf.GradientTape() as tape:
            xt = tf.constant(x)
            tape.watch(xt)
            y = tf.pad(xt, pads, constant_values=np.array(c["v"], c["dtype"]))
        if c["dtype"] == "float32":
            out[f"padgrad/{k}"] = tape.gradient(y, xt, output_gradients=tf.ones_like(y) *
                                                tf.range(tf.size(y), dtype=tf.float32).__array__()
                                                .reshape(y.shape)).numpy()
    for k, (a, b) in enumerate(spec["broadcast"]):
        out[f"bcast/{k}"] = tf.broadcast_dynamic_shape(tf.constant(a, tf.int32),
                                                       tf.constant(b, tf.int32)).numpy()
    for k, s in enumerate(spec["shapes"]):
        v = tf.Variable(tf.zeros(s))
        out[f"varshape/{k}"] = tf.shape(v).numpy()
        out[f"shapen/{k}"] = tf.shape_n([tf.zeros(s), tf.zeros(s[::-1])])[1].numpy()
    np.savez(sys.argv[2], **out)
""")

TF_PAD = [{"x": rng.integers(-9, 9, (2, 3)).tolist(), "pads": [1, 0, 2, 2], "v": 5,
           "dtype": "float32"},
          {"x": rng.integers(-9, 9, (3,)).tolist(), "pads": [0, 4], "v": -1, "dtype": "int64"},
          {"x": [[1, 2]], "pads": [2, 0, 1, 1], "v": 1, "dtype": "bool"}]
TF_BROADCAST = [([2, 1, 3], [4, 1]), ([], [3]), ([1, 0], [5, 1])]
TF_SHAPES = [[2, 3], [], [4, 0, 1]]


@pytest.fixture(scope="module")
def tf_ref(tmp_path_factory):
    folder = tmp_path_factory.mktemp("everyday_tf")
    spec = {"pad": TF_PAD, "broadcast": TF_BROADCAST, "shapes": TF_SHAPES}
    (folder / "spec.json").write_text(json.dumps(spec))
    run_tf(["-c", TF_SCRIPT, str(folder / "spec.json"), str(folder / "out.npz")], cwd=folder)
    return dict(np.load(folder / "out.npz"))


def test_pad_v2_and_its_gradient_match_tensorflow(tf_ref):
    for k, c in enumerate(TF_PAD):
        x = np.array(c["x"], c["dtype"])
        pads = np.array(c["pads"], np.int32).reshape(-1, 2)
        (got,) = _run("PadV2", [x, pads, np.array(c["v"], c["dtype"])])
        np.testing.assert_array_equal(got, tf_ref[f"pad/{k}"])
        if c["dtype"] != "float32":
            continue
        xt = opgen.constant(x)
        with opgen.GradientTape() as tape:
            tape.watch(xt)
            y = ops.pad_v2(xt, pads, np.float32(c["v"]))
        weights = np.arange(np.prod(y.shape), dtype=np.float32).reshape(y.shape)
        grad = tape.gradient(y, xt, output_gradients=opgen.constant(weights))
        np.testing.assert_array_equal(grad.numpy(), tf_ref[f"padgrad/{k}"])


def test_broadcast_shape_n_and_variable_shape_match_tensorflow(tf_ref):
    for k, (a, b) in enumerate(TF_BROADCAST):
        (got,) = _run("BroadcastArgs", [np.array(a, np.int32), np.array(b, np.int32)])
        np.testing.assert_array_equal(got, tf_ref[f"bcast/{k}"])
    for k, s in enumerate(TF_SHAPES):
        v = opgen.Variable(np.zeros(s, np.float32))
        (got,) = _run("VariableShape", [v.handle])
        np.testing.assert_array_equal(got, tf_ref[f"varshape/{k}"])
        got = _run("ShapeN", [[np.zeros(s, np.float32), np.zeros(s[::-1], np.float32)]])
        np.testing.assert_array_equal(got[1], tf_ref[f"shapen/{k}"])


# ---- PreventGradient, GuaranteeConst -------------------------------------------------

@pytest.mark.parametrize("op", ["PreventGradient", "GuaranteeConst"])
@pytest.mark.parametrize("dtype", ALL + [object], ids=lambda d: "string" if d is object else name(d))
def test_identities_return_their_input(op, dtype):
    x = np.full((2, 3), b"xy", dtype=object) if dtype is object else _values(dtype, (2, 3))
    (got,) = _run(op, [x])
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, x)


def test_prevent_gradient_gradient_is_a_lookup_error_with_the_message():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[2], name="x")
        y = ops.prevent_gradient(ops.mul(x, x), message="no second derivative here")
        with pytest.raises(LookupError, match=r"Gradient explicitly disabled\. Reason: no "
                                              "second derivative here"):
            opgen.gradients(y, x)
        # Paths that do not pass through it still differentiate.
        (dz,) = opgen.gradients(ops.mul(x, np.float32(3)), x)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: np.float32([2, 3])}), [4, 9])
        np.testing.assert_array_equal(sess.run(dz, {x: np.float32([2, 3])}), [3, 3])


def test_prevent_gradient_eagerly_on_a_tape():
    x = opgen.constant(np.float32([1.5, -2]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = ops.prevent_gradient(x, message="why")
    with pytest.raises(LookupError, match="Reason: why"):
        tape.gradient(y, x)


def test_guarantee_const_is_stateful_and_has_no_gradient():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[2], name="x")
        y = ops.guarantee_const(x)
        with pytest.raises(LookupError, match="GuaranteeConst"):
            opgen.gradients(y, x)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: np.float32([2, 3])}), [2, 3])


# ---- Empty, UnravelIndex -------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_empty_gives_zeros_of_the_shape(dtype):
    for shape, init in (((2, 3), True), ((0, 4), False), ((), True)):
        (got,) = _run("Empty", [np.array(shape, np.int32).reshape(len(shape))],
                      {"dtype": opgen.as_dtype(dtype), "init": init})
        assert got.dtype == np.dtype(dtype) and got.shape == shape
        np.testing.assert_array_equal(got, np.zeros(shape, dtype))


def test_empty_errors_and_graph():
    with pytest.raises(errors.InvalidArgumentError, match="Dimension -3 must be >= 0"):
        _run("Empty", [np.int32([2, -3])], {"dtype": opgen.float32})
    with pytest.raises(errors.InvalidArgumentError, match="shape must be a vector"):
        _run("Empty", [np.int32([[2]])], {"dtype": opgen.float32})
    g = opgen.Graph()
    with g.as_default():
        e = ops.empty(np.int32([3, 1]), dtype=opgen.int64, init=True)
        assert tuple(e.shape) == (3, 1)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(e), np.zeros((3, 1), np.int64))


UNRAVEL_CASES = [([1, 5, 7], [2, 4]), (3, [2, 4]), ([0, 23, 11], [2, 3, 4]), (0, [1]),
                 ([5], [6])]


@pytest.mark.parametrize("t", [np.int32, np.int64], ids=name)
def test_unravel_index_matches_numpy(t):
    for indices, dims in UNRAVEL_CASES:
        (got,) = _run("UnravelIndex", [np.array(indices, t), np.array(dims, t)])
        assert got.dtype == np.dtype(t)
        np.testing.assert_array_equal(got, np.array(np.unravel_index(indices, dims)))


@pytest.mark.parametrize("indices, dims, match", [
    ([1, 8], [2, 4], "index is out of bound as with dims"),
    ([1, 5], [2, -1], "Input dims cannot be negative. Got dim = -1 at index 1"),
    ([[1]], [2, 4], "The indices can only be scalar or vector"),
    ([1], [[2, 4]], "The indices can only be 1-D"),
    ([], [2, 4], "received empty tensor indices"),
    ([-1], [2, 0], "index is out of bound"),
])
def test_unravel_index_errors(indices, dims, match):
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(match)):
        _run("UnravelIndex", [np.array(indices, np.int32), np.array(dims, np.int32)])


def test_unravel_index_in_a_graph():
    g = opgen.Graph()
    with g.as_default():
        i = ops.placeholder(opgen.int32, shape=[3], name="i")
        out = ops.unravel_index(i, np.int32([3, 4]))
        assert tuple(out.shape) == (2, 3)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {i: np.int32([0, 5, 11])}),
                                      np.unravel_index([0, 5, 11], (3, 4)))


UNRAVEL_TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    cases = json.load(open(sys.argv[1]))
    out = {f"u/{k}": tf.raw_ops.UnravelIndex(indices=np.array(i, np.int64),
                                             dims=np.array(d, np.int64)).numpy()
           for k, (i, d) in enumerate(cases)}
    out["empty"] = tf.raw_ops.Empty(shape=[2, 3], dtype=tf.float64, init=True).numpy()
    np.savez(sys.argv[2], **out)
""")


def test_unravel_index_and_empty_match_tensorflow(tmp_path):
    cases = UNRAVEL_CASES + [(-1, [2, 4]), (-9, [3, 5])]  # negatives: C++ division, as TF
    (tmp_path / "c.json").write_text(json.dumps(cases))
    run_tf(["-c", UNRAVEL_TF_SCRIPT, str(tmp_path / "c.json"), str(tmp_path / "o.npz")], cwd=tmp_path)
    ref = dict(np.load(tmp_path / "o.npz"))
    for k, (indices, dims) in enumerate(cases):
        (got,) = _run("UnravelIndex", [np.array(indices, np.int64), np.array(dims, np.int64)])
        np.testing.assert_array_equal(got, ref[f"u/{k}"])
    (got,) = _run("Empty", [np.int32([2, 3])], {"dtype": opgen.float64, "init": True})
    np.testing.assert_array_equal(got, ref["empty"])
