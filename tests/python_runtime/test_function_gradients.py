"""Gradients through function calls and functional control flow (PartitionedCall,
StatefulPartitionedCall, a node whose op type is a function, If, StatelessIf, Case,
While, StatelessWhile):
graphs with a FunctionDefLibrary imported with opgen.import_graph_def, differentiated with
opgen.gradients, checked against central finite differences (gradient_check.py) and
against TensorFlow 2.21's gradients of its own tf.cond / tf.while_loop graph (child
process)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, types_pb2
from tf_reference import run_tf, tf_python

sys.path.insert(0, str(Path(__file__).parent))
from gradient_check import check_gradient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_functions"
DTYPES = {np.float32: types_pb2.DT_FLOAT, np.float64: types_pb2.DT_DOUBLE}
I32, BOOL = types_pb2.DT_INT32, types_pb2.DT_BOOL


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _node(container, name, op, inputs=(), **attrs):
    n = container.add(name=name, op=op)
    n.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, attr_value_pb2.AttrValue):
            n.attr[key].CopyFrom(value)
        elif isinstance(value, list):
            n.attr[key].list.type.extend(value)
        elif isinstance(value, str):
            n.attr[key].s = value.encode()
        else:
            n.attr[key].type = value
    return n


def _func(name):
    return attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=name))


def _function(library, name, inputs, outputs, ret, stateful=False):
    f = library.function.add()
    f.signature.name = name
    f.signature.is_stateful = stateful
    for n, t in inputs:
        f.signature.input_arg.add(name=n, type=t)
    for n, t in outputs:
        f.signature.output_arg.add(name=n, type=t)
    f.ret.update(ret)
    return f


def _library(t):
    """The functions the tests call, on dtype `t` (a DataType enum)."""
    lib = graph_pb2.GraphDef().library
    # poly(x, y) -> (x*x*y + sin(x), x - y)
    f = _function(lib, "poly", [("x", t), ("y", t)], [("a", t), ("b", t)],
                  {"a": "a:z:0", "b": "b:z:0"})
    _node(f.node_def, "xx", "Mul", ["x", "x"], T=t)
    _node(f.node_def, "xxy", "Mul", ["xx:z:0", "y"], T=t)
    _node(f.node_def, "s", "Sin", ["x"], T=t)
    _node(f.node_def, "a", "AddV2", ["xxy:z:0", "s:y:0"], T=t)
    _node(f.node_def, "b", "Sub", ["x", "y"], T=t)
    # outer(x, y) -> poly(x * y, x).a * x, through a nested PartitionedCall
    f = _function(lib, "outer", [("x", t), ("y", t)], [("r", t)], {"r": "r:z:0"})
    _node(f.node_def, "xy", "Mul", ["x", "y"], T=t)
    _node(f.node_def, "call", "PartitionedCall", ["xy:z:0", "x"], Tin=[t, t], Tout=[t, t],
          f=_func("poly"))
    _node(f.node_def, "r", "Mul", ["call:output:0", "x"], T=t)
    # branches on (x, y): then x*x*y, else sin(x) (y unused), third exp(y) (x unused)
    f = _function(lib, "then_b", [("x", t), ("y", t)], [("r", t)], {"r": "r:z:0"})
    _node(f.node_def, "xx", "Mul", ["x", "x"], T=t)
    _node(f.node_def, "r", "Mul", ["xx:z:0", "y"], T=t)
    f = _function(lib, "else_b", [("x", t), ("y", t)], [("r", t)], {"r": "r:y:0"})
    _node(f.node_def, "r", "Sin", ["x"], T=t)
    f = _function(lib, "third_b", [("x", t), ("y", t)], [("r", t)], {"r": "r:y:0"})
    _node(f.node_def, "r", "Exp", ["y"], T=t)
    # scaled(x, n: int32) -> x * cast(n): an integer arg gets no gradient
    f = _function(lib, "scaled", [("x", t), ("n", I32)], [("r", t)], {"r": "r:z:0"})
    _node(f.node_def, "c", "Cast", ["n"], SrcT=I32, DstT=t)
    _node(f.node_def, "r", "Mul", ["x", "c:y:0"], T=t)
    return lib


def _import(g, gd, inputs, fetch):
    """Imports `gd` (placeholders x0, x1, ... mapped to `inputs`) into g; returns `fetch`."""
    with g.as_default():
        (out,) = opgen.import_graph_def(
            gd, input_map={f"x{i}": t for i, t in enumerate(inputs)}, return_elements=[fetch])
    return out


def _graph(t, *inputs):
    gd = graph_pb2.GraphDef()
    gd.library.CopyFrom(_library(t))
    for i, dtype in enumerate(inputs):
        _node(gd.node, f"x{i}", "Placeholder", dtype=dtype)
    return gd


def _call_builder(op, fn, outputs):
    """(graph, [x, y]) -> op(fn)(x, y), its outputs multiplied together when two."""
    def build(g, inputs):
        t = DTYPES[np.dtype(inputs[0].dtype.as_numpy_dtype).type]
        gd = _graph(t, t, t)
        if op == "function node":
            _node(gd.node, "call", fn, ["x0", "x1"])
        else:
            _node(gd.node, "call", op, ["x0", "x1"], Tin=[t, t], Tout=[t] * outputs, f=_func(fn))
        if outputs == 2:
            _node(gd.node, "y", "Mul", ["call:0", "call:1"], T=t)
            return _import(g, gd, inputs, "y:0")
        return _import(g, gd, inputs, "call:0")
    return build


RNG = np.random.default_rng(3)
X, Y = RNG.uniform(-1.5, 1.5, (2, 3)), RNG.uniform(0.5, 1.5, (2, 3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op", ["PartitionedCall", "StatefulPartitionedCall", "function node"])
def test_call_gradient_matches_finite_differences(op, dtype):
    fn = "outer" if op == "function node" else "poly"
    check_gradient(_call_builder(op, fn, 1 if fn == "outer" else 2), [X, Y], dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nested_call_gradient_matches_finite_differences(dtype):
    check_gradient(_call_builder("PartitionedCall", "outer", 1), [X, Y], dtype=dtype)


def _scalar_const(container, name, dtype, value):
    """A scalar Const in a GraphDef or a FunctionDef."""
    nodes = container.node if hasattr(container, "node") else container.node_def
    tensor = _node(nodes, name, "Const", dtype=dtype).attr["value"].tensor
    tensor.dtype = dtype
    tensor.tensor_content = np.asarray(value).tobytes()


def _cond_builder(op, pred):
    def build(g, inputs):
        t = DTYPES[np.dtype(inputs[0].dtype.as_numpy_dtype).type]
        gd = _graph(t, t, t)
        if op == "Case":
            _scalar_const(gd, "p", I32, np.int32(pred))
            branches = attr_value_pb2.AttrValue()
            for name in ("then_b", "else_b", "third_b"):
                branches.list.func.add(name=name)
            _node(gd.node, "c", "Case", ["p", "x0", "x1"], Tin=[t, t], Tout=[t], branches=branches)
        else:
            _scalar_const(gd, "p", BOOL, np.bool_(pred))
            _node(gd.node, "c", op, ["p", "x0", "x1"], Tcond=BOOL, Tin=[t, t], Tout=[t],
                  then_branch=_func("then_b"), else_branch=_func("else_b"))
        return _import(g, gd, inputs, "c:0")
    return build


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("op", ["If", "StatelessIf"])
def test_if_gradient_matches_finite_differences(op, pred, dtype):
    grads = check_gradient(_cond_builder(op, pred), [X, Y], dtype=dtype)
    if not pred:  # the else branch does not use y: its gradient is zeros, not missing
        np.testing.assert_array_equal(grads[1], np.zeros_like(Y))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [0, 1, 2, 5])
def test_case_gradient_matches_finite_differences(index, dtype):
    check_gradient(_cond_builder("Case", index), [X, Y], dtype=dtype)


def test_integer_arguments_get_no_gradient():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3])
        n = opgen.ops.placeholder(opgen.int32, shape=[])
    gd = _graph(types_pb2.DT_DOUBLE, types_pb2.DT_DOUBLE, I32)
    _node(gd.node, "call", "PartitionedCall", ["x0", "x1"], Tin=[types_pb2.DT_DOUBLE, I32],
          Tout=[types_pb2.DT_DOUBLE], f=_func("scaled"))
    y = _import(g, gd, [x, n], "call:0")
    with g.as_default():
        dx, dn = opgen.gradients([y], [x, n])
    assert dn is None
    with opgen.Session(g) as s:
        np.testing.assert_allclose(s.run(dx, {x: [1.0, 2.0, 3.0], n: 4}), [4.0, 4.0, 4.0])


def test_gradient_functions_join_the_graphs_library():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[2, 3])
        y = opgen.ops.placeholder(opgen.float64, shape=[2, 3])
    out = _call_builder("PartitionedCall", "outer", 1)(g, [x, y])
    before = {f.signature.name for f in g.as_graph_def().library.function}
    with g.as_default():
        opgen.gradients([out], [x, y])
    added = {f.signature.name for f in g.as_graph_def().library.function} - before
    # one for outer, one for the poly it calls
    assert sorted(a.rsplit("_grad_", 1)[0] for a in added) == ["outer", "poly"], added
    again = opgen.Graph()  # the library, gradients included, survives export and import
    with again.as_default():
        opgen.import_graph_def(g.as_graph_def(), name="")


def _tf_fixture_graph():
    gd = graph_pb2.GraphDef.FromString((FIXTURES / "control_flow.pb").read_bytes())
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    return g


TF_SCRIPT = r"""
import sys, numpy as np, tensorflow as tf
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
io = np.load(sys.argv[2])
with tf.Graph().as_default() as g:
    tf.compat.v1.import_graph_def(gd, name="")
    x, n, y = (g.get_tensor_by_name(name) for name in ("x:0", "n:0", sys.argv[4]))
    w = tf.compat.v1.placeholder(tf.float32)
    (dx,) = tf.compat.v1.gradients([y], [x], grad_ys=[w])
    with tf.compat.v1.Session() as s:
        np.save(sys.argv[3], np.stack([s.run(dx, {x: io["x%d" % k], n: io["n%d" % k],
                                                  w: io["w%d" % k]}) for k in range(2)]))
"""


@pytest.mark.parametrize("fetch", ["cond:0", "Identity:0"], ids=["tf.cond", "tf.while_loop"])
def test_tensorflow_control_flow_gradient_matches_tensorflow(fetch, tmp_path):
    """TensorFlow 2.21's tf.function with a tf.cond (StatelessIf over a nested
    PartitionedCall, relu inside) and a tf.while_loop (StatelessWhile whose body holds a
    StatelessIf): opgen's gradients of its cond and of its result equal TensorFlow's."""
    tf_python()  # skips first when there is no TensorFlow
    x0 = np.load(FIXTURES / "control_flow_io.npz")["x0"]
    xs = [-x0, x0]  # sum > 0: the relu branch; sum < 0: x - 1
    assert xs[0].sum() > 0 > xs[1].sum()
    ns = [np.int32(5), np.int32(2)]
    g = _tf_fixture_graph()
    x, n, y = (g.get_operation_by_name(name).outputs[0] for name in ("x", "n", fetch[:-2]))
    with opgen.Session(g) as s:
        shape = s.run(y, {x: xs[0], n: ns[0]}).shape
    ws = [RNG.uniform(0.5, 1.5, shape).astype(np.float32) for _ in xs]
    np.savez(tmp_path / "io.npz", x0=xs[0], x1=xs[1], n0=ns[0], n1=ns[1], w0=ws[0], w1=ws[1])
    (tmp_path / "tf_grad.py").write_text(TF_SCRIPT)
    run_tf([tmp_path / "tf_grad.py", FIXTURES / "control_flow.pb", tmp_path / "io.npz",
            tmp_path / "tf.npy", fetch], cwd=tmp_path)
    expected = np.load(tmp_path / "tf.npy")
    with g.as_default():
        w = opgen.ops.placeholder(opgen.float32)
        (dx,) = opgen.gradients([y], [x], grad_ys=[w])
    with opgen.Session(g) as s:
        for k in range(2):
            np.testing.assert_allclose(s.run(dx, {x: xs[k], n: ns[k], w: ws[k]}), expected[k],
                                       rtol=1e-5, atol=1e-6)
    assert np.count_nonzero(expected[0]) not in (0, expected[0].size)  # not all 0 or all set


def _loop_library(lib, t):
    """loop_cond(i, acc, x, n) = i < n; loop_body(i, acc, x, n) = (i + 1, acc*x + sin(acc),
    x, n)."""
    loop_vars = [("i", I32), ("acc", t), ("x", t), ("n", I32)]
    f = _function(lib, "loop_cond", loop_vars, [("r", BOOL)], {"r": "r:z:0"})
    _node(f.node_def, "r", "Less", ["i", "n"], T=I32)
    f = _function(lib, "loop_body", loop_vars,
                  [("i_out", I32), ("acc_out", t), ("x_out", t), ("n_out", I32)],
                  {"i_out": "next:z:0", "acc_out": "acc_next:z:0", "x_out": "x", "n_out": "n"})
    _scalar_const(f, "one", I32, np.int32(1))
    _node(f.node_def, "next", "AddV2", ["i", "one:output:0"], T=I32)
    _node(f.node_def, "ax", "Mul", ["acc", "x"], T=t)
    _node(f.node_def, "s", "Sin", ["acc"], T=t)
    _node(f.node_def, "acc_next", "AddV2", ["ax:z:0", "s:y:0"], T=t)


def _while_builder(op, iterations):
    def build(g, inputs):
        t = DTYPES[np.dtype(inputs[0].dtype.as_numpy_dtype).type]
        gd = _graph(t, t, t)
        _loop_library(gd.library, t)
        _scalar_const(gd, "zero", I32, np.int32(0))
        _scalar_const(gd, "n", I32, np.int32(iterations))
        _node(gd.node, "loop", op, ["zero", "x0", "x1", "n"], T=[I32, t, t, I32],
              cond=_func("loop_cond"), body=_func("loop_body"))
        return _import(g, gd, inputs, "loop:1")
    return build


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("iterations", [0, 1, 4])
@pytest.mark.parametrize("op", ["While", "StatelessWhile"])
def test_while_gradient_matches_finite_differences(op, iterations, dtype):
    """d(acc after n steps of acc*x + sin(acc)) / d(acc0, x), the loop-invariant x
    included; no iterations: the seed passes to acc0, zeros to x."""
    grads = check_gradient(_while_builder(op, iterations), [X * 0.5, Y], dtype=dtype)
    if iterations == 0:
        np.testing.assert_array_equal(grads[1], np.zeros_like(Y))


def test_while_reading_a_variable_differentiates():
    """A While whose body reads a variable through a resource loop variable (as
    TensorFlow's loops pass variables): acc <- acc * v + sin(acc), 3 times; d acc / d acc0
    is the product of (v + cos(acc_k)), computed in numpy."""
    t, res = types_pb2.DT_DOUBLE, types_pb2.DT_RESOURCE
    gd = _graph(t, t)
    _node(gd.node, "v", "VarHandleOp", dtype=t, shape=attr_value_pb2.AttrValue(
        shape={"dim": [{"size": 3}]}), shared_name="v")
    init = _node(gd.node, "init", "Const", dtype=t).attr["value"].tensor
    init.dtype = t
    init.tensor_shape.dim.add(size=3)
    init.tensor_content = np.array([0.5, -0.25, 1.5]).tobytes()
    _node(gd.node, "assign", "AssignVariableOp", ["v", "init"], dtype=t)
    loop_vars = [("i", I32), ("h", res), ("acc", t)]
    f = _function(gd.library, "vcond", loop_vars, [("r", BOOL)], {"r": "r:z:0"})
    _scalar_const(f, "three", I32, np.int32(3))
    _node(f.node_def, "r", "Less", ["i", "three:output:0"], T=I32)
    f = _function(gd.library, "vbody", loop_vars, [("i_out", I32), ("h_out", res), ("a", t)],
                  {"i_out": "next:z:0", "h_out": "h", "a": "a:z:0"})
    _scalar_const(f, "one", I32, np.int32(1))
    _node(f.node_def, "next", "AddV2", ["i", "one:output:0"], T=I32)
    _node(f.node_def, "read", "ReadVariableOp", ["h"], dtype=t)
    _node(f.node_def, "av", "Mul", ["acc", "read:value:0"], T=t)
    _node(f.node_def, "s", "Sin", ["acc"], T=t)
    _node(f.node_def, "a", "AddV2", ["av:z:0", "s:y:0"], T=t)
    _scalar_const(gd, "zero", I32, np.int32(0))
    _node(gd.node, "loop", "While", ["zero", "v", "x0"], T=[I32, res, t],
          cond=_func("vcond"), body=_func("vbody"))
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
        x = g.get_operation_by_name("x0").outputs[0]
        (dx,) = opgen.gradients([g.get_operation_by_name("loop").outputs[2]], [x])
    acc = np.array([0.3, -1.2, 0.8])
    v = np.array([0.5, -0.25, 1.5])
    expected = np.ones(3)
    a = acc.copy()
    for _ in range(3):
        expected *= v + np.cos(a)
        a = a * v + np.sin(a)
    with opgen.Session(g) as s:
        s.run(g.get_operation_by_name("assign"))
        np.testing.assert_allclose(s.run(dx, {x: acc}), expected, rtol=1e-12)


def test_a_recursive_function_has_no_gradient_and_the_graph_is_unchanged():
    """rec(x) = If(x > 0, rec(x - 1), x): its gradient would need gradient functions
    without end; the error says so and leaves the graph and its library as they were."""
    t = types_pb2.DT_DOUBLE
    gd = _graph(t, t)
    f = _function(gd.library, "rec", [("x", t)], [("y", t)], {"y": "if:output:0"})
    _scalar_const(f, "zero", t, np.float64(0))
    _scalar_const(f, "one", t, np.float64(1))
    _node(f.node_def, "pos", "Greater", ["x", "zero:output:0"], T=t)
    _node(f.node_def, "if", "StatelessIf", ["pos:z:0", "x"], Tcond=BOOL, Tin=[t], Tout=[t],
          then_branch=_func("rec_then"), else_branch=_func("rec_else"))
    f = _function(gd.library, "rec_then", [("x", t)], [("y", t)], {"y": "call:output:0"})
    _scalar_const(f, "one", t, np.float64(1))
    _node(f.node_def, "dec", "Sub", ["x", "one:output:0"], T=t)
    _node(f.node_def, "call", "PartitionedCall", ["dec:z:0"], Tin=[t], Tout=[t], f=_func("rec"))
    f = _function(gd.library, "rec_else", [("x", t)], [("y", t)], {"y": "x"})
    _node(gd.node, "call", "PartitionedCall", ["x0"], Tin=[t], Tout=[t], f=_func("rec"))
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(g) as s:  # it runs: rec(2.5) = 2.5 - 3
        np.testing.assert_allclose(s.run("call:0", {"x0:0": 2.5}), -0.5)
    before = g.as_graph_def()
    x = g.get_operation_by_name("x0").outputs[0]
    with pytest.raises(opgen.errors.UnimplementedError,
                       match=r"^gradient of call \(PartitionedCall\): gradient of function 'rec'"
                             r": calls nested more than 32 deep \(a recursive function"):
        opgen.gradients([g.get_operation_by_name("call").outputs[0]], [x])
    after = g.as_graph_def()
    assert len(after.node) == len(before.node)
    assert sorted(f.signature.name for f in after.library.function) == \
        sorted(f.signature.name for f in before.library.function)


def test_second_order_through_a_conditional():
    """The gradient of a conditional's gradient: d2(x*x*y)/dx2 = 2y through If twice."""
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3])
        y = opgen.ops.placeholder(opgen.float64, shape=[3])
    out = _cond_builder("If", True)(g, [x, y])
    with g.as_default():
        (dx,) = opgen.gradients([out], [x])
        (ddx,) = opgen.gradients([dx], [x])
    with opgen.Session(g) as s:
        got_dx, got_ddx = s.run([dx, ddx], {x: [1.0, 2.0, 3.0], y: [1.0, -1.0, 2.0]})
    np.testing.assert_allclose(got_dx, [2.0, -4.0, 12.0])
    np.testing.assert_allclose(got_ddx, [2.0, -2.0, 4.0])
