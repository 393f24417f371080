"""The gradient of If/StatelessIf/Case reads the values its branches computed in the
forward pass (as TensorFlow's cond_v2 does): the forward node is rewritten so every
branch also returns the values its gradient needs (stateful nodes' results, a While's
accumulators), and the gradient's branches take those instead of running the branch
again. A counter variable shows how often a branch's stateful ops ran.

Cases, against TensorFlow 2.21 in a child process (a tf.function computing the loss and
its gradient in one graph, and an eager tf.GradientTape) and numpy:
- a While in the taken branch, its body adding 1 to the counter and multiplying acc by
  x (3 iterations): y = x**3, dy/dx = 3x**2, the body runs 3 times per run, not 6;
- a branch that adds 10 to the counter and reads it: dy/dx is the value read in the
  same run (running the branch again would read 10 more);
- a branch with a loop and a variable update that nothing reads (still run, once);
- both branches taken (x > 0, x < 0), a Case over three branches, nested conds;
- an eager GradientTape over an opgen.function holding the first case (the call is
  split: forward and backward functions, the body runs 3 times), persistent tape."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2
from opgen.runtime import dtypes
from tf_reference import run_tf

pytestmark = pytest.mark.usefixtures("runtime_lib")
ops = opgen.ops
XS = [2.0, -1.5]

TF_SCRIPT = """
import json
import tensorflow as tf
out = {}
def loop_branch(x, v):
    def body(i, acc):
        v.assign_add(1.0)
        return i + 1, acc * x
    return tf.while_loop(lambda i, acc: i < 3, body, [0, 1.0])[1]
def read_branch(x, v):
    v.assign_add(10.0)
    return x * v.read_value()
def run(name, model):
    v = tf.Variable(0.0)
    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = model(x, v)
        return y, t.gradient(y, x)
    rows = []
    for x in XS:
        y, g = step(tf.constant(x))
        rows.append([float(y), float(g), float(v.numpy())])
    out[name] = rows
run("loop", lambda x, v: tf.cond(x > 0.0, lambda: loop_branch(x, v), lambda: x * 5.0))
run("read", lambda x, v: tf.cond(x > 0.0, lambda: read_branch(x, v), lambda: x * x))
def side_branch(x, v):
    v.assign_add(100.0)
    return loop_branch(x, v)
run("side", lambda x, v: tf.cond(x > 0.0, lambda: side_branch(x, v), lambda: x * 3.0))
run("case", lambda x, v: tf.switch_case(tf.cast(x > 0.0, tf.int32) + 1, [
    lambda: x * 7.0, lambda: x * x, lambda: loop_branch(x, v)]))
run("nested", lambda x, v: tf.cond(x > -10.0, lambda: tf.cond(
    x > 0.0, lambda: read_branch(x, v), lambda: loop_branch(x, v)) * 2.0, lambda: x))
v = tf.Variable(0.0)
@tf.function
def f(x):
    return tf.cond(x > 0.0, lambda: loop_branch(x, v), lambda: x)
x = tf.constant(2.0)
with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    y = f(x)
    y2 = y * y
out["eager"] = [float(y), float(t.gradient(y, x)), float(t.gradient(y2, x)), float(v.numpy())]
print(json.dumps(out))
""".replace("XS", repr(XS))


@pytest.fixture(scope="module")
def tf_results():
    done = run_tf(["-c", TF_SCRIPT], timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _loop_branch(x, h):
    def body(i, acc):
        with opgen.control_dependencies([ops.assign_add_variable_op(h, opgen.constant(1.0))]):
            return i + 1, acc * x
    return opgen.while_loop(lambda i, acc: i < 3, body,
                            [opgen.constant(0), opgen.constant(1.0)])[1]


def _read_branch(x, h):
    with opgen.control_dependencies([ops.assign_add_variable_op(h, opgen.constant(10.0))]):
        return x * ops.read_variable_op(h, dtype=opgen.float32)


def _side_branch(x, h):
    ops.assign_add_variable_op(h, opgen.constant(100.0))  # read by nothing
    return _loop_branch(x, h)


def _case(x, h):
    """A Case node over three branches (index: 1 where x <= 0, else 2)."""
    g = opgen.get_default_graph()
    fns = [opgen.function(fn).get_concrete_function(
        opgen.TensorSpec([], opgen.float32), opgen.TensorSpec([], dtypes.resource))
        for fn in (lambda x, h: x * 7.0, lambda x, h: x * x, _loop_branch)]
    for fn in fns:
        fn.add_to_graph(g)
    index = ops.cast(x > 0.0, DstT=opgen.int32) + 1
    branches = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
        func=[attr_value_pb2.NameAttrList(name=fn.name) for fn in fns]))
    op = g.create_op("Case", [index, [x, h]], {"Tin": [opgen.float32, dtypes.resource],
                                               "Tout": [opgen.float32], "branches": branches})
    return op.outputs[0]


MODELS = {
    "loop": lambda x, h: opgen.cond(x > 0.0, lambda: _loop_branch(x, h), lambda: x * 5.0),
    "read": lambda x, h: opgen.cond(x > 0.0, lambda: _read_branch(x, h), lambda: x * x),
    "side": lambda x, h: opgen.cond(x > 0.0, lambda: _side_branch(x, h), lambda: x * 3.0),
    "case": _case,
    "nested": lambda x, h: opgen.cond(x > -10.0, lambda: opgen.cond(
        x > 0.0, lambda: _read_branch(x, h), lambda: _loop_branch(x, h)) * 2.0,
        lambda: x),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_gradient_runs_each_branch_once(tf_results, name):
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[], name="x")
        h = ops.var_handle_op(dtype=opgen.float32, shape=[], shared_name="counter")
        init = ops.assign_variable_op(h, opgen.constant(0.0))
        y = MODELS[name](x, h)
        (dy,) = opgen.gradients([y], [x])
        read = ops.read_variable_op(h, dtype=opgen.float32)
    rows = []
    with opgen.Session(g) as s:
        s.run(init)
        for xv in XS:
            got_y, got_dy = s.run([y, dy], {x: xv})
            rows.append([float(got_y), float(got_dy), float(s.run(read))])
    np.testing.assert_allclose(rows, tf_results[name], rtol=1e-6)
    rewritten = [n for n in g.as_graph_def().node if "_num_original_outputs" in n.attr
                 and n.op in ("If", "StatelessIf", "Case", "StatelessCase")]
    assert rewritten  # the forward node keeps its branches' values


def test_stateless_if_with_a_loop_matches_central_differences():
    """A StatelessIf whose branch runs a loop (acc <- acc * x + sin(acc), 4 steps): its
    gradient reads the loop's accumulators through the rewritten node."""
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(dtype=opgen.float64, shape=[3], name="x")

        def loop():
            return opgen.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x + ops.sin(a)),
                                    [opgen.constant(0), x])[1]
        y = ops.sum(opgen.cond(ops.sum(x, [0]) > 0.0, loop, lambda: x * x), [0])
        (dy,) = opgen.gradients([y], [x])
    node = next(n for n in g.as_graph_def().node if n.op in ("If", "StatelessIf")
                and "_num_original_outputs" in n.attr)
    assert node.op == "StatelessIf"

    def numpy_f(v):
        a = v.copy()
        for _ in range(4):
            a = a * v + np.sin(a)
        return a.sum()
    x0 = np.array([0.9, 1.1, -0.7])
    with opgen.Session(g) as s:
        got = s.run(dy, {x: x0})
    eps = 1e-6
    fd = [(numpy_f(x0 + eps * e) - numpy_f(x0 - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(got, fd, rtol=1e-6)


def test_eager_tape_over_a_function_with_a_loop_in_a_branch(tf_results):
    v = opgen.Variable(0.0)

    @opgen.function
    def f(x, h):
        def yes():
            def body(i, acc):
                ops.assign_add_variable_op(h, opgen.constant(1.0))
                return i + 1, acc * x
            return opgen.while_loop(lambda i, acc: i < 3, body,
                                    [opgen.constant(0), opgen.constant(1.0)])[1]
        return opgen.cond(x > 0.0, yes, lambda: x)
    x = opgen.constant(2.0)
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x, v.handle)
        y2 = y * y
    got = [float(y.numpy()), float(tape.gradient(y, x).numpy()),
           float(tape.gradient(y2, x).numpy()), float(v.numpy())]
    assert got == tf_results["eager"] == [8.0, 12.0, 192.0, 3.0]


def test_second_gradient_of_a_rewritten_node_reads_the_same_values():
    """Two gradient calls over one If (the second finds the node rewritten, and its
    gradient reads the outputs the first added): one run of the loss and both gradients
    runs the loop once (numpy: y = x**3, dy = 3x**2, d(y*y) = 6x**5)."""
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[], name="x")
        h = ops.var_handle_op(dtype=opgen.float32, shape=[], shared_name="counter")
        init = ops.assign_variable_op(h, opgen.constant(0.0))
        y = MODELS["loop"](x, h)
        (dy,) = opgen.gradients([y], [x])
        n_outputs = next(o for o in g.get_operations() if o.type == "If").num_outputs
        (dyy,) = opgen.gradients([y * y], [x])
        read = ops.read_variable_op(h, dtype=opgen.float32)
    assert next(o for o in g.get_operations() if o.type == "If").num_outputs == n_outputs > 1
    with opgen.Session(g) as s:
        s.run(init)
        got = s.run([y, dy, dyy], {x: 1.5})
        assert float(s.run(read)) == 3.0
    np.testing.assert_allclose(got, [1.5 ** 3, 3 * 1.5 ** 2, 6 * 1.5 ** 5], rtol=1e-6)


def test_gradient_added_after_the_session_ran_the_forward_cond():
    """The session planned the forward If alone; the gradient then rewrites the node
    (more outputs, other branches): the next run plans again and reads them."""
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[], name="x")
        h = ops.var_handle_op(dtype=opgen.float32, shape=[], shared_name="counter")
        init = ops.assign_variable_op(h, opgen.constant(0.0))
        y = MODELS["loop"](x, h)
        read = ops.read_variable_op(h, dtype=opgen.float32)
    with opgen.Session(g) as s:
        s.run(init)
        assert float(s.run(y, {x: 2.0})) == 8.0
        assert float(s.run(read)) == 3.0
        with g.as_default():
            (dy,) = opgen.gradients([y], [x])
        assert [float(v) for v in s.run([y, dy], {x: 2.0})] == [8.0, 12.0]
        assert float(s.run(read)) == 6.0
