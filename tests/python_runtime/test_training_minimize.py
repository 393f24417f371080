"""opgen.train's Optimizer.minimize and compute_gradients against tf.compat.v1.train's in
TensorFlow 2.21: a least-squares loss minimized for a few steps eagerly (the loss a
callable) and in a graph run by a Session, the same constructor calls, the variables
compared; and TensorFlow's errors. TensorFlow runs in its own interpreter
($OPGEN_TF_PYTHON); the tests skip without one."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

CALLS = [
    "train.GradientDescentOptimizer(0.1)",
    "train.MomentumOptimizer(0.1, 0.9)",
    "train.AdamOptimizer(0.05)",
    "train.AdagradOptimizer(0.1)",
    "train.AdadeltaOptimizer(1.0)",
    "train.RMSPropOptimizer(0.01, momentum=0.5, centered=True)",
    "train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1)",
    "train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)",
    "train.ProximalGradientDescentOptimizer(0.1, 0.01, 0.01)",
]
STEPS = 3

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
    def loss_of(w, b):
        return tf.reduce_mean(tf.square(tf.matmul(d["x"], w) + b - d["y"]))
    for i, call in enumerate(calls):
        w, b = tf.Variable(d["w"]), tf.Variable(d["b"])
        opt = eval(call)
        for _ in range(STEPS):
            opt.minimize(lambda: loss_of(w, b))
        out[f"eager_{i}"] = np.concatenate([w.numpy().ravel(), b.numpy()])
        graph = tf.Graph()
        with graph.as_default():
            w = tf.compat.v1.Variable(d["w"], use_resource=True)
            b = tf.compat.v1.Variable(d["b"], use_resource=True)
            opt = eval(call)
            step = opt.minimize(loss_of(w, b), var_list=[w])  # b left alone
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)
            for _ in range(STEPS):
                sess.run(step)
            out[f"graph_{i}"] = np.concatenate([sess.run(w).ravel(), sess.run(b)])
    np.savez(sys.argv[3], **out)
""").replace("STEPS", str(STEPS))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    return {"x": rng.uniform(-1, 1, (5, 3)).astype(np.float32),
            "y": rng.uniform(-1, 1, (5, 2)).astype(np.float32),
            "w": rng.uniform(-1, 1, (3, 2)).astype(np.float32),
            "b": rng.uniform(-1, 1, (2,)).astype(np.float32)}


@pytest.fixture(scope="module")
def tf_results(data):
    return run_tf_script(TF_SCRIPT, data, CALLS)


def _loss(d, w, b):
    return ops.mean(ops.square(ops.mat_mul(d["x"], w.read_value()) + b.read_value() - d["y"]),
                    [0, 1])


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[c.split("(")[0][6:] for c in CALLS])
def test_minimize_eagerly(i, data, tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    w, b = opgen.Variable(data["w"]), opgen.Variable(data["b"])
    opt = eval(CALLS[i])
    for _ in range(STEPS):
        assert opt.minimize(lambda: _loss(data, w, b)) is None
    np.testing.assert_allclose(np.concatenate([w.numpy().ravel(), b.numpy()]),
                               tf_results[f"eager_{i}"], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[c.split("(")[0][6:] for c in CALLS])
def test_minimize_in_a_session(i, data, tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    graph = opgen.Graph()
    with graph.as_default():
        w, b = opgen.Variable(data["w"]), opgen.Variable(data["b"])
        opt = eval(CALLS[i])
        step = opt.minimize(_loss(data, w, b), var_list=[w])
        init = opgen.global_variables_initializer()
    assert step.name == opt.get_name()
    with opgen.Session(graph) as sess:
        sess.run(init)
        for _ in range(STEPS):
            sess.run(step)
        got = np.concatenate([sess.run(w.read_value()).ravel(), sess.run(b.read_value())])
    np.testing.assert_allclose(got, tf_results[f"graph_{i}"], rtol=2e-5, atol=1e-6)


def test_compute_gradients_defaults_and_errors(data):
    opt = opgen.train.GradientDescentOptimizer(0.1)
    graph = opgen.Graph()
    with graph.as_default():
        w, b = opgen.Variable(data["w"]), opgen.Variable(data["b"])
        opgen.Variable(np.float32(1.0), trainable=False)  # not a default var_list member
        loss = _loss(data, w, b)
        pairs = opt.compute_gradients(loss)
        assert [v for _, v in pairs] == [w, b]
        assert all(isinstance(g, opgen.Output) for g, _ in pairs)
        unused = opgen.Variable(np.float32(2.0))
        with pytest.raises(ValueError, match="No gradients provided for any variable, check "
                                             "your graph for ops that do not support"):
            opt.minimize(loss, var_list=[unused])
        with pytest.raises(ValueError, match="gate_gradients must be one of"):
            opt.compute_gradients(loss, gate_gradients=7)
    empty = opgen.Graph()
    with empty.as_default(), pytest.raises(ValueError, match=r"No variables to optimize\."):
        opt.compute_gradients(ops.const(np.float32(1.0), opgen.float32))
    v = opgen.Variable(np.float32(3.0))
    with pytest.raises(RuntimeError, match="should be a function when eager execution"):
        opt.minimize(v.read_value() * 2.0)
    (grad, var), = opt.compute_gradients(lambda: v.read_value() * v.read_value())
    assert var is v and float(grad.numpy()) == 6.0
