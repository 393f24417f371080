"""Case and StatelessCase over polymorphic branches: each element of `branches` is a
NameAttrList whose attrs bind its function (here the result type U, which the arguments
cannot imply), as TensorFlow instantiates each branch with its own attrs. Those attrs
may be `$U` placeholders of an enclosing polymorphic function, substituted when it is
instantiated (TensorFlow substitutes placeholders in the attrs of func and list(func)
values alike), also when the list(func) is an attr of a function-name node whose
function passes it on to its Case as a `$fns` placeholder. Forward values are checked against TensorFlow 2.21 running the same
GraphDef (child process) and numpy; gradients against finite differences and numpy."""

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
from test_polymorphic_function_gradients import _node

F32, F64, I32 = types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_INT32
DTYPES = {np.float32: F32, np.float64: F64}
NUMPY = {F32: np.float32, F64: np.float64}


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _branch_fn(lib, name, negate):
    """name[T, U](x: T, y: T) -> z: U: Cast(x*y + sin(x)), or Cast(-(x*y)) (negate)."""
    f = lib.function.add()
    f.signature.name = name
    for a in ("T", "U"):
        f.signature.attr.add(name=a, type="type")
    for a in ("x", "y"):
        f.signature.input_arg.add(name=a, type_attr="T")
    f.signature.output_arg.add(name="z", type_attr="U")
    _node(f.node_def, "xy", "Mul", ["x", "y"], T="T")
    if negate:
        _node(f.node_def, "v", "Neg", ["xy:z:0"], T="T")
    else:
        _node(f.node_def, "s", "Sin", ["x"], T="T")
        _node(f.node_def, "v", "AddV2", ["xy:z:0", "s:y:0"], T="T")
    _node(f.node_def, "z", "Cast", ["v:y:0" if negate else "v:z:0"], SrcT="T", DstT="U")
    f.ret["z"] = "z:y:0"


def _branches(t, u):
    """[scale{T: t, U: u}, negc{T: t, U: u}]: dtypes, or str: placeholders of that name.
    (TensorFlow binds a branch by these attrs alone: it does not read T off the inputs.)"""
    value = attr_value_pb2.AttrValue()
    for name in ("scale", "negc"):
        func = value.list.func.add(name=name)
        for attr, v in (("T", t), ("U", u)):
            if isinstance(v, str):
                func.attr[attr].placeholder = v
            else:
                func.attr[attr].type = v
    return value


def _library(lib, op="Case"):
    """scale, negc and outer[T, U, Tin, Tout](i: int32, args: Tin) -> r: Tout, whose
    `op` node's branches are [scale{T: $T, U: $U}, negc{T: $T, U: $U}]."""
    _branch_fn(lib, "scale", negate=False)
    _branch_fn(lib, "negc", negate=True)
    f = lib.function.add()
    f.signature.name = "outer"
    for a in ("T", "U"):
        f.signature.attr.add(name=a, type="type")
    for a in ("Tin", "Tout"):
        f.signature.attr.add(name=a, type="list(type)")
    f.signature.input_arg.add(name="i", type=I32)
    f.signature.input_arg.add(name="args", type_list_attr="Tin")
    f.signature.output_arg.add(name="r", type_list_attr="Tout")
    _node(f.node_def, "c", op, ["i", "args"], Tin="Tin", Tout="Tout", branches=_branches("T", "U"))
    f.ret["r"] = "c:output"
    # dispatch[Tin, Tout, fns: list(func)](i, args: Tin) -> r: Tout = Case(branches=$fns);
    # nested[T, U, Tin, Tout] calls it with fns = [scale{T: $T, U: $U}, negc{...}]: the
    # placeholders sit in a list(func) attr of a function-name node, bound one level up.
    f = _signature(lib, "dispatch", [("Tin", "list(type)"), ("Tout", "list(type)"),
                                     ("fns", "list(func)")])
    _node(f.node_def, "c", op, ["i", "args"], Tin="Tin", Tout="Tout", branches="fns")
    f.ret["r"] = "c:output"
    f = _signature(lib, "nested", [("T", "type"), ("U", "type"), ("Tin", "list(type)"),
                                   ("Tout", "list(type)")])
    _node(f.node_def, "d", "dispatch", ["i", "args"], Tin="Tin", Tout="Tout",
          fns=_branches("T", "U"))
    f.ret["r"] = "d:r"


def _signature(lib, name, attrs):
    """name[attrs](i: int32, args: Tin) -> r: Tout, with no nodes yet."""
    f = lib.function.add()
    f.signature.name = name
    for a, kind in attrs:
        f.signature.attr.add(name=a, type=kind)
    f.signature.input_arg.add(name="i", type=I32)
    f.signature.input_arg.add(name="args", type_list_attr="Tin")
    f.signature.output_arg.add(name="r", type_list_attr="Tout")
    return f


def _graph(call, t, u, op="Case", index=None):
    """Placeholders i (int32; a Const of `index` when given), x0, x1 (t) and node "c": a
    `call` ("Case"/"StatelessCase" with the branch attrs bound, or "outer" binding them
    by its own T and U) with result u."""
    gd = graph_pb2.GraphDef()
    _library(gd.library, op)
    if index is None:
        _node(gd.node, "i", "Placeholder", dtype=I32)
    else:
        tensor = _node(gd.node, "i", "Const", dtype=I32).attr["value"].tensor
        tensor.dtype = I32
        tensor.int_val.append(index)
    for n in ("x0", "x1"):
        _node(gd.node, n, "Placeholder", dtype=t)
    if call in ("outer", "nested"):
        _node(gd.node, "c", call, ["i", "x0", "x1"], T=t, U=u, Tin=[t, t], Tout=[u])
    else:
        _node(gd.node, "c", call, ["i", "x0", "x1"], Tin=[t, t], Tout=[u],
              branches=_branches(t, u))
    return gd


def _want(index, x, y):
    return x * y + np.sin(x) if index == 0 else -(x * y)


RNG = np.random.default_rng(11)
X, Y = RNG.uniform(-1.5, 1.5, (2, 3)), RNG.uniform(0.5, 1.5, (2, 3))
CALLS = ["Case", "StatelessCase", "outer", "nested"]


def _run(gd, t, index):
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    feeds = {g.get_operation_by_name("i").outputs[0]: np.int32(index),
             g.get_operation_by_name("x0").outputs[0]: X.astype(NUMPY[t]),
             g.get_operation_by_name("x1").outputs[0]: Y.astype(NUMPY[t])}
    with opgen.Session(g) as s:
        return s.run(g.get_operation_by_name("c").outputs[0], feeds)


@pytest.mark.parametrize("index", [0, 1, 7])
@pytest.mark.parametrize("call", CALLS)
def test_branch_attrs_bind_the_result_type(call, index):
    """float64 arguments, U = float32: only the branch's attrs say the result's type
    (index 7 is out of range: the last branch)."""
    got = _run(_graph(call, F64, F32), F64, index)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _want(min(index, 1), X, Y).astype(np.float32), rtol=1e-6)


def test_case_inside_outer_by_stateless_case():
    got = _run(_graph("outer", F32, F64, op="StatelessCase"), F32, 0)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _want(0, X.astype(np.float32), Y.astype(np.float32)),
                               rtol=1e-6)


def test_an_unbound_branch_attr_is_invalid_argument_naming_it():
    """outer called without U: its Case's `$U` has nothing to take."""
    gd = _graph("outer", F64, F32)
    del gd.node[-1].attr["U"]
    with pytest.raises(opgen.errors.InvalidArgumentError) as e:
        _run(gd, F64, 0)
    assert "outer" in str(e.value) and "attr 'U'" in str(e.value), str(e.value)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("call", CALLS)
def test_gradient_through_bound_branches_matches_finite_differences(call, index, dtype):
    def build(g, values):
        t = DTYPES[np.dtype(values[0].dtype.as_numpy_dtype).type]
        gd = _graph(call, t, t, index=index)
        with g.as_default():
            (out,) = opgen.import_graph_def(gd, input_map={"x0": values[0], "x1": values[1]},
                                            return_elements=["c:0"])
        return out
    grads = check_gradient(build, [X, Y], dtype=dtype)
    w = np.random.default_rng(0).uniform(0.5, 1.5, X.shape)  # check_gradient's weights
    want = [w * (Y + np.cos(X)), w * X] if index == 0 else [-w * Y, -w * X]
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for got, expected in zip(grads, want):
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


# TensorFlow's import_graph_def wraps each library function in Python, which it cannot
# for polymorphic ones; its C++ runtime runs the library without them.
TF_SCRIPT = r"""
import sys, numpy as np, tensorflow as tf
from tensorflow.python.framework import function as tf_function
tf_function.from_library = lambda library: []
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
io = np.load(sys.argv[2])
with tf.Graph().as_default():
    tf.compat.v1.import_graph_def(gd, name="")
    with tf.compat.v1.Session() as s:
        got = [s.run("c:0", {"i:0": k, "x0:0": io["x"], "x1:0": io["y"]}) for k in (0, 1, 7)]
np.savez(sys.argv[3], *got)
"""


@pytest.mark.parametrize("call", CALLS)
def test_matches_tensorflow(call, tmp_path):
    tf_python()  # skips first when there is no TensorFlow
    gd = _graph(call, F64, F32)
    (tmp_path / "g.pb").write_bytes(gd.SerializeToString())
    np.savez(tmp_path / "io.npz", x=X, y=Y)
    (tmp_path / "tf_case.py").write_text(TF_SCRIPT)
    run_tf([tmp_path / "tf_case.py", tmp_path / "g.pb", tmp_path / "io.npz", tmp_path / "tf.npz"],
           cwd=tmp_path, timeout=300)
    expected = np.load(tmp_path / "tf.npz")
    for k, index in enumerate((0, 1, 7)):
        got = _run(gd, F64, index)
        want = expected[f"arr_{k}"]
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)
