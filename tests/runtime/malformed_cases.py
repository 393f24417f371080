"""Malformed shapes and tensor attrs, each as the same sequence of C API calls on any
library with TensorFlow's C API: opgen's runtime in the test process, TensorFlow's own
libtensorflow_cc in a child process (test_malformed_attrs.py compares the two).

A case is `fn(api) -> (code, message)`: the first failing status of its calls, or
(0, "") when every call succeeds. `api` is a graph_capi.Api."""

from __future__ import annotations

import ctypes

import numpy as np

from graph_capi import TF_FLOAT, TF_INT32, OK, CApiError, TF_Output, out
from opgen.protos import (attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2,
                          tensor_shape_pb2, types_pb2)

c_void_p, c_int, c_int64, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_size_t
P = ctypes.POINTER


def shape_proto(dims, unknown_rank=False) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims],
        unknown_rank=unknown_rank)


def tensor_proto(dims, dtype=types_pb2.DT_FLOAT, unknown_rank=False, **values):
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape_proto(dims, unknown_rank),
                                  **values)


def _float_type():
    return attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT)


def _status(api):
    lib = api.lib
    return lib.TF_GetCode(api.status), lib.TF_Message(api.status).decode(errors="replace")


def _import(api, *nodes, run=None):
    """Imports a GraphDef of `nodes`; then, if `run` names a node, runs its output 0."""
    graph = api.lib.TF_NewGraph()
    try:
        api.import_graph_def(graph, graph_pb2.GraphDef(node=list(nodes)).SerializeToString())
        if run is not None:
            sess = api.session(graph)
            try:
                api.run(sess, fetches=[out(api.lib.TF_GraphOperationByName(graph, run.encode()))])
            finally:
                api.lib.TF_DeleteSession(sess, api.status)
        return OK, ""
    except CApiError as e:
        return e.code, e.message
    finally:
        api.lib.TF_DeleteGraph(graph)


def _placeholder_node(shape: tensor_shape_pb2.TensorShapeProto, op="Placeholder"):
    return node_def_pb2.NodeDef(name="p", op=op, attr={
        "dtype": _float_type(), "shape": attr_value_pb2.AttrValue(shape=shape)})


def _const_node(tensor, dtype=types_pb2.DT_FLOAT):
    return node_def_pb2.NodeDef(name="c", op="Const", attr={
        "value": attr_value_pb2.AttrValue(tensor=tensor),
        "dtype": attr_value_pb2.AttrValue(type=dtype)})


def _build(api, op_type, set_attrs, inputs=()):
    """Adds one node through TF_NewOperation ... TF_FinishOperation; `set_attrs(lib,
    desc)` returns False when a setter with a status failed (its status is reported)."""
    lib = api.lib
    graph = lib.TF_NewGraph()
    try:
        ins = [api.const(graph, f"in{i}", x) for i, x in enumerate(inputs)]
        desc = lib.TF_NewOperation(graph, op_type.encode(), b"n")
        for x in ins:
            lib.TF_AddInput(desc, out(x))
        if set_attrs(lib, desc) is False:
            result = _status(api)
            lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)  # a node TF_FinishOperation frees
            lib.TF_FinishOperation(desc, api.status)
            return result
        lib.TF_FinishOperation(desc, api.status)
        return _status(api)
    finally:
        lib.TF_DeleteGraph(graph)


def _set_attr_value(api, name, value: attr_value_pb2.AttrValue):
    def set_attrs(lib, desc):
        if name != "dtype":
            lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
        data = value.SerializeToString()
        lib.TF_SetAttrValueProto(desc, name.encode(), data, len(data), api.status)
        return lib.TF_GetCode(api.status) == OK
    return set_attrs


# ---- TensorShapeProto dims below -1 ---------------------------------------------------

def import_placeholder_dim_below_minus_one(api):
    return _import(api, _placeholder_node(shape_proto([2, -5])))


def import_placeholder_with_default_dim_below_minus_one(api):
    f = _float_type()
    value = tensor_proto([1], float_val=[1.0])
    return _import(api, _const_node(value), node_def_pb2.NodeDef(
        name="p", op="PlaceholderWithDefault", input=["c"], attr={
            "dtype": f, "shape": attr_value_pb2.AttrValue(shape=shape_proto([-5]))}))


def import_placeholder_unknown_rank_with_dims(api):
    return _import(api, _placeholder_node(shape_proto([2, 3], unknown_rank=True)))


def import_placeholder_of_rank_255(api):
    return _import(api, _placeholder_node(shape_proto([1] * 255)))


def import_placeholder_of_rank_254(api):  # the largest rank: accepted
    return _import(api, _placeholder_node(shape_proto([1] * 254)))


def import_placeholder_unknown_dim(api):  # -1: unknown, accepted
    return _import(api, _placeholder_node(shape_proto([2, -1])))


def set_attr_value_proto_shape_below_minus_one(api):
    return _build(api, "Placeholder",
                  _set_attr_value(api, "shape", attr_value_pb2.AttrValue(shape=shape_proto([-2]))))


def set_attr_tensor_shape_proto_below_minus_one(api):
    def set_attrs(lib, desc):
        lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
        data = shape_proto([3, -7]).SerializeToString()
        lib.TF_SetAttrTensorShapeProto(desc, b"shape", data, len(data), api.status)
        return lib.TF_GetCode(api.status) == OK
    return _build(api, "Placeholder", set_attrs)


def set_attr_tensor_shape_proto_list_below_minus_one(api):
    lib = api.lib
    fn = lib.TF_SetAttrTensorShapeProtoList
    fn.restype, fn.argtypes = None, [c_void_p, ctypes.c_char_p, P(c_void_p), P(c_size_t), c_int,
                                     c_void_p]

    def set_attrs(lib, desc):
        lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
        protos = [shape_proto([1]).SerializeToString(), shape_proto([-3]).SerializeToString()]
        buffers = [ctypes.create_string_buffer(p, len(p)) for p in protos]
        fn(desc, b"shapes", (c_void_p * 2)(*[ctypes.cast(b, c_void_p) for b in buffers]),
           (c_size_t * 2)(*map(len, protos)), 2, api.status)
        if lib.TF_GetCode(api.status) != OK:
            return False
        lib.TF_SetAttrTensorShapeProto(desc, b"shape", b"", 0, api.status)  # a scalar
        return True
    return _build(api, "Placeholder", set_attrs)


def set_attr_shape_below_minus_one(api):
    def set_attrs(lib, desc):
        lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
        lib.TF_SetAttrShape(desc, b"shape", (c_int64 * 2)(2, -5), 2)
    return _build(api, "Placeholder", set_attrs)


def graph_set_tensor_shape_below_minus_one(api):
    lib = api.lib
    graph = lib.TF_NewGraph()
    try:
        p = api.placeholder(graph, "p")
        lib.TF_GraphSetTensorShape(graph, out(p), (c_int64 * 2)(2, -5), 2, api.status)
        return _status(api)
    finally:
        lib.TF_DeleteGraph(graph)


# ---- TensorProto shapes: no negative dim is valid -------------------------------------

def import_const_of_unknown_dim(api):
    return _import(api, _const_node(tensor_proto([-1], float_val=[1.0])), run="c")


def import_const_of_negative_dim(api):
    return _import(api, _const_node(tensor_proto([2, -3], float_val=[1.0])), run="c")


def import_const_of_unknown_rank(api):
    return _import(api, _const_node(tensor_proto([], unknown_rank=True, float_val=[1.0])),
                   run="c")


def import_const_whose_element_count_overflows(api):
    return _import(api, _const_node(tensor_proto([1 << 62, 8], float_val=[1.0])), run="c")


def set_attr_value_proto_const_of_negative_dim(api):
    value = attr_value_pb2.AttrValue(tensor=tensor_proto([-4], float_val=[1.0]))
    return _build(api, "Const", _set_attr_value(api, "value", value))


# ---- Const: the value's dtype against attr dtype ---------------------------------------

def import_const_dtype_mismatch(api):
    return _import(api, _const_node(tensor_proto([2], float_val=[1.0, 2.0]), types_pb2.DT_INT32),
                   run="c")


def build_const_dtype_mismatch(api):
    """TF_SetAttrTensor(float) with dtype int32, then a session run of the node."""
    lib = api.lib
    graph = lib.TF_NewGraph()
    try:
        desc = lib.TF_NewOperation(graph, b"Const", b"c")
        t = api.tensor(np.float32([1, 2]))
        lib.TF_SetAttrTensor(desc, b"value", t, api.status)
        lib.TF_DeleteTensor(t)
        lib.TF_SetAttrType(desc, b"dtype", TF_INT32)
        op = lib.TF_FinishOperation(desc, api.status)
        if lib.TF_GetCode(api.status) != OK:
            return _status(api)
        sess = api.session(graph)
        try:
            api.run(sess, fetches=[TF_Output(op, 0)])
            return OK, ""
        except CApiError as e:
            return e.code, e.message
        finally:
            lib.TF_DeleteSession(sess, api.status)
    finally:
        lib.TF_DeleteGraph(graph)


def _eager(api, op_type, inputs, set_attrs):
    lib = api.lib
    for name, restype, argtypes in [
            ("TFE_NewContextOptions", c_void_p, []), ("TFE_DeleteContextOptions", None, [c_void_p]),
            ("TFE_NewContext", c_void_p, [c_void_p, c_void_p]), ("TFE_DeleteContext", None, [c_void_p]),
            ("TFE_NewTensorHandle", c_void_p, [c_void_p, c_void_p]),
            ("TFE_DeleteTensorHandle", None, [c_void_p]),
            ("TFE_NewOp", c_void_p, [c_void_p, ctypes.c_char_p, c_void_p]),
            ("TFE_DeleteOp", None, [c_void_p]), ("TFE_OpAddInput", None, [c_void_p, c_void_p, c_void_p]),
            ("TFE_OpSetAttrType", None, [c_void_p, ctypes.c_char_p, c_int]),
            ("TFE_OpSetAttrShape", None, [c_void_p, ctypes.c_char_p, P(c_int64), c_int, c_void_p]),
            ("TFE_OpSetAttrTensor", None, [c_void_p, ctypes.c_char_p, c_void_p, c_void_p]),
            ("TFE_Execute", None, [c_void_p, P(c_void_p), P(c_int), c_void_p])]:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    op = lib.TFE_NewOp(ctx, op_type.encode(), api.status)
    handles = []
    try:
        for x in inputs:
            t = api.tensor(x)
            handles.append(lib.TFE_NewTensorHandle(t, api.status))
            lib.TF_DeleteTensor(t)
            lib.TFE_OpAddInput(op, handles[-1], api.status)
        if set_attrs(lib, op) is False:
            return _status(api)
        retvals, n = (c_void_p * 2)(), c_int(2)
        lib.TFE_Execute(op, retvals, ctypes.byref(n), api.status)
        result = _status(api)
        if result[0] == OK:
            for i in range(n.value):
                lib.TFE_DeleteTensorHandle(retvals[i])
        return result
    finally:
        for h in handles:
            lib.TFE_DeleteTensorHandle(h)
        lib.TFE_DeleteOp(op)
        lib.TFE_DeleteContext(ctx)


def eager_const_dtype_mismatch(api):
    def set_attrs(lib, op):
        lib.TFE_OpSetAttrType(op, b"dtype", TF_INT32)
        t = api.tensor(np.float32([1, 2]))
        lib.TFE_OpSetAttrTensor(op, b"value", t, api.status)
        lib.TF_DeleteTensor(t)
    return _eager(api, "Const", [], set_attrs)


def eager_shape_attr_below_minus_one(api):
    def set_attrs(lib, op):
        lib.TFE_OpSetAttrType(op, b"dtype", TF_FLOAT)
        lib.TFE_OpSetAttrShape(op, b"shape", (c_int64 * 1)(-5), 1, api.status)
        return lib.TF_GetCode(api.status) == OK
    return _eager(api, "PlaceholderWithDefault", [np.float32([1])], set_attrs)


def main():
    """In a TensorFlow interpreter: runs every case on libtensorflow_cc and prints
    {name: [code, message]} as JSON."""
    import importlib.util
    import json
    from pathlib import Path
    package = Path(importlib.util.find_spec("tensorflow").submodule_search_locations[0])
    from graph_capi import Api
    api = Api(ctypes.CDLL(str(package / "libtensorflow_cc.so.2")))
    print(json.dumps({name: list(fn(api)) for name, fn in CASES.items()}))


CASES = {name: fn for name, fn in list(globals().items())
         if callable(fn) and not name.startswith("_") and fn.__module__ == __name__
         and name not in ("shape_proto", "tensor_proto", "main")}

if __name__ == "__main__":
    main()
