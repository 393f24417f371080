"""opgen.train's minimize on an embedding model (a ResourceGather of the table, a matmul
loss) against tf.compat.v1.train's in TensorFlow 2.21: the table's gradient is an
IndexedSlices in both, so only the looked-up rows' slots move (each step looks up other
rows); the variables and every slot after a few steps, eagerly and in a Session.
TensorFlow runs in its own interpreter ($OPGEN_TF_PYTHON); the tests skip without one."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

CALLS = [
    "train.MomentumOptimizer(0.1, 0.9)",
    "train.AdamOptimizer(0.05)",
    "train.AdagradOptimizer(0.1)",
    "train.RMSPropOptimizer(0.01, momentum=0.5, centered=True)",
    "train.FtrlOptimizer(0.1, l1_regularization_strength=0.01)",
]
IDS = np.int32([[[0, 2], [2, 5]], [[1, 1], [3, 0]], [[4, 2], [1, 4]]])  # one (2, 2) per step

# argv[1] the spec (calls), argv[2] the inputs (.npz), argv[3] the results.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    calls = json.load(open(sys.argv[1]))
    d, out = dict(np.load(sys.argv[2])), {}
    train = tf.compat.v1.train
    def loss_of(table, w, ids):
        rows = tf.reshape(tf.gather(table, ids), [-1, 4])
        return tf.reduce_mean(tf.square(tf.matmul(rows, w) - d["y"]))
    def save(prefix, opt, table, w, value):
        out[prefix + "table"], out[prefix + "w"] = value(table), value(w)
        for name in opt.get_slot_names():
            out[prefix + "slot/" + name] = value(opt.get_slot(table, name))
    with tf.GradientTape() as tape:
        table = tf.Variable(d["table"])
        loss = loss_of(table, tf.constant(d["w"]), d["ids"][0])
    out["tape_type"] = np.array(type(tape.gradient(loss, table)).__name__)
    for i, call in enumerate(calls):
        table, w = tf.Variable(d["table"]), tf.Variable(d["w"])
        opt = eval(call)
        for ids in d["ids"]:
            opt.minimize(lambda: loss_of(table, w, ids))
        save(f"eager_{i}/", opt, table, w, lambda v: v.numpy())
        graph = tf.Graph()
        with graph.as_default():
            table = tf.compat.v1.Variable(d["table"], use_resource=True)
            w = tf.compat.v1.Variable(d["w"], use_resource=True)
            ids = tf.compat.v1.placeholder(tf.int32, [2, 2])
            opt = eval(call)
            loss = loss_of(table, w, ids)
            if i == 0:
                grad = opt.compute_gradients(loss, [table])[0][0]
                out["graph_type"] = np.array(type(grad).__name__)
            step = opt.minimize(loss)
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)
            for value in d["ids"]:
                sess.run(step, {ids: value})
            save(f"graph_{i}/", opt, table, w, sess.run)
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    return {"table": rng.uniform(-1, 1, (6, 4)).astype(np.float32),
            "w": rng.uniform(-1, 1, (4, 2)).astype(np.float32),
            "y": rng.uniform(-1, 1, (4, 2)).astype(np.float32), "ids": IDS}


@pytest.fixture(scope="module")
def tf_results(data):
    return run_tf_script(TF_SCRIPT, data, CALLS)


def _loss(d, table, w, ids):
    rows = ops.reshape(table.sparse_read(ids), [-1, 4])
    return ops.mean(ops.square(ops.mat_mul(rows, w.read_value()) - d["y"]), [0, 1])


def _compare(prefix, opt, table, w, value, tf_results):
    np.testing.assert_allclose(value(table), tf_results[prefix + "table"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(value(w), tf_results[prefix + "w"], rtol=2e-5, atol=1e-6)
    names = sorted(opt.get_slot_names())
    assert names == sorted(k.split("/")[-1] for k in tf_results if k.startswith(prefix + "slot/"))
    for name in names:
        np.testing.assert_allclose(value(opt.get_slot(table, name)),
                                   tf_results[prefix + "slot/" + name], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[c.split("(")[0][6:] for c in CALLS])
def test_minimize_an_embedding_eagerly(i, data, tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    table, w = opgen.Variable(data["table"]), opgen.Variable(data["w"])
    opt = eval(CALLS[i])
    for ids in IDS:
        assert opt.minimize(lambda: _loss(data, table, w, ids)) is None  # noqa: B023
    _compare(f"eager_{i}/", opt, table, w, lambda v: v.numpy(), tf_results)


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[c.split("(")[0][6:] for c in CALLS])
def test_minimize_an_embedding_in_a_session(i, data, tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    graph = opgen.Graph()
    with graph.as_default():
        table, w = opgen.Variable(data["table"]), opgen.Variable(data["w"])
        ids = ops.placeholder(opgen.int32, shape=[2, 2])
        opt = eval(CALLS[i])
        loss = _loss(data, table, w, ids)
        step = opt.minimize(loss)
        init = opgen.global_variables_initializer()
    with opgen.Session(graph) as sess:
        sess.run(init)
        for value in IDS:
            sess.run(step, {ids: value})
        _compare(f"graph_{i}/", opt, table, w, lambda v: sess.run(v.read_value()), tf_results)


def test_compute_gradients_of_an_embedding_are_indexed_slices(data, tf_results):
    """compute_gradients gives the table an IndexedSlices (TensorFlow's type, eagerly and
    in a graph) and the matmul weights a dense gradient."""
    assert str(tf_results["tape_type"]) == str(tf_results["graph_type"]) == "IndexedSlices"
    opt = opgen.train.GradientDescentOptimizer(0.1)
    table, w = opgen.Variable(data["table"]), opgen.Variable(data["w"])
    (dt, _), (dw, _) = opt.compute_gradients(lambda: _loss(data, table, w, IDS[0]))
    assert isinstance(dt, opgen.IndexedSlices) and isinstance(dw, opgen.Tensor)
    np.testing.assert_array_equal(dt.indices.numpy(), IDS[0].ravel())
    graph = opgen.Graph()
    with graph.as_default():
        table, w = opgen.Variable(data["table"]), opgen.Variable(data["w"])
        (dt, _), (dw, _) = opt.compute_gradients(_loss(data, table, w, opgen.constant(IDS[0])))
    assert isinstance(dt, opgen.IndexedSlices) and isinstance(dw, opgen.Output)
