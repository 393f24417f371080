"""opgen.train's optimizers and the ResourceApply* ops against TensorFlow 2.21 itself:
the same initial values and gradients, several steps, float32 and float64. TensorFlow
runs in its own interpreter ($OPGEN_TF_PYTHON); the test skips without one."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

KINDS = ["sgd", "momentum", "nesterov", "adam"]
DTYPES = ["float32", "float64"]
STEPS = 4

# Run by TensorFlow's interpreter: argv[1] the inputs (.npz), argv[2] the results.
TF_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    data, out = dict(np.load(sys.argv[1])), {}
    train = tf.compat.v1.train
    make = {"sgd": lambda: train.GradientDescentOptimizer(0.1),
            "momentum": lambda: train.MomentumOptimizer(0.1, 0.9),
            "nesterov": lambda: train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
            "adam": lambda: train.AdamOptimizer(0.01)}
    for kind, new in make.items():
        for dt in ("float32", "float64"):
            v = tf.Variable(data["var_" + dt])
            opt = new()
            for g in data["grads_" + dt]:
                opt.apply_gradients([(tf.constant(g), v)])
            out[f"{kind}_{dt}"] = v.numpy()
            for s in opt.get_slot_names():
                out[f"{kind}_{dt}_{s}"] = opt.get_slot(v, s).numpy()
    for dt in ("float32", "float64"):
        x = lambda a: tf.constant(np.asarray(a, dt))
        for nesterov in (False, True):
            v, a = tf.Variable(data["var_" + dt]), tf.Variable(data["slot_" + dt])
            for g in data["grads_" + dt]:
                tf.raw_ops.ResourceApplyKerasMomentum(var=v.handle, accum=a.handle, lr=x(0.05),
                    grad=x(g), momentum=x(0.8), use_nesterov=nesterov)
            out[f"keras_{dt}_{nesterov}"] = np.stack([v.numpy(), a.numpy()])
            v, m, s = (tf.Variable(data[k + dt]) for k in ("var_", "slot_", "slot_"))
            for t, g in enumerate(data["grads_" + dt], 1):
                tf.raw_ops.ResourceApplyAdam(var=v.handle, m=m.handle, v=s.handle,
                    beta1_power=x(0.9 ** t), beta2_power=x(0.999 ** t), lr=x(0.01),
                    beta1=x(0.9), beta2=x(0.999), epsilon=x(1e-7), grad=x(g),
                    use_nesterov=nesterov)
            out[f"adam_op_{dt}_{nesterov}"] = np.stack([v.numpy(), m.numpy(), s.numpy()])
            v, a = tf.Variable(data["var_" + dt]), tf.Variable(data["slot_" + dt] + 0.1)
            for g in data["grads_" + dt]:
                tf.raw_ops.ResourceApplyAdagrad(var=v.handle, accum=a.handle, lr=x(0.1),
                    grad=x(g), update_slots=not nesterov)
            out[f"adagrad_{dt}_{nesterov}"] = np.stack([v.numpy(), a.numpy()])
        v, ms, mom = (tf.Variable(data[k + dt]) for k in ("var_", "slot_", "slot_"))
        for g in data["grads_" + dt]:
            tf.raw_ops.ResourceApplyRMSProp(var=v.handle, ms=ms.handle, mom=mom.handle,
                lr=x(0.01), rho=x(0.9), momentum=x(0.5), epsilon=x(1e-6), grad=x(g))
        out[f"rmsprop_{dt}"] = np.stack([v.numpy(), ms.numpy(), mom.numpy()])
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(11)
    data = {}
    for dt in DTYPES:
        data["var_" + dt] = rng.uniform(-1, 1, (4, 5)).astype(dt)
        data["slot_" + dt] = rng.uniform(0, 0.5, (4, 5)).astype(dt)
        data["grads_" + dt] = rng.uniform(-1, 1, (STEPS, 4, 5)).astype(dt)
    return data


@pytest.fixture(scope="module")
def tensorflow_results(inputs):
    return run_tf_script(TF_SCRIPT, inputs)


def _optimizer(kind):
    if kind == "sgd":
        return opgen.train.GradientDescentOptimizer(0.1)
    if kind in ("momentum", "nesterov"):
        return opgen.train.MomentumOptimizer(0.1, 0.9, use_nesterov=kind == "nesterov")
    return opgen.train.AdamOptimizer(0.01)


def _close(got, want, dt, float32_rtol=1e-6):
    # The same formulas in the same order: equal (measured: 0 ulps apart for SGD, Momentum
    # and Adam), or a few ulps apart where TensorFlow's float32 kernels take a shortcut
    # (Adagrad's 1/sqrt is Eigen's fast reciprocal square root: up to ~16 ulps).
    rtol, atol = (float32_rtol, 1e-7) if dt == "float32" else (1e-14, 1e-15)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_optimizers_match_tensorflow(kind, dt, inputs, tensorflow_results):
    v = opgen.Variable(inputs["var_" + dt])
    opt = _optimizer(kind)
    for g in inputs["grads_" + dt]:
        opt.apply_gradients([(g, v)])
    _close(v.numpy(), tensorflow_results[f"{kind}_{dt}"], dt)
    for slot in opt.get_slot_names():
        _close(opt.get_slot(v, slot).numpy(), tensorflow_results[f"{kind}_{dt}_{slot}"], dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_keras_momentum_and_adam_ops_match_tensorflow(nesterov, dt, inputs, tensorflow_results):
    x = np.dtype(dt).type
    v, a = opgen.Variable(inputs["var_" + dt]), opgen.Variable(inputs["slot_" + dt])
    for g in inputs["grads_" + dt]:
        ops.resource_apply_keras_momentum(v.handle, a.handle, x(0.05), g, x(0.8),
                                          use_nesterov=nesterov)
    _close(np.stack([v.numpy(), a.numpy()]), tensorflow_results[f"keras_{dt}_{nesterov}"], dt)
    var, m, s = (opgen.Variable(inputs[k + dt]) for k in ("var_", "slot_", "slot_"))
    for t, g in enumerate(inputs["grads_" + dt], 1):
        ops.resource_apply_adam(var.handle, m.handle, s.handle, x(0.9 ** t), x(0.999 ** t),
                                x(0.01), x(0.9), x(0.999), x(1e-7), g, use_nesterov=nesterov)
    _close(np.stack([var.numpy(), m.numpy(), s.numpy()]),
           tensorflow_results[f"adam_op_{dt}_{nesterov}"], dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("update_slots", [True, False])
def test_adagrad_op_matches_tensorflow(update_slots, dt, inputs, tensorflow_results):
    x = np.dtype(dt).type
    v, a = opgen.Variable(inputs["var_" + dt]), opgen.Variable(inputs["slot_" + dt] + x(0.1))
    for g in inputs["grads_" + dt]:
        ops.resource_apply_adagrad(v.handle, a.handle, x(0.1), g, update_slots=update_slots)
    _close(np.stack([v.numpy(), a.numpy()]),
           tensorflow_results[f"adagrad_{dt}_{not update_slots}"], dt, float32_rtol=1e-5)


@pytest.mark.parametrize("dt", DTYPES)
def test_rmsprop_op_matches_tensorflow(dt, inputs, tensorflow_results):
    x = np.dtype(dt).type
    v, ms, mom = (opgen.Variable(inputs[k + dt]) for k in ("var_", "slot_", "slot_"))
    for g in inputs["grads_" + dt]:
        ops.resource_apply_rms_prop(v.handle, ms.handle, mom.handle, x(0.01), x(0.9), x(0.5),
                                    x(1e-6), g)
    _close(np.stack([v.numpy(), ms.numpy(), mom.numpy()]), tensorflow_results[f"rmsprop_{dt}"],
           dt)

