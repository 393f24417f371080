"""The gradient of a While runs the forward loop once: the forward node itself is rewritten
to keep each iteration's inputs (a counter and TensorLists as extra loop variables), so
fetching the loss and its gradients together runs the body n times, not 2n or 3n.

The body adds 1 to a counter variable (AssignAddVariableOp) on every iteration, beside
acc <- acc * x + sin(acc): the counter shows how often the body ran; the values are
checked against the same loop's gradient carried forward in numpy (float64)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, types_pb2
from test_function_gradients import _func, _function, _node
from tf_reference import run_tf, tf_python

T, I32, BOOL, RES = (types_pb2.DT_DOUBLE, types_pb2.DT_INT32, types_pb2.DT_BOOL,
                     types_pb2.DT_RESOURCE)
ACC0 = np.array([0.3, -1.2, 0.8])
X = np.array([0.9, 1.1, -0.7])


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _const(container, name, dtype, value):
    nodes = container.node if hasattr(container, "node") else container.node_def
    tensor = _node(nodes, name, "Const", dtype=dtype).attr["value"].tensor
    tensor.dtype = dtype
    value = np.asarray(value)
    for d in value.shape:
        tensor.tensor_shape.dim.add(size=d)
    tensor.tensor_content = value.tobytes()


def loop_graph(iterations, v1_enter=False, through_rec=False):
    """Placeholders acc0, x; a counter variable `count` (float64 scalar, `init` sets 0);
    loop:3 is acc after `iterations` steps, each adding 1 to the counter."""
    gd = graph_pb2.GraphDef()
    _node(gd.node, "acc0", "Placeholder", dtype=T)
    _node(gd.node, "x", "Placeholder", dtype=T)
    _node(gd.node, "count", "VarHandleOp", dtype=T, shape=attr_value_pb2.AttrValue(
        shape={}), shared_name="count")
    _const(gd, "zero_f", T, np.float64(0))
    _node(gd.node, "init", "AssignVariableOp", ["count", "zero_f"], dtype=T)
    _node(gd.node, "read", "ReadVariableOp", ["count"], dtype=T)
    _const(gd, "zero", I32, np.int32(0))
    _const(gd, "n", I32, np.int32(iterations))
    if v1_enter:  # a v1 loop node anywhere in the graph: the gradient re-runs the loop
        _node(gd.node, "enter", "Enter", ["x"], T=T,
              frame_name="frame")
    loop_vars = [("i", I32), ("h", RES), ("n", I32), ("acc", T), ("x", T)]
    f = _function(gd.library, "cond", loop_vars, [("r", BOOL)], {"r": "r:z:0"})
    _node(f.node_def, "r", "Less", ["i", "n"], T=I32)
    f = _function(gd.library, "body", loop_vars,
                  [("i_out", I32), ("h_out", RES), ("n_out", I32), ("acc_out", T),
                   ("x_out", T)],
                  {"i_out": "next:z:0", "h_out": "h", "n_out": "n", "acc_out": "a:z:0",
                   "x_out": "x"}, stateful=True)
    _const(f, "one", I32, np.int32(1))
    _const(f, "one_f", T, np.float64(1))
    _node(f.node_def, "next", "AddV2", ["i", "one:output:0"], T=I32)
    _node(f.node_def, "tick", "AssignAddVariableOp", ["h", "one_f:output:0"], dtype=T)
    _node(f.node_def, "ax", "Mul", ["acc", "x"], T=T)
    _node(f.node_def, "s", "Sin", ["acc"], T=T)
    _node(f.node_def, "a", "AddV2", ["ax:z:0", "s:y:0"], T=T)
    first = "acc0"
    if through_rec:
        f = _function(gd.library, "rec", [("x", T)], [("y", T)], {"y": "if:output:0"})
        _const(f, "no", BOOL, np.bool_(False))
        _node(f.node_def, "if", "StatelessIf", ["no:output:0", "x"], Tcond=BOOL, Tin=[T],
              Tout=[T], then_branch=_func("rec_then"), else_branch=_func("rec_else"))
        f = _function(gd.library, "rec_then", [("x", T)], [("y", T)], {"y": "call:output:0"})
        _node(f.node_def, "call", "PartitionedCall", ["x"], Tin=[T], Tout=[T], f=_func("rec"))
        _function(gd.library, "rec_else", [("x", T)], [("y", T)], {"y": "x"})
        _node(gd.node, "pre", "PartitionedCall", ["acc0"], Tin=[T], Tout=[T], f=_func("rec"))
        first = "pre"
    _node(gd.node, "loop", "While", ["zero", "count", "n", first, "x"], T=[I32, RES, I32, T, T],
          cond=_func("cond"), body=_func("body"))
    return gd


def numpy_loop(acc0, x, n):
    """acc after n steps and d sum(acc) / d acc0, / d x, carried forward in float64."""
    acc, d_acc0, d_x = acc0.copy(), np.ones_like(acc0), np.zeros_like(acc0)
    for _ in range(n):
        local = x + np.cos(acc)
        d_acc0, d_x = local * d_acc0, local * d_x + acc
        acc = acc * x + np.sin(acc)
    return acc, d_acc0, d_x


def _graph(iterations, **kw):
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(loop_graph(iterations, **kw), name="")
    tensor = g.get_tensor_by_name
    return g, tensor("loop:3"), tensor("acc0:0"), tensor("x:0")


def _loop_attrs(g):
    return next(n for n in g.as_graph_def().node if n.name == "loop").attr


@pytest.mark.parametrize("iterations", [0, 1, 5])
def test_loss_and_gradients_run_the_body_once_per_iteration(iterations):
    g, out, acc0, x = _graph(iterations)
    with g.as_default():
        grads = opgen.gradients([out], [acc0, x])
    want = numpy_loop(ACC0, X, iterations)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        for run in (1, 2):
            got = s.run([out, *grads], {acc0: ACC0, x: X})
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-12)
            assert s.run("read:0") == run * iterations
    attrs = _loop_attrs(g)
    assert attrs["_num_original_outputs"].i == 5
    # Lists for i and acc only: the handle is a resource, n and x pass through unchanged.
    assert list(attrs["_opgen_accumulated"].list.i) == [0, 3]
    assert g.get_operation_by_name("loop").num_outputs == 5 + 1 + 2


def test_gradient_added_after_the_session_ran_the_forward_loop():
    """The session planned (and made the While's kernel for) the forward loop alone; the
    gradient then rewrites the node: the next run plans again and sees the new outputs."""
    g, out, acc0, x = _graph(4)
    want = numpy_loop(ACC0, X, 4)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        np.testing.assert_allclose(s.run(out, {acc0: ACC0, x: X}), want[0], rtol=1e-12)
        assert s.run("read:0") == 4
        with g.as_default():
            grads = opgen.gradients([out], [acc0, x])
        got = s.run([out, *grads], {acc0: ACC0, x: X})
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        assert s.run("read:0") == 8
        np.testing.assert_allclose(s.run(out, {acc0: ACC0, x: X}), want[0], rtol=1e-12)
        assert s.run("read:0") == 12


def test_two_gradient_builds_share_the_rewritten_loop():
    """Gradients with respect to acc0, then (a second call) x: the node is rewritten once
    and both loops back read its lists; one run of everything runs the body n times."""
    g, out, acc0, x = _graph(3)
    with g.as_default():
        (d_acc0,) = opgen.gradients([out], [acc0])
        n_outputs = g.get_operation_by_name("loop").num_outputs
        (d_x,) = opgen.gradients([out], [x])
        (d_x_again,) = opgen.gradients([out * out], [x])
    assert g.get_operation_by_name("loop").num_outputs == n_outputs == 8
    keep_bodies = [f.signature.name for f in g.as_graph_def().library.function
                   if f.signature.name.startswith("body_keep")]
    assert len(keep_bodies) == 1
    acc, want_acc0, want_x = numpy_loop(ACC0, X, 3)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        got = s.run([d_acc0, d_x, d_x_again], {acc0: ACC0, x: X})
        np.testing.assert_allclose(got[0], want_acc0, rtol=1e-12)
        np.testing.assert_allclose(got[1], want_x, rtol=1e-12)
        np.testing.assert_allclose(got[2], 2 * acc * want_x, rtol=1e-12)
        assert s.run("read:0") == 3


def test_a_failed_gradient_puts_the_loop_back():
    """acc0 reaches the loop through rec(x) = StatelessIf(false, rec(x), x), which has no
    gradient (it recurses): the gradient fails after the While's was built, and the
    graph, the node and a session that ran it are as before; a gradient that does not
    pass rec (with respect to x) then works."""
    g, out, acc0, x = _graph(2, through_rec=True)
    before = g.as_graph_def()
    acc, _, want_x = numpy_loop(ACC0, X, 2)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        np.testing.assert_allclose(s.run(out, {acc0: ACC0, x: X}), acc, rtol=1e-12)
        with g.as_default(), pytest.raises(opgen.errors.UnimplementedError,
                                           match="a recursive function has no gradient"):
            opgen.gradients([out], [acc0, x])
        assert g.as_graph_def() == before
        np.testing.assert_allclose(s.run(out, {acc0: ACC0, x: X}), acc, rtol=1e-12)
        assert s.run("read:0") == 4
        with g.as_default():
            (d_x,) = opgen.gradients([out], [x])
        np.testing.assert_allclose(s.run(d_x, {acc0: ACC0, x: X}), want_x, rtol=1e-12)
        assert s.run("read:0") == 6


def test_second_derivatives_through_a_while_are_refused_and_leave_the_graph():
    """The loop back carries TensorLists, whose loop variables have no gradient: a second
    derivative is UNIMPLEMENTED, and the graph (the rewritten loop included) stays."""
    g, out, _, x = _graph(3)
    with g.as_default():
        (d_x,) = opgen.gradients([out], [x])
        before = g.as_graph_def()
        with pytest.raises(opgen.errors.UnimplementedError,
                           match=r"second derivatives through a While are not implemented: "
                                 r"this While \('.*'\) is the loop back of another While's "
                                 r"gradient, and its loop variable \d+ is a TensorList"):
            opgen.gradients([d_x], [x])
    assert g.as_graph_def() == before


def test_graphs_with_v1_loops_keep_the_second_loop():
    """An Enter node in the graph: the gradient does not rewrite the While (a node in a v1
    frame could not take inputs from outside it) and runs the loop a second time."""
    g, out, acc0, x = _graph(3, v1_enter=True)
    with g.as_default():
        grads = opgen.gradients([out], [acc0, x])
    assert "_num_original_outputs" not in _loop_attrs(g)
    want = numpy_loop(ACC0, X, 3)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        got = s.run([out, *grads], {acc0: ACC0, x: X})
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        assert s.run("read:0") == 6


TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
acc0, x, n = np.array(json.loads(sys.argv[1])), np.array(json.loads(sys.argv[2])), int(sys.argv[3])
g = tf.Graph()
with g.as_default():
    a = tf.compat.v1.placeholder(tf.float64, [3])
    xp = tf.compat.v1.placeholder(tf.float64, [3])
    count = tf.Variable(np.float64(0), use_resource=True)
    def body(i, acc):
        with tf.control_dependencies([count.assign_add(np.float64(1))]):
            return i + 1, acc * xp + tf.sin(acc)
    _, out = tf.while_loop(lambda i, acc: i < n, body, [0, a])
    grads = tf.gradients(out, [a, xp])
    with tf.compat.v1.Session() as s:
        s.run(count.initializer)
        got = s.run([out, *grads], {a: acc0, xp: X_VALUE})
        print(json.dumps({"values": [v.tolist() for v in got], "count": float(s.run(count))}))
""".replace("X_VALUE", "x")


def test_one_run_counts_as_tensorflow_counts(tmp_path):
    """TensorFlow 2.21's while_v2 in a graph (child process): the same loop with a counter
    updated in the body, loss and gradients in one run: the counter and the values agree
    with opgen's."""
    tf_python()  # skips first when there is no TensorFlow
    script = tmp_path / "tf_while.py"
    script.write_text(TF_SCRIPT)
    iterations = 4
    result = run_tf([script, json.dumps(ACC0.tolist()), json.dumps(X.tolist()), iterations],
                    cwd=tmp_path)
    want = json.loads(result.stdout.strip().splitlines()[-1])
    g, out, acc0, x = _graph(iterations)
    with g.as_default():
        grads = opgen.gradients([out], [acc0, x])
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        got = s.run([out, *grads], {acc0: ACC0, x: X})
        count = s.run("read:0")
    assert count == want["count"] == iterations
    for a, b in zip(got, want["values"]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _read_after_update_graph():
    """acc <- acc * r * x + sin(acc), r read from the counter after adding 1 to it (a
    control edge orders the two), 4 iterations: the gradient reads r, a stateful node's
    value, which must be the one the forward loop read."""
    gd = graph_pb2.GraphDef()
    _node(gd.node, "acc0", "Placeholder", dtype=T)
    _node(gd.node, "x", "Placeholder", dtype=T)
    _node(gd.node, "count", "VarHandleOp", dtype=T, shape=attr_value_pb2.AttrValue(
        shape={}), shared_name="count_read")
    _const(gd, "zero_f", T, np.float64(0))
    _node(gd.node, "init", "AssignVariableOp", ["count", "zero_f"], dtype=T)
    _node(gd.node, "read", "ReadVariableOp", ["count"], dtype=T)
    _const(gd, "zero", I32, np.int32(0))
    loop_vars = [("i", I32), ("h", RES), ("acc", T), ("x", T)]
    f = _function(gd.library, "c", loop_vars, [("r", BOOL)], {"r": "r:z:0"})
    _const(f, "four", I32, np.int32(4))
    _node(f.node_def, "r", "Less", ["i", "four:output:0"], T=I32)
    f = _function(gd.library, "b", loop_vars,
                  [("i_out", I32), ("h_out", RES), ("acc_out", T), ("x_out", T)],
                  {"i_out": "next:z:0", "h_out": "h", "acc_out": "a:z:0", "x_out": "x"},
                  stateful=True)
    _const(f, "one", I32, np.int32(1))
    _node(f.node_def, "next", "AddV2", ["i", "one:output:0"], T=I32)
    _const(f, "one_f", T, np.float64(1))
    _node(f.node_def, "tick", "AssignAddVariableOp", ["h", "one_f:output:0"], dtype=T)
    _node(f.node_def, "r", "ReadVariableOp", ["h", "^tick"], dtype=T)
    _node(f.node_def, "ar", "Mul", ["acc", "r:value:0"], T=T)
    _node(f.node_def, "arx", "Mul", ["ar:z:0", "x"], T=T)
    _node(f.node_def, "s", "Sin", ["acc"], T=T)
    _node(f.node_def, "a", "AddV2", ["arx:z:0", "s:y:0"], T=T)
    _node(gd.node, "loop", "While", ["zero", "count", "acc0", "x"], T=[I32, RES, T, T],
          cond=_func("c"), body=_func("b"))
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    return g, g.get_tensor_by_name("loop:2"), g.get_tensor_by_name("acc0:0"), \
        g.get_tensor_by_name("x:0")


def test_the_gradient_reads_the_variable_values_the_forward_loop_read():
    """r_i = i + 1 (read after the update): d acc4 / d acc0 is the product of
    (r_i x + cos acc_i), d / d x carried forward in numpy; the counter ends at 4.
    Recomputing the read in the loop back would see the final counter (and, through the
    control edge, add to it again)."""
    g, out, acc0, x = _read_after_update_graph()
    with g.as_default():
        grads = opgen.gradients([out], [acc0, x])
    acc, d_acc0, d_x = ACC0.copy(), np.ones(3), np.zeros(3)
    for i in range(4):
        r = i + 1.0
        local = r * X + np.cos(acc)
        d_acc0, d_x = local * d_acc0, local * d_x + acc * r
        acc = acc * r * X + np.sin(acc)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("init"))
        got = s.run([out, *grads], {acc0: ACC0, x: X})
        assert s.run("read:0") == 4
    for a, b in zip(got, [acc, d_acc0, d_x]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_tape_over_a_function_keeps_the_forward_loop_out_of_its_gradient():
    """GradientTape over an opgen.function holding a while_loop: the eager call ran the
    forward function (the rewritten loop, keeping its lists), and the gradient graph only
    calls the backward function, which holds the loop back alone (before: the call's
    gradient recomputed the function, forward loop included). The value against central
    differences of the same loop in numpy."""
    from opgen.runtime import _tape_program

    @opgen.function
    def f(x):
        _, z = opgen.while_loop(lambda i, z: i < 5,
                                lambda i, z: (i + 1, opgen.ops.sin(z) * x), [0, x])
        return z * z

    def numpy_f(x):
        z = x
        for _ in range(5):
            z = np.sin(z) * x
        return z * z

    _tape_program.clear_cache()
    x = opgen.constant(np.float64(0.7))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        z = f(x)
    got = tape.gradient(z, x).numpy()
    h = 1e-6
    np.testing.assert_allclose(got, (numpy_f(0.7 + h) - numpy_f(0.7 - h)) / (2 * h), rtol=1e-7)
    (entry,) = _tape_program._cache.values()
    graph_def = entry.session.graph.as_graph_def()
    assert not [n for n in graph_def.node if n.op in ("While", "StatelessWhile")]
    (called,) = [n.attr["f"].func.name for n in graph_def.node if n.op == "PartitionedCall"]
    (backward,) = [fn for fn in graph_def.library.function if fn.signature.name == called]
    (loop_back,) = [n for n in backward.node_def if n.op in ("While", "StatelessWhile")]
    assert "_num_original_outputs" not in loop_back.attr


def test_a_rewritten_loop_survives_a_graph_def_round_trip():
    """The rewritten graph written out and imported again: the node order stays
    topological (the accumulators' first values before the loop), the loop and its
    gradients run as in the first graph, and a new gradient there reuses the lists."""
    g, out, acc0, x = _graph(3)
    with g.as_default():
        grads = opgen.gradients([out], [acc0, x])
    gd = g.as_graph_def()
    names = [n.name for n in gd.node]
    loop = names.index("loop")
    for n in gd.node[loop].input:
        assert names.index(n.split(":")[0].lstrip("^")) < loop
    g2 = opgen.Graph()
    with g2.as_default():
        opgen.import_graph_def(gd, name="")
        out2, acc02, x2 = (g2.get_tensor_by_name(t) for t in ("loop:3", "acc0:0", "x:0"))
        (d_x,) = opgen.gradients([out2], [x2])
    assert g2.get_operation_by_name("loop").num_outputs == 8
    keep_bodies = [f.signature.name for f in g2.as_graph_def().library.function
                   if f.signature.name.startswith("body_keep")]
    assert len(keep_bodies) == 1
    want = numpy_loop(ACC0, X, 3)
    with opgen.Session(g2) as s:
        s.run(g2.get_operation_by_name("init"))
        got = s.run([out2, *(g2.get_tensor_by_name(t.name) for t in grads), d_x],
                    {acc02: ACC0, x2: X})
        for a, b in zip(got, [*want, want[2]]):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        assert s.run("read:0") == 3
