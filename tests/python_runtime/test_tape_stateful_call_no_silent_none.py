"""A GradientTape over an eager call of a stateful opgen.function that the tape can
neither split (forward/backward, see test_tape_function_split.py) nor replay (a replay
would run its stateful ops again) never answers None for a gradient that flows through
the call: it raises an error naming the function. TensorFlow keeps every call's
intermediates and always has a gradient there (tf.GradientTape gives 12.0 for the case
below, and so does opgen, whose cond gradient keeps its branches' values so the call
splits: test_cond_gradient_keeps_values.py); where a call still cannot be split (made
so here: the split is withheld), an error is the honest answer.

The case: a cond whose taken branch runs a While whose body adds 1 to a counter
variable (3 iterations) and multiplies acc by x. Its forward value and counter, and
that asking for the gradient does not run the body again, against TensorFlow 2.21 in
a child process; gradients that do not flow through the call against numpy."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.runtime import _function_split, errors
from tf_reference import run_tf

pytestmark = pytest.mark.usefixtures("runtime_lib")
ops = opgen.ops

TF_SCRIPT = """
import json
import tensorflow as tf
v = tf.Variable(0.0, trainable=False)
@tf.function
def cond_loop(x):
    def yes():
        def body(i, acc):
            v.assign_add(1.0)
            return i + 1, acc * x
        return tf.while_loop(lambda i, acc: i < 3, body, [0, 1.0])[1]
    return tf.cond(x > 0.0, yes, lambda: x)
x = tf.constant(2.0)
with tf.GradientTape() as t:
    t.watch(x)
    y = cond_loop(x)
forward = float(v.numpy())
g = t.gradient(y, x)
print(json.dumps({"y": float(y.numpy()), "forward": forward, "after": float(v.numpy()),
                  "grad": float(g.numpy())}))
"""


@pytest.fixture(scope="module")
def tf_results():
    done = run_tf(["-c", TF_SCRIPT], timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cond_loop(x, h):
    def yes():
        def body(i, acc):
            ops.assign_add_variable_op(h, opgen.constant(1.0))
            return i + 1, acc * x
        return opgen.while_loop(lambda i, acc: i < 3, body,
                                [opgen.constant(0), opgen.constant(1.0)])[1]
    return opgen.cond(x > 0.0, yes, lambda: x)


@pytest.fixture
def no_split(monkeypatch):
    monkeypatch.setattr(_function_split, "make", lambda *args: None)


def test_gradient_through_the_call_is_an_error_not_none(tf_results, no_split):
    counter = opgen.Variable(0.0, trainable=False)
    f = opgen.function(_cond_loop)
    x = opgen.constant(2.0)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = f(x, counter.handle)
    assert float(y.numpy()) == tf_results["y"] == 8.0
    assert float(counter.numpy()) == tf_results["forward"] == 3.0
    with pytest.raises(errors.UnimplementedError, match="cond_loop"):
        tape.gradient(y, x)
    assert float(counter.numpy()) == tf_results["after"]  # the body did not run again


def test_persistent_tape_other_sources_still_differentiate(no_split):
    """A persistent tape: each gradient through the call raises; one of a target that
    also depends on another watched tensor, taken only with respect to that tensor,
    is its value (numpy: d(y + z*z)/dz = 2z), and the call is not run again."""
    counter = opgen.Variable(0.0, trainable=False)
    f = opgen.function(_cond_loop)
    x = opgen.constant(2.0)
    z = opgen.constant(np.array([0.5, -1.5], np.float32))
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(z)
        y = f(x, counter.handle)
        total = y + ops.sum(z * z, [0])
    for _ in range(2):
        with pytest.raises(errors.UnimplementedError, match="cond_loop"):
            tape.gradient(total, [x, z])
    np.testing.assert_allclose(tape.gradient(total, z).numpy(), 2 * z.numpy(), rtol=1e-6)
    assert tape.gradient(ops.sum(z * z, [0]), x) is None  # the target does not reach x
    assert float(counter.numpy()) == 3.0
