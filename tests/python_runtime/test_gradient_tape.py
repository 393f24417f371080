"""opgen.GradientTape beyond first derivatives: nested tapes (second derivatives against
analytic ones, central differences and tf.GradientTape in a child process), a persistent
tape differentiating its own gradient, stop_recording/reset/watched_variables, jacobian,
and the compiled gradient graphs a repeated step reuses (fed values, not baked ones;
rebuilt when the structure or a gradient registration changes)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.runtime import _tape_program
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")
ops = opgen.ops
rng = np.random.default_rng(5)
ALL = [0, 1]


def _second(fn, x0):
    """d/dx of sum(d fn/dx) with two nested tapes (non-persistent, both watching x)."""
    x = opgen.constant(x0)
    with opgen.GradientTape() as outer:
        outer.watch(x)
        with opgen.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        dy = inner.gradient(y, x)
    return dy.numpy(), outer.gradient(dy, x).numpy()


def test_nested_tapes_give_analytic_second_derivatives():
    x0 = np.array([0.3, -0.7, 1.2])
    dy, d2 = _second(lambda x: ops.sum(ops.tanh(x) * x * x, [0]), x0)
    t = np.tanh(x0)
    s = 1 - t ** 2
    np.testing.assert_allclose(dy, s * x0 ** 2 + 2 * x0 * t, rtol=1e-12)
    np.testing.assert_allclose(d2, -2 * t * s * x0 ** 2 + 4 * x0 * s + 2 * t, rtol=1e-12)
    dy, d2 = _second(lambda x: ops.sum(ops.exp(x) / (1.0 + x * x), [0]), x0)
    e, q = np.exp(x0), 1 + x0 ** 2
    np.testing.assert_allclose(dy, e / q - 2 * x0 * e / q ** 2, rtol=1e-12)
    want = e / q - 4 * x0 * e / q ** 2 - 2 * e / q ** 2 + 8 * x0 ** 2 * e / q ** 3
    np.testing.assert_allclose(d2, want, rtol=1e-12)


def test_persistent_tape_differentiates_its_own_gradient():
    v0 = np.array([1.5, -0.5])
    v = opgen.Variable(v0)
    with opgen.GradientTape(persistent=True) as tape:
        y = ops.sum(ops.exp(v.value()) * v.value() ** 3.0, [0])
        g = tape.gradient(y, v)  # recorded: the tape is still active
    h = tape.gradient(g, v)
    e = np.exp(v0)
    np.testing.assert_allclose(g.numpy(), e * v0 ** 3 + 3 * e * v0 ** 2, rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), e * v0 ** 3 + 6 * e * v0 ** 2 + 6 * e * v0, rtol=1e-12)
    assert tape.watched_variables() == (v,)


def test_mixed_partials_with_different_watched_sources():
    a = opgen.constant(2.0, dtype=opgen.float64)
    x = opgen.constant(3.0, dtype=opgen.float64)
    with opgen.GradientTape() as outer:
        outer.watch(a)
        with opgen.GradientTape() as inner:
            inner.watch(x)
            y = a * ops.sin(x) * x
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), 2.0 * (np.cos(3.0) * 3.0 + np.sin(3.0)))
    np.testing.assert_allclose(outer.gradient(g, a).numpy(), np.cos(3.0) * 3.0 + np.sin(3.0))


def _mlp_loss(x, labels):
    def loss(w1, w2):
        h = ops.tanh(ops.mat_mul(x, w1))
        logits = ops.mat_mul(h, w2)
        return ops.mean(ops.sparse_softmax_cross_entropy_with_logits(logits, labels)[0], [0])
    return loss


def test_hessian_vector_product_against_central_differences():
    x, labels = rng.uniform(-1, 1, (5, 3)), np.int32([0, 2, 1, 1, 0])
    w10, w20 = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 3))
    u1, u2 = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 3))
    loss = _mlp_loss(opgen.constant(x), labels)
    w1, w2 = opgen.Variable(w10), opgen.Variable(w20)

    def gradient_at(a, b):
        w1.assign(a)
        w2.assign(b)
        with opgen.GradientTape() as tape:
            value = loss(w1.value(), w2.value())
        return [g.numpy() for g in tape.gradient(value, [w1, w2])]

    w1.assign(w10)
    w2.assign(w20)
    with opgen.GradientTape() as outer:
        with opgen.GradientTape() as inner:
            value = loss(w1.value(), w2.value())
        g1, g2 = inner.gradient(value, [w1, w2])
        dot = ops.sum(g1 * u1, ALL) + ops.sum(g2 * u2, ALL)
    hv = [h.numpy() for h in outer.gradient(dot, [w1, w2])]
    eps = 1e-6
    plus = gradient_at(w10 + eps * u1, w20 + eps * u2)
    minus = gradient_at(w10 - eps * u1, w20 - eps * u2)
    for got, p, m in zip(hv, plus, minus):
        np.testing.assert_allclose(got, (p - m) / (2 * eps), rtol=1e-6, atol=1e-9)


# ---- against TensorFlow ---------------------------------------------------------------------

TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
data = json.loads(sys.stdin.read())
x = tf.constant(np.array(data["x"]))
labels = np.array(data["labels"], np.int32)
w1 = tf.Variable(np.array(data["w1"]))
w2 = tf.Variable(np.array(data["w2"]))
filt = tf.Variable(np.array(data["filt"]))
img = tf.constant(np.array(data["img"]))
u1, u2, uf = (tf.constant(np.array(data[k])) for k in ("u1", "u2", "uf"))
out = {}
xs = tf.constant(np.array(data["xs"]))
with tf.GradientTape() as outer:
    outer.watch(xs)
    with tf.GradientTape() as inner:
        inner.watch(xs)
        y = tf.reduce_sum(tf.sigmoid(xs) * tf.sqrt(xs) + tf.math.log(xs) * xs)
    g = inner.gradient(y, xs)
out["diag"] = outer.gradient(g, xs).numpy().tolist()
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        h = tf.nn.relu(tf.matmul(x, w1))
        logits = tf.matmul(h, w2)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            tf.one_hot(labels, 3, dtype=tf.float64), logits))
    g1, g2 = inner.gradient(loss, [w1, w2])
    dot = tf.reduce_sum(g1 * u1) + tf.reduce_sum(g2 * u2)
out["hv"] = [t.numpy().tolist() for t in outer.gradient(dot, [w1, w2])]
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        c = tf.nn.conv2d(img, filt, strides=1, padding="SAME")
        y = tf.reduce_sum(tf.square(tf.nn.bias_add(c, tf.constant([0.1, -0.2, 0.3], tf.float64))))
    gf = inner.gradient(y, filt)
    dot = tf.reduce_sum(gf * uf)
out["conv_hv"] = outer.gradient(dot, filt).numpy().tolist()
print(json.dumps(out))
"""


def test_nested_tapes_against_tensorflow():
    tf_python()  # skips first when there is no TensorFlow
    data = {"xs": rng.uniform(0.5, 2.0, (2, 3)), "x": rng.uniform(-1, 1, (5, 3)),
            "labels": [0, 2, 1, 1, 0], "w1": rng.uniform(-1, 1, (3, 4)),
            "w2": rng.uniform(-1, 1, (4, 3)), "u1": rng.uniform(-1, 1, (3, 4)),
            "u2": rng.uniform(-1, 1, (4, 3)), "img": rng.uniform(-1, 1, (2, 5, 5, 2)),
            "filt": rng.uniform(-1, 1, (3, 3, 2, 3)), "uf": rng.uniform(-1, 1, (3, 3, 2, 3))}
    done = run_tf(["-c", TF_SCRIPT], timeout=300,
                  input=json.dumps({k: np.asarray(v).tolist() for k, v in data.items()}))
    want = json.loads(done.stdout.strip().splitlines()[-1])

    _, diag = _second(lambda xs: ops.sum(ops.sigmoid(xs) * ops.sqrt(xs) + ops.log(xs) * xs, ALL),
                      data["xs"])
    np.testing.assert_allclose(diag, want["diag"], rtol=1e-10)

    x, labels = opgen.constant(data["x"]), np.int32(data["labels"])
    w1, w2 = opgen.Variable(data["w1"]), opgen.Variable(data["w2"])
    with opgen.GradientTape() as outer:
        with opgen.GradientTape() as inner:
            logits = ops.mat_mul(ops.relu(ops.mat_mul(x, w1)), w2)
            onehot = ops.one_hot(labels, 3, np.float64(1), np.float64(0))
            loss = ops.mean(ops.softmax_cross_entropy_with_logits(logits, onehot)[0], [0])
        g1, g2 = inner.gradient(loss, [w1, w2])
        dot = ops.sum(g1 * data["u1"], ALL) + ops.sum(g2 * data["u2"], ALL)
    for got, ref in zip(outer.gradient(dot, [w1, w2]), want["hv"]):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)

    filt, img = opgen.Variable(data["filt"]), opgen.constant(data["img"])
    with opgen.GradientTape() as outer:
        with opgen.GradientTape() as inner:
            c = ops.conv2d(img, filt, strides=[1, 1, 1, 1], padding="SAME")
            y = ops.sum(ops.square(ops.bias_add(c, np.float64([0.1, -0.2, 0.3]))), [0, 1, 2, 3])
        gf = inner.gradient(y, filt)
        dot = ops.sum(gf * data["uf"], [0, 1, 2, 3])
    np.testing.assert_allclose(outer.gradient(dot, filt).numpy(), want["conv_hv"], rtol=1e-10)


# ---- recording controls ---------------------------------------------------------------------

def test_stop_recording_reset_and_unrecorded_targets():
    x = opgen.constant(np.array([1.0, 2.0]))
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * 3.0  # not recorded: z is a constant for the tape
        w = z * x
    np.testing.assert_allclose(tape.gradient(w, x).numpy(), 3 * x.numpy() ** 2)
    assert tape.gradient(z, x) is None
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy())
    outside = x * 5.0
    assert tape.gradient(outside, x) is None  # computed after the block
    tape.reset()
    assert tape.gradient(y, x) is None and tape.watched_variables() == ()
    with pytest.raises(ValueError, match="stop_recording"), tape.stop_recording():
        pass
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()  # still recording, from scratch
        tape.watch(x)
        y = x * x * x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * x.numpy() ** 2)


def test_output_gradients_count_is_checked():
    x = opgen.constant(np.array([1.0, 2.0]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="2 output_gradients for 1 targets"):
        tape.gradient(y, x, output_gradients=[np.ones(2), np.ones(2)])


def test_stateful_ops_are_not_replayed():
    x = opgen.constant(np.array([1.0, 2.0]))
    v = opgen.Variable(np.zeros(2), trainable=False)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        v.assign(x * 2.0)  # a write with a recorded input: replaying it would write again
        y = ops.sum(x * x * v, [0])  # v: not watched, its value then is a constant
    v.assign([7.0, 7.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy() * (2 * x.numpy()))
    np.testing.assert_allclose(v.numpy(), [7.0, 7.0])


def test_jacobian():
    x0 = np.array([0.5, -1.0, 2.0])
    x = opgen.constant(x0)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = ops.pack([ops.sin(x) * x[0], x * x], axis=0)  # (2, 3)
    jac = tape.jacobian(y, x).numpy()
    want = np.zeros((2, 3, 3))
    want[0] = np.diag(np.cos(x0) * x0[0])
    want[0, :, 0] += np.sin(x0)
    want[1] = np.diag(2 * x0)
    np.testing.assert_allclose(jac, want, rtol=1e-12)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    assert tape.jacobian(y, [x, opgen.constant(1.0)])[1] is None


# ---- the compiled step ------------------------------------------------------------------------

def test_repeated_steps_reuse_one_graph_and_feed_current_values():
    _tape_program.clear_cache()
    w = opgen.Variable(np.array([[1.0, -2.0], [0.5, 3.0]]))
    opt = opgen.train.GradientDescentOptimizer(0.1)
    x0 = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    for step in range(4):
        x = opgen.constant(x0 * (step + 1))  # new data each step: fed, not baked in
        w_now = w.numpy()
        with opgen.GradientTape() as tape:
            loss = ops.sum(ops.square(ops.mat_mul(x, w)), ALL)
        (grad,) = tape.gradient(loss, [w])
        xv = x0 * (step + 1)
        np.testing.assert_allclose(grad.numpy(), 2 * xv.T @ (xv @ w_now), rtol=1e-12)
        opt.apply_gradients([(grad, w)])
        lr = float(np.float32(0.1))  # (float32 hyperparameters, as TensorFlow's)
        np.testing.assert_allclose(w.numpy(), w_now - lr * grad.numpy(), rtol=1e-12)
    assert len(_tape_program._cache) == 1


def test_a_changed_structure_builds_a_new_graph():
    _tape_program.clear_cache()
    results = []
    for shape, scale, op in [((2,), 3.0, ops.sin), ((3,), 3.0, ops.sin), ((2,), 4.0, ops.sin),
                             ((2,), 3, ops.sin), ((2,), 3.0, ops.cos), ((2,), 3.0, ops.sin)]:
        x0 = np.linspace(0.1, 0.9, shape[0])
        x = opgen.constant(x0)
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = op(x) * scale
        results.append(tape.gradient(y, x).numpy())
        deriv = np.cos(x0) if op is ops.sin else -np.sin(x0)
        np.testing.assert_allclose(results[-1], deriv * scale, rtol=1e-12)
    assert len(_tape_program._cache) == 4  # the last repeats the first; 3 and 3.0 convert alike
    for scale in (-0.0, 0.0, float("nan"), float("nan")):  # constants by their bits
        x = opgen.constant(np.array([0.5, 1.0]))
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = x * scale
        np.testing.assert_array_equal(np.signbit(tape.gradient(y, x).numpy()), np.signbit(scale))
    assert len(_tape_program._cache) == 7
    # the same structure with a float32 source: another graph
    x = opgen.constant(np.float32([0.1, 0.9]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = ops.sin(x) * 3.0
    assert tape.gradient(y, x).dtype == opgen.float32
    assert len(_tape_program._cache) == 8


def test_a_new_gradient_registration_is_not_hidden_by_a_compiled_graph():
    x = opgen.constant(np.array([0.2, 0.4]))
    want = 1 / (1 + x.numpy())

    def grad_of_log1p():
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = ops.log1p(x)
        return tape.gradient(y, x).numpy()

    np.testing.assert_allclose(grad_of_log1p(), want, rtol=1e-12)

    @opgen.RegisterGradient("Log1p")
    def _seven(op, grad):
        return grad * 7.0
    try:
        np.testing.assert_allclose(grad_of_log1p(), [7.0, 7.0])
    finally:
        opgen.runtime.gradients_impl._unregister("Log1p")
    np.testing.assert_allclose(grad_of_log1p(), want, rtol=1e-12)
