"""opgen.GradientTape through eager calls of opgen.function that read variables: the
gradients with respect to the arguments and to the variables the function reads (a
dense layer, cond and while_loop inside, nested functions, a variable changed after the
call, watch_accessed_variables=False, persistent tapes, second derivatives) against
tf.GradientTape over the same tf.function in a child process (TensorFlow 2.21) and
central differences; an SGD loop of a model written as one function whose losses match
TensorFlow's; functions without inputs (no hidden argument: eagerly, in graphs, their
FunctionDef signature against TensorFlow's)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.runtime import _tape_program
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")
ops = opgen.ops
rng = np.random.default_rng(23)

DATA = {
    "x": rng.uniform(-1, 1, (4, 3)), "W": rng.uniform(-1, 1, (3, 2)), "b": rng.uniform(-1, 1, 2),
    "v": 0.5, "w": rng.uniform(-1, 1, 3), "xs": [0.7, -0.4],
    "tx": rng.uniform(-1, 1, (16, 3)).astype(np.float32),
    "ty": rng.uniform(-1, 1, (16, 1)).astype(np.float32),
    "W1": rng.uniform(-0.8, 0.8, (3, 8)).astype(np.float32),
    "b1": rng.uniform(-0.1, 0.1, 8).astype(np.float32),
    "W2": rng.uniform(-0.8, 0.8, (8, 1)).astype(np.float32),
    "b2": np.zeros(1, np.float32),
}
STEPS, LR = 25, 0.1

# The same functions in TensorFlow; each case's gradients (None as null) as JSON.
TF_SCRIPT = """
import json, sys
import numpy as np, tensorflow as tf
d = {k: np.array(v) for k, v in json.loads(sys.stdin.read()).items()}  # float64
out = {}
def listed(gs):
    return [None if g is None else g.numpy().tolist() for g in gs]

W, b = tf.Variable(d["W"]), tf.Variable(d["b"])
@tf.function
def dense(x):
    return tf.tanh(tf.matmul(x, W) + b)
x = tf.constant(d["x"])
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.reduce_sum(dense(x) ** 2)
out["dense"] = listed(t.gradient(y, [x, W, b]))

v = tf.Variable(d["v"])
@tf.function
def flow(x):
    y = tf.cond(x > 0, lambda: x * v, lambda: x - v)
    _, z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, tf.sin(z) * v + x),
                         [0, y])
    return z
@tf.function
def scaled(x):
    return flow(x) * v
out["flow"] = []
for x0 in d["xs"]:
    x = tf.constant(x0)
    with tf.GradientTape() as t:
        t.watch(x)
        z = scaled(x)
    out["flow"].append(listed(t.gradient(z, [x, v])))

w = tf.Variable(d["w"])
@tf.function
def inner(x):
    return tf.reduce_sum(x * w)
@tf.function
def outer(x):
    return inner(x) * v + inner(x * x)
x = tf.constant(d["w"][::-1])
with tf.GradientTape() as t:
    t.watch(x)
    y = outer(x)
out["nested"] = listed(t.gradient(y, [x, v, w]))

with tf.GradientTape() as t:
    t.watch(x)
    y = outer(x)
v.assign(2.5)
w.assign(w * 3.0)
out["changed"] = listed(t.gradient(y, [x, v, w]))
v.assign(d["v"])
w.assign(d["w"])

with tf.GradientTape(watch_accessed_variables=False) as t:
    t.watch(x)
    y = outer(x)
out["unwatched"] = listed(t.gradient(y, [x, v, w]))
with tf.GradientTape(watch_accessed_variables=False) as t:
    t.watch(w)
    y = outer(x)
out["watch_w"] = listed(t.gradient(y, [x, v, w]))
with tf.GradientTape(persistent=True) as t:
    y1 = inner(x)
    y2 = outer(x) * outer(x)
out["persistent"] = [listed(t.gradient(y1, [v, w])), listed(t.gradient(y2, [v, w]))]

@tf.function
def no_inputs():
    return tf.reduce_sum(w * w) * v
with tf.GradientTape() as t:
    y = no_inputs()
out["no_inputs"] = listed(t.gradient(y, [v, w]))
sig = tf.function(lambda: tf.constant([1.0, 2.0]) * 3.0).get_concrete_function(
    ).function_def.signature
out["signature"] = [len(sig.input_arg), [a.type for a in sig.output_arg]]

params = [tf.Variable(np.float32(d[k])) for k in ("W1", "b1", "W2", "b2")]
W1, b1, W2, b2 = params
@tf.function
def loss_fn(x, y):
    h = tf.nn.relu(tf.matmul(x, W1) + b1)
    return tf.reduce_mean(tf.square(tf.matmul(h, W2) + b2 - y))
tx, ty = tf.constant(np.float32(d["tx"])), tf.constant(np.float32(d["ty"]))
losses = []
for _ in range(STEPS):
    with tf.GradientTape() as t:
        loss = loss_fn(tx, ty)
    for p, g in zip(params, t.gradient(loss, params)):
        p.assign_sub(LR * g)
    losses.append(float(loss))
out["sgd"] = [losses, [p.numpy().tolist() for p in params]]
print(json.dumps(out))
""".replace("STEPS", str(STEPS)).replace("LR", str(LR))


@pytest.fixture(scope="module")
def tf_results():
    tf_python()  # skips first when there is no TensorFlow
    data = {k: np.asarray(v).tolist() for k, v in DATA.items()}
    done = run_tf(["-c", TF_SCRIPT], input=json.dumps(data), timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same(got, want, rtol=1e-10):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None, f"gradient {i}: TensorFlow has none, opgen {g}"
        else:
            assert g is not None, f"gradient {i}: opgen has none"
            np.testing.assert_allclose(g.numpy(), w, rtol=rtol, atol=1e-12,
                                       err_msg=f"gradient {i}")


def _central(fn, at, eps=1e-6):
    """Central differences of the scalar fn (numpy) at the array `at`."""
    at = np.array(at, np.float64)
    grad = np.zeros_like(at)
    for i in np.ndindex(at.shape):
        step = np.zeros_like(at)
        step[i] = eps
        grad[i] = (fn(at + step) - fn(at - step)) / (2 * eps)
    return grad


def _dense_setup():
    W, b = opgen.Variable(DATA["W"]), opgen.Variable(DATA["b"])

    @opgen.function
    def dense(x):
        return ops.tanh(ops.mat_mul(x, W) + b)
    return W, b, dense


def test_dense_layer_gradients_for_the_argument_and_both_variables(tf_results):
    W, b, dense = _dense_setup()
    x = opgen.constant(DATA["x"])
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(dense(x) ** 2, [0, 1])
    grads = tape.gradient(y, [x, W, b])
    _same(grads, tf_results["dense"])

    def loss(xv, Wv, bv):
        return float((np.tanh(xv @ Wv + bv) ** 2).sum())
    xv, Wv, bv = DATA["x"], DATA["W"], DATA["b"]
    for got, fd in zip(grads, [_central(lambda a: loss(a, Wv, bv), xv),
                               _central(lambda a: loss(xv, a, bv), Wv),
                               _central(lambda a: loss(xv, Wv, a), bv)]):
        np.testing.assert_allclose(got.numpy(), fd, rtol=1e-6, atol=1e-9)


def test_dense_layer_gradients_without_tensorflow():
    # The same check against central differences alone, where TensorFlow is absent.
    W, b, dense = _dense_setup()
    x = opgen.constant(DATA["x"])
    with opgen.GradientTape() as tape:
        y = ops.sum(dense(x), [0, 1])
    dW = tape.gradient(y, W).numpy()
    fd = _central(lambda a: float(np.tanh(DATA["x"] @ a + DATA["b"]).sum()), DATA["W"])
    np.testing.assert_allclose(dW, fd, rtol=1e-6, atol=1e-9)
    assert {id(v) for v in tape.watched_variables()} == {id(W), id(b)}


def _flow_setup():
    v = opgen.Variable(np.float64(DATA["v"]))

    @opgen.function
    def flow(x):
        y = opgen.cond(x > 0, lambda: x * v, lambda: x - v)
        _, z = opgen.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, ops.sin(z) * v + x),
                                [0, y])
        return z

    @opgen.function
    def scaled(x):
        return flow(x) * v
    return v, scaled


def _flow_numpy(x, v):
    z = x * v if x > 0 else x - v
    for _ in range(3):
        z = np.sin(z) * v + x
    return z * v


def test_cond_and_while_loop_reading_a_variable_in_nested_functions(tf_results):
    v, scaled = _flow_setup()
    for x0, want in zip(DATA["xs"], tf_results["flow"]):
        x = opgen.constant(np.float64(x0))
        with opgen.GradientTape() as tape:
            tape.watch(x)
            z = scaled(x)
        np.testing.assert_allclose(z.numpy(), _flow_numpy(x0, DATA["v"]), rtol=1e-12)
        grads = tape.gradient(z, [x, v])
        _same(grads, want)
        fd = [_central(lambda a: _flow_numpy(float(a), DATA["v"]), x0),
              _central(lambda a, x0=x0: _flow_numpy(x0, float(a)), DATA["v"])]
        for got, ref in zip(grads, fd):
            np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)


def _nested_setup():
    v = opgen.Variable(np.float64(DATA["v"]))
    w = opgen.Variable(DATA["w"])

    @opgen.function
    def inner(x):
        return ops.sum(x * w, [0])

    @opgen.function
    def outer(x):
        return inner(x) * v + inner(x * x)
    return v, w, inner, outer


def test_nested_functions_and_a_variable_changed_after_the_call(tf_results):
    v, w, _, outer = _nested_setup()
    x = opgen.constant(DATA["w"][::-1].copy())
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    _same(tape.gradient(y, [x, v, w]), tf_results["nested"])

    # The gradient uses the values the call saw, not those at gradient() time.
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    v.assign(2.5)
    w.assign(w * 3.0)
    _same(tape.gradient(y, [x, v, w]), tf_results["changed"])


def test_watch_accessed_variables_false_and_persistent_tapes(tf_results):
    v, w, inner, outer = _nested_setup()
    x = opgen.constant(DATA["w"][::-1].copy())
    with opgen.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = outer(x)
    assert tape.watched_variables() == ()
    _same(tape.gradient(y, [x, v, w]), tf_results["unwatched"])
    with opgen.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = outer(x)
    _same(tape.gradient(y, [x, v, w]), tf_results["watch_w"])

    with opgen.GradientTape(persistent=True) as tape:
        y1 = inner(x)
        y2 = outer(x) * outer(x)
    _same(tape.gradient(y1, [v, w]), tf_results["persistent"][0])
    _same(tape.gradient(y2, [v, w]), tf_results["persistent"][1])
    _same(tape.gradient(y2, [v, w]), tf_results["persistent"][1])  # again: persistent

    with opgen.GradientTape() as tape:
        y = outer(x)
    tape.gradient(y, [v])
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, [w])


def test_a_non_trainable_variable_is_not_watched():
    v = opgen.Variable(np.float64(2.0), trainable=False)
    w = opgen.Variable(np.float64(3.0))

    @opgen.function
    def f(x):
        return x * v * w

    x = opgen.constant(np.float64(1.5))
    with opgen.GradientTape() as tape:
        y = f(x)
    dv, dw = tape.gradient(y, [v, w])
    assert dv is None
    assert float(dw.numpy()) == 1.5 * 2.0


def test_second_derivatives_through_a_call_that_reads_a_variable():
    v = opgen.Variable(np.float64(1.7))

    @opgen.function
    def cube(x):
        return ops.sum(x * x * x * v, [0])

    x0 = np.array([0.3, -0.6, 1.1])
    x = opgen.constant(x0)
    with opgen.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with opgen.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)  # 3 x^2 v
    np.testing.assert_allclose(dy.numpy(), 3 * x0 ** 2 * 1.7, rtol=1e-12)
    d2x, d2v = outer.gradient(dy, [x, v])  # 6 x v, and sum 3 x^2
    np.testing.assert_allclose(d2x.numpy(), 6 * x0 * 1.7, rtol=1e-12)
    np.testing.assert_allclose(d2v.numpy(), 3 * (x0 ** 2).sum(), rtol=1e-12)


def test_sgd_on_a_model_written_as_one_function_matches_tensorflow(tf_results):
    params = [opgen.Variable(DATA[k]) for k in ("W1", "b1", "W2", "b2")]
    W1, b1, W2, b2 = params
    traced = []

    @opgen.function
    def loss_fn(x, y):
        traced.append(1)
        h = ops.relu(ops.mat_mul(x, W1) + b1)
        return ops.mean(ops.square(ops.mat_mul(h, W2) + b2 - y), [0, 1])

    tx, ty = opgen.constant(DATA["tx"]), opgen.constant(DATA["ty"])
    graphs_before = len(_tape_program._cache)
    losses = []
    for _ in range(STEPS):
        with opgen.GradientTape() as tape:
            loss = loss_fn(tx, ty)
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(LR * g)
        losses.append(float(loss.numpy()))
    want_losses, want_params = tf_results["sgd"]
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    assert losses[-1] < 0.5 * losses[0]  # it trains
    for p, want in zip(params, want_params):
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-4, atol=1e-5)
    # Traced twice (the call's trace and the tape's twin), one gradient graph, for
    # every step.
    assert len(traced) == 2
    assert len(_tape_program._cache) - graphs_before <= 1


# ---- functions without inputs ---------------------------------------------------------------

def test_a_function_without_inputs_has_none(tf_results):
    @opgen.function
    def three():
        return opgen.constant(np.float32([1, 2])) * 3.0

    np.testing.assert_array_equal(three().numpy(), [3, 6])
    sig = three.get_concrete_function().function_def.signature
    want_inputs, want_types = tf_results["signature"]
    assert len(sig.input_arg) == want_inputs == 0
    assert [a.type for a in sig.output_arg] == want_types

    @opgen.function
    def uses(x):
        # called inside another function, and in a cond whose branches capture nothing
        return three() * x + opgen.cond(x[0] > 0, lambda: opgen.constant(1.0),
                                        lambda: opgen.constant(2.0))

    g = opgen.Graph()
    with g.as_default():
        y = three()
        x = ops.placeholder(opgen.float32, shape=[2])
        z = uses(x)
    calls = [n for n in g.as_graph_def().node if n.op == "PartitionedCall"]
    assert any(len(n.input) == 0 for n in calls)
    with opgen.Session(graph=g) as session:
        got_y, got_z = session.run([y, z], {x: np.float32([2, -1])})
    np.testing.assert_array_equal(got_y, [3, 6])
    np.testing.assert_array_equal(got_z, [7, -5])  # [3, 6] * x + 1 (x[0] > 0)
    np.testing.assert_array_equal(uses(np.float32([-1, 1])).numpy(), [-1, 8])


def test_a_function_without_inputs_reading_variables(tf_results):
    v = opgen.Variable(np.float64(DATA["v"]))
    w = opgen.Variable(DATA["w"])

    @opgen.function
    def no_inputs():
        return ops.sum(w * w, [0]) * v

    sig = no_inputs.get_concrete_function().function_def.signature
    assert [a.type for a in sig.input_arg] == [opgen.runtime.dtypes.resource.as_datatype_enum] * 2
    with opgen.GradientTape() as tape:
        y = no_inputs()
    np.testing.assert_allclose(y.numpy(), (DATA["w"] ** 2).sum() * DATA["v"], rtol=1e-12)
    _same(tape.gradient(y, [v, w]), tf_results["no_inputs"])


def test_gradients_through_calls_without_inputs():
    v = opgen.Variable(np.float64(2.0))

    @opgen.function
    def three():
        return opgen.constant(np.float64([1, 2])) * 3.0

    @opgen.function
    def squared():
        return v * v

    @opgen.function
    def uses(x):
        return three() * x + squared() * x + opgen.cond(
            x[0] > 0, lambda: opgen.constant(np.float64(1.0)), lambda: v)

    x = opgen.constant(np.float64([-2, 1]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(uses(x), [0])
    dx, dv = tape.gradient(y, [x, v])
    np.testing.assert_array_equal(dx.numpy(), [3 + 4, 6 + 4])  # three() + v*v
    assert float(dv.numpy()) == 2 * 2.0 * (-2 + 1) + 2  # 2v sum(x), + 1 per element from the cond (v)

    g = opgen.Graph()
    with g.as_default():
        xp = ops.placeholder(opgen.float64, shape=[2])
        (dxp,) = opgen.gradients([ops.sum(three() * xp, [0])], [xp])
    with opgen.Session(graph=g) as session:
        np.testing.assert_array_equal(session.run(dxp, {xp: np.float64([1, 1])}), [3, 6])
