"""TensorListSetItem sets in place a list only it still reads (the runtime forwards the
list when its plan reads the value no more and nothing else holds it) and copies any
other: lists stay values. A list fed to two SetItems, a list also fetched, a list read
after the set in a While body (functional While, whose body is handed each iteration's
lists), and a long loop's list, all against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from graph_def_builder import F32, I32, VARIANT, GraphDefBuilder, run
from graph_def_builder import dtype_attr as _t
from opgen.protos import attr_value_pb2, types_pb2

BOOL = types_pb2.DT_BOOL


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _reserve(b, name, n, shape=(2,)):
    b.const(name + "/shape", np.array(shape, np.int32))
    b.const(name + "/n", np.int32(n))
    return b.node(name, "TensorListReserve", [name + "/shape", name + "/n"],
                  element_dtype=_t(F32), shape_type=_t(I32))


def _set(b, name, handle, index, value):
    return b.node(name, "TensorListSetItem", [handle, index, value], element_dtype=_t(F32))


def _stack(b, name, handle, shape=(2,)):
    b.const(name + "/shape", np.array(shape, np.int32))
    return b.node(name, "TensorListStack", [handle, name + "/shape"], element_dtype=_t(F32))


A = np.float32([1.5, -2.0])
B = np.float32([4.0, 8.0])
Z = np.zeros(2, np.float32)


@pytest.mark.parametrize("order", [0, 1])
def test_a_list_fed_to_two_set_items_keeps_both_results(order):
    """s1 = L[0] <- a, s2 = L[0] <- b (one of them reads L last and may set it in place),
    s3 = s1[1] <- b: every list keeps its own elements; L stays all unset."""
    b = GraphDefBuilder()
    b.placeholder("a", F32)
    b.placeholder("b", F32)
    b.const("zero", np.int32(0))
    b.const("one", np.int32(1))
    _reserve(b, "L", 3)
    first, second = (("s1", "a"), ("s2", "b")) if order == 0 else (("s2", "b"), ("s1", "a"))
    _set(b, *first[:1], "L", "zero", first[1])
    _set(b, *second[:1], "L", "zero", second[1])
    _set(b, "s3", "s1", "one", "b")
    for name in ("s1", "s2", "s3", "L"):
        _stack(b, name + "_stacked", name)
    fetches = ["s1_stacked:0", "s2_stacked:0", "s3_stacked:0", "L_stacked:0"]
    if order == 1:
        fetches.reverse()
    got = dict(zip(fetches, run(b, fetches, {"a:0": A, "b:0": B})))
    np.testing.assert_array_equal(got["s1_stacked:0"], [A, Z, Z])
    np.testing.assert_array_equal(got["s2_stacked:0"], [B, Z, Z])
    np.testing.assert_array_equal(got["s3_stacked:0"], [A, B, Z])
    np.testing.assert_array_equal(got["L_stacked:0"], [Z, Z, Z])


def test_a_list_the_caller_fetches_is_not_changed_by_a_later_set():
    b = GraphDefBuilder()
    b.placeholder("a", F32)
    b.const("zero", np.int32(0))
    _reserve(b, "L", 1)
    b.placeholder("v", F32)
    _set(b, "L1", "L", "zero", "a")
    _set(b, "L2", "L1", "zero", "v")  # reads L1 last, but L1 is fetched too
    b.node("length", "TensorListLength", ["L2"])
    _stack(b, "L1_stacked", "L1")
    _stack(b, "L2_stacked", "L2")
    s1, s2 = run(b, ["L1_stacked:0", "L2_stacked:0"], {"a:0": A, "v:0": B})
    np.testing.assert_array_equal(s1, [A])
    np.testing.assert_array_equal(s2, [B])


def _function(lib, name, inputs, outputs, ret):
    f = lib.function.add()
    f.signature.name = name
    for n, t in inputs:
        f.signature.input_arg.add(name=n, type=t)
    for n, t in outputs:
        f.signature.output_arg.add(name=n, type=t)
    f.ret.update(ret)
    return f


def _fnode(f, name, op, inputs, **attrs):
    n = f.node_def.add(name=name, op=op, input=list(inputs))
    for key, value in attrs.items():
        n.attr[key].CopyFrom(value)
    return n


def _const_tensor(f, name, value):
    from opgen.protos import tensor_pb2
    array = np.asarray(value)
    dtype = F32 if array.dtype == np.float32 else I32
    proto = tensor_pb2.TensorProto(dtype=dtype, tensor_content=array.tobytes())
    proto.tensor_shape.dim.extend(proto.tensor_shape.Dim(size=d) for d in array.shape)
    _fnode(f, name, "Const", [], value=attr_value_pb2.AttrValue(tensor=proto), dtype=_t(dtype))


def _loop_graph(n, read_old):
    """A While over (i, list, seen, x, n) while i < n: list[i] <- x * (i + 1); with
    `read_old`, seen += sum(old list[i]) too, read from the list the set was given (an
    unset element: zeros). A set made in place on a list still to be read would show in
    `seen`. The list starts as n unset elements of shape [2]."""
    b = GraphDefBuilder()
    b.placeholder("x", F32)
    b.const("zero", np.int32(0))
    b.const("fzero", np.float32(0))
    b.const("n", np.int32(n))
    _reserve(b, "L", n)
    lib = b.graph_def.library
    loop_vars = [("i", I32), ("l", VARIANT), ("seen", F32), ("x", F32), ("n", I32)]
    c = _function(lib, "cond", loop_vars, [("more", BOOL)], {"more": "less:z:0"})
    _fnode(c, "less", "Less", ["i", "n"], T=_t(I32))
    body = _function(lib, "body", loop_vars, [(k + "_next", t) for k, t in loop_vars],
                     {"i_next": "inext:z:0", "l_next": "set:output_handle:0",
                      "seen_next": "seen_next:z:0" if read_old else "seen",
                      "x_next": "x", "n_next": "n"})
    _const_tensor(body, "one", np.int32(1))
    _fnode(body, "inext", "AddV2", ["i", "one:output:0"], T=_t(I32))
    _fnode(body, "k", "Cast", ["inext:z:0"], SrcT=_t(I32), DstT=_t(F32))
    _fnode(body, "value", "Mul", ["x", "k:y:0"], T=_t(F32))
    _fnode(body, "set", "TensorListSetItem", ["l", "i", "value:z:0"], element_dtype=_t(F32))
    if read_old:
        _const_tensor(body, "shape", np.array([2], np.int32))
        _const_tensor(body, "axis", np.int32(0))
        _fnode(body, "old", "TensorListGetItem", ["l", "i", "shape:output:0"],
               element_dtype=_t(F32), Tshape=_t(I32))
        _fnode(body, "old_sum", "Sum", ["old:item:0", "axis:output:0"], T=_t(F32),
               Tidx=_t(I32), keep_dims=attr_value_pb2.AttrValue(b=False))
        _fnode(body, "seen_next", "AddV2", ["seen", "old_sum:output:0"], T=_t(F32))
    b.node("loop", "While", ["zero", "L", "fzero", "x", "n"],
           T=attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
               type=[t for _, t in loop_vars])),
           cond=attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name="cond")),
           body=attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name="body")))
    _stack(b, "stacked", "loop:1")
    return b


@pytest.mark.parametrize("read_old", [False, True], ids=["set only", "old list read too"])
@pytest.mark.parametrize("n", [1, 7, 300])
def test_a_while_loop_sets_each_iterations_element(n, read_old):
    x = np.float32([0.5, -3.0])
    stacked, seen = run(_loop_graph(n, read_old), ["stacked:0", "loop:2"], {"x:0": x})
    want = x[None, :] * np.arange(1, n + 1, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(stacked, want)
    assert seen == 0.0  # the old list's element i was still unset when read


def test_the_list_a_while_loop_starts_from_is_unchanged():
    """The loop's initial list is also stacked outside the loop: it stays all zeros."""
    b = _loop_graph(5, read_old=False)
    _stack(b, "initial", "L")
    stacked, initial = run(b, ["stacked:0", "initial:0"], {"x:0": np.float32([1.0, 2.0])})
    np.testing.assert_array_equal(initial, np.zeros((5, 2), np.float32))
    np.testing.assert_array_equal(stacked[-1], [5.0, 10.0])
