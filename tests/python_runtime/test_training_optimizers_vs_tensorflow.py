"""opgen.train's optimizers against tf.compat.v1.train's in TensorFlow 2.21 itself: the
same constructor call (the same source text, evaluated with `train` bound to either
module), the same initial values and gradients, several steps eagerly and in a graph run
by a Session, with dense gradients and with IndexedSlices ones (repeated indices
included); the variable and every slot compared, and the slots' graph names. TensorFlow
runs in its own interpreter ($OPGEN_TF_PYTHON); the tests skip without one."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from tf_reference import run_tf_script

# name -> the constructor call, as both libraries take it
CASES = {
    "adagrad": "train.AdagradOptimizer(0.1, initial_accumulator_value=0.2)",
    "adadelta": "train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
    "rmsprop": "train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6)",
    "rmsprop_centered": "train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-6, "
                        "centered=True)",
    "ftrl": "train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, "
            "l2_regularization_strength=0.02)",
    "ftrl_v2": "train.FtrlOptimizer(0.2, learning_rate_power=-0.7, "
               "initial_accumulator_value=0.3, l1_regularization_strength=0.01, "
               "l2_shrinkage_regularization_strength=0.1, beta=0.5)",
    "proximal_adagrad": "train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01, "
                        "l2_regularization_strength=0.02)",
    "proximal_sgd": "train.ProximalGradientDescentOptimizer(0.1, 0.01, 0.02)",
    # the sparse paths of the first three optimizers
    "sgd": "train.GradientDescentOptimizer(0.1)",
    "momentum": "train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
    "adam": "train.AdamOptimizer(0.05)",
}
# TensorFlow's ProximalAdagrad and ProximalGradientDescent do not cast their float32
# hyperparameters to a float64 variable's dtype for the dense op (it fails there); opgen
# casts, as for every other optimizer. Only the sparse paths compare in float64.
TF_REFUSES = {("proximal_adagrad", "float64", "dense"), ("proximal_sgd", "float64", "dense")}
DTYPES = ["float32", "float64"]
STEPS = 4
INDICES = np.int32([0, 2, 0])  # a repeated row: summed first, as TensorFlow does

# Bad constructor calls: TensorFlow's ValueError messages.
BAD = [
    "train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)",
    "train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=-1.0)",
    "train.FtrlOptimizer(0.1, initial_accumulator_value=-0.5)",
    "train.FtrlOptimizer(0.1, learning_rate_power=0.5)",
    "train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)",
    "train.FtrlOptimizer(0.1, l2_regularization_strength=-2.0)",
    "train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-0.25)",
    "train.AdadeltaOptimizer(name='')",
]

# Bad IndexedSlices gradients for a (4, 3) variable: (call, values' shape, indices).
# (TensorFlow's ResourceScatterAdd, which its GradientDescent and Adam take, accepts
# values of the wrong row width and writes out of bounds; opgen refuses them.)
BAD_SPARSE = [
    (call, shape, indices)
    for call in ("train.AdagradOptimizer(0.1)", "train.MomentumOptimizer(0.1, 0.9)",
                 "train.FtrlOptimizer(0.1)", "train.RMSPropOptimizer(0.1, centered=True)",
                 "train.AdadeltaOptimizer()", "train.ProximalAdagradOptimizer(0.1)",
                 "train.ProximalGradientDescentOptimizer(0.1)")
    for shape, indices in (((1, 3), [7]), ((2, 2), [0, 1]), ((2, 3), [0]))
] + [(call, (1, 3), [-1]) for call in ("train.GradientDescentOptimizer(0.1)",
                                        "train.AdamOptimizer(0.1)")]

# argv[1] the spec (cases, bad calls), argv[2] the inputs (.npz), argv[3] the results.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    spec = json.load(open(sys.argv[1]))
    data, out = dict(np.load(sys.argv[2])), {}
    train = tf.compat.v1.train
    refused = {tuple(x) for x in spec["refused"]}

    def grad_of(kind, g, idx):
        return g if kind == "dense" else tf.IndexedSlices(g, idx)

    for name, call in spec["cases"].items():
        for dt in ("float32", "float64"):
            for kind in ("dense", "sparse"):
                if (name, dt, kind) in refused:
                    continue
                key = f"{name}_{dt}_{kind}"
                grads, idx = data[f"{kind}_{dt}"], data["indices"]
                v = tf.Variable(data["var_" + dt])
                opt = eval(call)
                for g in grads:
                    opt.apply_gradients([(grad_of(kind, tf.constant(g), tf.constant(idx)),
                                          v)])
                out["eager_" + key] = v.numpy()
                for s in opt.get_slot_names():
                    out[f"eager_{key}_{s}"] = opt.get_slot(v, s).numpy()
                graph = tf.Graph()
                with graph.as_default():
                    v = tf.compat.v1.Variable(data["var_" + dt], name="w", use_resource=True)
                    g_in = tf.compat.v1.placeholder(dt, grads.shape[1:], name="grad")
                    opt = eval(call)
                    step = opt.apply_gradients([(grad_of(kind, g_in, tf.constant(idx)), v)])
                    init = tf.compat.v1.global_variables_initializer()
                    slots = {s: opt.get_slot(v, s) for s in opt.get_slot_names()}
                with tf.compat.v1.Session(graph=graph) as sess:
                    sess.run(init)
                    for g in grads:
                        sess.run(step, {g_in: g})
                    out["graph_" + key] = sess.run(v.read_value())
                    for s, slot in slots.items():
                        out[f"graph_{key}_{s}"] = sess.run(slot.read_value())
                        out[f"name_{key}_{s}"] = np.array(slot.name)
    for i, call in enumerate(spec["bad"]):
        try:
            eval(call)
            out[f"bad_{i}"] = np.array("no error")
        except ValueError as e:
            out[f"bad_{i}"] = np.array(str(e))
    for i, (call, shape, indices) in enumerate(spec["bad_sparse"]):
        v = tf.Variable(np.zeros((4, 3), np.float32))
        grad = tf.IndexedSlices(tf.ones(shape), tf.constant(indices, tf.int32))
        try:
            eval(call).apply_gradients([(grad, v)])
            out[f"bad_sparse_{i}"] = np.array("no error")
        except tf.errors.InvalidArgumentError as e:
            out[f"bad_sparse_{i}"] = np.array(e.message.split("}} ")[-1].split(" [Op:")[0])
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(21)
    data = {"indices": INDICES}
    for dt in DTYPES:
        data["var_" + dt] = rng.uniform(-1, 1, (4, 5)).astype(dt)
        data["dense_" + dt] = rng.uniform(-1, 1, (STEPS, 4, 5)).astype(dt)
        data["sparse_" + dt] = rng.uniform(-1, 1, (STEPS, len(INDICES), 5)).astype(dt)
    return data


@pytest.fixture(scope="module")
def tf_results(inputs):
    spec = {"cases": CASES, "bad": BAD, "refused": sorted(TF_REFUSES),
            "bad_sparse": BAD_SPARSE}
    return run_tf_script(TF_SCRIPT, inputs, spec, timeout=600)


def _close(got, want, dt):
    # The same formulas in the same order; float32 a few ulps apart at most where
    # TensorFlow's Eigen kernels take a fast (reciprocal) square root or fuse.
    rtol, atol = (2e-5, 1e-6) if dt == "float32" else (1e-12, 1e-14)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _grad(kind, g, indices):
    return g if kind == "dense" else opgen.train.IndexedSlices(g, indices)


def _params():
    return [pytest.param(name, dt, kind, id=f"{name}-{dt}-{kind}")
            for name in CASES for dt in DTYPES for kind in ("dense", "sparse")
            if (name, dt, kind) not in TF_REFUSES]


@pytest.mark.parametrize("name,dt,kind", _params())
def test_eagerly(name, dt, kind, inputs, tf_results):
    train = opgen.train  # noqa: F841 - the constructor calls name it
    key = f"{name}_{dt}_{kind}"
    v = opgen.Variable(inputs["var_" + dt])
    opt = eval(CASES[name])
    for g in inputs[f"{kind}_{dt}"]:
        assert opt.apply_gradients([(_grad(kind, g, INDICES), v)]) is None
    _close(v.numpy(), tf_results["eager_" + key], dt)
    want_slots = sorted(k[len(f"eager_{key}_"):] for k in tf_results
                        if k.startswith(f"eager_{key}_"))
    assert opt.get_slot_names() == want_slots
    for s in want_slots:
        _close(opt.get_slot(v, s).numpy(), tf_results[f"eager_{key}_{s}"], dt)


@pytest.mark.parametrize("name,dt,kind", _params())
def test_in_a_session(name, dt, kind, inputs, tf_results):
    train = opgen.train  # noqa: F841 - the constructor calls name it
    key = f"{name}_{dt}_{kind}"
    grads = inputs[f"{kind}_{dt}"]
    graph = opgen.Graph()
    with graph.as_default():
        v = opgen.Variable(inputs["var_" + dt], name="w")
        g_in = opgen.ops.placeholder(opgen.as_dtype(dt), shape=list(grads.shape[1:]),
                                     name="grad")
        indices = opgen.ops.const(INDICES, opgen.int32)
        opt = eval(CASES[name])
        step = opt.apply_gradients([(_grad(kind, g_in, indices), v)])
        init = opgen.global_variables_initializer()
    assert step.type == "NoOp" and step.name == opt.get_name()
    with opgen.Session(graph) as sess:
        sess.run(init)
        for g in grads:
            sess.run(step, {g_in: g})
        _close(sess.run(v.read_value()), tf_results["graph_" + key], dt)
        for s in opt.get_slot_names():
            slot = opt.get_slot(v, s)
            _close(sess.run(slot.read_value()), tf_results[f"graph_{key}_{s}"], dt)
            assert slot.name == str(tf_results[f"name_{key}_{s}"])


def test_bad_arguments_raise_tensorflows_errors(tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    for i, call in enumerate(BAD):
        want = str(tf_results[f"bad_{i}"])
        assert want != "no error", call
        with pytest.raises(ValueError) as info:
            eval(call)
        assert str(info.value) == want, call


@pytest.mark.parametrize("i", range(len(BAD_SPARSE)))
def test_bad_sparse_gradients_raise_tensorflows_errors(i, tf_results):
    train = opgen.train  # noqa: F841 - the calls name it
    call, shape, indices = BAD_SPARSE[i]
    want = str(tf_results[f"bad_sparse_{i}"])
    assert want != "no error", BAD_SPARSE[i]
    v = opgen.Variable(np.zeros((4, 3), np.float32))
    grad = opgen.train.IndexedSlices(np.ones(shape, np.float32), np.int32(indices))
    with pytest.raises(opgen.errors.InvalidArgumentError) as info:
        eval(call).apply_gradients([(grad, v)])
    assert want in str(info.value)
    np.testing.assert_array_equal(v.numpy(), np.zeros((4, 3), np.float32))  # untouched


def test_sparse_gradient_checks():
    v = opgen.Variable(np.zeros((4, 3), np.float32), name="w")
    opt = opgen.train.AdagradOptimizer(0.1)
    with pytest.raises(TypeError, match="indices of variable 'w:0' must be int32 or int64"):
        opt.apply_gradients([(opgen.train.IndexedSlices(np.ones((1, 3), np.float32),
                                                        np.float32([0])), v)])
    with pytest.raises(opgen.errors.InvalidArgumentError, match="gradient of variable 'w:0'"):
        opt.apply_gradients([(opgen.train.IndexedSlices(np.ones((1, 3), np.float64),
                                                        [0]), v)])
    # int64 indices, rows of one index summed: accum 0.1 + (1 + 2)^2, one update
    opt.apply_gradients([(opgen.train.IndexedSlices(np.float32([[1] * 3, [2] * 3]),
                                                    np.int64([3, 3])), v)])
    accum = np.float32(0.1) + np.float32(9)
    np.testing.assert_allclose(v.numpy()[3], np.full(3, -np.float32(0.1) * 3 / np.sqrt(accum)),
                               rtol=1e-6)
    np.testing.assert_array_equal(v.numpy()[:3], np.zeros((3, 3), np.float32))
    np.testing.assert_allclose(opt.get_slot(v, "accumulator").numpy()[:, 0],
                               [0.1, 0.1, 0.1, accum], rtol=1e-7)


def test_slots_of_a_variable_of_unknown_shape():
    # The slot's initial value follows the variable's at run time (filled, not zeros).
    graph = opgen.Graph()
    with graph.as_default():
        init = opgen.ops.placeholder_with_default(np.ones((2, 3), np.float64), shape=[None, 3])
        v = opgen.Variable(init, name="w")
        opt = opgen.train.RMSPropOptimizer(0.1, centered=True)
        step = opt.apply_gradients([(np.ones((2, 3), np.float64), v)])
        init_all = opgen.global_variables_initializer()
    with opgen.Session(graph) as sess:
        sess.run(init_all)
        rms, mg = (sess.run(opt.get_slot(v, s).read_value()) for s in ("rms", "mg"))
        np.testing.assert_array_equal(rms, np.ones((2, 3)))
        np.testing.assert_array_equal(mg, np.zeros((2, 3)))
        sess.run(step)
        assert sess.run(v.read_value()).shape == (2, 3)


@pytest.mark.parametrize("dt", DTYPES)
def test_ftrl_beta_with_a_tensor_learning_rate(dt, inputs, tf_results):
    # beta / (2 * learning_rate) built from ops when the rate is a tensor: the same bits
    # as from numbers (which the ftrl_v2 case compares with TensorFlow).
    lr = opgen.Variable(np.float32(0.2))
    opt = opgen.train.FtrlOptimizer(lr, learning_rate_power=-0.7, initial_accumulator_value=0.3,
                                    l1_regularization_strength=0.01,
                                    l2_shrinkage_regularization_strength=0.1, beta=0.5)
    v = opgen.Variable(inputs["var_" + dt])
    for g in inputs["dense_" + dt]:
        opt.apply_gradients([(g, v)])
    _close(v.numpy(), tf_results[f"eager_ftrl_v2_{dt}_dense"], dt)
