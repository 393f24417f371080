"""The optimizer ops and opgen.train on the GPU: variables and slots made inside
`opgen.device("/GPU:0")` stay in device memory, each step gives the CPU's numbers
(scalars read on the device), a step with no reader writes the device buffer in place
and a value read before a step stays a snapshot."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import opgen
from opgen import ops

RNG = np.random.default_rng(3)
KINDS = ["sgd", "momentum", "nesterov", "adam"]


def _optimizer(kind):
    if kind == "sgd":
        return opgen.train.GradientDescentOptimizer(0.1)
    if kind in ("momentum", "nesterov"):
        return opgen.train.MomentumOptimizer(0.1, 0.9, use_nesterov=kind == "nesterov")
    return opgen.train.AdamOptimizer(0.01)


def _run(kind, init, grads, device):
    with opgen.device(device):
        v = opgen.Variable(init)
        opt = _optimizer(kind)
        for g in grads:
            opt.apply_gradients([(g, v)])
        value = v.read_value()
        assert device[1:4] in value.device
        return [v.numpy()] + [opt.get_slot(v, s).numpy() for s in opt.get_slot_names()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_optimizer_steps_on_the_gpu_match_the_cpu(kind, dtype):
    init = RNG.uniform(-1, 1, (64, 33)).astype(dtype)
    grads = [RNG.uniform(-1, 1, init.shape).astype(dtype) for _ in range(3)]
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    for gpu, cpu in zip(_run(kind, init, grads, "/GPU:0"), _run(kind, init, grads, "/CPU:0")):
        np.testing.assert_allclose(gpu, cpu, rtol=rtol, atol=rtol)


TF1_CALLS = ["AdagradOptimizer(0.1)", "AdadeltaOptimizer(1.0)",
             "RMSPropOptimizer(0.01, momentum=0.5)", "RMSPropOptimizer(0.01, centered=True)",
             "FtrlOptimizer(0.1, l1_regularization_strength=0.01)",
             "FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1)",
             "ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)",
             "ProximalGradientDescentOptimizer(0.1, 0.01, 0.01)"]


@pytest.mark.parametrize("call", TF1_CALLS)
def test_the_other_tf1_optimizers_on_the_gpu_match_the_cpu(call):
    # Their dense ops have CUDA kernels: slots and steps stay on the GPU.
    init = RNG.uniform(-1, 1, (64, 33)).astype(np.float32)
    grads = [RNG.uniform(-1, 1, init.shape).astype(np.float32) for _ in range(3)]
    out = {}
    for device in ("/GPU:0", "/CPU:0"):
        with opgen.device(device):
            v = opgen.Variable(init)
            opt = eval("opgen.train." + call)
            for g in grads:
                opt.apply_gradients([(g, v)])
            assert device[1:4] in v.read_value().device
            out[device] = [v.numpy()] + [opt.get_slot(v, s).numpy()
                                         for s in opt.get_slot_names()]
    for gpu, cpu in zip(out["/GPU:0"], out["/CPU:0"]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [opgen.float16, opgen.bfloat16])
def test_16_bit_adam_on_the_gpu_matches_the_cpu(dtype):
    init = RNG.uniform(-1, 1, (4, 8)).astype(np.float32)
    grad = RNG.uniform(-1, 1, (4, 8)).astype(np.float32)
    out = {}
    for device in ("/GPU:0", "/CPU:0"):
        with opgen.device(device):
            var, m, v = (opgen.Variable(ops.cast(x, DstT=dtype))
                         for x in (init, np.zeros_like(init), np.zeros_like(init)))
            scalars = [ops.cast(np.float32(x), DstT=dtype)
                       for x in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-3)]
            ops.resource_apply_adam(var.handle, m.handle, v.handle, *scalars,
                                    ops.cast(grad, DstT=dtype))
            out[device] = ops.cast(var.read_value(), DstT=opgen.float32).numpy()
    np.testing.assert_allclose(out["/GPU:0"], out["/CPU:0"], rtol=2.0 ** -7)


def _data_pointer(t) -> int:
    from opgen.runtime import _lib
    return ctypes.c_void_p(_lib.lib().TF_TensorData(t._tensor)).value or 0


def test_gpu_steps_update_in_place_without_readers_and_keep_snapshots():
    with opgen.device("/GPU:0"):
        v = opgen.Variable(np.zeros(1000, np.float32))
        ones = opgen.constant(np.ones(1000, np.float32))
        ops.resource_apply_gradient_descent(v.handle, np.float32(1), ones)  # copies once
        address = _data_pointer(v.read_value())
        ops.resource_apply_gradient_descent(v.handle, np.float32(1), ones)
        snapshot = v.read_value()
        assert _data_pointer(snapshot) == address  # in place
        ops.resource_apply_gradient_descent(v.handle, np.float32(1), ones)
        assert _data_pointer(v.read_value()) != address  # copy-on-write
    np.testing.assert_array_equal(snapshot.numpy(), np.full(1000, -2, np.float32))
    np.testing.assert_array_equal(v.numpy(), np.full(1000, -3, np.float32))


def test_session_train_op_on_the_gpu():
    g = opgen.Graph()
    with g.as_default(), opgen.device("/GPU:0"):
        w = opgen.Variable(np.float32([1, 2, 3]), name="w")
        train = opgen.train.MomentumOptimizer(0.5, 0.5).apply_gradients(
            [(np.float32([1, 1, 1]), w)])
        init = opgen.global_variables_initializer()
    with opgen.Session(g) as sess:
        sess.run(init)
        sess.run(train)
        sess.run(train)  # accum 1, then 1.5: w - 0.5 - 0.75
        np.testing.assert_allclose(sess.run(w.read_value()), np.float32([1, 2, 3]) - 1.25)
