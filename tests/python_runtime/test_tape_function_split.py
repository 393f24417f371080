"""A GradientTape over an eager opgen.function call runs the function's While loop once:
the call runs a forward function that also returns what the gradient needs (the loop's
accumulators), and the gradient takes those instead of running the function again, as
tf.function's forward/backward split does.

The loop body adds 1 to a counter variable (its handle an argument; AssignAddVariableOp)
on every iteration, beside acc <- acc * x + sin(acc): the counter shows how often the
body ran. Each case (a plain call, one reading a trainable variable, a nested function,
cond before the loop, a persistent tape asked twice, a tape that watches nothing)
against tf.GradientTape over the same tf.function in a child process (TensorFlow 2.21):
the body runs and the gradients; the plain case also against central differences."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.runtime import _function_split
from tf_reference import run_tf

pytestmark = pytest.mark.usefixtures("runtime_lib")
ops = opgen.ops
N = 4
X = np.array([0.9, 1.1, -0.7])
W0 = np.array([0.5, -0.3, 0.8])

TF_SCRIPT = """
import json, sys
import numpy as np, tensorflow as tf
N = NITER
X = tf.constant(np.array(XVALUE))
out = {}

def loop(x, c):
    def body(i, a):
        c.assign_add(tf.constant(1.0, tf.float64))
        return i + 1, a * x + tf.sin(a)
    return tf.while_loop(lambda i, a: i < N, body, [0, x])[1]

def case(name, make, sources, persistent=False, watch=True):
    c = tf.Variable(tf.constant(0.0, tf.float64), trainable=False)
    f = make(c)
    with tf.GradientTape(persistent=persistent) as t:
        if watch:
            t.watch(X)
        y = f(X)
        y2 = y * y
    forward = float(c.numpy())
    grads = [t.gradient(y, sources(X))]
    if persistent:
        grads.append(t.gradient(y, sources(X)))
        grads.append(t.gradient(y2, sources(X)))
    out[name] = {"forward": forward, "after": float(c.numpy()),
                 "grads": [[None if g is None else g.numpy().tolist() for g in gs]
                           for gs in grads]}

case("plain", lambda c: tf.function(lambda x: tf.reduce_sum(loop(x, c))), lambda x: [x])
W = tf.Variable(np.array(WVALUE))
case("variable", lambda c: tf.function(lambda x: tf.reduce_sum(loop(x * W, c) ** 2)),
     lambda x: [x, W])
def nested(c):
    inner = tf.function(lambda x: loop(x, c))
    return tf.function(lambda x: tf.reduce_sum(inner(x) * x))
case("nested", nested, lambda x: [x])
case("if_while", lambda c: tf.function(lambda x: tf.reduce_sum(loop(
    tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tf.sin(x)), c))), lambda x: [x])
case("persistent", lambda c: tf.function(lambda x: tf.reduce_sum(loop(x, c))),
     lambda x: [x], persistent=True)
case("nothing", lambda c: tf.function(lambda x: tf.reduce_sum(loop(x, c))), lambda x: [x],
     watch=False)
print(json.dumps(out))
""".replace("NITER", str(N)).replace("XVALUE", repr(X.tolist())).replace(
    "WVALUE", repr(W0.tolist()))


@pytest.fixture(scope="module")
def tf_results():
    done = run_tf(["-c", TF_SCRIPT], timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def loop(x, h):
    def body(i, a):
        ops.assign_add_variable_op(h, np.float64(1))
        return i + 1, a * x + ops.sin(a)
    return opgen.while_loop(lambda i, a: i < N, body, [0, x])[1]


def _run(make, sources, persistent=False, watch=True):
    """(counter after the call, after the gradients, the gradients, the function)."""
    counter = opgen.Variable(np.float64(0), trainable=False)
    f = make(counter.handle)
    x = opgen.constant(X)
    with opgen.GradientTape(persistent=persistent) as tape:
        if watch:
            tape.watch(x)
        y = f(x, counter.handle)
        y2 = y * y
    forward = float(counter.numpy())
    grads = [tape.gradient(y, sources(x))]
    if persistent:
        grads.append(tape.gradient(y, sources(x)))
        grads.append(tape.gradient(y2, sources(x)))
    return forward, float(counter.numpy()), grads, f


def _check(got, want, rtol=1e-10):
    forward, after, grads, _ = got
    assert forward == want["forward"] == N  # the call ran the body N times
    assert after == want["after"] == N      # and the gradients did not run it again
    assert len(grads) == len(want["grads"])
    for gs, ws in zip(grads, want["grads"]):
        for g, w in zip(gs, ws):
            if w is None:
                assert g is None
            else:
                np.testing.assert_allclose(g.numpy(), w, rtol=rtol, atol=1e-12)


def _plain(_):
    return opgen.function(lambda x, h: ops.sum(loop(x, h), [0]))


def test_plain_call_runs_the_loop_once(tf_results):
    got = _run(_plain, lambda x: [x])
    _check(got, tf_results["plain"])
    # central differences of the same loop in numpy
    def numpy_f(x):
        a = x.copy()
        for _ in range(N):
            a = a * x + np.sin(a)
        return a.sum()
    h = 1e-6
    fd = [(numpy_f(X + h * e) - numpy_f(X - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(got[2][0][0].numpy(), fd, rtol=1e-6)


def test_call_reading_a_trainable_variable(tf_results):
    w = opgen.Variable(W0)
    got = _run(lambda _: opgen.function(lambda x, h: ops.sum(loop(x * w, h) ** 2, [0])),
               lambda x: [x, w])
    _check(got, tf_results["variable"])


def test_nested_function_call(tf_results):
    def make(_):
        inner = opgen.function(loop)
        return opgen.function(lambda x, h: ops.sum(inner(x, h) * x, [0]))
    _check(_run(make, lambda x: [x]), tf_results["nested"])


def test_cond_then_while(tf_results):
    def f(x, h):
        y = opgen.cond(ops.sum(x, [0]) > 0, lambda: x * 2.0, lambda: ops.sin(x))
        return ops.sum(loop(y, h), [0])
    _check(_run(lambda _: opgen.function(f), lambda x: [x]), tf_results["if_while"])


def test_persistent_tape_asked_three_times(tf_results):
    _check(_run(_plain, lambda x: [x], persistent=True), tf_results["persistent"])


def test_tape_that_watches_nothing_runs_the_plain_function(tf_results):
    got = _run(_plain, lambda x: [x], watch=False)
    _check(got, tf_results["nothing"])
    (concrete,) = got[3]._traces.values()
    assert concrete._split is False  # no split made, no forward function run


def test_variable_not_watched_runs_the_plain_function():
    """watch_accessed_variables=False and nothing watched: the call reads the variable,
    the tape tracks nothing it made, so the forward function (with its extra outputs)
    does not run."""
    w = opgen.Variable(W0)
    counter = opgen.Variable(np.float64(0), trainable=False)
    f = opgen.function(lambda x, h: ops.sum(loop(x * w, h), [0]))
    x = opgen.constant(X)
    with opgen.GradientTape(watch_accessed_variables=False) as tape:
        y = f(x, counter.handle)
    assert tape.gradient(y, [x, w]) == [None, None]
    assert float(counter.numpy()) == N
    (concrete,) = f._traces.values()
    split = concrete._split
    assert split is None or split.forward._eager_kernel is None


def test_split_functions_hold_the_loop_where_it_belongs():
    """The forward function holds the rewritten loop (keeping its lists), the backward
    function only the loop back: no forward loop left to run in the gradient."""
    f = _plain(None)
    counter = opgen.Variable(np.float64(0), trainable=False)
    x = opgen.constant(X)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        f(x, counter.handle)
    split = next(iter(f._traces.values()))._split
    assert isinstance(split, _function_split.Split)
    assert split.n_intermediates > 0

    def loops(function):
        return [n for n in function.function_def.node_def if n.op in ("While", "StatelessWhile")]
    (forward_loop,) = loops(split.forward)
    assert "_num_original_outputs" in forward_loop.attr
    (back_loop,) = loops(split.backward)
    assert "_num_original_outputs" not in back_loop.attr


def test_nested_tapes_replay_the_call_for_second_derivatives():
    """An outer tape differentiating the inner tape's gradient: its gradient graph replays
    the call (the split's kept values have no path back to x), so the second derivative
    of sum(x * sin(x)) is 2 cos(x) - x sin(x); the inner gradient is the split's."""
    f = opgen.function(lambda x: ops.sum(x * ops.sin(x), [0]))
    x = opgen.constant(X)
    with opgen.GradientTape() as outer:
        outer.watch(x)
        with opgen.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    np.testing.assert_allclose(dy.numpy(), np.sin(X) + X * np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(d2y.numpy(), 2 * np.cos(X) - X * np.sin(X), rtol=1e-12)
    assert isinstance(next(iter(f._traces.values()))._split, _function_split.Split)


def test_jacobian_through_a_split_call():
    f = opgen.function(loop)
    counter = opgen.Variable(np.float64(0), trainable=False)
    x = opgen.constant(X)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = f(x, counter.handle)
    jac = tape.jacobian(y, x).numpy()
    assert float(counter.numpy()) == N  # three rows, no run of the body among them

    def numpy_loop(x):
        a = x.copy()
        for _ in range(N):
            a = a * x + np.sin(a)
        return a
    h = 1e-6
    fd = np.stack([(numpy_loop(X + h * e) - numpy_loop(X - h * e)) / (2 * h)
                   for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(jac, fd, rtol=1e-6)


def test_stateful_loop_in_a_cond_branch_is_split():
    """A cond branch's gradient reads the values the forward branch kept (the loop's
    accumulators, through the rewritten If), so its backward function holds no stateful
    op: the call is split, the body runs N times, and the gradient is the loop's
    (central differences)."""
    counter = opgen.Variable(np.float64(0), trainable=False)
    f = opgen.function(lambda x, h: ops.sum(
        opgen.cond(ops.sum(x, [0]) > 0, lambda: loop(x, h), lambda: x), [0]))
    x = opgen.constant(X)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = f(x, counter.handle)
    got = tape.gradient(y, x).numpy()
    assert float(counter.numpy()) == N
    assert next(iter(f._traces.values()))._split is not None

    def numpy_f(v):
        a = v.copy()
        for _ in range(N):
            a = a * v + np.sin(a)
        return a.sum()
    h = 1e-6
    fd = [(numpy_f(X + h * e) - numpy_f(X - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(got, fd, rtol=1e-6)
