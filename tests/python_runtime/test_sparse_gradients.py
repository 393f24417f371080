"""The gradients of gathers' params as TensorFlow 2.21 gives them: opgen.gradients
against tf.gradients (in a graph) and GradientTape.gradient against tf.GradientTape
(eagerly), case by case: the type (IndexedSlices or a dense tensor), and the rows,
indices (their order and dtype) and dense_shape, or the dense values. TensorFlow runs
in its own interpreter ($OPGEN_TF_PYTHON); the tests skip without one."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

# name: (the source: a variable or a constant, the loss in terms of gather(x, ids, axis),
# x itself and the other inputs); the same expressions run in TensorFlow.
CASES = {
    "gather_of_a_variable": ("var", "sum(gather(x, ids) ** 2)"),
    "gather_of_a_constant": ("const", "sum(gather(x, ids) * 3.0)"),
    "gather_and_matmul": ("var", "sum(gather(x, ids)) + sum(matmul(read(x), w))"),
    "two_gathers": ("var", "sum(gather(x, ids) * 3.0) + sum(gather(x, ids64) ** 2)"),
    "two_gathers_of_a_constant": ("const", "sum(gather(x, ids) * 3.0) + sum(gather(x, ids64))"),
    "gather_of_an_identity": ("const", "sum(gather(identity(x), ids) ** 2)"),
    "gather_on_axis_1": ("const", "sum(gather(x, ids64, 1) ** 2)"),
    "gather_and_sum": ("const", "sum(gather(x, ids) * 2.0) + sum(x * x)"),
}

# argv[1] the spec (cases), argv[2] the inputs (.npz), argv[3] the results.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import numpy as np
    import tensorflow as tf

    cases = json.load(open(sys.argv[1]))
    d, out = dict(np.load(sys.argv[2])), {}
    matmul, identity = tf.matmul, tf.identity
    sum = lambda t: tf.reduce_sum(tf.reshape(t, [-1]), [0])
    read = lambda x: x
    def gather(x, i, axis=0):
        return tf.gather(x, i, axis=axis)
    def save(prefix, g, value):
        if isinstance(g, tf.IndexedSlices):
            out[prefix + "type"] = np.array("IndexedSlices")
            for part in ("values", "indices", "dense_shape"):
                out[prefix + part] = value(getattr(g, part))
        else:
            out[prefix + "type"] = np.array("dense")
            out[prefix + "dense"] = value(g)
    for name, (kind, expr) in cases.items():
        graph = tf.Graph()
        with graph.as_default():
            ids, ids64 = tf.constant(d["ids"]), tf.constant(d["ids64"])
            w = tf.constant(d["w"])
            x = (tf.compat.v1.Variable(d["table"], use_resource=True) if kind == "var"
                 else tf.constant(d["table"]))
            g = tf.gradients(eval(expr), x)[0]
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)
            save("graph/" + name + "/", g, sess.run)
        ids, ids64, w = tf.constant(d["ids"]), tf.constant(d["ids64"]), tf.constant(d["w"])
        x = tf.Variable(d["table"]) if kind == "var" else tf.constant(d["table"])
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = eval(expr)
        save("tape/" + name + "/", tape.gradient(loss, x), lambda t: t.numpy())
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2)
    return {"table": rng.uniform(-1, 1, (5, 3)).astype(np.float32),
            "w": rng.uniform(-1, 1, (3, 2)).astype(np.float32),
            "ids": np.int32([[0, 2], [2, 4]]), "ids64": np.int64([1, 1, 0])}


@pytest.fixture(scope="module")
def tf_results(data):
    return run_tf_script(TF_SCRIPT, data, CASES)


def _namespace(x, ids, ids64, w):
    def gather(t, i, axis=0):
        if isinstance(t, opgen.Variable):
            return t.sparse_read(i) if axis == 0 else ops.gather_v2(t.read_value(), i, axis)
        return ops.gather_v2(t, i, axis)

    def total(t):
        return ops.sum(ops.reshape(t, [-1]), [0])

    def read(t):
        return t.read_value()

    return {"gather": gather, "sum": total, "matmul": ops.mat_mul, "identity": ops.identity,
            "read": read, "x": x, "ids": ids, "ids64": ids64, "w": w}


def _compare(prefix, got, tf_results, value):
    if str(tf_results[prefix + "type"]) == "IndexedSlices":
        assert isinstance(got, opgen.IndexedSlices), type(got)
        indices = value(got.indices)
        assert indices.dtype == tf_results[prefix + "indices"].dtype
        np.testing.assert_array_equal(indices, tf_results[prefix + "indices"])
        np.testing.assert_array_equal(value(got.dense_shape), tf_results[prefix + "dense_shape"])
        np.testing.assert_allclose(value(got.values), tf_results[prefix + "values"], rtol=1e-6)
    else:
        assert not isinstance(got, opgen.IndexedSlices)
        np.testing.assert_allclose(value(got), tf_results[prefix + "dense"], rtol=1e-6)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_in_a_graph_as_tensorflow(name, data, tf_results):
    kind, expr = CASES[name]
    graph = opgen.Graph()
    with graph.as_default():
        x = (opgen.Variable(data["table"]) if kind == "var" else opgen.constant(data["table"]))
        scope = _namespace(x, opgen.constant(data["ids"]), opgen.constant(data["ids64"]),
                           opgen.constant(data["w"]))
        (got,) = opgen.gradients(eval(expr, scope), [x])
        init = opgen.global_variables_initializer()  # (None without variables)
    with opgen.Session(graph) as sess:
        if init is not None:
            sess.run(init)
        _compare(f"graph/{name}/", got, tf_results, sess.run)
        if isinstance(got, opgen.IndexedSlices):  # a fetched one: numpy parts, dense
            fetched = sess.run(got)
            assert isinstance(fetched, opgen.IndexedSlices)
            np.testing.assert_array_equal(fetched.indices, sess.run(got.indices))
            dense = np.zeros_like(data["table"])
            np.add.at(dense, fetched.indices, fetched.values)
            np.testing.assert_array_equal(np.asarray(fetched), dense)


@pytest.mark.parametrize("name", list(CASES))
def test_tape_gradient_as_tensorflow(name, data, tf_results):
    kind, expr = CASES[name]
    x = opgen.Variable(data["table"]) if kind == "var" else opgen.constant(data["table"])
    scope = _namespace(x, opgen.constant(data["ids"]), opgen.constant(data["ids64"]),
                       opgen.constant(data["w"]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        loss = eval(expr, scope)
    _compare(f"tape/{name}/", tape.gradient(loss, x), tf_results, lambda t: t.numpy())


def test_indexed_slices_become_dense_where_ops_take_them(data):
    """An IndexedSlices as an op's input (eagerly and in a graph) and through np.asarray
    is its dense tensor: the rows added at their indices (numpy's np.add.at)."""
    values = np.float32([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    indices = np.int64([3, 0, 3])
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, indices, values)
    eager = opgen.IndexedSlices(opgen.constant(values), opgen.constant(indices),
                                opgen.constant(np.int32([5, 3])))
    assert eager.dtype == opgen.float32 and eager.shape == (5, 3)
    np.testing.assert_array_equal(np.asarray(eager), want)
    np.testing.assert_array_equal(ops.add_v2(eager, np.float32(1)).numpy(), want + 1)
    graph = opgen.Graph()
    with graph.as_default():
        rows = opgen.IndexedSlices(opgen.constant(values), opgen.constant(indices),
                                   opgen.constant(np.int64([5, 3])))
        total = ops.add_v2(rows, np.float32(1))
    with opgen.Session(graph) as sess:
        np.testing.assert_array_equal(sess.run(total), want + 1)
    with pytest.raises(NotImplementedError, match="cannot convert the IndexedSlices"):
        np.asarray(rows)
    with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices "
                                         "without dense_shape"):
        np.asarray(opgen.IndexedSlices(values, indices))
