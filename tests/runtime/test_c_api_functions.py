"""Functions in the C API (TF_GraphToFunction, TF_FunctionToFunctionDef,
TF_FunctionImportFunctionDef, attrs, TF_GraphCopyFunction, TF_GraphGetFunctions) and the
function library that GraphDef import and export carry, checked against the protobuf
library's reading of the bytes (and TensorFlow 2.21's own FunctionDefs where installed)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import pytest
from tf_reference import run_tf

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import (
    INVALID_ARGUMENT, TF_FLOAT, CApiError, TF_Buffer, TF_Output, c_char_p, c_int, c_size_t,
    c_void_p)
from opgen.protos import attr_value_pb2, function_pb2, graph_pb2, types_pb2

P = ctypes.POINTER

FUNCTION_SIGNATURES = {
    "TF_GraphToFunction": (c_void_p, [c_void_p, c_char_p, ctypes.c_ubyte, c_int, P(c_void_p), c_int,
                                      P(TF_Output), c_int, P(TF_Output), P(c_char_p), c_void_p,
                                      c_char_p, c_void_p]),
    "TF_GraphToFunctionWithControlOutputs": (
        c_void_p, [c_void_p, c_char_p, ctypes.c_ubyte, c_int, P(c_void_p), c_int, P(TF_Output),
                   c_int, P(TF_Output), P(c_char_p), c_int, P(c_void_p), P(c_char_p), c_void_p,
                   c_char_p, c_void_p]),
    "TF_FunctionName": (c_char_p, [c_void_p]),
    "TF_FunctionToFunctionDef": (None, [c_void_p, P(TF_Buffer), c_void_p]),
    "TF_FunctionImportFunctionDef": (c_void_p, [c_char_p, c_size_t, c_void_p]),
    "TF_FunctionSetAttrValueProto": (None, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    "TF_FunctionGetAttrValueProto": (None, [c_void_p, c_char_p, P(TF_Buffer), c_void_p]),
    "TF_DeleteFunction": (None, [c_void_p]),
    "TF_GraphCopyFunction": (None, [c_void_p, c_void_p, c_void_p, c_void_p]),
    "TF_GraphNumFunctions": (c_int, [c_void_p]),
    "TF_GraphGetFunctions": (c_int, [c_void_p, P(c_void_p), c_int, c_void_p]),
}


@pytest.fixture
def fapi(api):
    for name, (restype, argtypes) in FUNCTION_SIGNATURES.items():
        fn = getattr(api.lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return api


def _outputs(*pairs):
    return (TF_Output * len(pairs))(*[TF_Output(op, i) for op, i in pairs])


def _square_plus_x(api, graph):
    """x -> (x*x + x, x): the body of the function the tests make."""
    x = api.placeholder(graph, "x")
    sq = api.op(graph, "Mul", "sq", [TF_Output(x, 0), TF_Output(x, 0)])
    y = api.op(graph, "AddV2", "y", [TF_Output(sq, 0), TF_Output(x, 0)])
    return x, y


def _to_function(api, graph, name, inputs, outputs, names=None, hash_name=False):
    names_arr = (c_char_p * len(outputs))(*[n.encode() for n in names]) if names else None
    f = api.lib.TF_GraphToFunction(graph, name.encode(), int(hash_name), -1, None, len(inputs),
                                   _outputs(*inputs), len(outputs), _outputs(*outputs), names_arr,
                                   None, b"a test function", api.status)
    api.check()
    return f


def _function_def(api, f) -> function_pb2.FunctionDef:
    data = api.buffer_bytes(lambda buf: api.lib.TF_FunctionToFunctionDef(f, buf, api.status))
    return function_pb2.FunctionDef.FromString(data)


def test_graph_to_function_writes_a_function_def(fapi, graph):
    x, y = _square_plus_x(fapi, graph)
    f = _to_function(fapi, graph, "square_plus_x", [(x, 0)], [(y, 0), (x, 0)], ["y", "echo"])
    try:
        assert fapi.lib.TF_FunctionName(f) == b"square_plus_x"
        fd = _function_def(fapi, f)
        sig = fd.signature
        assert sig.name == "square_plus_x" and sig.description == "a test function"
        assert [(a.name, a.type) for a in sig.input_arg] == [("x", types_pb2.DT_FLOAT)]
        assert [(a.name, a.type) for a in sig.output_arg] == [("y", types_pb2.DT_FLOAT),
                                                              ("echo", types_pb2.DT_FLOAT)]
        nodes = {n.name: n for n in fd.node_def}
        assert set(nodes) == {"sq", "y"}  # the input's Placeholder is not in the body
        assert list(nodes["sq"].input) == ["x", "x"]
        assert list(nodes["y"].input) == ["sq:z:0", "x"]
        assert dict(fd.ret) == {"y": "y:z:0", "echo": "x"}
        assert not sig.is_stateful
    finally:
        fapi.lib.TF_DeleteFunction(f)


def test_hash_suffix_and_control_outputs(fapi, graph):
    x, y = _square_plus_x(fapi, graph)
    a = _to_function(fapi, graph, "f", [(x, 0)], [(y, 0)], hash_name=True)
    b = _to_function(fapi, graph, "f", [(x, 0)], [(y, 0)], hash_name=True)
    name = fapi.lib.TF_FunctionName(a)
    assert name.startswith(b"f_") and len(name) > 3 and name == fapi.lib.TF_FunctionName(b)
    for f in (a, b):
        fapi.lib.TF_DeleteFunction(f)
    controls = (c_void_p * 1)(y)
    f = fapi.lib.TF_GraphToFunctionWithControlOutputs(
        graph, b"g", 0, -1, None, 1, _outputs((x, 0)), 1, _outputs((y, 0)), None, 1, controls,
        (c_char_p * 1)(b"done"), None, None, fapi.status)
    fapi.check()
    fd = _function_def(fapi, f)
    fapi.lib.TF_DeleteFunction(f)
    assert list(fd.signature.control_output) == ["done"] and dict(fd.control_ret) == {"done": "y"}


def test_an_edge_from_outside_the_body_is_refused(fapi, graph):
    x, y = _square_plus_x(fapi, graph)
    sq = fapi.lib.TF_GraphOperationByName(graph, b"sq")
    ops = (c_void_p * 1)(y)  # "sq" is neither in the body nor an input
    f = fapi.lib.TF_GraphToFunction(graph, b"f", 0, 1, ops, 1, _outputs((x, 0)), 1,
                                    _outputs((y, 0)), None, None, None, fapi.status)
    assert f is None
    with pytest.raises(CApiError) as e:
        fapi.check()
    assert e.value.code == INVALID_ARGUMENT and "'sq'" in e.value.message
    assert sq is not None


def test_function_def_round_trip_and_attrs(fapi, graph):
    x, y = _square_plus_x(fapi, graph)
    f = _to_function(fapi, graph, "f", [(x, 0)], [(y, 0)])
    fd = _function_def(fapi, f)
    data = fd.SerializeToString()
    g = fapi.lib.TF_FunctionImportFunctionDef(data, len(data), fapi.status)
    fapi.check()
    assert _function_def(fapi, g) == fd
    attr = attr_value_pb2.AttrValue(b=True).SerializeToString()
    fapi.lib.TF_FunctionSetAttrValueProto(g, b"_noinline", attr, len(attr), fapi.status)
    fapi.check()
    got = fapi.buffer_bytes(lambda buf: fapi.lib.TF_FunctionGetAttrValueProto(
        g, b"_noinline", buf, fapi.status))
    assert attr_value_pb2.AttrValue.FromString(got).b is True
    assert _function_def(fapi, g).attr["_noinline"].b is True
    assert "_noinline" not in _function_def(fapi, f).attr  # g was a copy
    with pytest.raises(CApiError) as e:
        fapi.buffer_bytes(lambda buf: fapi.lib.TF_FunctionGetAttrValueProto(
            g, b"missing", buf, fapi.status))
    assert e.value.code == INVALID_ARGUMENT and "missing" in e.value.message
    for bad in (b"\x0a\x05\xff\xff", b"\x0a\x00"):  # truncated; no name
        assert fapi.lib.TF_FunctionImportFunctionDef(bad, len(bad), fapi.status) is None
        with pytest.raises(CApiError) as e:
            fapi.check()
        assert e.value.code == INVALID_ARGUMENT and "FunctionDef" in e.value.message
    for h in (f, g):
        fapi.lib.TF_DeleteFunction(h)


def test_graph_copy_function_and_graph_def_library(fapi, graph):
    x, y = _square_plus_x(fapi, graph)
    f = _to_function(fapi, graph, "f", [(x, 0)], [(y, 0)])
    grad = _to_function(fapi, graph, "f_grad", [(x, 0)], [(y, 0)])
    other = fapi.lib.TF_NewGraph()
    try:
        assert fapi.lib.TF_GraphNumFunctions(other) == 0
        fapi.lib.TF_GraphCopyFunction(other, f, grad, fapi.status)
        fapi.check()
        fapi.lib.TF_GraphCopyFunction(other, f, None, fapi.status)  # the same again: fine
        fapi.check()
        assert fapi.lib.TF_GraphNumFunctions(other) == 2
        funcs = (c_void_p * 4)()
        n = fapi.lib.TF_GraphGetFunctions(other, funcs, 4, fapi.status)
        fapi.check()
        assert sorted(fapi.lib.TF_FunctionName(funcs[i]) for i in range(n)) == [b"f", b"f_grad"]
        for i in range(n):
            fapi.lib.TF_DeleteFunction(funcs[i])
        gd = graph_pb2.GraphDef.FromString(fapi.graph_def(other))
        assert sorted(fd.signature.name for fd in gd.library.function) == ["f", "f_grad"]
        assert [(g.function_name, g.gradient_func) for g in gd.library.gradient] == [("f", "f_grad")]
        assert gd.library.function[0] == _function_def(fapi, f)
        # A different function under a taken name is refused; the library is unchanged.
        z = fapi.const(graph, "z", 1.0)
        other_f = _to_function(fapi, graph, "f", [], [(z, 0)])
        fapi.lib.TF_GraphCopyFunction(other, other_f, None, fapi.status)
        with pytest.raises(CApiError) as e:
            fapi.check()
        assert e.value.code == INVALID_ARGUMENT and "different function" in e.value.message
        assert fapi.lib.TF_GraphNumFunctions(other) == 2
        fapi.lib.TF_DeleteFunction(other_f)
        # Import carries the library into a third graph as parsed functions.
        third = fapi.lib.TF_NewGraph()
        fapi.import_graph_def(third, gd.SerializeToString())
        assert fapi.lib.TF_GraphNumFunctions(third) == 2
        assert graph_pb2.GraphDef.FromString(fapi.graph_def(third)).library == gd.library
        fapi.lib.TF_DeleteGraph(third)
    finally:
        fapi.lib.TF_DeleteGraph(other)
        fapi.lib.TF_DeleteFunction(f)
        fapi.lib.TF_DeleteFunction(grad)


def test_a_function_named_like_an_op_is_refused(fapi, graph):
    z = fapi.const(graph, "z", 1.0)
    f = _to_function(fapi, graph, "Relu", [], [(z, 0)])
    fapi.lib.TF_GraphCopyFunction(graph, f, None, fapi.status)
    fapi.lib.TF_DeleteFunction(f)
    with pytest.raises(CApiError) as e:
        fapi.check()
    assert e.value.code == INVALID_ARGUMENT and "op with the same name" in e.value.message


TF_FUNCTION_SCRIPT = r"""
import sys, tensorflow as tf
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def f(x):
    return tf.nn.relu(x) * 2.0 + 1.0
gd = f.get_concrete_function().graph.as_graph_def()
sys.stdout.buffer.write(gd.SerializeToString())
"""


def test_tensorflow_function_library_imports_and_writes_back(fapi, graph, tmp_path):
    out = run_tf(["-c", TF_FUNCTION_SCRIPT], cwd=tmp_path, timeout=300, text=False).stdout
    gd = graph_pb2.GraphDef.FromString(out)
    fapi.import_graph_def(graph, out)
    assert fapi.lib.TF_GraphNumFunctions(graph) == len(gd.library.function)
    written = graph_pb2.GraphDef.FromString(fapi.graph_def(graph))
    by_name = {f.signature.name: f for f in written.library.function}
    for f in gd.library.function:
        mine = by_name[f.signature.name]
        assert mine.node_def == f.node_def and mine.ret == f.ret
        assert [a.name for a in mine.signature.input_arg] == [a.name for a in f.signature.input_arg]
    _ = TF_FLOAT


def test_a_copied_function_is_an_op_type_of_the_graph(fapi, graph):
    """TF_GraphToFunction, TF_GraphCopyFunction, then a node of type "square_plus_x" built
    with TF_NewOperation: run in a session, against numpy."""
    import numpy as np

    from graph_capi import out
    body = fapi.lib.TF_NewGraph()
    x, y = _square_plus_x(fapi, body)
    f = _to_function(fapi, body, "square_plus_x", [(x, 0)], [(y, 0)])
    fapi.lib.TF_DeleteGraph(body)
    fapi.lib.TF_GraphCopyFunction(graph, f, None, fapi.status)
    fapi.lib.TF_DeleteFunction(f)
    fapi.check()
    inp = fapi.placeholder(graph, "inp")
    call = fapi.op(graph, "square_plus_x", "call", [out(inp)])
    assert fapi.lib.TF_OperationOpType(call) == b"square_plus_x"
    sess = fapi.session(graph)
    try:
        v = np.float32([1.5, -2.0, 0.0])
        (got,) = fapi.run(sess, [(out(inp), v)], [out(call)])
    finally:
        fapi.lib.TF_DeleteSession(sess, fapi.status)
    np.testing.assert_allclose(got, v * v + v)
