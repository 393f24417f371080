"""Running functions: PartitionedCall, StatefulPartitionedCall, a node whose op type is a
function, If, StatelessIf, Case, While and StatelessWhile, imported as GraphDefs with a
FunctionDefLibrary and run through TF_SessionRun; results against numpy, and the bad
inputs the runtime must refuse with a clear error (a function that calls itself without
end, a missing function, a While body that changes a loop variable's dtype or rank, a
loop past its iteration limit)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest
from tf_reference import run_tf

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import CApiError, TF_Output, out
from opgen.protos import attr_value_pb2, function_pb2, graph_pb2, types_pb2

F, I32, BOOL, RES = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_BOOL, types_pb2.DT_RESOURCE
NOT_FOUND, INVALID_ARGUMENT, RESOURCE_EXHAUSTED = 5, 3, 8


def _node(container, name, op, inputs=(), **attrs):
    n = container.add(name=name, op=op)
    n.input.extend(inputs)
    for key, value in attrs.items():
        a = n.attr[key]
        if isinstance(value, attr_value_pb2.AttrValue):
            a.CopyFrom(value)
        elif isinstance(value, (np.ndarray, np.generic)):
            value = np.asarray(value)
            a.tensor.dtype = {np.dtype(np.float32): F, np.dtype(np.int32): I32}[value.dtype]
            for d in value.shape:
                a.tensor.tensor_shape.dim.add(size=d)
            a.tensor.tensor_content = value.tobytes()
        elif isinstance(value, bool):
            a.b = value
        elif isinstance(value, int) and key in ("T", "dtype", "Tcond", "DstT", "SrcT", "Tidx", "Tdim"):
            a.type = value
        elif isinstance(value, int):
            a.i = value
        elif isinstance(value, str):
            a.s = value.encode()
        elif isinstance(value, list):
            a.list.type.extend(value)
        else:
            raise TypeError(value)
    return n


def _func_attr(name):
    return attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=name))


def _function(library, name, inputs, outputs, stateful=False):
    """A FunctionDef: `inputs`/`outputs` are (name, dtype); returns it to add nodes to."""
    f = library.function.add()
    f.signature.name = name
    f.signature.is_stateful = stateful
    for n, t in inputs:
        f.signature.input_arg.add(name=n, type=t)
    for n, t in outputs:
        f.signature.output_arg.add(name=n, type=t)
    return f


def _const(container, name, value):
    value = np.asarray(value)
    return _node(container, name, "Const", value=value, dtype=F if value.dtype == np.float32 else I32)


def _square_plus_x(library, name="square_plus_x"):
    f = _function(library, name, [("x", F)], [("y", F)])
    _node(f.node_def, "sq", "Mul", ["x", "x"], T=F)
    _node(f.node_def, "y", "AddV2", ["sq:z:0", "x"], T=F)
    f.ret["y"] = "y:z:0"
    return f


def _call(gd, name, fn, inputs, tin, tout, op="PartitionedCall"):
    return _node(gd.node, name, op, inputs, Tin=tin, Tout=tout, f=_func_attr(fn))


def _run(api, gd, feeds, fetches, targets=()):
    graph = api.lib.TF_NewGraph()
    try:
        api.import_graph_def(graph, gd.SerializeToString())
        op = api.lib.TF_GraphOperationByName
        sess = api.session(graph)
        try:
            return api.run(sess, [(out(op(graph, k.encode())), v) for k, v in feeds.items()],
                           [out(op(graph, n.encode()), int(i)) for n, i in
                            (f.split(":") if ":" in f else (f, 0) for f in fetches)],
                           [op(graph, t.encode()) for t in targets])
        finally:
            api.lib.TF_DeleteSession(sess, api.status)
    finally:
        api.lib.TF_DeleteGraph(graph)





def _x_graph():
    gd = graph_pb2.GraphDef()
    _node(gd.node, "x", "Placeholder", dtype=F)
    return gd


X = np.float32([-1.5, 0.0, 2.0, 3.0])


def test_partitioned_call_and_function_node(api):
    gd = _x_graph()
    _square_plus_x(gd.library)
    _call(gd, "call", "square_plus_x", ["x"], [F], [F])
    _call(gd, "stateful", "square_plus_x", ["x"], [F], [F], op="StatefulPartitionedCall")
    _node(gd.node, "by_name", "square_plus_x", ["x"])
    got = _run(api, gd, {"x": X}, ["call", "stateful", "by_name"])
    for g in got:
        np.testing.assert_allclose(g, X * X + X)


def test_nested_calls(api):
    gd = _x_graph()
    _square_plus_x(gd.library)
    g = _function(gd.library, "twice", [("a", F)], [("b", F)])
    _node(g.node_def, "first", "PartitionedCall", ["a"], Tin=[F], Tout=[F], f=_func_attr("square_plus_x"))
    _node(g.node_def, "second", "square_plus_x", ["first:output:0"])
    g.ret["b"] = "second:y:0"
    _call(gd, "call", "twice", ["x"], [F], [F])
    (got,) = _run(api, gd, {"x": X}, ["call"])
    once = X * X + X
    np.testing.assert_allclose(got, once * once + once, rtol=1e-6)


def test_resource_inputs_pass_through(api):
    gd = graph_pb2.GraphDef()
    _node(gd.node, "v", "VarHandleOp", dtype=F, shape=attr_value_pb2.AttrValue(
        shape={"dim": [{"size": 2}]}), shared_name="v")
    _const(gd.node, "init", np.float32([1, 2]))
    _node(gd.node, "assign", "AssignVariableOp", ["v", "init"], dtype=F)
    f = _function(gd.library, "bump", [("h", RES)], [("before", F)], stateful=True)
    _node(f.node_def, "read", "ReadVariableOp", ["h"], dtype=F)
    _node(f.node_def, "ten", "Const", value=np.float32([10, 10]), dtype=F)
    _node(f.node_def, "add", "AssignAddVariableOp", ["h", "ten:output:0", "^read"], dtype=F)
    f.ret["before"] = "read:value:0"
    _call(gd, "call", "bump", ["v"], [RES], [F], op="StatefulPartitionedCall")
    _node(gd.node, "after", "ReadVariableOp", ["v", "^call"], dtype=F)
    graph = api.lib.TF_NewGraph()
    api.import_graph_def(graph, gd.SerializeToString())
    op = api.lib.TF_GraphOperationByName
    sess = api.session(graph)
    api.run(sess, targets=[op(graph, b"assign")])
    before, after = api.run(sess, fetches=[out(op(graph, b"call")), out(op(graph, b"after"))])
    np.testing.assert_allclose(before, [1, 2])
    np.testing.assert_allclose(after, [11, 12])
    api.lib.TF_DeleteSession(sess, api.status)
    api.lib.TF_DeleteGraph(graph)


def test_a_function_calling_itself_without_end_is_an_error(api):
    gd = _x_graph()
    f = _function(gd.library, "forever", [("x", F)], [("y", F)])
    _node(f.node_def, "again", "forever", ["x"])
    f.ret["y"] = "again:y:0"
    _call(gd, "call", "forever", ["x"], [F], [F])
    with pytest.raises(CApiError) as e:
        _run(api, gd, {"x": X}, ["call"])
    assert e.value.code == RESOURCE_EXHAUSTED, e.value.message
    assert "'forever'" in e.value.message and "nest deeper than" in e.value.message


def test_a_missing_function_is_an_error(api):
    gd = _x_graph()
    _square_plus_x(gd.library)
    _call(gd, "call", "no_such_function", ["x"], [F], [F])
    with pytest.raises(CApiError) as e:
        _run(api, gd, {"x": X}, ["call"])
    assert e.value.code == NOT_FOUND
    assert "'no_such_function'" in e.value.message and "square_plus_x" in e.value.message
    # A node whose op type is neither an op nor a function is refused at import.
    gd = _x_graph()
    _node(gd.node, "n", "no_such_function", ["x"])
    with pytest.raises(CApiError) as e:
        _run(api, gd, {"x": X}, ["n"])
    assert e.value.code == NOT_FOUND and "no_such_function" in e.value.message


def _branches(library):
    t = _function(library, "times_two", [("x", F)], [("y", F)])
    _node(t.node_def, "two", "Const", value=np.float32(2), dtype=F)
    _node(t.node_def, "y", "Mul", ["x", "two:output:0"], T=F)
    t.ret["y"] = "y:z:0"
    e = _function(library, "minus_one", [("x", F)], [("y", F)])
    _node(e.node_def, "one", "Const", value=np.float32(1), dtype=F)
    _node(e.node_def, "y", "Sub", ["x", "one:output:0"], T=F)
    e.ret["y"] = "y:z:0"
    s = _function(library, "square", [("x", F)], [("y", F)])
    _node(s.node_def, "y", "Square", ["x"], T=F)
    s.ret["y"] = "y:y:0"


@pytest.mark.parametrize("op", ["If", "StatelessIf"])
@pytest.mark.parametrize("pred", [True, False])
def test_if(api, op, pred):
    gd = _x_graph()
    _branches(gd.library)
    _node(gd.node, "p", "Placeholder", dtype=BOOL)
    _node(gd.node, "if", op, ["p", "x"], Tcond=BOOL, Tin=[F], Tout=[F],
          then_branch=_func_attr("times_two"), else_branch=_func_attr("minus_one"))
    (got,) = _run(api, gd, {"x": X, "p": np.bool_(pred)}, ["if"])
    np.testing.assert_allclose(got, X * 2 if pred else X - 1)


@pytest.mark.parametrize("index,expect", [(0, X * 2), (1, X - 1), (2, X * X), (7, X * X), (-1, X * X)])
def test_case(api, index, expect):
    gd = _x_graph()
    _branches(gd.library)
    _node(gd.node, "i", "Placeholder", dtype=I32)
    branches = attr_value_pb2.AttrValue()
    for name in ("times_two", "minus_one", "square"):
        branches.list.func.add(name=name)
    _node(gd.node, "case", "Case", ["i", "x"], Tin=[F], Tout=[F], branches=branches)
    (got,) = _run(api, gd, {"x": X, "i": np.int32(index)}, ["case"])
    np.testing.assert_allclose(got, expect)


def _loop_library(library, body_kind="ok"):
    """cond: i < n; body: (i + 1, acc * 2 + 1) (or a body that breaks the rules)."""
    c = _function(library, "cond", [("i", I32), ("acc", F)], [("more", BOOL)])
    _node(c.node_def, "n", "Const", value=np.int32(10), dtype=I32)
    _node(c.node_def, "less", "Less", ["i", "n:output:0"], T=I32)
    c.ret["more"] = "less:z:0"
    b = _function(library, "body", [("i", I32), ("acc", F)], [("i_next", I32), ("acc_next", F)])
    _node(b.node_def, "one", "Const", value=np.int32(1), dtype=I32)
    _node(b.node_def, "i_next", "AddV2", ["i", "one:output:0"], T=I32)
    _node(b.node_def, "two", "Const", value=np.float32(2), dtype=F)
    _node(b.node_def, "dbl", "Mul", ["acc", "two:output:0"], T=F)
    _node(b.node_def, "fone", "Const", value=np.float32(1), dtype=F)
    _node(b.node_def, "acc_next", "AddV2", ["dbl:z:0", "fone:output:0"], T=F)
    b.ret["i_next"] = "i_next:z:0"
    b.ret["acc_next"] = "acc_next:z:0"
    if body_kind == "dtype":  # i becomes float
        _node(b.node_def, "as_float", "Cast", ["i_next:z:0"], SrcT=I32, DstT=F)
        b.signature.output_arg[0].type = F
        b.ret["i_next"] = "as_float:y:0"
    elif body_kind == "rank":  # acc gains a dimension
        _node(b.node_def, "axis", "Const", value=np.int32(0), dtype=I32)
        _node(b.node_def, "grown", "ExpandDims", ["acc_next:z:0", "axis:output:0"], T=F, Tdim=I32)
        b.ret["acc_next"] = "grown:output:0"


def _loop_graph(op="While", body_kind="ok"):
    gd = graph_pb2.GraphDef()
    _loop_library(gd.library, body_kind)
    _node(gd.node, "i0", "Placeholder", dtype=I32)
    _node(gd.node, "acc0", "Placeholder", dtype=F)
    _node(gd.node, "loop", op, ["i0", "acc0"], T=[I32, F], cond=_func_attr("cond"),
          body=_func_attr("body"))
    return gd


def _loop_reference(i, acc):
    while i < 10:
        i, acc = i + 1, acc * 2 + 1
    return i, acc


@pytest.mark.parametrize("op", ["While", "StatelessWhile"])
@pytest.mark.parametrize("start", [0, 7, 12])
def test_while(api, op, start):
    acc0 = np.float32([0.5, -1.0])
    i, acc = _run(api, _loop_graph(op), {"i0": np.int32(start), "acc0": acc0},
                  ["loop:0", "loop:1"])
    want_i, want_acc = _loop_reference(start, acc0)
    assert i == want_i
    np.testing.assert_allclose(acc, want_acc)


@pytest.mark.parametrize("kind,words", [("dtype", ["changes loop variable 0", "int32", "float"]),
                                        ("rank", ["changes the rank of loop variable 1"])])
def test_a_while_body_that_changes_a_loop_variable_is_an_error(api, kind, words):
    with pytest.raises(CApiError) as e:
        _run(api, _loop_graph(body_kind=kind), {"i0": np.int32(0), "acc0": np.float32(1)},
             ["loop:0", "loop:1"])
    assert e.value.code == INVALID_ARGUMENT, e.value.message
    for w in words:
        assert w in e.value.message, e.value.message


def test_while_iteration_limit(api):
    lib = api.lib
    lib.OPGEN_SetWhileIterationLimit.restype = ctypes.c_int64
    lib.OPGEN_SetWhileIterationLimit.argtypes = [ctypes.c_int64]
    old = lib.OPGEN_SetWhileIterationLimit(5)
    try:
        with pytest.raises(CApiError) as e:
            _run(api, _loop_graph(), {"i0": np.int32(0), "acc0": np.float32(1)}, ["loop:0"])
        assert e.value.code == RESOURCE_EXHAUSTED and "5 iterations" in e.value.message
        (i,) = _run(api, _loop_graph(), {"i0": np.int32(6), "acc0": np.float32(1)}, ["loop:0"])
        assert i == 10  # four iterations: under the limit
    finally:
        assert lib.OPGEN_SetWhileIterationLimit(old) == 5


TF_CONTROL_FLOW_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
def f(x, n):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: x - 3.0)
    def body(i, acc):
        return i + 1, tf.cond(i % 2 == 0, lambda: acc * 1.5, lambda: acc - 1.0)
    _, z = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), y])
    return z + tf.reduce_max(y)

concrete = f.get_concrete_function()
gd = concrete.graph.as_graph_def()
open(sys.argv[1], "wb").write(gd.SerializeToString())
cases = []
for x, n in [([1.0, 2.0, -0.5], 3), ([-4.0, 1.0], 5), ([0.25], 0)]:
    cases.append({"x": x, "n": n, "want": f(tf.constant(x), tf.constant(n)).numpy().tolist()})
json.dump({"inputs": [t.name for t in concrete.inputs], "outputs": [t.name for t in concrete.outputs],
           "cases": cases}, open(sys.argv[2], "w"))
"""


def test_tensorflow_cond_and_while_loop_match_tensorflow(api, tmp_path):
    import json
    graph_file, meta_file = tmp_path / "graph.pb", tmp_path / "meta.json"
    run_tf(["-c", TF_CONTROL_FLOW_SCRIPT, graph_file, meta_file], cwd=tmp_path, timeout=300)
    gd = graph_pb2.GraphDef.FromString(graph_file.read_bytes())
    meta = json.loads(meta_file.read_text())
    ops = {n.op for n in gd.node}
    assert {"StatelessIf", "StatelessWhile"} <= ops or {"If", "While"} & ops, ops
    x_name, n_name = (name.split(":")[0] for name in meta["inputs"])
    fetches = [tuple(name.split(":")) for name in meta["outputs"]]
    for case in meta["cases"]:
        (got,) = _run(api, gd, {x_name: np.float32(case["x"]), n_name: np.int32(case["n"])},
                      [f"{n}:{i}" for n, i in fetches])
        np.testing.assert_allclose(got, case["want"], rtol=1e-6)


class TF_WhileParams(ctypes.Structure):
    _fields_ = [("ninputs", ctypes.c_int), ("cond_graph", ctypes.c_void_p),
                ("cond_inputs", ctypes.POINTER(TF_Output)), ("cond_output", TF_Output),
                ("body_graph", ctypes.c_void_p), ("body_inputs", ctypes.POINTER(TF_Output)),
                ("body_outputs", ctypes.POINTER(TF_Output)), ("name", ctypes.c_char_p)]


def _declare_while(lib):
    lib.TF_NewWhile.restype = TF_WhileParams
    lib.TF_NewWhile.argtypes = [ctypes.c_void_p, ctypes.POINTER(TF_Output), ctypes.c_int, ctypes.c_void_p]
    lib.TF_FinishWhile.restype = None
    lib.TF_FinishWhile.argtypes = [ctypes.POINTER(TF_WhileParams), ctypes.c_void_p, ctypes.POINTER(TF_Output)]
    lib.TF_AbortWhile.restype = None
    lib.TF_AbortWhile.argtypes = [ctypes.POINTER(TF_WhileParams)]


def test_new_while_builds_a_functional_while(api, graph):
    """TF_NewWhile / TF_FinishWhile: i < 10: (i + 1, acc * 2 + 1), run and compared."""
    lib = api.lib
    _declare_while(lib)
    i0 = api.placeholder(graph, "i0", 3)  # TF_INT32
    acc0 = api.placeholder(graph, "acc0")
    inputs = (TF_Output * 2)(out(i0), out(acc0))
    params = lib.TF_NewWhile(graph, inputs, 2, api.status)
    api.check()
    cg, bg = params.cond_graph, params.body_graph
    ten = api.const(cg, "ten", np.int32(10))
    less = api.op(cg, "Less", "less", [params.cond_inputs[0], out(ten)])
    params.cond_output = out(less)
    one = api.const(bg, "one", np.int32(1))
    i_next = api.op(bg, "AddV2", "i_next", [params.body_inputs[0], out(one)])
    two = api.const(bg, "two", np.float32(2))
    dbl = api.op(bg, "Mul", "dbl", [params.body_inputs[1], out(two)])
    fone = api.const(bg, "fone", np.float32(1))
    acc_next = api.op(bg, "AddV2", "acc_next", [out(dbl), out(fone)])
    params.body_outputs[0] = out(i_next)
    params.body_outputs[1] = out(acc_next)
    params.name = b"loop"
    outputs = (TF_Output * 2)()
    lib.TF_FinishWhile(ctypes.byref(params), api.status, outputs)
    api.check()
    assert lib.TF_OperationOpType(outputs[0].oper) == b"While"
    sess = api.session(graph)
    try:
        acc = np.float32([0.5, -1.0])
        i, got = api.run(sess, [(out(i0), np.int32(3)), (out(acc0), acc)], [outputs[0], outputs[1]])
    finally:
        lib.TF_DeleteSession(sess, api.status)
    want_i, want_acc = _loop_reference(3, acc)
    assert i == want_i
    np.testing.assert_allclose(got, want_acc)
    # A loop left unfinished (no cond_output) fails cleanly; an aborted one leaves nothing.
    params = lib.TF_NewWhile(graph, inputs, 2, api.status)
    api.check()
    lib.TF_FinishWhile(ctypes.byref(params), api.status, outputs)
    with pytest.raises(CApiError) as e:
        api.check()
    assert "cond_output" in e.value.message
    params = lib.TF_NewWhile(graph, inputs, 2, api.status)
    lib.TF_AbortWhile(ctypes.byref(params))



def test_finish_while_refuses_a_body_that_changes_a_dtype(api, graph):
    """As TensorFlow's TF_FinishWhile: a body turning a float loop variable into int32 is
    refused when the loop is built, naming both dtypes, and adds nothing to the graph."""
    lib = api.lib
    _declare_while(lib)
    x = api.placeholder(graph, "x")
    inputs = (TF_Output * 1)(out(x))
    params = lib.TF_NewWhile(graph, inputs, 1, api.status)
    api.check()
    params.cond_output = out(api.op(params.cond_graph, "Less", "less",
                                    [params.cond_inputs[0], params.cond_inputs[0]]))
    params.body_outputs[0] = out(api.op(params.body_graph, "Cast", "cast", [params.body_inputs[0]],
                                        {"DstT": ("Type", 3)}))  # TF_INT32
    outputs = (TF_Output * 1)()
    lib.TF_FinishWhile(ctypes.byref(params), api.status, outputs)
    with pytest.raises(CApiError) as e:
        api.check()
    assert e.value.code == INVALID_ARGUMENT
    assert "body_outputs[0] is int32, but loop variable 0 is float" in e.value.message
    assert lib.TF_GraphOperationByName(graph, b"while") is None

def _declare_eager(lib):
    vp, c = ctypes.c_void_p, ctypes
    for name, restype, argtypes in [
        ("TFE_NewContextOptions", vp, []), ("TFE_DeleteContextOptions", None, [vp]),
        ("TFE_NewContext", vp, [vp, vp]), ("TFE_DeleteContext", None, [vp]),
        ("TFE_ContextAddFunctionDef", None, [vp, c.c_char_p, c.c_size_t, vp]),
        ("TFE_ContextAddFunction", None, [vp, vp, vp]),
        ("TFE_ContextRemoveFunction", None, [vp, c.c_char_p, vp]),
        ("TFE_ContextHasFunction", c.c_ubyte, [vp, c.c_char_p]),
        ("TFE_NewOp", vp, [vp, c.c_char_p, vp]), ("TFE_DeleteOp", None, [vp]),
        ("TFE_OpAddInput", None, [vp, vp, vp]),
        ("TFE_OpSetAttrTypeList", None, [vp, c.c_char_p, c.POINTER(c.c_int), c.c_int]),
        ("TFE_OpSetAttrFunctionName", None, [vp, c.c_char_p, c.c_char_p, c.c_size_t]),
        ("TFE_OpSetAttrFunction", None, [vp, c.c_char_p, vp]),
        ("TFE_Execute", None, [vp, c.POINTER(vp), c.POINTER(c.c_int), vp]),
        ("TFE_NewTensorHandle", vp, [vp, vp]), ("TFE_DeleteTensorHandle", None, [vp]),
        ("TFE_TensorHandleResolve", vp, [vp, vp]),
        ("TF_FunctionImportFunctionDef", vp, [c.c_char_p, c.c_size_t, vp]),
        ("TF_DeleteFunction", None, [vp]),
    ]:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


def _eager_run(api, ctx, op_name, x, setup=None):
    lib = api.lib
    op = lib.TFE_NewOp(ctx, op_name.encode(), api.status)
    api.check()
    try:
        t = api.tensor(x)
        h = lib.TFE_NewTensorHandle(t, api.status)
        lib.TF_DeleteTensor(t)
        lib.TFE_OpAddInput(op, h, api.status)
        api.check()
        if setup:
            setup(op)
        retvals, n = (ctypes.c_void_p * 1)(), ctypes.c_int(1)
        lib.TFE_Execute(op, retvals, ctypes.byref(n), api.status)
        lib.TFE_DeleteTensorHandle(h)
        api.check()
        t = lib.TFE_TensorHandleResolve(retvals[0], api.status)
        lib.TFE_DeleteTensorHandle(retvals[0])
        return api.to_numpy(t)
    finally:
        lib.TFE_DeleteOp(op)


def test_eager_functions(api):
    lib = api.lib
    _declare_eager(lib)
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    api.check()
    try:
        library = function_pb2.FunctionDefLibrary()
        data = _square_plus_x(library).SerializeToString()
        assert not lib.TFE_ContextHasFunction(ctx, b"square_plus_x")
        lib.TFE_ContextAddFunctionDef(ctx, data, len(data), api.status)
        api.check()
        assert lib.TFE_ContextHasFunction(ctx, b"square_plus_x")
        np.testing.assert_allclose(_eager_run(api, ctx, "square_plus_x", X), X * X + X)

        def call_attrs(op):
            types = (ctypes.c_int * 1)(F)
            lib.TFE_OpSetAttrTypeList(op, b"Tin", types, 1)
            lib.TFE_OpSetAttrTypeList(op, b"Tout", types, 1)
            lib.TFE_OpSetAttrFunctionName(op, b"f", b"square_plus_x", len(b"square_plus_x"))
        np.testing.assert_allclose(_eager_run(api, ctx, "PartitionedCall", X, call_attrs), X * X + X)
        # TFE_ContextAddFunction with a TF_Function; a second, different "twice" is refused.
        twice = _function(library, "twice", [("x", F)], [("y", F)])
        _node(twice.node_def, "y", "AddV2", ["x", "x"], T=F)
        twice.ret["y"] = "y:z:0"
        data = twice.SerializeToString()
        f = lib.TF_FunctionImportFunctionDef(data, len(data), api.status)
        lib.TFE_ContextAddFunction(ctx, f, api.status)
        lib.TF_DeleteFunction(f)
        api.check()
        np.testing.assert_allclose(_eager_run(api, ctx, "twice", X), X + X)
        twice.ret["y"] = "x"
        data = twice.SerializeToString()
        lib.TFE_ContextAddFunctionDef(ctx, data, len(data), api.status)
        with pytest.raises(CApiError) as e:
            api.check()
        assert e.value.code == INVALID_ARGUMENT and "different function" in e.value.message
        lib.TFE_ContextRemoveFunction(ctx, b"square_plus_x", api.status)
        api.check()
        assert not lib.TFE_ContextHasFunction(ctx, b"square_plus_x")
        with pytest.raises(CApiError) as e:
            _eager_run(api, ctx, "square_plus_x", X)
        assert e.value.code == NOT_FOUND
        lib.TFE_ContextRemoveFunction(ctx, b"square_plus_x", api.status)
        with pytest.raises(CApiError) as e:
            api.check()
        assert e.value.code == INVALID_ARGUMENT and "non-existent" in e.value.message
    finally:
        lib.TFE_DeleteContext(ctx)


def _cast_function(library, name, negate):
    """name[T, U](x: T) -> y: U = Cast(-x) or Cast(x * x): U only its attrs can say."""
    f = library.function.add()
    f.signature.name = name
    for a in ("T", "U"):
        f.signature.attr.add(name=a, type="type")
    f.signature.input_arg.add(name="x", type_attr="T")
    f.signature.output_arg.add(name="y", type_attr="U")
    v = f.node_def.add(name="v", op="Neg" if negate else "Mul")
    v.input.extend(["x"] if negate else ["x", "x"])
    c = f.node_def.add(name="y", op="Cast", input=["v:y:0" if negate else "v:z:0"])
    for node, attrs in ((v, {"T": "T"}), (c, {"SrcT": "T", "DstT": "U"})):
        for key, placeholder in attrs.items():
            node.attr[key].placeholder = placeholder
    f.ret["y"] = "y:y:0"


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("op_type", ["Case", "StatelessCase", "If"])
def test_eager_branches_bind_by_the_attrs_of_their_ops(api, op_type, index):
    """TFE_OpSetAttrFunctionList (Case's branches) and TFE_OpSetAttrFunction (If's) keep
    the attrs set on each function's TFE_Op, as TensorFlow's NameAttrList attrs: U=double
    makes the float32 argument's result a float64 (numpy reference)."""
    lib = api.lib
    _declare_eager(lib)
    vp = ctypes.c_void_p
    lib.TFE_OpSetAttrFunctionList.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(vp), ctypes.c_int]
    lib.TFE_OpSetAttrFunctionList.restype = None
    lib.TFE_OpSetAttrType.argtypes, lib.TFE_OpSetAttrType.restype = [vp, ctypes.c_char_p, ctypes.c_int], None
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    api.check()
    branches, handles = [], []
    try:
        library = function_pb2.FunctionDefLibrary()
        _cast_function(library, "castsq", negate=False)
        _cast_function(library, "castneg", negate=True)
        for f in library.function:
            data = f.SerializeToString()
            lib.TFE_ContextAddFunctionDef(ctx, data, len(data), api.status)
            api.check()
        for name in ("castsq", "castneg"):
            b = lib.TFE_NewOp(ctx, name.encode(), api.status)
            api.check()
            branches.append(b)
            lib.TFE_OpSetAttrType(b, b"T", F)
            lib.TFE_OpSetAttrType(b, b"U", types_pb2.DT_DOUBLE)
        op = lib.TFE_NewOp(ctx, op_type.encode(), api.status)
        api.check()
        selector = np.int32(index) if op_type != "If" else np.bool_(index == 0)
        for value in (selector, X):
            t = api.tensor(value)
            handles.append(lib.TFE_NewTensorHandle(t, api.status))
            lib.TF_DeleteTensor(t)
            lib.TFE_OpAddInput(op, handles[-1], api.status)
            api.check()
        lib.TFE_OpSetAttrTypeList(op, b"Tin", (ctypes.c_int * 1)(F), 1)
        lib.TFE_OpSetAttrTypeList(op, b"Tout", (ctypes.c_int * 1)(types_pb2.DT_DOUBLE), 1)
        if op_type == "If":
            lib.TFE_OpSetAttrType(op, b"Tcond", BOOL)
            lib.TFE_OpSetAttrFunction(op, b"then_branch", branches[0])
            lib.TFE_OpSetAttrFunction(op, b"else_branch", branches[1])
        else:
            lib.TFE_OpSetAttrFunctionList(op, b"branches", (vp * 2)(*branches), 2)
        retvals, n = (vp * 1)(), ctypes.c_int(1)
        lib.TFE_Execute(op, retvals, ctypes.byref(n), api.status)
        lib.TFE_DeleteOp(op)
        api.check()
        t = lib.TFE_TensorHandleResolve(retvals[0], api.status)
        lib.TFE_DeleteTensorHandle(retvals[0])
        api.check()
        got = api.to_numpy(t)
    finally:
        for h in handles:
            lib.TFE_DeleteTensorHandle(h)
        for b in branches:
            lib.TFE_DeleteOp(b)
        lib.TFE_DeleteContext(ctx)
    x = X.astype(np.float64)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x * x if index == 0 else -x)
