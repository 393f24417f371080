"""Graph building through TensorFlow's C API: nodes, attrs completed and checked against
the OpDef, the queries on operations, shapes, and bad nodes refused with a status."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import (  # noqa: E402
    ALREADY_EXISTS, INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE, TF_BOOL, TF_DOUBLE, TF_FLOAT,
    TF_INT32, TF_INT64, CApiError, TF_Buffer, TF_Input, TF_Output, c_float, c_int, c_int64,
    c_size_t, c_ubyte, c_void_p, out)
from opgen.protos import attr_value_pb2, node_def_pb2, op_def_pb2, tensor_shape_pb2  # noqa: E402


def test_nodes_record_inputs_types_and_consumers(api, graph):
    lib = api.lib
    x = api.placeholder(graph, "x", TF_FLOAT, [2, 3])
    w = api.const(graph, "w", np.ones((3, 4), np.float32))
    y = api.op(graph, "MatMul", "y", [out(x), out(w)], attrs={"transpose_b": ("Bool", False)})
    assert lib.TF_OperationName(y) == b"y"
    assert lib.TF_OperationOpType(y) == b"MatMul"
    assert lib.TF_OperationNumInputs(y) == 2 and lib.TF_OperationNumOutputs(y) == 1
    assert lib.TF_OperationOutputType(out(y)) == TF_FLOAT
    assert lib.TF_OperationInputType(TF_Input(y, 1)) == TF_FLOAT
    src = lib.TF_OperationInput(TF_Input(y, 1))
    assert src.oper == w and src.index == 0
    assert lib.TF_OperationOutputNumConsumers(out(x)) == 1
    consumers = (TF_Input * 2)()
    assert lib.TF_OperationOutputConsumers(out(x), consumers, 2) == 1
    assert consumers[0].oper == y and consumers[0].index == 0
    assert lib.TF_GraphOperationByName(graph, b"w") == w
    assert lib.TF_GraphOperationByName(graph, b"nope") is None
    pos, seen = c_size_t(0), []
    while (op := lib.TF_GraphNextOperation(graph, ctypes.byref(pos))) is not None:
        seen.append(lib.TF_OperationName(op))
    assert seen == [b"x", b"w", b"y"]


def test_list_inputs_and_list_lengths(api, graph):
    lib = api.lib
    a = api.const(graph, "a", np.float32([1, 2]))
    b = api.const(graph, "b", np.float32([3, 4]))
    axis = api.const(graph, "axis", np.int32(0))
    cat = api.op(graph, "ConcatV2", "cat", [[out(a), out(b), out(a)], out(axis)])
    assert lib.TF_OperationNumInputs(cat) == 4
    assert lib.TF_OperationInputListLength(cat, b"values", api.status) == 3
    api.check()
    n = c_int64()
    lib.TF_OperationGetAttrInt(cat, b"N", ctypes.byref(n), api.status)
    api.check()
    assert n.value == 3
    split = api.op(graph, "Unpack", "split", [out(cat)], attrs={"num": ("Int", 6)})
    assert lib.TF_OperationNumOutputs(split) == 6
    assert lib.TF_OperationOutputListLength(split, b"output", api.status) == 6
    assert lib.TF_OperationOutputListLength(split, b"nope", api.status) == -1
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT


def test_control_edges(api, graph):
    lib = api.lib
    a = api.op(graph, "NoOp", "a")
    b = api.op(graph, "NoOp", "b")
    c = api.op(graph, "NoOp", "c", control_inputs=[a, b])
    assert lib.TF_OperationNumControlInputs(c) == 2
    got = (c_void_p * 2)()
    assert lib.TF_OperationGetControlInputs(c, got, 2) == 2
    assert list(got) == [a, b]
    assert lib.TF_OperationNumControlOutputs(a) == 1
    assert lib.TF_OperationGetControlOutputs(a, got, 2) == 1 and got[0] == c


def test_defaults_are_filled_and_attrs_read_back(api, graph):
    lib, status = api.lib, api.status
    x = api.placeholder(graph, "x", TF_FLOAT)
    y = api.op(graph, "MatMul", "y", [out(x), out(x)])
    flag = c_ubyte(1)
    lib.TF_OperationGetAttrBool(y, b"transpose_a", ctypes.byref(flag), status)
    api.check()
    assert flag.value == 0
    t = c_int()
    lib.TF_OperationGetAttrType(y, b"T", ctypes.byref(t), status)
    assert t.value == TF_FLOAT
    meta = lib.TF_OperationGetAttrMetadata(x, b"shape", status)
    api.check()
    assert (meta.is_list, meta.total_size) == (0, -1)  # unknown rank by default
    names = []
    for i in range(lib.TF_OperationGetNumAttrs(y)):
        name = ctypes.create_string_buffer(lib.TF_OperationGetAttrNameLength(y, i))
        lib.TF_OperationGetAttrName(y, i, name, status)
        api.check()
        names.append(name.raw.decode())
    assert names == ["T", "grad_a", "grad_b", "transpose_a", "transpose_b"]  # MatMul's, in order
    lib.TF_OperationGetAttrInt(y, b"missing", ctypes.byref(c_int64()), status)
    assert lib.TF_GetCode(status) == INVALID_ARGUMENT
    lib.TF_OperationGetAttrInt(y, b"T", ctypes.byref(c_int64()), status)
    assert lib.TF_GetCode(status) == INVALID_ARGUMENT  # T is a type, not an int


def test_every_attr_setter_round_trips_through_its_getter(api, graph):
    """Attr kinds go through a private ("_") attr each, which the OpDef does not check,
    and read back through the matching getter and as AttrValue protos."""
    lib, status = api.lib, api.status
    desc = lib.TF_NewOperation(graph, b"NoOp", b"attrs")
    strs = [b"ab", b"", b"xyz"]
    lib.TF_SetAttrString(desc, b"_s", b"hello", 5)
    lib.TF_SetAttrStringList(desc, b"_sl", (c_void_p * 3)(*[ctypes.cast(ctypes.c_char_p(s), c_void_p) for s in strs]),
                             (c_size_t * 3)(*map(len, strs)), 3)
    lib.TF_SetAttrInt(desc, b"_i", -7)
    lib.TF_SetAttrIntList(desc, b"_il", (c_int64 * 3)(1, -2, 3), 3)
    lib.TF_SetAttrFloat(desc, b"_f", 2.5)
    lib.TF_SetAttrFloatList(desc, b"_fl", (c_float * 2)(0.5, -1.5), 2)
    lib.TF_SetAttrBool(desc, b"_b", 1)
    lib.TF_SetAttrBoolList(desc, b"_bl", (c_ubyte * 3)(1, 0, 1), 3)
    lib.TF_SetAttrType(desc, b"_t", TF_INT64)
    lib.TF_SetAttrTypeList(desc, b"_tl", (c_int * 2)(TF_DOUBLE, TF_BOOL), 2)
    lib.TF_SetAttrShape(desc, b"_sh", (c_int64 * 2)(2, -1), 2)
    d1, d2 = (c_int64 * 1)(5), (c_int64 * 2)(1, 2)
    lib.TF_SetAttrShapeList(desc, b"_shl", (ctypes.POINTER(c_int64) * 3)(d1, d2, None), (c_int * 3)(1, 2, -1), 3)
    proto = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=4)]).SerializeToString()
    lib.TF_SetAttrTensorShapeProto(desc, b"_shp", proto, len(proto), status)
    api.check()
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = api.tensor(value)
    lib.TF_SetAttrTensor(desc, b"_tensor", t, status)
    api.check()
    lib.TF_SetAttrTensorList(desc, b"_tensors", (c_void_p * 2)(t, t), 2, status)
    lib.TF_DeleteTensor(t)
    av = attr_value_pb2.AttrValue(s=b"from proto").SerializeToString()
    lib.TF_SetAttrValueProto(desc, b"_v", av, len(av), status)
    lib.TF_SetAttrFuncName(desc, b"_fn", b"my_fn", 5)
    op = lib.TF_FinishOperation(desc, status)
    api.check()

    buf = ctypes.create_string_buffer(5)
    lib.TF_OperationGetAttrString(op, b"_s", buf, 5, status)
    assert buf.raw == b"hello"
    meta = lib.TF_OperationGetAttrMetadata(op, b"_sl", status)
    assert (meta.is_list, meta.list_size, meta.total_size) == (1, 3, 5)
    values, lengths, storage = (c_void_p * 3)(), (c_size_t * 3)(), ctypes.create_string_buffer(5)
    lib.TF_OperationGetAttrStringList(op, b"_sl", values, lengths, 3, storage, 5, status)
    api.check()
    assert [ctypes.string_at(values[i], lengths[i]) for i in range(3)] == strs
    i = c_int64()
    lib.TF_OperationGetAttrInt(op, b"_i", ctypes.byref(i), status)
    assert i.value == -7
    il = (c_int64 * 3)()
    lib.TF_OperationGetAttrIntList(op, b"_il", il, 3, status)
    assert list(il) == [1, -2, 3]
    f = c_float()
    lib.TF_OperationGetAttrFloat(op, b"_f", ctypes.byref(f), status)
    assert f.value == 2.5
    fl = (c_float * 2)()
    lib.TF_OperationGetAttrFloatList(op, b"_fl", fl, 2, status)
    assert list(fl) == [0.5, -1.5]
    bl = (c_ubyte * 3)()
    lib.TF_OperationGetAttrBoolList(op, b"_bl", bl, 3, status)
    assert list(bl) == [1, 0, 1]
    tl = (c_int * 2)()
    lib.TF_OperationGetAttrTypeList(op, b"_tl", tl, 2, status)
    assert list(tl) == [TF_DOUBLE, TF_BOOL]
    meta = lib.TF_OperationGetAttrMetadata(op, b"_sh", status)
    assert meta.total_size == 2
    dims = (c_int64 * 2)()
    lib.TF_OperationGetAttrShape(op, b"_sh", dims, 2, status)
    assert list(dims) == [2, -1]
    meta = lib.TF_OperationGetAttrMetadata(op, b"_shl", status)
    assert (meta.list_size, meta.total_size) == (3, 3)
    ptrs, ranks, storage = (ctypes.POINTER(c_int64) * 3)(), (c_int * 3)(), (c_int64 * 3)()
    lib.TF_OperationGetAttrShapeList(op, b"_shl", ptrs, ranks, 3, storage, 3, status)
    api.check()
    assert list(ranks) == [1, 2, -1] and ptrs[0][0] == 5 and [ptrs[1][0], ptrs[1][1]] == [1, 2]
    sbuf = lib.TF_NewBuffer()
    lib.TF_OperationGetAttrTensorShapeProto(op, b"_shp", sbuf, status)
    api.check()
    got = tensor_shape_pb2.TensorShapeProto.FromString(ctypes.string_at(sbuf.contents.data, sbuf.contents.length))
    lib.TF_DeleteBuffer(sbuf)
    assert [d.size for d in got.dim] == [4]
    tp = c_void_p()
    lib.TF_OperationGetAttrTensor(op, b"_tensor", ctypes.byref(tp), status)
    api.check()
    np.testing.assert_array_equal(api.to_numpy(tp.value), value)
    tps = (c_void_p * 2)()
    lib.TF_OperationGetAttrTensorList(op, b"_tensors", tps, 2, status)
    api.check()
    for t in tps:
        np.testing.assert_array_equal(api.to_numpy(t), value)
    v = attr_value_pb2.AttrValue.FromString(api.buffer_bytes(
        lambda b: lib.TF_OperationGetAttrValueProto(op, b"_v", b, status)))
    assert v.s == b"from proto"
    fn = attr_value_pb2.AttrValue.FromString(api.buffer_bytes(
        lambda b: lib.TF_OperationGetAttrValueProto(op, b"_fn", b, status)))
    assert fn.func.name == "my_fn"
    node = node_def_pb2.NodeDef.FromString(api.buffer_bytes(
        lambda b: lib.TF_OperationToNodeDef(op, b, status)))
    assert node.name == "attrs" and node.op == "NoOp"
    assert list(node.attr["_il"].list.i) == [1, -2, 3]
    assert node.attr["_t"].type == TF_INT64
    assert [d.size for d in node.attr["_sh"].shape.dim] == [2, -1]


def test_device_and_colocation(api, graph):
    lib = api.lib
    a = api.op(graph, "NoOp", "a", device="/device:CPU:0")
    assert lib.TF_OperationDevice(a) == b"/device:CPU:0"
    desc = lib.TF_NewOperation(graph, b"NoOp", b"b")
    lib.TF_ColocateWith(desc, a)
    b = lib.TF_FinishOperation(desc, api.status)
    api.check()
    values, lengths, storage = (c_void_p * 1)(), (c_size_t * 1)(), ctypes.create_string_buffer(16)
    lib.TF_OperationGetAttrStringList(b, b"_class", values, lengths, 1, storage, 16, api.status)
    api.check()
    assert ctypes.string_at(values[0], lengths[0]) == b"loc:@a"


def test_graph_op_def_matches_the_registry(api, graph):
    data = api.buffer_bytes(lambda b: api.lib.TF_GraphGetOpDef(graph, b"Placeholder", b, api.status))
    op = op_def_pb2.OpDef.FromString(data)
    assert op.name == "Placeholder" and [a.name for a in op.attr] == ["dtype", "shape"]
    with pytest.raises(CApiError) as e:
        api.buffer_bytes(lambda b: api.lib.TF_GraphGetOpDef(graph, b"NoSuchOp", b, api.status))
    assert e.value.code == NOT_FOUND


def test_tensor_shapes_set_and_get(api, graph):
    lib, status = api.lib, api.status
    x = api.placeholder(graph, "x", TF_FLOAT)
    y = api.op(graph, "Relu", "y", [out(x)])
    assert lib.TF_GraphGetTensorNumDims(graph, out(y), status) == -1
    lib.TF_GraphSetTensorShape(graph, out(y), (c_int64 * 2)(-1, 3), 2, status)
    api.check()
    lib.TF_GraphSetTensorShape(graph, out(y), (c_int64 * 2)(5, -1), 2, status)
    api.check()
    assert lib.TF_GraphGetTensorNumDims(graph, out(y), status) == 2
    dims = (c_int64 * 2)()
    lib.TF_GraphGetTensorShape(graph, out(y), dims, 2, status)
    api.check()
    assert list(dims) == [5, 3]  # the two refinements merged
    lib.TF_GraphSetTensorShape(graph, out(y), (c_int64 * 2)(4, 3), 2, status)
    assert lib.TF_GetCode(status) == INVALID_ARGUMENT
    lib.TF_GraphGetTensorNumDims(graph, out(y, 1), status)
    assert lib.TF_GetCode(status) == OUT_OF_RANGE


# ---- Bad nodes are refused with a status -----------------------------------------------

def test_unknown_op_type(api, graph):
    with pytest.raises(CApiError) as e:
        api.op(graph, "NoSuchOp", "n")
    # NOT_FOUND, as TFE_NewOp, the importer and every binding say (TensorFlow's own
    # TF_FinishOperation folds it into INVALID_ARGUMENT)
    assert e.value.code == NOT_FOUND and "NoSuchOp" in e.value.message


def test_input_dtype_mismatch(api, graph):
    a = api.const(graph, "a", np.float32(1))
    b = api.const(graph, "b", np.int32(1))
    with pytest.raises(CApiError) as e:
        api.op(graph, "AddV2", "add", [out(a), out(b)])
    assert e.value.code == INVALID_ARGUMENT and "add" in e.value.message
    assert api.lib.TF_GraphOperationByName(graph, b"add") is None


def test_dtype_not_allowed_by_the_op(api, graph):
    a = api.const(graph, "a", np.bool_(True))
    with pytest.raises(CApiError) as e:
        api.op(graph, "Relu", "r", [out(a)])
    assert e.value.code == INVALID_ARGUMENT and "bool" in e.value.message


def test_duplicate_name(api, graph):
    api.op(graph, "NoOp", "n")
    with pytest.raises(CApiError) as e:
        api.op(graph, "NoOp", "n")
    assert e.value.code == INVALID_ARGUMENT and "Duplicate" in e.value.message


def test_missing_required_attr_and_wrong_input_count(api, graph):
    with pytest.raises(CApiError) as e:
        api.op(graph, "Placeholder", "p")  # dtype is required
    assert "dtype" in e.value.message
    x = api.placeholder(graph, "x")
    with pytest.raises(CApiError) as e:
        api.op(graph, "AddV2", "add", [out(x)])
    assert e.value.code == INVALID_ARGUMENT


def test_input_index_out_of_range(api, graph):
    x = api.placeholder(graph, "x")
    with pytest.raises(CApiError) as e:
        api.op(graph, "Relu", "r", [out(x, 3)])
    assert e.value.code == OUT_OF_RANGE


def test_unknown_attr_is_refused_but_private_attrs_are_kept(api, graph):
    with pytest.raises(CApiError) as e:
        api.op(graph, "NoOp", "n", attrs={"bogus": ("Int", 1)})
    assert "bogus" in e.value.message
    n = api.op(graph, "NoOp", "m", attrs={"_bogus": ("Int", 1)})
    v = c_int64()
    api.lib.TF_OperationGetAttrInt(n, b"_bogus", ctypes.byref(v), api.status)
    api.check()
    assert v.value == 1


def test_finish_frees_the_description_on_error(api, graph):
    """TF_FinishOperation owns the description even when it fails: adding the same name
    again afterwards works, and (under a leak checker) nothing is left behind."""
    for _ in range(3):
        with pytest.raises(CApiError):
            api.op(graph, "AddV2", "bad", [])
    api.op(graph, "NoOp", "bad")


def test_shape_mismatch_is_refused_when_the_node_is_added(api, graph):
    """Known input shapes that cannot go together fail TF_FinishOperation (through the
    op's shape function); the node is not added."""
    a = api.placeholder(graph, "a", TF_FLOAT, [2, 3])
    b = api.placeholder(graph, "b", TF_FLOAT, [2, 3])
    with pytest.raises(CApiError) as e:
        api.op(graph, "MatMul", "mm", [out(a), out(b)])
    assert e.value.code == INVALID_ARGUMENT and "mm" in e.value.message
    assert api.lib.TF_GraphOperationByName(graph, b"mm") is None
    ok = api.op(graph, "MatMul", "mm", [out(a), out(b)], attrs={"transpose_b": ("Bool", True)})
    dims = (c_int64 * 2)()
    api.lib.TF_GraphGetTensorShape(graph, out(ok), dims, 2, api.status)
    api.check()
    assert list(dims) == [2, 2]


SPLAT_CHILD = """
import ctypes, resource, sys
import numpy as np
sys.path.insert(0, {helpers!r})
from graph_capi import Api, TF_FLOAT, TF_Buffer
from opgen import _paths
from opgen.protos import attr_value_pb2
from opgen.runtime import _lib
_lib._preload_openblas()
api = Api(ctypes.CDLL(str(_paths.runtime_library_path())))
lib = api.lib
n = 64 << 20  # 256 MB of float32, described by a few bytes
value = attr_value_pb2.AttrValue()
value.tensor.dtype = TF_FLOAT
value.tensor.tensor_shape.dim.add().size = n
value.tensor.float_val.append(1.5)
data = value.SerializeToString()
graph = lib.TF_NewGraph()
desc = lib.TF_NewOperation(graph, b"Const", b"splat")
lib.TF_SetAttrValueProto(desc, b"value", data, len(data), api.status)
api.check()
lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
op = lib.TF_FinishOperation(desc, api.status)
api.check()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(3):
    t = ctypes.c_void_p()
    lib.TF_OperationGetAttrTensor(op, b"value", ctypes.byref(t), api.status)
    api.check()
    got = np.ctypeslib.as_array(ctypes.cast(lib.TF_TensorData(t), ctypes.POINTER(ctypes.c_float)), (n,))
    assert got[0] == 1.5 and got[-1] == 1.5 and got[n // 2] == 1.5
    got[0] = 7.0  # the caller's to write: the next copy must not see it
    lib.TF_DeleteTensor(t)
grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
# The attr stays a few bytes: each copy is parsed from them (256 MB at a time), not parsed
# once, kept beside the graph and copied (512 MB).
assert grew_mb < 400, grew_mb
buf = lib.TF_NewBuffer()
lib.TF_OperationGetAttrValueProto(op, b"value", buf, api.status)
api.check()
b = ctypes.cast(buf, ctypes.POINTER(TF_Buffer)).contents
assert ctypes.string_at(b.data, b.length) == data
lib.TF_DeleteBuffer(buf)
lib.TF_DeleteGraph(graph)
print("grew", round(grew_mb))
"""


def test_tensor_attr_of_a_few_bytes_is_copied_without_holding_the_splat():
    """A TensorProto of a few bytes can describe a splat of any size (one value,
    repeated). TF_OperationGetAttrTensor hands out a fresh, writable tensor each time
    without the graph keeping a parsed copy: peak memory is one splat, not two."""
    import subprocess
    script = SPLAT_CHILD.format(helpers=str(Path(__file__).parent))
    # From the tests' folder: a checkout's root would shadow the installed opgen.
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=str(Path(__file__).parent))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("grew")
