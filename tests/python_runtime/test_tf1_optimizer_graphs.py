"""TF1 training graphs made by TensorFlow 2.21 (tf.compat.v1.train's Ftrl, Adadelta,
ProximalAdagrad ... optimizers minimizing a least-squares loss over resource variables)
imported with opgen.import_graph_def and run with opgen.Session: after the same number of
training steps the variables and slots equal what TensorFlow's own session gives. The
graphs carry TensorFlow's gradient ops and the fused ResourceApply* updates."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2
from tf_reference import run_tf_script

STEPS = 5

# kind -> (the tf.compat.v1.train constructor call, as TensorFlow's script runs it; whether
# the model also looks rows up in an embedding, whose gradient takes the sparse update;
# the update ops the graph must hold).
OPTIMIZERS = {
    "ftrl": ("FtrlOptimizer(0.1, l1_regularization_strength=0.01, "
             "l2_regularization_strength=0.02)", True,
             {"ResourceApplyFtrl", "ResourceSparseApplyFtrl"}),
    "ftrl_shrinkage": ("FtrlOptimizer(0.1, learning_rate_power=-0.3, "
                       "l1_regularization_strength=0.01, "
                       "l2_shrinkage_regularization_strength=0.05)", True,
                       {"ResourceApplyFtrlV2", "ResourceSparseApplyFtrlV2"}),
    "adadelta": ("AdadeltaOptimizer(1.0)", True,
                 {"ResourceApplyAdadelta", "ResourceSparseApplyAdadelta"}),
    "proximal_adagrad": ("ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)",
                         True, {"ResourceApplyProximalAdagrad",
                                "ResourceSparseApplyProximalAdagrad"}),
    "proximal_sgd": ("ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.1)",
                     True, {"ResourceApplyProximalGradientDescent",
                            "ResourceSparseApplyProximalGradientDescent"}),
    "centered_rmsprop": ("RMSPropOptimizer(0.01, momentum=0.5, centered=True)", True,
                         {"ResourceApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp"}),
    "rmsprop": ("RMSPropOptimizer(0.01, momentum=0.5)", True,
                {"ResourceApplyRMSProp", "ResourceSparseApplyRMSProp"}),
    "adagrad": ("AdagradOptimizer(0.1)", True,
                {"ResourceApplyAdagrad", "ResourceSparseApplyAdagrad"}),
    "momentum": ("MomentumOptimizer(0.1, 0.9, use_nesterov=True)", True,
                 {"ResourceApplyMomentum", "ResourceSparseApplyMomentum"}),
}

# Argv[1] the spec (JSON: kind -> constructor), argv[2] the results: per kind the graph
# (serialized GraphDef bytes), the names to fetch, and TensorFlow's values after STEPS.
TF_SCRIPT = textwrap.dedent(f"""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    spec, out = json.load(open(sys.argv[1])), {{}}
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (8, 3)).astype(np.float32)
    Y = rng.uniform(-1, 1, (8, 2)).astype(np.float32)
    for kind, (make, sparse) in spec.items():
        g = tf.Graph()
        with g.as_default():
            w = tf.compat.v1.get_variable("w", initializer=rng.uniform(-1, 1, (3, 2)).astype(
                np.float32), use_resource=True)
            b = tf.compat.v1.get_variable("b", initializer=np.zeros(2, np.float32),
                                          use_resource=True)
            pred = tf.matmul(X, w) + b
            variables = [w, b]
            if sparse:  # rows 1 and 3 twice: a repeated index in the sparse update
                emb = tf.compat.v1.get_variable("emb", initializer=rng.uniform(
                    -1, 1, (6, 2)).astype(np.float32), use_resource=True)
                pred += tf.reduce_sum(tf.gather(emb, [1, 3, 3, 4]), axis=0)
                variables.append(emb)
            loss = tf.reduce_mean(tf.square(pred - Y))
            opt = eval("tf.compat.v1.train." + make)
            train = opt.minimize(loss, name="train")
            init = tf.compat.v1.global_variables_initializer()
            fetch = {{"w": tf.identity(w.read_value(), name="w_value"),
                      "b": tf.identity(b.read_value(), name="b_value")}}
            if sparse:
                fetch["emb"] = tf.identity(emb.read_value(), name="emb_value")
            for v in variables:
                for s in opt.get_slot_names():
                    slot = opt.get_slot(v, s)
                    if slot is not None:
                        name = v.op.name + "_" + s
                        fetch[name] = tf.identity(slot.read_value(), name=name + "_value")
            names = {{k: t.name for k, t in fetch.items()}}
            graph_def = g.as_graph_def().SerializeToString()
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(init)
            for _ in range({STEPS}):
                sess.run(train)
            values = sess.run(fetch)
        out[kind + "/graph"] = np.frombuffer(graph_def, np.uint8)
        out[kind + "/names"] = np.array(json.dumps(
            {{"init": init.name, "train": train.name, "fetch": names}}))
        for k, v in values.items():
            out[kind + "/value/" + k] = v
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def tensorflow_graphs():
    return run_tf_script(TF_SCRIPT, None, {k: v[:2] for k, v in OPTIMIZERS.items()})


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_tensorflow_training_graph_trains_the_same(kind, tensorflow_graphs):
    gd = graph_pb2.GraphDef.FromString(tensorflow_graphs[kind + "/graph"].tobytes())
    names = json.loads(str(tensorflow_graphs[kind + "/names"]))
    assert {n.op for n in gd.node} >= OPTIMIZERS[kind][2]
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(g) as sess:
        sess.run(names["init"])
        for _ in range(STEPS):
            sess.run(names["train"])
        for key, tensor in names["fetch"].items():
            want = tensorflow_graphs[f"{kind}/value/{key}"]
            np.testing.assert_allclose(sess.run(tensor), want, rtol=2e-5, atol=1e-6,
                                       err_msg=key)
