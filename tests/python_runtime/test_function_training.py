"""The training step users write as ``@tf.function``: a GradientTape, the loss and the
optimizer's update all inside ``opgen.function``. Compared with TensorFlow 2.21 running
the same step under ``tf.function`` with ``tf.compat.v1.train``'s optimizers (in the child
interpreter $OPGEN_TF_PYTHON names; skipped without it), and checked on its own for what
a traced body must keep: updates run at every call, in program order, in cond and while
bodies too; the tape sees only what happened inside it."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

_STEPS = 5

_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
data = dict(np.load(sys.argv[2]))
out = {}
for name in spec["optimizers"]:
    w1 = tf.Variable(data["w1"]); b1 = tf.Variable(data["b1"]); w2 = tf.Variable(data["w2"])
    opt = {"sgd": lambda: tf.compat.v1.train.GradientDescentOptimizer(0.05),
           "momentum": lambda: tf.compat.v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
           "adam": lambda: tf.compat.v1.train.AdamOptimizer(0.01)}[name]()
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
        grads = tape.gradient(loss, [w1, b1, w2])
        opt.apply_gradients(zip(grads, [w1, b1, w2]))
        return loss
    out[name + "_loss"] = np.array([step(data["x"], data["y"]).numpy()
                                    for _ in range(spec["steps"])])
    for v, key in ((w1, "w1"), (b1, "b1"), (w2, "w2")):
        out[f"{name}_{key}"] = v.numpy()
np.savez(sys.argv[-1], **out)
"""

_OPTIMIZERS = {
    "sgd": lambda: opgen.train.GradientDescentOptimizer(0.05),
    "momentum": lambda: opgen.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: opgen.train.AdamOptimizer(0.01),
}


def _data():
    rng = np.random.default_rng(3)
    return {"x": rng.standard_normal((8, 4)).astype(np.float32),
            "y": rng.standard_normal((8, 2)).astype(np.float32),
            "w1": (rng.standard_normal((4, 6)) * 0.5).astype(np.float32),
            "b1": (rng.standard_normal(6) * 0.1).astype(np.float32),
            "w2": (rng.standard_normal((6, 2)) * 0.5).astype(np.float32)}


@pytest.fixture(scope="module")
def tf_out():
    return run_tf_script(_TF_SCRIPT, _data(), {"optimizers": list(_OPTIMIZERS),
                                               "steps": _STEPS})


@pytest.mark.parametrize("name", list(_OPTIMIZERS))
def test_training_step_in_a_function_matches_tensorflow(tf_out, name):
    data = _data()
    w1, b1, w2 = (opgen.Variable(data[k]) for k in ("w1", "b1", "w2"))
    opt = _OPTIMIZERS[name]()

    @opgen.function
    def step(x, y):
        with opgen.GradientTape() as tape:
            h = ops.relu(ops.add_v2(ops.mat_mul(x, w1), b1))
            loss = ops.mean(ops.square(ops.sub(ops.mat_mul(h, w2), y)), np.int32([0, 1]))
        grads = tape.gradient(loss, [w1, b1, w2])
        opt.apply_gradients(zip(grads, [w1, b1, w2]))
        return loss

    losses = [float(step(data["x"], data["y"])) for _ in range(_STEPS)]
    np.testing.assert_allclose(losses, tf_out[f"{name}_loss"], rtol=2e-5)
    for v, key in ((w1, "w1"), (b1, "b1"), (w2, "w2")):
        np.testing.assert_allclose(v.numpy(), tf_out[f"{name}_{key}"], rtol=2e-5, atol=1e-6)


def test_updates_run_every_call_in_program_order():
    v = opgen.Variable(np.float32([1, 2]))

    @opgen.function
    def f(x):
        before = v.read_value()
        v.assign_add(x)          # its result is not returned: it runs all the same
        middle = v.read_value()
        v.assign(middle * 2.0, read_value=False)
        return before, middle, v.read_value()

    before, middle, after = f(np.float32([1, 1]))
    np.testing.assert_array_equal(before, [1, 2])
    np.testing.assert_array_equal(middle, [2, 3])
    np.testing.assert_array_equal(after, [4, 6])
    np.testing.assert_array_equal(v.numpy(), [4, 6])
    f(np.float32([0, 0]))
    np.testing.assert_array_equal(v.numpy(), [8, 12])


def test_updates_in_cond_and_while_bodies():
    v = opgen.Variable(np.float32([1, 2]))
    count = opgen.Variable(0.0)

    @opgen.function
    def f(x, flag, n):
        opgen.cond(flag, lambda: v.assign_add(x), lambda: v.assign_sub(x))

        def body(i):
            count.assign_add(1.0)
            return [i + 1]

        opgen.while_loop(lambda i: i < n, body, [opgen.constant(0)])
        return v.read_value()

    np.testing.assert_array_equal(f(np.float32([1, 1]), np.bool_(True), np.int32(3)), [2, 3])
    np.testing.assert_array_equal(f(np.float32([5, 5]), np.bool_(False), np.int32(2)), [-3, -2])
    assert count.numpy() == 5.0


def test_tape_in_a_function_sees_only_its_block():
    """As TensorFlow's: an Output not watched, or a variable read only before the tape
    started, gets None; a watched Output and the reads inside get their gradients."""
    v = opgen.Variable(np.float32(3.0))

    @opgen.function
    def f(x):
        early = v * 1.0
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = x * x * early
        with opgen.GradientTape() as tape2:
            z = x * v
        dx, dv = tape.gradient(y, [x, v])
        dv2, dx2 = tape2.gradient(z, [v, x])
        return dx, dv is None, dv2, dx2 is None

    dx, dv_none, dv2, dx2_none = f(np.float32(2.0))
    assert float(dx) == 12.0 and bool(dv_none)
    assert float(dv2) == 2.0 and bool(dx2_none)


def test_graph_mode_tape_in_a_session():
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(np.float32([2, 3]))
        x = ops.placeholder(opgen.float32, shape=[2])
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(w * x * x, np.int32(0))
        dw, dx = tape.gradient(y, [w, x])
        assert tape.watched_variables() == (w,)
        init = opgen.global_variables_initializer()
    with opgen.Session(g) as sess:
        sess.run(init)
        got_w, got_x = sess.run([dw, dx], {x: np.float32([1, 2])})
    np.testing.assert_array_equal(got_w, [1, 4])   # x * x
    np.testing.assert_array_equal(got_x, [4, 12])  # 2 * w * x


def test_assign_under_an_outer_tape_is_refused_with_a_reason():
    v = opgen.Variable(np.float32(1.0))

    @opgen.function
    def f(x):
        v.assign_add(x)
        return x * v

    with opgen.GradientTape() as tape:
        x = opgen.constant(np.float32(2.0))
        tape.watch(x)
        with pytest.raises(opgen.errors.UnimplementedError, match="outer GradientTape"):
            f(x)


def test_minimize_inside_a_function_equals_eager_minimize():
    """Optimizer.minimize(callable) inside opgen.function: the variables it reads are found
    by the tape in the body (var_list left out), and the steps equal the eager ones."""
    target = np.float32([0.5, -1.0])
    traced, eager = opgen.Variable(np.float32([1, 2])), opgen.Variable(np.float32([1, 2]))
    opt_traced, opt_eager = opgen.train.AdamOptimizer(0.1), opgen.train.AdamOptimizer(0.1)

    @opgen.function
    def step(t):
        opt_traced.minimize(lambda: ops.sum(ops.square(traced - t), np.int32(0)))

    for _ in range(4):
        step(target)
        opt_eager.minimize(lambda: ops.sum(ops.square(eager - target), np.int32(0)))
    np.testing.assert_array_equal(traced.numpy(), eager.numpy())
    assert traced.numpy().tolist() != [1.0, 2.0]


def test_jacobian_inside_a_function_equals_the_eager_one():
    v = opgen.Variable(np.float32([1, 2, 3]))

    def model(x):
        return ops.mul(ops.mul(x, x), ops.slice(v.value(), np.int32([0]), np.int32([2])))

    @opgen.function
    def f(x):
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = model(x)
        return tape.jacobian(y, [x, v])

    x = opgen.constant(np.float32([3, 4]))
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = model(x)
    traced = f(x)
    for got, want in zip(traced, [tape.jacobian(y, x), tape.jacobian(y, v)]):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(traced[0].numpy(), [[6, 0], [0, 16]])


@pytest.mark.parametrize("make", [lambda: opgen.train.AdagradOptimizer(0.5),
                                  lambda: opgen.train.AdamOptimizer(0.5)])
def test_sparse_embedding_step_inside_a_function_equals_eager(make):
    """A gather's gradient is an IndexedSlices inside the body too, applied through the
    optimizer's sparse update with the repeated index summed."""
    results = []
    for traced in (True, False):
        table = opgen.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        opt = make()

        def step(ids, table=table, opt=opt):
            with opgen.GradientTape() as tape:
                loss = ops.sum(ops.square(table.sparse_read(ids)), np.int32([0, 1]))
            grads = tape.gradient(loss, [table])
            assert isinstance(grads[0], opgen.IndexedSlices)
            opt.apply_gradients(zip(grads, [table]))

        run = opgen.function(step) if traced else step
        for _ in range(2):
            run(np.int32([1, 3, 1]))
        results.append(table.numpy())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0][[0, 2]], [[0, 1, 2], [6, 7, 8]])  # rows not read


def test_slice_assign_and_scatter_updates_inside_a_function():
    v = opgen.Variable(np.zeros((3, 4), np.float32))

    @opgen.function
    def f(x):
        v[1:3, ::2].assign(x)
        v.scatter_nd_add(np.int32([[0, 1]]), np.float32([5]))
        return v.read_value()

    want = np.zeros((3, 4), np.float32)
    for _ in range(2):
        want[1:3, ::2] = 1
        want[0, 1] += 5
        np.testing.assert_array_equal(f(np.ones((2, 2), np.float32)).numpy(), want)
