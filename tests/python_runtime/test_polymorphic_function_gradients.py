"""Gradients through calls of polymorphic functions (signature attrs `T: type`, `N: int`
read as `$T` placeholders in their nodes): a function-name node, PartitionedCall (attrs
in its `f` NameAttrList, or deduced from the inputs), an `N*T` list argument, a
polymorphic branch of If and a call nested inside a polymorphic function, each bound to
float32 and float64; differentiated with opgen.gradients (TF_AddGradients) and checked
against central finite differences (gradient_check.py) and the closed-form derivatives
in numpy. The gradient functions added to the library are monomorphic."""

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

DTYPES = {np.float32: types_pb2.DT_FLOAT, np.float64: types_pb2.DT_DOUBLE}
BOOL = types_pb2.DT_BOOL


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
        elif isinstance(value, str):  # "$T": the function's attr
            n.attr[key].placeholder = value
        elif isinstance(value, list):
            n.attr[key].list.type.extend(value)
        elif key == "N":
            n.attr[key].i = value
        else:
            n.attr[key].type = value
    return n


def _func(name, **types):
    f = attr_value_pb2.NameAttrList(name=name)
    for key, value in types.items():
        if isinstance(value, str):
            f.attr[key].placeholder = value
        else:
            f.attr[key].type = value
    return attr_value_pb2.AttrValue(func=f)


def _poly(lib, name, inputs, outputs, attrs=(("T", "type"),)):
    f = lib.function.add()
    f.signature.name = name
    for a, kind in attrs:
        f.signature.attr.add(name=a, type=kind)
    for n, number in inputs:
        f.signature.input_arg.add(name=n, type_attr="T", number_attr=number)
    for n in outputs:
        f.signature.output_arg.add(name=n, type_attr="T")
    return f


def _library(lib):
    """psin[T](x, y) = x*x*y + sin(x); pneg[T](x, y) = -(x*y);
    total[N, T](xs: N*T) = s * sin(s), s = AddN(xs);
    nested[T](x, y) = psin[T=$T](x*y, x) * x, psin called by a function-name node."""
    f = _poly(lib, "psin", [("x", ""), ("y", "")], ["z"])
    _node(f.node_def, "xx", "Mul", ["x", "x"], T="T")
    _node(f.node_def, "xxy", "Mul", ["xx:z:0", "y"], T="T")
    _node(f.node_def, "s", "Sin", ["x"], T="T")
    _node(f.node_def, "z", "AddV2", ["xxy:z:0", "s:y:0"], T="T")
    f.ret["z"] = "z:z:0"
    f = _poly(lib, "pneg", [("x", ""), ("y", "")], ["r"])
    _node(f.node_def, "xy", "Mul", ["x", "y"], T="T")
    _node(f.node_def, "r", "Neg", ["xy:z:0"], T="T")
    f.ret["r"] = "r:y:0"
    f = _poly(lib, "total", [("xs", "N")], ["r"], attrs=(("N", "int"), ("T", "type")))
    _node(f.node_def, "s", "AddN", ["xs"], N="N", T="T")
    _node(f.node_def, "sin", "Sin", ["s:sum:0"], T="T")
    _node(f.node_def, "r", "Mul", ["s:sum:0", "sin:y:0"], T="T")
    f.ret["r"] = "r:z:0"
    f = _poly(lib, "nested", [("x", ""), ("y", "")], ["r"])
    _node(f.node_def, "xy", "Mul", ["x", "y"], T="T")
    _node(f.node_def, "call", "psin", ["xy:z:0", "x"], T="T")
    _node(f.node_def, "r", "Mul", ["call:z:0", "x"], T="T")
    f.ret["r"] = "r:z:0"


def _builder(make_node, inputs=2):
    """(graph, [x, y]) -> the call make_node(gd, t) adds as node "c", over placeholders
    x0, x1 mapped to the inputs."""
    def build(g, values):
        t = DTYPES[np.dtype(values[0].dtype.as_numpy_dtype).type]
        gd = graph_pb2.GraphDef()
        _library(gd.library)
        for i in range(inputs):
            _node(gd.node, f"x{i}", "Placeholder", dtype=t)
        make_node(gd, t)
        with g.as_default():
            (out,) = opgen.import_graph_def(
                gd, input_map={f"x{i}": v for i, v in enumerate(values)},
                return_elements=["c:0"])
        return out
    return build


RNG = np.random.default_rng(7)
X, Y = RNG.uniform(-1.5, 1.5, (2, 3)), RNG.uniform(0.5, 1.5, (2, 3))
# The weights check_gradient differentiates sum(W * y) with (its seed 0).
W = np.random.default_rng(0).uniform(0.5, 1.5, X.shape)


def _psin_grads(x, y):
    return [W * (2 * x * y + np.cos(x)), W * x * x]


CALLS = {
    "function node": lambda gd, t: _node(gd.node, "c", "psin", ["x0", "x1"], T=t),
    "PartitionedCall": lambda gd, t: _node(gd.node, "c", "PartitionedCall", ["x0", "x1"],
                                           Tin=[t, t], Tout=[t], f=_func("psin", T=t)),
    "PartitionedCall deduced": lambda gd, t: _node(
        gd.node, "c", "PartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t],
        f=_func("psin")),  # T from the inputs
    "StatefulPartitionedCall": lambda gd, t: _node(
        gd.node, "c", "StatefulPartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t],
        f=_func("psin", T=t)),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("call", list(CALLS))
def test_call_of_a_polymorphic_function_matches_finite_differences(call, dtype):
    grads = check_gradient(_builder(CALLS[call]), [X, Y], dtype=dtype)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for got, want in zip(grads, _psin_grads(X, Y)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("by", ["function node", "PartitionedCall"])
def test_list_argument_n_times_t_matches_finite_differences(by, dtype):
    """total[N=3] over (x, y, x): x's gradient gathers two list elements'."""
    def make(gd, t):
        if by == "function node":
            _node(gd.node, "c", "total", ["x0", "x1", "x0"], N=3, T=t)
        else:
            _node(gd.node, "c", "PartitionedCall", ["x0", "x1", "x0"], Tin=[t] * 3, Tout=[t],
                  f=_func("total"))  # N and T from the inputs
    grads = check_gradient(_builder(make), [X, Y], dtype=dtype)
    s = 2 * X + Y
    d = np.sin(s) + s * np.cos(s)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(grads[0], 2 * W * d, rtol=tol, atol=tol)
    np.testing.assert_allclose(grads[1], W * d, rtol=tol, atol=tol)


def _scalar_bool(gd, name, value):
    tensor = _node(gd.node, name, "Const", dtype=BOOL).attr["value"].tensor
    tensor.dtype = BOOL
    tensor.bool_val.append(value)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("op", ["If", "StatelessIf"])
def test_polymorphic_branches_of_if_match_finite_differences(op, pred, dtype):
    """then = psin (T in its func attr), else = pneg (T from the inputs)."""
    def make(gd, t):
        _scalar_bool(gd, "p", pred)
        _node(gd.node, "c", op, ["p", "x0", "x1"], Tcond=BOOL, Tin=[t, t], Tout=[t],
              then_branch=_func("psin", T=t), else_branch=_func("pneg"))
    grads = check_gradient(_builder(make), [X, Y], dtype=dtype)
    want = _psin_grads(X, Y) if pred else [-W * Y, -W * X]
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for got, w in zip(grads, want):
        np.testing.assert_allclose(got, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [0, 1])
def test_polymorphic_branches_of_case_match_finite_differences(index, dtype):
    """Case's branches (a list(func) attr: no attrs per branch) bound by the inputs."""
    def make(gd, t):
        tensor = _node(gd.node, "p", "Const", dtype=types_pb2.DT_INT32).attr["value"].tensor
        tensor.dtype = types_pb2.DT_INT32
        tensor.int_val.append(index)
        branches = attr_value_pb2.AttrValue()
        for name in ("psin", "pneg"):
            branches.list.func.add(name=name)
        _node(gd.node, "c", "Case", ["p", "x0", "x1"], Tin=[t, t], Tout=[t], branches=branches)
    grads = check_gradient(_builder(make), [X, Y], dtype=dtype)
    want = _psin_grads(X, Y) if index == 0 else [-W * Y, -W * X]
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for got, w in zip(grads, want):
        np.testing.assert_allclose(got, w, rtol=tol, atol=tol)


def test_a_binding_the_gradient_cannot_make_is_invalid_argument_naming_the_attr():
    """pneg[T] called with T=int32 on float inputs: the gradient refuses as the call does."""
    t = types_pb2.DT_FLOAT
    gd = graph_pb2.GraphDef()
    _library(gd.library)
    for i in range(2):
        _node(gd.node, f"x{i}", "Placeholder", dtype=t)
    _node(gd.node, "c", "PartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t],
          f=_func("pneg", T=types_pb2.DT_INT32))
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
        x0 = g.get_operation_by_name("x0").outputs[0]
        with pytest.raises(opgen.errors.InvalidArgumentError) as e:
            opgen.gradients([g.get_operation_by_name("c").outputs[0]], [x0])
    message = str(e.value)
    assert "'pneg'" in message and "T=DT_INT32" in message, message


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_call_nested_in_a_polymorphic_function(dtype):
    """nested[T] calls psin[T=$T]: the inner call's gradient binds the outer's value."""
    check_gradient(_builder(lambda gd, t: _node(gd.node, "c", "nested", ["x0", "x1"], T=t)),
                   [X, Y], dtype=dtype)


def test_gradient_functions_are_monomorphic_and_shared_per_binding():
    g = opgen.Graph()
    gd = graph_pb2.GraphDef()
    _library(gd.library)
    for name, t in (("a", types_pb2.DT_FLOAT), ("b", types_pb2.DT_DOUBLE)):
        _node(gd.node, name, "Placeholder", dtype=t)
        _node(gd.node, f"c_{name}", "nested", [name, name], T=t)
        _node(gd.node, f"d_{name}", "PartitionedCall", [name, name], Tin=[t, t], Tout=[t],
              f=_func("nested", T=t))
    with g.as_default():
        opgen.import_graph_def(gd, name="")
        ops = {n: g.get_operation_by_name(n) for n in ("a", "b", "c_a", "c_b", "d_a", "d_b")}
        da, db = opgen.gradients([ops["c_a"].outputs[0], ops["d_a"].outputs[0],
                                  ops["c_b"].outputs[0], ops["d_b"].outputs[0]],
                                 [ops["a"].outputs[0], ops["b"].outputs[0]])
    library = g.as_graph_def().library.function
    originals = {"psin", "pneg", "total", "nested"}
    added = [f for f in library if f.signature.name not in originals]
    assert added and all(not f.signature.attr for f in added)
    # one instance of nested and one of psin per dtype, each differentiated: the two calls
    # of one binding share them
    instances = sorted(f.signature.name.rsplit("_", 1)[0] for f in added
                       if "_grad" not in f.signature.name)
    assert instances == ["nested_instance"] * 2 + ["psin_instance"] * 2, instances
    with opgen.Session(g) as s:
        x = np.float32([0.5, -1.25])
        ga, gb = s.run([da, db], {ops["a"].outputs[0]: x, ops["b"].outputs[0]: x.astype(np.float64)})
    assert ga.dtype == np.float32 and gb.dtype == np.float64
    # nested(x, x) = (x^5 + sin(x^2)) * x: d/dx = 6x^5 + sin(x^2) + 2x^2 cos(x^2), twice
    x64 = x.astype(np.float64)
    want = 2 * (6 * x64**5 + np.sin(x64**2) + 2 * x64**2 * np.cos(x64**2))
    np.testing.assert_allclose(gb, want, rtol=1e-12)
    np.testing.assert_allclose(ga, want, rtol=1e-5)


# TensorFlow's Python gradients need Python wrappers of the functions, which it cannot
# make for polymorphic ones; its C++ function gradient (SymbolicGradient, bound by the
# attrs of its `f`) differentiates the same library instead.
TF_SCRIPT = r"""
import sys, numpy as np, tensorflow as tf
from tensorflow.python.framework import function as tf_function
tf_function.from_library = lambda library: []
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
io = np.load(sys.argv[2])
with tf.Graph().as_default() as g:
    tf.compat.v1.import_graph_def(gd, name="")
    with tf.compat.v1.Session() as s:
        got = s.run(["g_psin:0", "g_psin:1", "g_nested:0", "g_nested:1"],
                    {"x0:0": io["x"], "x1:0": io["y"], "w:0": io["w"]})
np.savez(sys.argv[3], *got)
"""


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gradients_match_tensorflow_symbolic_gradient(dtype, tmp_path):
    """psin by a function-name node and nested[T] by PartitionedCall, against TensorFlow
    2.21's SymbolicGradient of psin[T] and nested[T] on the same values (child process)."""
    tf_python()  # skips first when there is no TensorFlow
    t = DTYPES[dtype]
    gd = graph_pb2.GraphDef()
    _library(gd.library)
    for name in ("x0", "x1", "w"):
        _node(gd.node, name, "Placeholder", dtype=t)
    tf_gd = graph_pb2.GraphDef()
    tf_gd.CopyFrom(gd)
    for fn in ("psin", "nested"):
        _node(tf_gd.node, f"g_{fn}", "SymbolicGradient", ["x0", "x1", "w"], Tin=[t] * 3,
              Tout=[t] * 2, f=_func(fn, T=t))
    _node(gd.node, "c_psin", "psin", ["x0", "x1"], T=t)
    _node(gd.node, "c_nested", "PartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t],
          f=_func("nested", T=t))
    x, y, w = (v.astype(dtype) for v in (X, Y, W))
    (tmp_path / "g.pb").write_bytes(tf_gd.SerializeToString())
    np.savez(tmp_path / "io.npz", x=x, y=y, w=w)
    (tmp_path / "tf_grad.py").write_text(TF_SCRIPT)
    run_tf([tmp_path / "tf_grad.py", tmp_path / "g.pb", tmp_path / "io.npz", tmp_path / "tf.npz"],
           cwd=tmp_path, timeout=300)
    expected = np.load(tmp_path / "tf.npz")
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
        x0, x1, w_in = (g.get_operation_by_name(n).outputs[0] for n in ("x0", "x1", "w"))
        grads = []
        for name in ("c_psin", "c_nested"):
            grads += opgen.gradients([g.get_operation_by_name(name).outputs[0]], [x0, x1],
                                     grad_ys=[w_in])
    with opgen.Session(g) as s:
        got = s.run(grads, {x0: x, x1: y, w_in: w})
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for k, value in enumerate(got):
        assert value.dtype == dtype
        np.testing.assert_allclose(value, expected[f"arr_{k}"], rtol=tol, atol=tol)


def _loop_library(lib):
    """pcond[T](i: int32, acc: T, x: T) = i < 3;
    pbody[T](i, acc, x) = (i + 1, acc*x + sin(acc), x)."""
    i32 = types_pb2.DT_INT32
    for name, outputs in (("pcond", [("r", BOOL)]),
                          ("pbody", [("i_out", i32), ("acc_out", None), ("x_out", None)])):
        f = lib.function.add()
        f.signature.name = name
        f.signature.attr.add(name="T", type="type")
        f.signature.input_arg.add(name="i", type=i32)
        f.signature.input_arg.add(name="acc", type_attr="T")
        f.signature.input_arg.add(name="x", type_attr="T")
        for n, t in outputs:
            if t is None:
                f.signature.output_arg.add(name=n, type_attr="T")
            else:
                f.signature.output_arg.add(name=n, type=t)
        value = _node(f.node_def, "k", "Const", dtype=i32).attr["value"].tensor
        value.dtype = i32
        value.int_val.append(3 if name == "pcond" else 1)
        if name == "pcond":
            _node(f.node_def, "r", "Less", ["i", "k:output:0"], T=i32)
            f.ret["r"] = "r:z:0"
            continue
        _node(f.node_def, "next", "AddV2", ["i", "k:output:0"], T=i32)
        _node(f.node_def, "ax", "Mul", ["acc", "x"], T="T")
        _node(f.node_def, "s", "Sin", ["acc"], T="T")
        _node(f.node_def, "acc_next", "AddV2", ["ax:z:0", "s:y:0"], T="T")
        f.ret.update({"i_out": "next:z:0", "acc_out": "acc_next:z:0", "x_out": "x"})


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op", ["While", "StatelessWhile"])
def test_polymorphic_while_body_matches_finite_differences(op, dtype):
    """cond and body bound by the attrs of their func attrs: three steps of
    acc <- acc*x + sin(acc)."""
    def build(g, values):
        t = DTYPES[np.dtype(values[0].dtype.as_numpy_dtype).type]
        gd = graph_pb2.GraphDef()
        _loop_library(gd.library)
        for i in range(2):
            _node(gd.node, f"x{i}", "Placeholder", dtype=t)
        zero = _node(gd.node, "zero", "Const", dtype=types_pb2.DT_INT32).attr["value"].tensor
        zero.dtype = types_pb2.DT_INT32
        zero.int_val.append(0)
        _node(gd.node, "loop", op, ["zero", "x0", "x1"], T=[types_pb2.DT_INT32, t, t],
              cond=_func("pcond", T=t), body=_func("pbody", T=t))
        with g.as_default():
            (out,) = opgen.import_graph_def(
                gd, input_map={f"x{i}": v for i, v in enumerate(values)},
                return_elements=["loop:1"])
        return out
    check_gradient(build, [X, Y], dtype=dtype)
