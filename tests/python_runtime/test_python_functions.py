"""opgen.function, opgen.cond and opgen.while_loop (TensorFlow 2's tf.function, tf.cond
and tf.while_loop as a user sees them): results against numpy, eagerly and in graphs;
the nodes they build (PartitionedCall, StatelessIf, StatelessWhile over the graph's
library); captured tensors; nesting; gradients through cond and while_loop against
central finite differences; clear errors; and one loop against TensorFlow 2.21."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import opgen
from tf_reference import run_tf, tf_python


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _run(graph, fetches, feeds):
    with opgen.Session(graph=graph) as session:
        return session.run(fetches, feeds)


def _ops(graph):
    return {n.op for n in graph.as_graph_def().node}


# ---- opgen.function ---------------------------------------------------------------------

def test_function_runs_eagerly_and_in_a_graph():
    @opgen.function
    def f(x, y):
        return {"sum": x * x + y, "diff": x - y}

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32)
    out = f(a, b)
    np.testing.assert_allclose(out["sum"].numpy(), a * a + b, rtol=1e-6)
    np.testing.assert_allclose(out["diff"].numpy(), a - b, rtol=1e-6)

    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[3, 4])
        y = opgen.ops.placeholder(opgen.float32, shape=[3, 4])
        node = f(x, y)
    assert "PartitionedCall" in _ops(g)
    assert len(g.as_graph_def().library.function) == 1
    got = _run(g, [node["sum"], node["diff"]], {x: a, y: b})
    np.testing.assert_allclose(got[0], a * a + b, rtol=1e-6)
    np.testing.assert_allclose(got[1], a - b, rtol=1e-6)
    again = opgen.Graph()  # the library travels with the exported GraphDef
    with again.as_default():
        opgen.import_graph_def(g.as_graph_def(), name="")
    got = _run(again, node["sum"].name, {x.name: a, y.name: b})
    np.testing.assert_allclose(got, a * a + b, rtol=1e-6)


def test_a_lambda_gets_a_valid_function_name():
    f = opgen.function(lambda x: x * 2.0)
    assert f(np.float32(1.5)).numpy() == 3
    assert f.get_concrete_function(np.float32(1)).name.startswith("lambda_")


def test_function_traces_once_per_signature_and_makes_a_function_def():
    traces = []

    @opgen.function
    def f(x, scale):
        traces.append(1)
        return x * scale

    np.testing.assert_array_equal(f(np.float32([1, 2]), 3).numpy(), [3, 6])
    np.testing.assert_array_equal(f(np.float32([4, 5]), 3).numpy(), [12, 15])
    assert len(traces) == 1
    np.testing.assert_array_equal(f(np.float64([1, 2]), 3).numpy(), [3, 6])
    np.testing.assert_array_equal(f(np.float32([1, 2]), 2).numpy(), [2, 4])  # a new value
    assert len(traces) == 3
    np.testing.assert_array_equal(f(scale=2, x=np.float32([3, 4])).numpy(), [6, 8])
    assert len(traces) == 3
    fdef = f.get_concrete_function(np.float32([1, 2]), 3).function_def
    assert [a.type for a in fdef.signature.input_arg] == [opgen.float32.as_datatype_enum]
    assert "Mul" in {n.op for n in fdef.node_def}


def test_input_signature_fixes_the_trace_and_refuses_other_arguments():
    @opgen.function(input_signature=[opgen.TensorSpec([None], opgen.float32)])
    def f(x):
        return opgen.ops.sum(x, [0])

    assert f(np.float32([1, 2, 3])).numpy() == 6
    assert f(np.float32([1, 2, 3, 4])).numpy() == 10
    with pytest.raises(TypeError, match="does not match its input_signature"):
        f(np.int32([1, 2]))
    with pytest.raises(TypeError, match="does not match its input_signature"):
        f(np.float32([[1, 2]]))


def test_functions_nest_and_capture_outer_tensors():
    @opgen.function
    def inner(x):
        return x + 1.0

    @opgen.function
    def outer(x):
        return inner(x) * 2.0

    assert outer(np.float32(3)).numpy() == 8
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[])
        w = opgen.ops.placeholder(opgen.float32, shape=[])

        @opgen.function
        def uses_w(v):
            return outer(v) * w  # w: a tensor of the enclosing graph, captured

        y = uses_w(x)
    assert len(g.as_graph_def().library.function) == 3
    assert _run(g, y, {x: 3.0, w: 10.0}) == 80


def test_eager_variables_are_read_when_the_function_runs():
    v = opgen.Variable(np.float32([1, 2]))

    @opgen.function
    def f(x, flag):
        return opgen.cond(flag, lambda: x * v, lambda: opgen.ops.sin(v) + x)

    x = np.float32([3, 4])
    np.testing.assert_allclose(f(x, np.bool_(True)).numpy(), x * [1, 2])
    v.assign(np.float32([5, 6]))
    np.testing.assert_allclose(f(x, np.bool_(True)).numpy(), x * [5, 6])
    np.testing.assert_allclose(f(x, np.bool_(False)).numpy(), np.sin([5, 6]) + x, rtol=1e-6)
    fdef = f.get_concrete_function(x, np.bool_(True)).function_def
    assert {n.op for n in fdef.node_def} == {"If", "Identity"}  # stateful: reads v

    @opgen.function
    def assigns(y):
        v.assign(y)
        return y

    assigns(np.float32([7, 8]))  # an update in the body runs at each call
    np.testing.assert_array_equal(v.numpy(), [7, 8])


# ---- opgen.cond -------------------------------------------------------------------------

def test_cond_takes_either_branch_in_a_graph_and_eagerly():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(5).astype(np.float32)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[5])
        p = opgen.ops.placeholder(opgen.bool, shape=[])
        y, n = opgen.cond(p, lambda: (x * x, 1), lambda: (x - 1.0, 2))
    assert "StatelessIf" in _ops(g)
    for pred, want, want_n in ((True, a * a, 1), (False, a - 1, 2)):
        got, got_n = _run(g, [y, n], {x: a, p: pred})
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got_n == want_n
    t = opgen.constant(a)
    np.testing.assert_allclose(opgen.cond(opgen.constant(False), lambda: t * t,
                                          lambda: t - 1.0).numpy(), a - 1, rtol=1e-6)


def test_cond_inside_a_function_runs_eagerly():
    @opgen.function
    def relu_or_square(x, flag):
        return opgen.cond(flag, lambda: opgen.ops.relu(x), lambda: x * x)

    a = np.float32([-2, 3])
    np.testing.assert_allclose(relu_or_square(a, np.bool_(True)).numpy(), [0, 3])
    np.testing.assert_allclose(relu_or_square(a, np.bool_(False)).numpy(), [4, 9])


def test_a_branch_may_return_an_outer_tensor_as_it_is():
    @opgen.function
    def pick(x, flag):
        doubled = x * 2.0
        return opgen.cond(flag, lambda: doubled, lambda: x)

    assert pick(np.float32(3), np.bool_(True)).numpy() == 6
    assert pick(np.float32(3), np.bool_(False)).numpy() == 3


def test_cond_with_a_stateful_branch_is_an_if():
    g = opgen.Graph()
    with g.as_default():
        p = opgen.ops.placeholder(opgen.bool, shape=[])
        v = opgen.Variable(np.float32([1, 2]))
        y = opgen.cond(p, lambda: opgen.ops.read_variable_op(v.handle, opgen.float32),
                       lambda: opgen.ops.zeros_like(np.float32([0, 0])))
    assert "If" in _ops(g) and "StatelessIf" not in _ops(g)
    with opgen.Session(graph=g) as session:
        session.run(v.initializer)
        np.testing.assert_array_equal(session.run(y, {p: False}), [0, 0])
        np.testing.assert_array_equal(session.run(y, {p: True}), [1, 2])


def test_cond_branches_that_disagree_raise_clear_errors():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[])
        p = opgen.ops.placeholder(opgen.bool, shape=[])
        with pytest.raises(TypeError, match="result 0 is float32 in true_fn and int32"):
            opgen.cond(p, lambda: x, lambda: opgen.ops.cast(x, opgen.int32))
        with pytest.raises(ValueError, match="same structure"):
            opgen.cond(p, lambda: (x, x), lambda: x)
        with pytest.raises(TypeError, match="pred must be a bool"):
            opgen.cond(x, lambda: x, lambda: x)


# ---- opgen.while_loop -------------------------------------------------------------------

def _numpy_loop(x, n):
    i, acc, s = 0, np.float32(1), np.zeros_like(x)
    while i < n:
        i, acc, s = i + 1, acc * np.float32(0.5), s + x * acc
    return i, acc, s


def test_while_loop_with_several_variables_in_a_graph_and_eagerly():
    a = np.float32([1, 2, 3])
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[3])
        n = opgen.ops.placeholder(opgen.int32, shape=[])
        out = opgen.while_loop(lambda i, acc, s: i < n,
                               lambda i, acc, s: (i + 1, acc * 0.5, s + x * acc),
                               (0, np.float32(1), opgen.ops.zeros_like(x)))
    assert isinstance(out, tuple) and "StatelessWhile" in _ops(g)
    for steps in (0, 1, 5):
        got = _run(g, list(out), {x: a, n: steps})
        want = _numpy_loop(a, steps)
        assert got[0] == want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-6)
    eager = opgen.while_loop(lambda i, acc, s: i < 5,
                             lambda i, acc, s: (i + 1, acc * 0.5, s + a * acc),
                             (0, np.float32(1), np.zeros(3, np.float32)))
    np.testing.assert_allclose(eager[2].numpy(), _numpy_loop(a, 5)[2], rtol=1e-6)


def test_maximum_iterations_stops_the_loop():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[])
        k = opgen.while_loop(lambda v: v < 1000.0, lambda v: v * 2.0, x, maximum_iterations=4)
        j = opgen.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x, maximum_iterations=100)
    assert _run(g, [k, j], {x: 1.0}) == [16.0, 16.0]
    assert opgen.while_loop(lambda v: True, lambda v: v + 1, 0, maximum_iterations=7).numpy() == 7


def test_shape_invariants_let_a_loop_variable_grow():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[1])

        def double(i, s):
            return i + 1, opgen.ops.concat_v2([s, s * 2.0], 0)

        with pytest.raises(ValueError, match=r"shape of loop variable 1 from \(1,\) to \(2,\)"):
            opgen.while_loop(lambda i, s: i < 3, double, (0, x))
        _, y = opgen.while_loop(lambda i, s: i < 3, double, (0, x),
                                shape_invariants=((), [None]))
    want = np.float32([1])
    for _ in range(3):
        want = np.concatenate([want, want * 2])
    np.testing.assert_array_equal(_run(g, y, {x: [1.0]}), want)


def test_nested_loop_in_a_cond_in_a_function():
    @opgen.function
    def f(x, n):
        def count_up():
            return opgen.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x),
                                    [0, np.float32(0)])[1]
        return opgen.cond(n > 0, count_up, lambda: -x)

    assert f(np.float32(1.5), np.int32(4)).numpy() == 6
    assert f(np.float32(1.5), np.int32(0)).numpy() == -1.5


def test_body_that_changes_a_dtype_or_structure_raises_clear_errors():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[])
        with pytest.raises(TypeError, match="changed loop variable 1 from float32 to int32"):
            opgen.while_loop(lambda i, v: i < 3,
                             lambda i, v: (i + 1, opgen.ops.cast(v, opgen.int32)), [0, x])
        with pytest.raises(ValueError, match="structure of loop_vars"):
            opgen.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1,), [0, x])
        with pytest.raises(ValueError, match="rank of loop variable 0"):
            opgen.while_loop(lambda v: True, lambda v: opgen.ops.reshape(v, [1]), x)
    with pytest.raises(TypeError, match="changed loop variable 0 from int32 to float32"):
        opgen.while_loop(lambda v: v < 3, lambda v: opgen.ops.cast(v + 1, opgen.float32), 0)


# ---- gradients --------------------------------------------------------------------------

def _central_difference(graph, y, x, feeds, at, eps=1e-3):
    plus = _run(graph, y, {**feeds, x: at + eps})
    minus = _run(graph, y, {**feeds, x: at - eps})
    return (np.float64(plus) - np.float64(minus)) / (2 * eps)


@pytest.mark.parametrize("pred", [True, False])
def test_cond_gradient_matches_finite_differences(pred):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[])
        p = opgen.ops.placeholder(opgen.bool, shape=[])
        y = opgen.cond(p, lambda: opgen.ops.sin(x) * x, lambda: x * x * x)
        (dx,) = opgen.gradients([y], [x])
    at = np.float64(0.7)
    got = _run(g, dx, {x: at, p: pred})
    np.testing.assert_allclose(got, _central_difference(g, y, x, {p: pred}, at, 1e-5),
                               rtol=1e-6)


def test_while_loop_gradient_matches_finite_differences():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[])
        n = opgen.ops.placeholder(opgen.int32, shape=[])
        _, y = opgen.while_loop(lambda i, v: i < n,
                                lambda i, v: (i + 1, opgen.ops.sin(v) + x * v), [0, x])
        (dx,) = opgen.gradients([y], [x])
    at = np.float64(0.4)
    for steps in (1, 3):
        got = _run(g, dx, {x: at, n: steps})
        np.testing.assert_allclose(
            got, _central_difference(g, y, x, {n: steps}, at, 1e-5), rtol=1e-6)


def test_gradient_tape_differentiates_eager_calls():
    @opgen.function
    def f(x, n):
        _, y = opgen.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, opgen.ops.sin(v) * x),
                                [0, x])
        return y

    at = np.float64([0.3, 1.1])
    x = opgen.constant(at)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = f(x, np.int32(3)) * 2.0
    got = tape.gradient(y, x).numpy()
    eps = 1e-6
    want = (f(at + eps, np.int32(3)).numpy() - f(at - eps, np.int32(3)).numpy()) / eps
    np.testing.assert_allclose(got, want, rtol=1e-6)


# ---- against TensorFlow 2.21 ------------------------------------------------------------

_TF_SCRIPT = """
import json, sys
import numpy as np, tensorflow as tf
@tf.function
def f(x, n):
    _, s = tf.while_loop(lambda i, s: i < n,
                         lambda i, s: (i + 1, tf.cond(s < 3.0, lambda: s * x, lambda: s - 1.0)),
                         [0, tf.constant(1.0)], maximum_iterations=6)
    return s
print(json.dumps([float(f(tf.constant(x), tf.constant(n))) for x, n in
                  [(1.5, 4), (2.0, 10), (0.5, 2)]]))
"""


def test_a_loop_with_a_cond_matches_tensorflow(tmp_path):
    done = run_tf(["-c", _TF_SCRIPT], cwd=tmp_path, timeout=300)
    want = json.loads(done.stdout.strip().splitlines()[-1])

    @opgen.function
    def f(x, n):
        _, s = opgen.while_loop(
            lambda i, s: i < n,
            lambda i, s: (i + 1, opgen.cond(s < 3.0, lambda: s * x, lambda: s - 1.0)),
            [0, np.float32(1.0)], maximum_iterations=6)
        return s

    got = [float(f(np.float32(x), np.int32(n)).numpy()) for x, n in [(1.5, 4), (2.0, 10), (0.5, 2)]]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert sys.executable != str(tf_python())  # TensorFlow ran in another interpreter
