"""The optimizer ops (ResourceApply*) and opgen.train's optimizers, against numpy's
arithmetic of TensorFlow's documented update formulas, eagerly and in sessions; bad
input; updates in place when nobody holds the old value and copy-on-write otherwise.
tests/python_runtime/test_training_vs_tensorflow.py compares with TensorFlow itself."""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def training_ops(runtime_lib):
    from opgen.runtime._opplan import registry
    try:
        registry.plan("ResourceApplyAdam")
    except Exception:  # noqa: BLE001 - a runtime built before the optimizer ops
        pytest.skip("this runtime has no optimizer ops")


RNG = np.random.default_rng(7)
SHAPE = (3, 4)


def _data(dtype, shape=SHAPE, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(dtype)


# ---- numpy references: TensorFlow's formulas, computed in the dtype ----------------------

def np_gradient_descent(var, alpha, delta):
    return (var - alpha * delta,)


def np_momentum(var, accum, lr, grad, momentum, nesterov):
    accum = accum * momentum + grad
    var = var - (grad * lr + accum * momentum * lr) if nesterov else var - lr * accum
    return var, accum


def np_keras_momentum(var, accum, lr, grad, momentum, nesterov):
    accum = accum * momentum - grad * lr
    var = var + (accum * momentum - grad * lr) if nesterov else var + accum
    return var, accum


def np_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, nesterov):
    one = var.dtype.type(1)
    lr_t = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    m = m + (grad - m) * (one - beta1)
    v = v + (grad * grad - v) * (one - beta2)
    step = (grad * (one - beta1) + beta1 * m) if nesterov else m
    return var - step * lr_t / (np.sqrt(v) + epsilon), m, v  # epsilon outside the root


def np_adagrad(var, accum, lr, grad, update_slots):
    if update_slots:
        accum = accum + grad * grad
    return var - grad * lr * (var.dtype.type(1) / np.sqrt(accum)), accum


def np_rmsprop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = ms + (grad * grad - ms) * (var.dtype.type(1) - rho)
    mom = mom * momentum + (grad * lr) / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _tol(dtype):
    # float32: a fused multiply-add in the kernel may round once where numpy rounds twice
    return {np.float32: 2e-6, np.float64: 1e-13}[dtype]


def _variables(*arrays):
    return [opgen.Variable(a) for a in arrays]


# ---- the ops, eagerly, against numpy ----------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_descent_op(dtype):
    var0, delta = _data(dtype), _data(dtype)
    (v,) = _variables(var0)
    expect = var0
    for _ in range(3):
        ops.resource_apply_gradient_descent(v.handle, dtype(0.25), delta)
        (expect,) = np_gradient_descent(expect, dtype(0.25), delta)
    np.testing.assert_allclose(v.numpy(), expect, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("op, reference", [
    ("resource_apply_momentum", np_momentum),
    ("resource_apply_keras_momentum", np_keras_momentum)])
def test_momentum_ops(op, reference, nesterov, dtype):
    var0, accum0 = _data(dtype), _data(dtype, low=0, high=0.5)
    v, a = _variables(var0, accum0)
    expect = (var0, accum0)
    lr, momentum = dtype(0.1), dtype(0.9)
    for _ in range(3):
        grad = _data(dtype)
        getattr(ops, op)(v.handle, a.handle, lr, grad, momentum, use_nesterov=nesterov)
        expect = reference(*expect, lr, grad, momentum, nesterov)
    for got, want in zip((v.numpy(), a.numpy()), expect):
        np.testing.assert_allclose(got, want, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_op(nesterov, dtype):
    var0, m0, v0 = _data(dtype), _data(dtype, low=-0.1, high=0.1), _data(dtype, low=0, high=0.01)
    var, m, v = _variables(var0, m0, v0)
    expect = (var0, m0, v0)
    lr, beta1, beta2, epsilon = dtype(0.01), dtype(0.9), dtype(0.999), dtype(1e-3)
    for t in range(1, 4):
        grad = _data(dtype)
        scalars = (dtype(beta1 ** t), dtype(beta2 ** t), lr, beta1, beta2, epsilon)
        ops.resource_apply_adam(var.handle, m.handle, v.handle, *scalars, grad,
                                use_nesterov=nesterov)
        expect = np_adam(*expect, *scalars, grad, nesterov)
    for got, want in zip((var.numpy(), m.numpy(), v.numpy()), expect):
        np.testing.assert_allclose(got, want, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("update_slots", [True, False])
def test_adagrad_op(update_slots, dtype):
    var0, accum0 = _data(dtype), _data(dtype, low=0.1, high=1)
    v, a = _variables(var0, accum0)
    expect = (var0, accum0)
    for _ in range(3):
        grad = _data(dtype)
        ops.resource_apply_adagrad(v.handle, a.handle, dtype(0.1), grad,
                                   update_slots=update_slots)
        expect = np_adagrad(*expect, dtype(0.1), grad, update_slots)
    for got, want in zip((v.numpy(), a.numpy()), expect):
        np.testing.assert_allclose(got, want, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rmsprop_op(dtype):
    var0, ms0, mom0 = _data(dtype), _data(dtype, low=0, high=0.5), _data(dtype, low=-0.1, high=0.1)
    var, ms, mom = _variables(var0, ms0, mom0)
    expect = (var0, ms0, mom0)
    scalars = (dtype(0.01), dtype(0.9), dtype(0.5), dtype(1e-6))
    for _ in range(3):
        grad = _data(dtype)
        ops.resource_apply_rms_prop(var.handle, ms.handle, mom.handle, *scalars, grad)
        expect = np_rmsprop(*expect, *scalars, grad)
    for got, want in zip((var.numpy(), ms.numpy(), mom.numpy()), expect):
        np.testing.assert_allclose(got, want, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype, bits", [(opgen.float16, 10), (opgen.bfloat16, 7)])
def test_16_bit_floats_compute_in_float32_and_round_once(dtype, bits):
    """The result is the float32 computation rounded once to the 16-bit type (an FMA in
    the kernel may move a float32 result by one float32 ulp, which can change the
    rounding at a tie: one 16-bit ulp at most, and rarely)."""
    def to16(x):
        return ops.cast(x, DstT=dtype)

    def to32(x):
        return ops.cast(x, DstT=opgen.float32).numpy()

    var16, grad16 = to16(_data(np.float32)), to16(_data(np.float32))
    accum16 = to16(_data(np.float32, low=0, high=0.5))
    lr16, mom16 = to16(np.float32(0.1)), to16(np.float32(0.9))
    v, a = opgen.Variable(var16), opgen.Variable(accum16)
    ops.resource_apply_momentum(v.handle, a.handle, lr16, grad16, mom16)
    wants = np_momentum(to32(var16), to32(accum16), to32(lr16)[()], to32(grad16),
                        to32(mom16)[()], False)
    for got, want in zip((v, a), wants):
        got32, want16 = to32(got.read_value()), to32(to16(want))
        np.testing.assert_allclose(got32, want16, rtol=2.0 ** -bits, atol=1e-6)
        assert np.mean(got32 == want16) >= 0.9


# ---- in place, or copy-on-write ----------------------------------------------------------------

def _data_pointer(t) -> int:
    from opgen.runtime import _lib
    return ctypes.c_void_p(_lib.lib().TF_TensorData(t._tensor)).value or 0


def _step(v, delta=1.0):
    ops.resource_apply_gradient_descent(v.handle, np.float32(1), np.full(v.shape, delta,
                                                                         np.float32))


def test_a_step_with_no_reader_alive_updates_the_buffer_in_place():
    v = opgen.Variable(np.arange(6, dtype=np.float32))
    _step(v)  # the initial value tensor shares the first buffer: this step copies
    before = v.read_value()
    address = _data_pointer(before)
    del before  # nobody else holds the value now
    for _ in range(3):
        _step(v)
    after = v.read_value()
    assert _data_pointer(after) == address, "the update should have reused the buffer"
    np.testing.assert_array_equal(after.numpy(), np.arange(6, dtype=np.float32) - 4)


def test_a_value_read_before_an_update_stays_a_snapshot():
    v = opgen.Variable(np.arange(6, dtype=np.float32))
    _step(v)
    snapshot = v.read_value()
    as_numpy = v.numpy()  # a numpy view holds the value as well
    address = _data_pointer(snapshot)
    _step(v)
    np.testing.assert_array_equal(snapshot.numpy(), np.arange(6, dtype=np.float32) - 1)
    np.testing.assert_array_equal(as_numpy, np.arange(6, dtype=np.float32) - 1)
    now = v.read_value()
    assert _data_pointer(now) != address  # copy-on-write
    np.testing.assert_array_equal(now.numpy(), np.arange(6, dtype=np.float32) - 2)


def test_multi_slot_step_copies_only_the_values_someone_holds():
    var, accum = _variables(np.ones(4, np.float32), np.zeros(4, np.float32))
    ops.resource_apply_momentum(var.handle, accum.handle, np.float32(0.1), np.ones(4, np.float32),
                                np.float32(0.5))  # first step: both copy (initial values)
    held_accum = accum.read_value()
    var_address = _data_pointer(var.read_value())  # that read is dropped at once
    ops.resource_apply_momentum(var.handle, accum.handle, np.float32(0.1), np.ones(4, np.float32),
                                np.float32(0.5))
    assert _data_pointer(var.read_value()) == var_address  # in place
    assert _data_pointer(accum.read_value()) != _data_pointer(held_accum)  # copied
    np.testing.assert_array_equal(held_accum.numpy(), np.ones(4, np.float32))
    np.testing.assert_allclose(accum.numpy(), np.full(4, 1.5, np.float32))
    np.testing.assert_allclose(var.numpy(), np.full(4, 1 - 0.1 - 0.15, np.float32), rtol=1e-6)


def test_a_callers_memory_assigned_to_a_variable_is_never_written():
    """A value over memory the runtime did not allocate (a caller's, e.g. numpy data
    taken without a copy) is copied on the first update, even with no reader left."""
    data = np.ones(5, np.float32)
    h = ops.var_handle_op(dtype=opgen.float32, shape=[5], shared_name="training_external")
    ops.assign_variable_op(h, data)
    gc.collect()
    ops.resource_apply_gradient_descent(h, np.float32(1), np.ones(5, np.float32))
    np.testing.assert_array_equal(data, np.ones(5, np.float32))
    np.testing.assert_array_equal(ops.read_variable_op(h, dtype=opgen.float32).numpy(),
                                  np.zeros(5, np.float32))
    ops.destroy_resource_op(h)


def test_assign_add_updates_in_place_too():
    v = opgen.Variable(np.zeros(3, np.float32))
    v.assign_add(np.ones(3, np.float32))
    address = _data_pointer(v.read_value())
    v.assign_add(np.ones(3, np.float32), read_value=False)
    assert _data_pointer(v.read_value()) == address
    np.testing.assert_array_equal(v.numpy(), np.full(3, 2, np.float32))


# ---- bad input -------------------------------------------------------------------------------------

def test_shape_and_scalar_errors_are_tensorflows():
    var, accum, small = _variables(np.zeros(2, np.float32), np.zeros(2, np.float32),
                                   np.zeros(3, np.float32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and delta do not have the same shape\[2\] \[3\]"):
        ops.resource_apply_gradient_descent(var.handle, np.float32(1), np.ones(3, np.float32))
    with pytest.raises(errors.InvalidArgumentError, match=r"alpha is not a scalar: \[1\]"):
        ops.resource_apply_gradient_descent(var.handle, np.float32([1]), np.ones(2, np.float32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and accum do not have the same shape\[2\] \[3\]"):
        ops.resource_apply_momentum(var.handle, small.handle, np.float32(1),
                                    np.ones(2, np.float32), np.float32(0.9))
    with pytest.raises(errors.InvalidArgumentError, match=r"momentum is not a scalar"):
        ops.resource_apply_momentum(var.handle, accum.handle, np.float32(1),
                                    np.ones(2, np.float32), np.float32([0.9, 0.9]))
    m, v = _variables(np.zeros(2, np.float32), np.zeros(3, np.float32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and v do not have the same shape\[2\] \[3\]"):
        ops.resource_apply_adam(var.handle, m.handle, v.handle, *[np.float32(0.5)] * 6,
                                np.ones(2, np.float32))
    # nothing changed on error
    for x in (var, accum, m):
        np.testing.assert_array_equal(x.numpy(), np.zeros(2, np.float32))


def test_dtype_errors_name_the_input():
    var = opgen.Variable(np.zeros(2, np.float32))
    accum64 = opgen.Variable(np.zeros(2, np.float64))
    with pytest.raises(errors.InvalidArgumentError, match=r"var: .*wrong dtype.*float got double"):
        ops.resource_apply_gradient_descent(var.handle, np.float64(1), np.ones(2, np.float64))
    var64 = opgen.Variable(np.zeros(2, np.float64))
    with pytest.raises(errors.InvalidArgumentError, match=r"accum: .*wrong dtype"):
        ops.resource_apply_momentum(var64.handle, var.handle, np.float64(1),
                                    np.ones(2, np.float64), np.float64(0.9))
    del accum64


def test_the_same_variable_twice_is_refused():
    var = opgen.Variable(np.zeros(2, np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="var and accum are the same variable"):
        ops.resource_apply_momentum(var.handle, var.handle, np.float32(1),
                                    np.ones(2, np.float32), np.float32(0.9))


def test_uninitialized_variables_fail_precondition_naming_the_input():
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(np.zeros(2, np.float32), name="w")
        acc = opgen.Variable(np.zeros(2, np.float32), name="acc")
        step = ops.resource_apply_momentum(w.handle, acc.handle, np.float32(1),
                                           np.ones(2, np.float32), np.float32(0.9))
    with opgen.Session(g) as sess:
        with pytest.raises(errors.FailedPreconditionError,
                           match=r"uninitialized variables: var \(variable 'w'"):
            sess.run(step)
        sess.run(w.initializer)
        with pytest.raises(errors.FailedPreconditionError,
                           match=r"uninitialized variables: accum \(variable 'acc'"):
            sess.run(step)
        sess.run(acc.initializer)
        sess.run(step)
        np.testing.assert_allclose(sess.run(w.read_value()), np.float32([-1, -1]))


# ---- opgen.train --------------------------------------------------------------------------------

def _reference_run(kind, var0, grads, dtype):
    """The optimizer's steps in numpy, as TensorFlow's v1 optimizers make them:
    hyperparameters are float32 tensors cast to the variable's dtype; Adam's beta powers
    are float32 variables, multiplied after each step."""
    f32 = lambda x: dtype(np.float32(x))  # noqa: E731
    var = var0
    if kind == "sgd":
        for g in grads:
            (var,) = np_gradient_descent(var, f32(0.1), g)
        return [var]
    if kind in ("momentum", "nesterov"):
        accum = np.zeros_like(var0)
        for g in grads:
            var, accum = np_momentum(var, accum, f32(0.1), g, f32(0.9), kind == "nesterov")
        return [var, accum]
    m, v = np.zeros_like(var0), np.zeros_like(var0)
    b1p, b2p = np.float32(0.9), np.float32(0.999)
    for g in grads:
        var, m, v = np_adam(var, m, v, dtype(b1p), dtype(b2p), f32(0.01), f32(0.9), f32(0.999),
                            f32(1e-8), g, False)
        b1p, b2p = b1p * np.float32(0.9), b2p * np.float32(0.999)
    return [var, m, v]


def _optimizer(kind):
    if kind == "sgd":
        return opgen.train.GradientDescentOptimizer(0.1)
    if kind in ("momentum", "nesterov"):
        return opgen.train.MomentumOptimizer(0.1, 0.9, use_nesterov=kind == "nesterov")
    return opgen.train.AdamOptimizer(0.01)


def _slots(opt, var, kind):
    return {"sgd": [], "momentum": ["momentum"], "nesterov": ["momentum"],
            "adam": ["m", "v"]}[kind]


KINDS = ["sgd", "momentum", "nesterov", "adam"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_optimizers_eagerly(kind, dtype):
    var0 = _data(dtype)
    grads = [_data(dtype) for _ in range(3)]
    var = opgen.Variable(var0, name="w")
    step = opgen.Variable(np.int64(0), name="global_step", trainable=False)
    opt = _optimizer(kind)
    for g in grads:
        assert opt.apply_gradients([(g, var)], global_step=step) is None
    want = _reference_run(kind, var0, grads, dtype)
    got = [var.numpy()] + [opt.get_slot(var, s).numpy() for s in _slots(opt, var, kind)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=_tol(dtype), atol=_tol(dtype))
    assert step.numpy() == 3
    assert opt.get_slot_names() == _slots(opt, var, kind)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_optimizers_in_a_session(kind, dtype):
    var0, var1 = _data(dtype), _data(dtype, shape=(5,))
    grads = [_data(dtype) for _ in range(3)]
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(var0, name="w")
        b = opgen.Variable(var1, name="b")
        grad = g.create_op("Placeholder", [], {"dtype": opgen.as_dtype(dtype),
                                               "shape": list(SHAPE)}, name="grad").outputs[0]
        opt = _optimizer(kind)
        train = opt.apply_gradients([(grad, w), (None, b)])
        init = opgen.global_variables_initializer()
    assert train.type == "NoOp" and train.name == opt.get_name()
    with opgen.Session(g) as sess:
        sess.run(init)
        for x in grads:
            sess.run(train, {grad: x})
        got = [sess.run(w.read_value())] + [sess.run(opt.get_slot(w, s).read_value())
                                             for s in _slots(opt, w, kind)]
        np.testing.assert_array_equal(sess.run(b.read_value()), var1)  # None: left alone
    for a, want in zip(got, _reference_run(kind, var0, grads, dtype)):
        np.testing.assert_allclose(a, want, rtol=_tol(dtype), atol=_tol(dtype))


def test_graph_names_follow_tensorflow():
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(np.zeros(2, np.float32), name="w")
        opt = opgen.train.AdamOptimizer()
        train = opt.apply_gradients([(np.ones(2, np.float32), w)])
    names = {op.name: op.type for op in g.get_operations()}
    assert train.name == "Adam"
    assert names["w/Adam"] == "VarHandleOp" and names["w/Adam_1"] == "VarHandleOp"
    assert names["beta1_power"] == "VarHandleOp" and names["beta2_power"] == "VarHandleOp"
    assert names["Adam/update_w/ResourceApplyAdam"] == "ResourceApplyAdam"
    assert opt.get_slot(w, "m").name == "w/Adam:0"
    assert [v.name for v in opt.variables()][:2] == ["beta1_power:0", "beta2_power:0"]


def test_hyperparameters_may_be_tensors_and_callables():
    var = opgen.Variable(np.ones(2, np.float64))
    lr = opgen.Variable(np.float32(0.5))
    opt = opgen.train.GradientDescentOptimizer(lr)
    opt.apply_gradients([(np.ones(2, np.float64), var)])
    lr.assign(0.25)
    opt.apply_gradients([(np.ones(2, np.float64), var)])
    np.testing.assert_allclose(var.numpy(), np.full(2, 0.25))
    opgen.train.MomentumOptimizer(lambda: 0.25, momentum=0.0).apply_gradients(
        [(np.ones(2, np.float64), var)])
    np.testing.assert_allclose(var.numpy(), np.zeros(2))


def test_apply_gradients_errors():
    var = opgen.Variable(np.zeros(2, np.float32), name="w")
    opt = opgen.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, var)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(TypeError, match=r"opgen\.Variable"):
        opt.apply_gradients([(np.zeros(2, np.float32), np.zeros(2, np.float32))])
    with pytest.raises(errors.InvalidArgumentError, match="gradient of variable 'w:0'"):
        opt.apply_gradients([(np.zeros(2, np.float64), var)])
    with pytest.raises(errors.InvalidArgumentError, match="var and delta do not have the same"):
        opt.apply_gradients([(np.zeros(3, np.float32), var)])
    g = opgen.Graph()
    with g.as_default():
        other = opgen.Variable(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="one graph"):
        opt.apply_gradients([(np.zeros(2, np.float32), var), (np.zeros(2, np.float32), other)])
