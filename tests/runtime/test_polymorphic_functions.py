"""Polymorphic functions: FunctionDefs whose signatures declare attrs (`T: type`, `N: int`,
`Tl: list(type)`) and whose nodes read them as `$T` placeholders, called by a function-name
node (attrs given or deduced from the inputs), by PartitionedCall (attrs in its `f`
NameAttrList, or deduced) and from inside another polymorphic function; imported as
GraphDefs (and through TF_FunctionImportFunctionDef + TF_GraphCopyFunction), run through
TF_SessionRun, and checked against numpy, against TensorFlow 2.21 running the same
GraphDef (child process), and for the errors of a binding that is missing or contradicts
the inputs (INVALID_ARGUMENT naming the attr)."""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from tf_reference import run_tf, tf_python

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import CApiError, out
from opgen.protos import attr_value_pb2, graph_pb2, types_pb2

F, I32, F64 = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_DOUBLE
INVALID_ARGUMENT = 3
NP = {F: np.float32, I32: np.int32, F64: np.float64}


def _type_attr(value):
    if isinstance(value, list):
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=value))
    return attr_value_pb2.AttrValue(type=value)


def _node(container, name, op, inputs=(), **attrs):
    n = container.add(name=name, op=op)
    n.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, attr_value_pb2.AttrValue):
            n.attr[key].CopyFrom(value)
        elif isinstance(value, str):  # a placeholder: "$T" in TensorFlow's text form
            n.attr[key].placeholder = value
        elif isinstance(value, bool):
            n.attr[key].b = value
        elif isinstance(value, int) and key in ("N",):
            n.attr[key].i = value
        else:
            n.attr[key].CopyFrom(_type_attr(value))
    return n


def _func(name, **attrs):
    f = attr_value_pb2.NameAttrList(name=name)
    for key, value in attrs.items():
        if isinstance(value, attr_value_pb2.AttrValue):
            f.attr[key].CopyFrom(value)
        elif isinstance(value, str):
            f.attr[key].placeholder = value
        else:
            f.attr[key].CopyFrom(_type_attr(value))
    return attr_value_pb2.AttrValue(func=f)


def poly_library(lib):
    """add_square[T](x: T, y: T) -> (x + y)^2; total[N, T](xs: N*T) -> AddN(xs);
    pass_list[Tl](xs: Tl) -> IdentityN(xs) (its ret names the whole output list);
    convert[SrcT, DstT](x: SrcT) -> Cast (DstT only the caller can say);
    outer[T, Tpair, Tout](x: T) -> add_square(x, x) by name plus PartitionedCall(x, x)
    with f = add_square[T=$T] and Tin, Tout placeholders of its own list attrs."""
    f = lib.function.add()
    f.signature.name = "add_square"
    f.signature.attr.add(name="T", type="type")
    f.signature.input_arg.add(name="x", type_attr="T")
    f.signature.input_arg.add(name="y", type_attr="T")
    f.signature.output_arg.add(name="z", type_attr="T")
    _node(f.node_def, "sum", "AddV2", ["x", "y"], T="T")
    _node(f.node_def, "sq", "Mul", ["sum:z:0", "sum:z:0"], T="T")
    f.ret["z"] = "sq:z:0"

    f = lib.function.add()
    f.signature.name = "total"
    f.signature.attr.add(name="N", type="int", has_minimum=True, minimum=1)
    f.signature.attr.add(name="T", type="type")
    f.signature.input_arg.add(name="xs", type_attr="T", number_attr="N")
    f.signature.output_arg.add(name="s", type_attr="T")
    _node(f.node_def, "addn", "AddN", ["xs"], N="N", T="T")
    f.ret["s"] = "addn:sum:0"

    f = lib.function.add()
    f.signature.name = "pass_list"
    f.signature.attr.add(name="Tl", type="list(type)")
    f.signature.input_arg.add(name="xs", type_list_attr="Tl")
    f.signature.output_arg.add(name="ys", type_list_attr="Tl")
    _node(f.node_def, "idn", "IdentityN", ["xs"], T="Tl")
    f.ret["ys"] = "idn:output"

    f = lib.function.add()
    f.signature.name = "convert"
    f.signature.attr.add(name="SrcT", type="type")
    f.signature.attr.add(name="DstT", type="type")
    f.signature.input_arg.add(name="x", type_attr="SrcT")
    f.signature.output_arg.add(name="y", type_attr="DstT")
    _node(f.node_def, "cast", "Cast", ["x"], SrcT="SrcT", DstT="DstT")
    f.ret["y"] = "cast:y:0"

    f = lib.function.add()
    f.signature.name = "outer"
    f.signature.attr.add(name="T", type="type")
    f.signature.attr.add(name="Tpair", type="list(type)")
    f.signature.input_arg.add(name="x", type_attr="T")
    f.signature.output_arg.add(name="r", type_attr="T")
    _node(f.node_def, "by_name", "add_square", ["x", "x"], T="T")
    _node(f.node_def, "called", "PartitionedCall", ["x", "x:0"], Tin="Tpair",
          Tout=attr_value_pb2.AttrValue(placeholder="Tout"), f=_func("add_square", T="T"))
    _node(f.node_def, "r", "AddV2", ["by_name:z:0", "called:output:0"], T="T")
    f.ret["r"] = "r:z:0"
    f.signature.attr.add(name="Tout", type="list(type)")


def poly_graph(dt):
    """Placeholders a, b of `dt` and the calls the tests fetch."""
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    for name in "ab":
        _node(gd.node, name, "Placeholder", dtype=dt)
    _node(gd.node, "by_name", "add_square", ["a", "b"], T=dt)
    _node(gd.node, "call", "PartitionedCall", ["a", "b"], Tin=[dt, dt], Tout=[dt],
          f=_func("add_square", T=dt))
    _node(gd.node, "call_deduced", "PartitionedCall", ["a", "b"], Tin=[dt, dt], Tout=[dt],
          f=_func("add_square"))  # T from the inputs
    _node(gd.node, "total", "total", ["a", "b", "a"], N=3, T=dt)
    _node(gd.node, "total_call", "PartitionedCall", ["a", "b", "a"], Tin=[dt] * 3, Tout=[dt],
          f=_func("total"))  # N and T from the three inputs
    _node(gd.node, "outer", "outer", ["a"], T=dt, Tpair=[dt, dt], Tout=[dt])
    return gd


def _run(api, gd, feeds, fetches):
    graph = api.lib.TF_NewGraph()
    try:
        api.import_graph_def(graph, gd.SerializeToString())
        op = api.lib.TF_GraphOperationByName
        sess = api.session(graph)
        try:
            return api.run(sess, [(out(op(graph, k.encode())), v) for k, v in feeds.items()],
                           [out(op(graph, n.encode()), int(i)) for n, i in
                            (f.split(":") if ":" in f else (f, 0) for f in fetches)])
        finally:
            api.lib.TF_DeleteSession(sess, api.status)
    finally:
        api.lib.TF_DeleteGraph(graph)


A = np.arange(6).reshape(2, 3)
B = np.array([[2, -1, 3], [0, 5, -4]])
FETCHES = ["by_name", "call", "call_deduced", "total", "total_call", "outer"]


def _expected(a, b):
    sq = (a + b) * (a + b)
    return [sq, sq, sq, a + b + a, a + b + a, 2 * (a + a) * (a + a)]


@pytest.mark.parametrize("dt", [F, I32, F64], ids=["float32", "int32", "float64"])
def test_one_function_runs_for_each_type_binding(api, dt):
    a, b = A.astype(NP[dt]), B.astype(NP[dt])
    got = _run(api, poly_graph(dt), {"a": a, "b": b}, FETCHES)
    for name, g, want in zip(FETCHES, got, _expected(a, b)):
        assert g.dtype == NP[dt], name
        np.testing.assert_array_equal(g, want.astype(NP[dt]), err_msg=name)


def test_list_type_binding_passes_mixed_dtypes(api):
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "i", "Placeholder", dtype=I32)
    _node(gd.node, "ids", "pass_list", ["a", "i", "a"], Tl=[F, I32, F])
    _node(gd.node, "ids_call", "PartitionedCall", ["i", "a"], Tin=[I32, F], Tout=[I32, F],
          f=_func("pass_list"))  # Tl from the inputs
    a, i = np.float32([1.5, -2.0]), np.int32([7, 8, 9])
    got = _run(api, gd, {"a": a, "i": i}, ["ids:0", "ids:1", "ids:2", "ids_call:0", "ids_call:1"])
    for g, want in zip(got, [a, i, a, i, a]):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)


def test_an_attr_only_the_caller_can_give_comes_from_the_func_attr(api):
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "to_int", "PartitionedCall", ["a"], Tin=[F], Tout=[I32],
          f=_func("convert", DstT=I32))
    _node(gd.node, "to_double", "convert", ["a"], SrcT=F, DstT=F64)
    a = np.float32([1.75, -2.5, 3.0])
    to_int, to_double = _run(api, gd, {"a": a}, ["to_int", "to_double"])
    assert to_int.dtype == np.int32 and to_double.dtype == np.float64
    np.testing.assert_array_equal(to_int, a.astype(np.int32))
    np.testing.assert_array_equal(to_double, a.astype(np.float64))


def _expect_invalid(api, gd, feeds, fetch, *words):
    with pytest.raises(CApiError) as e:
        _run(api, gd, feeds, [fetch])
    assert e.value.code == INVALID_ARGUMENT, e.value.message
    for w in words:
        assert w in e.value.message, e.value.message


def test_a_missing_or_contradicted_binding_is_invalid_argument_naming_the_attr(api):
    a = np.float32([1.0, 2.0])
    # DstT appears in no input: without the caller's value it has none.
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "c", "PartitionedCall", ["a"], Tin=[F], Tout=[I32], f=_func("convert"))
    _expect_invalid(api, gd, {"a": a}, "c", "'DstT'", "convert")
    # The caller says T=int32, the inputs are float.
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "c", "PartitionedCall", ["a", "a"], Tin=[F, F], Tout=[F],
          f=_func("add_square", T=I32))
    _expect_invalid(api, gd, {"a": a}, "c", "T=", "add_square")
    # A placeholder the function's attrs do not bind.
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    f = gd.library.function.add()
    f.signature.name = "unbound"
    f.signature.attr.add(name="T", type="type")
    f.signature.input_arg.add(name="x", type_attr="T")
    f.signature.output_arg.add(name="y", type_attr="T")
    _node(f.node_def, "y", "Neg", ["x"], T="U")
    f.ret["y"] = "y:y:0"
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "c", "PartitionedCall", ["a"], Tin=[F], Tout=[F], f=_func("unbound"))
    _expect_invalid(api, gd, {"a": a}, "c", "$U", "'y'")
    # A list length the caller gives that the inputs contradict (N=2, three inputs).
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "c", "PartitionedCall", ["a", "a", "a"], Tin=[F] * 3, Tout=[F],
          f=_func("total", N=attr_value_pb2.AttrValue(i=2)))
    _expect_invalid(api, gd, {"a": a}, "c", "N", "total")


def test_func_attr_bindings_survive_graph_def_export(api):
    """NameAttrList.attr is kept: written back by TF_GraphToGraphDef and still binding."""
    gd = graph_pb2.GraphDef()
    poly_library(gd.library)
    _node(gd.node, "a", "Placeholder", dtype=F)
    _node(gd.node, "c", "PartitionedCall", ["a"], Tin=[F], Tout=[I32],
          f=_func("convert", DstT=I32))
    graph = api.lib.TF_NewGraph()
    try:
        api.import_graph_def(graph, gd.SerializeToString())
        exported = graph_pb2.GraphDef.FromString(api.graph_def(graph))
    finally:
        api.lib.TF_DeleteGraph(graph)
    (node,) = [n for n in exported.node if n.name == "c"]
    assert node.attr["f"].func.name == "convert"
    assert node.attr["f"].func.attr["DstT"].type == I32
    (got,) = _run(api, exported, {"a": np.float32([2.5, -1.5])}, ["c"])
    np.testing.assert_array_equal(got, np.int32([2, -1]))


def test_through_function_import_and_graph_copy_function(api):
    """TF_FunctionImportFunctionDef + TF_GraphCopyFunction, then a node built with
    TF_NewOperation whose T the graph deduces from its inputs."""
    lib = api.lib
    lib.TF_FunctionImportFunctionDef.restype = ctypes.c_void_p
    lib.TF_FunctionImportFunctionDef.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.TF_GraphCopyFunction.restype = None
    lib.TF_GraphCopyFunction.argtypes = [ctypes.c_void_p] * 4
    lib.TF_DeleteFunction.restype = None
    lib.TF_DeleteFunction.argtypes = [ctypes.c_void_p]
    library = graph_pb2.GraphDef().library
    poly_library(library)
    graph = lib.TF_NewGraph()
    try:
        for fdef in library.function:
            data = fdef.SerializeToString()
            fn = lib.TF_FunctionImportFunctionDef(data, len(data), api.status)
            api.check()
            lib.TF_GraphCopyFunction(graph, fn, None, api.status)
            lib.TF_DeleteFunction(fn)
            api.check()
        sess = api.session(graph)
        try:
            for dt in (F, I32):
                x = api.placeholder(graph, f"x{dt}", dt)
                y = api.placeholder(graph, f"y{dt}", dt)
                call = api.op(graph, "add_square", f"call{dt}", [out(x), out(y)])
                several = api.op(graph, "total", f"total{dt}", [[out(x), out(y), out(y)]])
                a, b = A.astype(NP[dt]), B.astype(NP[dt])
                got, tot = api.run(sess, [(out(x), a), (out(y), b)], [out(call), out(several)])
                assert got.dtype == NP[dt] and tot.dtype == NP[dt]
                np.testing.assert_array_equal(got, (a + b) * (a + b))
                np.testing.assert_array_equal(tot, a + b + b)
        finally:
            lib.TF_DeleteSession(sess, api.status)
    finally:
        lib.TF_DeleteGraph(graph)


TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import function as tf_function
# Python's wrappers of a library's functions need fixed argument types; the C graph that
# import_graph_def fills holds the polymorphic functions all the same.
tf_function.from_library = lambda library: []
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
feeds = {k: np.asarray(v, dtype=sys.argv[3]) for k, v in json.load(open(sys.argv[2])).items()}
g = tf.Graph()
with g.as_default():
    tf.compat.v1.import_graph_def(gd, name="")
with tf.compat.v1.Session(graph=g) as s:
    got = s.run([n + ":0" for n in sys.argv[4].split(",")], {k + ":0": v for k, v in feeds.items()})
np.savez(sys.argv[5], *got)
"""


@pytest.mark.parametrize("dt", [F, I32], ids=["float32", "int32"])
def test_tensorflow_runs_the_same_graph_to_the_same_values(api, tmp_path, dt):
    tf_python()  # skips first when there is no TensorFlow
    gd = poly_graph(dt)
    # TensorFlow binds a PartitionedCall's function from its `f` attrs only; opgen also
    # deduces what they leave out (call_deduced, total_call), which TensorFlow refuses.
    fetches = [f for f in FETCHES if f not in ("call_deduced", "total_call")]
    kept = [n for n in gd.node if n.name in fetches or n.op == "Placeholder"]
    del gd.node[:]
    gd.node.extend(kept)
    a, b = A.astype(NP[dt]), B.astype(NP[dt])
    (tmp_path / "graph.pb").write_bytes(gd.SerializeToString())
    (tmp_path / "feeds.json").write_text(json.dumps({"a": a.tolist(), "b": b.tolist()}))
    run_tf(["-c", TF_SCRIPT, "graph.pb", "feeds.json", np.dtype(NP[dt]).name,
            ",".join(fetches), "tf.npz"], cwd=tmp_path, timeout=300)
    tf_values = np.load(tmp_path / "tf.npz")
    got = _run(api, gd, {"a": a, "b": b}, fetches)
    for k, (name, g) in enumerate(zip(fetches, got)):
        want = tf_values[f"arr_{k}"]
        assert g.dtype == want.dtype, name
        np.testing.assert_array_equal(g, want, err_msg=name)


def test_eager_calls_deduce_the_binding_from_the_inputs(api):
    """TFE_Execute of a polymorphic function by name: T from the input handles' dtypes,
    one context serving float32, int32 and float64 calls."""
    from test_function_calls import _declare_eager
    lib = api.lib
    _declare_eager(lib)
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    api.check()
    library = graph_pb2.GraphDef().library
    poly_library(library)
    try:
        data = library.function[0].SerializeToString()  # add_square
        lib.TFE_ContextAddFunctionDef(ctx, data, len(data), api.status)
        api.check()
        for dt in (F, I32, F64):
            a, b = A.astype(NP[dt]), B.astype(NP[dt])
            op = lib.TFE_NewOp(ctx, b"add_square", api.status)
            api.check()
            handles = []
            try:
                for value in (a, b):
                    t = api.tensor(value)
                    handles.append(lib.TFE_NewTensorHandle(t, api.status))
                    lib.TF_DeleteTensor(t)
                    lib.TFE_OpAddInput(op, handles[-1], api.status)
                    api.check()
                retvals, n = (ctypes.c_void_p * 1)(), ctypes.c_int(1)
                lib.TFE_Execute(op, retvals, ctypes.byref(n), api.status)
                api.check()
                t = lib.TFE_TensorHandleResolve(retvals[0], api.status)
                lib.TFE_DeleteTensorHandle(retvals[0])
                got = api.to_numpy(t)
            finally:
                for h in handles:
                    lib.TFE_DeleteTensorHandle(h)
                lib.TFE_DeleteOp(op)
            assert got.dtype == NP[dt]
            np.testing.assert_array_equal(got, (a + b) * (a + b))
    finally:
        lib.TFE_DeleteContext(ctx)


@pytest.mark.parametrize("dt", [F, F64], ids=["float32", "float64"])
def test_tf_add_gradients_differentiates_polymorphic_calls(api, dt):
    """TF_AddGradients through by_name, call, total and outer (a nested polymorphic call
    by name and by PartitionedCall) bound to `dt`: d/da, d/db against the closed forms,
    the gradient graph's new functions all monomorphic."""
    from graph_capi import TF_Output
    lib = api.lib
    lib.TF_AddGradients.restype = None
    lib.TF_AddGradients.argtypes = [ctypes.c_void_p, ctypes.POINTER(TF_Output), ctypes.c_int,
                                    ctypes.POINTER(TF_Output), ctypes.c_int,
                                    ctypes.POINTER(TF_Output), ctypes.c_void_p,
                                    ctypes.POINTER(TF_Output)]
    a, b = (A + 0.5).astype(NP[dt]), B.astype(NP[dt])
    s = a + b
    expected = {"by_name": (2 * s, 2 * s), "call": (2 * s, 2 * s),
                "total": (np.full_like(a, 2), np.ones_like(b)), "outer": (16 * a, None)}
    graph = lib.TF_NewGraph()
    try:
        api.import_graph_def(graph, poly_graph(dt).SerializeToString())
        op = lambda n: lib.TF_GraphOperationByName(graph, n.encode())  # noqa: E731
        xs = (TF_Output * 2)(out(op("a")), out(op("b")))
        fetches = []
        for name in expected:
            ys = (TF_Output * 1)(out(op(name)))
            dx = (TF_Output * 2)()
            lib.TF_AddGradients(graph, ys, 1, xs, 2, None, api.status, dx)
            api.check()
            assert (dx[1].oper is None) == (expected[name][1] is None), name  # outer: no b
            fetches += [d for d in dx if d.oper is not None]
        library = graph_pb2.GraphDef.FromString(api.graph_def(graph)).library.function
        names = {f.signature.name for f in library}
        assert {"add_square", "total", "outer"} <= names
        added = [f for f in library if "_instance_" in f.signature.name]
        assert added and all(not f.signature.attr for f in added)
        sess = api.session(graph)
        try:
            got = api.run(sess, [(xs[0], a), (xs[1], b)], fetches)
        finally:
            lib.TF_DeleteSession(sess, api.status)
    finally:
        lib.TF_DeleteGraph(graph)
    tol = 1e-5 if dt == F else 1e-12
    wanted = [(name, w) for name, pair in expected.items() for w in pair if w is not None]
    assert len(got) == len(wanted) == 7
    for g, (name, w) in zip(got, wanted):
        assert g.dtype == NP[dt], name
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=name)
