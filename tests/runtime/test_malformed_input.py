"""Malformed caller input through the C ABI: each case is an input class that the fuzzer
(tools/fuzz/fuzz_capi.c) found crashing the runtime, corrupting memory, hitting
undefined behaviour or being accepted when it cannot mean anything. Every call must come
back with a status that says what is wrong (or succeed), never crash."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import (  # noqa: E402
    INVALID_ARGUMENT, TF_FLOAT, CApiError, c_int, c_int64, c_size_t, c_void_p, out)
from opgen.protos import (  # noqa: E402
    attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, tensor_shape_pb2, types_pb2)

# 4 * (2^62 + 1) wraps to 4 in 64 bits: a shape whose float byte size looks tiny.
WRAPS_TO_FOUR_BYTES = (1 << 62) + 1


def _tensor_proto(dims, dtype=types_pb2.DT_FLOAT, **values):
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape, **values)


def _const_graph(tensor: tensor_pb2.TensorProto) -> bytes:
    """c = Const(tensor); i = Identity(c): the import parses c's value for i's shape."""
    f = attr_value_pb2.AttrValue(type=tensor.dtype if 0 < tensor.dtype < 64 else types_pb2.DT_FLOAT)
    return graph_pb2.GraphDef(node=[
        node_def_pb2.NodeDef(name="c", op="Const", attr={
            "value": attr_value_pb2.AttrValue(tensor=tensor), "dtype": f}),
        node_def_pb2.NodeDef(name="i", op="Identity", input=["c"], attr={"T": f}),
    ]).SerializeToString()


def _attr_tensor_error(api, graph, op_name="c") -> CApiError:
    op = api.lib.TF_GraphOperationByName(graph, op_name.encode())
    value = c_void_p()
    api.lib.TF_OperationGetAttrTensor(op, b"value", ctypes.byref(value), api.status)
    with pytest.raises(CApiError) as e:
        api.check()
    assert not value, "no tensor on failure"
    return e.value


def _declare(lib, name, restype, argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, argtypes
    return fn


# ---- Element counts and byte sizes that overflow ------------------------------------------

def _import_error(api, graph, data: bytes) -> CApiError:
    with pytest.raises(CApiError) as e:
        api.import_graph_def(graph, data)
    assert api.lib.TF_GraphOperationByName(graph, b"c") is None, "a failed import adds nothing"
    return e.value


def test_tensor_proto_whose_byte_size_overflows_is_refused_not_filled(api, graph):
    # The byte size used to be computed in wrapping arithmetic: [2^62 + 1] floats got a
    # 4-byte buffer that float_val then filled with 2^62 + 1 values (a heap overflow,
    # already while importing, where Identity's shape inference reads c's value). The
    # element count fits in int64, so the graph takes the shape; making the tensor fails.
    api.import_graph_def(graph, _const_graph(_tensor_proto([WRAPS_TO_FOUR_BYTES], float_val=[1.0])))
    error = _attr_tensor_error(api, graph)
    assert error.code == INVALID_ARGUMENT
    assert "too many elements of float" in error.message


@pytest.mark.parametrize("dims", [[1 << 32, 1 << 32], [1 << 62, 4]])
def test_tensor_proto_whose_element_count_overflows_is_refused_by_the_import(api, graph, dims):
    # No tensor has more than 2^63 - 1 elements: refused while the graph is built, as
    # TensorFlow's Const shape function refuses it ("is too large").
    error = _import_error(api, graph, _const_graph(_tensor_proto(dims, float_val=[1.0])))
    assert error.code == INVALID_ARGUMENT
    assert "Node 'c' (Const): attr 'value'" in error.message
    assert "has too many elements (more than 2^63 - 1)" in error.message


def test_tensor_proto_with_a_negative_dim_is_refused(api, graph):
    # Used to import, failing only when something made the tensor.
    error = _import_error(api, graph, _const_graph(_tensor_proto([2, -3], float_val=[1.0])))
    assert error.code == INVALID_ARGUMENT
    assert "attr 'value': TensorProto shape [2,-3] has a negative dimension (-3 at index 1)" in error.message


@pytest.mark.parametrize("dims, length", [
    ([WRAPS_TO_FOUR_BYTES], 4),          # the element count times 4 wraps to 4
    ([1 << 32, 1 << 32], 0),            # the element count wraps to 0
    ([1 << 62, 1 << 62, 3], 0),
])
def test_allocate_tensor_refuses_dims_whose_size_overflows(api, dims, length):
    array = (c_int64 * len(dims))(*dims)
    t = api.lib.TF_AllocateTensor(TF_FLOAT, array, len(dims), length)
    if t:
        api.lib.TF_DeleteTensor(t)
    assert not t


def test_allocate_tensor_refuses_a_byte_size_no_allocation_can_have(api):
    # [2^63 - 1] halfs take 2^64 - 2 bytes, which fits in size_t: the allocator rounded
    # that up to its 2 MiB alignment, wrapped to a 2 MiB block, and handed it out as the
    # tensor's buffer (ASan: heap overflow filling it, via a Const's half_val).
    dims = (c_int64 * 1)((1 << 63) - 1)
    t = api.lib.TF_AllocateTensor(19, dims, 1, (1 << 64) - 2)  # TF_HALF
    if t:
        api.lib.TF_DeleteTensor(t)
    assert not t


def test_tensor_proto_of_a_byte_size_no_allocation_can_have_is_refused(api, graph):
    api.import_graph_def(graph, _const_graph(
        _tensor_proto([(1 << 63) - 1], dtype=types_pb2.DT_HALF, half_val=[1])))
    error = _attr_tensor_error(api, graph)
    assert error.code == INVALID_ARGUMENT and "cannot allocate" in error.message


def test_allocate_tensor_still_accepts_an_empty_tensor_with_huge_dims(api):
    dims = (c_int64 * 3)(0, 1 << 62, 1 << 62)  # no elements, however large the others
    t = api.lib.TF_AllocateTensor(TF_FLOAT, dims, 3, 0)
    assert t
    api.lib.TF_DeleteTensor(t)


def test_new_tensor_refuses_an_overflowing_shape_and_frees_the_data(api):
    freed = []
    Deallocator = ctypes.CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
    on_free = Deallocator(lambda data, length, arg: freed.append(length))
    new_tensor = _declare(api.lib, "TF_NewTensor", c_void_p,
                          [c_int, ctypes.POINTER(c_int64), c_int, c_void_p, c_size_t,
                           Deallocator, c_void_p])
    data = ctypes.create_string_buffer(4)
    dims = (c_int64 * 1)(WRAPS_TO_FOUR_BYTES)
    assert not new_tensor(TF_FLOAT, dims, 1, ctypes.cast(data, c_void_p), 4, on_free, None)
    assert freed == [4]


# ---- Values that are not a TF_DataType ----------------------------------------------------

@pytest.mark.parametrize("value", [
    attr_value_pb2.AttrValue(type=200),
    attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=[1, 300])),
], ids=["type", "list-type"])
def test_attr_value_proto_with_an_unknown_dtype_is_refused(api, graph, value):
    # DataType values past TF_DataType's last do not fit the C++ enum (UBSan: "load of
    # value 200, which is not a valid value for type 'TF_DataType'").
    lib = api.lib
    data = value.SerializeToString()
    desc = lib.TF_NewOperation(graph, b"Placeholder", b"p")
    lib.TF_SetAttrValueProto(desc, b"dtype", data, len(data), api.status)
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT
    assert b"Unparseable AttrValue" in lib.TF_Message(api.status)
    lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
    lib.TF_FinishOperation(desc, api.status)  # frees the description
    api.check()


def test_tensor_proto_with_an_unknown_dtype_is_refused(api, graph):
    error = _import_error(api, graph, _const_graph(_tensor_proto([2], dtype=77, int_val=[1])))
    assert error.code == INVALID_ARGUMENT and "unknown dtype 77" in error.message


def test_setting_a_dtype_attr_to_a_value_outside_tf_datatype_fails_the_node(api, graph):
    lib = api.lib
    desc = lib.TF_NewOperation(graph, b"Placeholder", b"p")
    lib.TF_SetAttrType(desc, b"dtype", 200)
    assert not lib.TF_FinishOperation(desc, api.status)
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT
    assert b"dtype value 200 is not a TF_DataType" in lib.TF_Message(api.status)
    desc = lib.TF_NewOperation(graph, b"Cast", b"cast")
    lib.TF_AddInput(desc, out(api.const(graph, "c", np.float32([1]))))
    lib.TF_SetAttrTypeList(desc, b"DstT", (c_int * 2)(1, -5), 2)
    assert not lib.TF_FinishOperation(desc, api.status)
    assert b"dtype value -5 is not a TF_DataType" in lib.TF_Message(api.status)


@pytest.fixture
def eager(runtime_cdll, api):
    """execute(op, arrays, setattr) -> (code, message) of TFE_Execute on `op` with the
    arrays as inputs; `setattr(lib, op)` sets attrs. Outputs are deleted."""
    lib = runtime_cdll
    for name, restype, argtypes in [
            ("TFE_NewContextOptions", c_void_p, []), ("TFE_DeleteContextOptions", None, [c_void_p]),
            ("TFE_NewContext", c_void_p, [c_void_p, c_void_p]), ("TFE_DeleteContext", None, [c_void_p]),
            ("TFE_NewTensorHandle", c_void_p, [c_void_p, c_void_p]),
            ("TFE_DeleteTensorHandle", None, [c_void_p]),
            ("TFE_NewOp", c_void_p, [c_void_p, ctypes.c_char_p, c_void_p]),
            ("TFE_DeleteOp", None, [c_void_p]), ("TFE_OpAddInput", None, [c_void_p, c_void_p, c_void_p]),
            ("TFE_OpSetAttrType", None, [c_void_p, ctypes.c_char_p, c_int]),
            ("TFE_Execute", None, [c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_int), c_void_p])]:
        _declare(lib, name, restype, argtypes)
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    api.check()

    def execute(op_type, arrays, setattr=lambda lib, op: None):
        handles = []
        for array in arrays:
            t = api.tensor(array)
            handles.append(lib.TFE_NewTensorHandle(t, api.status))
            lib.TF_DeleteTensor(t)
        op = lib.TFE_NewOp(ctx, op_type.encode(), api.status)
        for h in handles:
            lib.TFE_OpAddInput(op, h, api.status)
        setattr(lib, op)
        retvals, n = (c_void_p * 4)(), c_int(4)
        lib.TFE_Execute(op, retvals, ctypes.byref(n), api.status)
        code, message = lib.TF_GetCode(api.status), lib.TF_Message(api.status).decode()
        if code == 0:
            for i in range(n.value):
                lib.TFE_DeleteTensorHandle(retvals[i])
        lib.TFE_DeleteOp(op)
        for h in handles:
            lib.TFE_DeleteTensorHandle(h)
        return code, message

    yield execute
    lib.TFE_DeleteContext(ctx)


def test_eager_dtype_attr_outside_tf_datatype_fails_execute(eager):
    code, message = eager("Cast", [np.float32([1, 2])],
                          lambda lib, op: lib.TFE_OpSetAttrType(op, b"DstT", 1000))
    assert code == INVALID_ARGUMENT and "dtype value 1000 is not a TF_DataType" in message


def test_allocate_tensor_refuses_a_dtype_outside_tf_datatype(api):
    dims = (c_int64 * 1)(2)
    for dtype in (64, 200, -1):
        t = api.lib.TF_AllocateTensor(dtype, dims, 1, 8)
        if t:
            api.lib.TF_DeleteTensor(t)
        assert not t, dtype


# ---- Wire format ----------------------------------------------------------------------------

def test_repeated_int_with_a_fixed64_wire_type_is_skipped_as_protobuf_skips_it(api, graph):
    # AttrValue.list (field 1) holding i (field 3) written as fixed64 (wire type 1): the
    # reader once took 8 raw bytes as an int, whatever the wire type said. Protobuf keeps
    # the element as an unknown field: the list is empty, and Squeeze takes it.
    list_value = bytes([0x19]) + (5).to_bytes(8, "little")
    data = bytes([0x0A, len(list_value)]) + list_value
    want = attr_value_pb2.AttrValue.FromString(data)
    want.DiscardUnknownFields()
    assert want.HasField("list") and not want.list.i
    lib = api.lib
    desc = lib.TF_NewOperation(graph, b"Squeeze", b"s")
    lib.TF_AddInput(desc, out(api.const(graph, "c", np.float32([[1]]))))
    lib.TF_SetAttrValueProto(desc, b"squeeze_dims", data, len(data), api.status)
    api.check()
    op = lib.TF_FinishOperation(desc, api.status)
    api.check()
    got = api.buffer_bytes(
        lambda b: lib.TF_OperationGetAttrValueProto(op, b"squeeze_dims", b, api.status))
    assert got == want.SerializeToString()


# AttrValue bytes with a oneof member of the wrong wire type: protobuf keeps it as an
# unknown field, so it does not select the member (nor clear the one selected).
ODD_ATTR_VALUES = {
    "i as fixed32 after s": b"\x12\x01x" + b"\x1d" + bytes(4),
    "s as a varint after i": b"\x18\x07" + b"\x10\x01",
    "f as a varint after b": b"\x28\x01" + b"\x20\x01",
    "type as length-delimited after f": b"\x25" + bytes(4) + b"\x32\x01\x01",
    "list as fixed64 after type": b"\x30\x01" + b"\x09" + bytes(8),
    "shape as a group after i": b"\x18\x02" + b"\x3b\x08\x01\x3c",
}


@pytest.mark.parametrize("case", sorted(ODD_ATTR_VALUES))
def test_a_oneof_member_of_the_wrong_wire_type_does_not_select_it(api, graph, case):
    data = ODD_ATTR_VALUES[case]
    want = attr_value_pb2.AttrValue.FromString(data)
    want.DiscardUnknownFields()
    assert want.WhichOneof("value") is not None
    lib = api.lib
    desc = lib.TF_NewOperation(graph, b"NoOp", b"n")
    lib.TF_SetAttrValueProto(desc, b"_v", data, len(data), api.status)
    api.check()
    op = lib.TF_FinishOperation(desc, api.status)
    api.check()
    got = api.buffer_bytes(lambda b: lib.TF_OperationGetAttrValueProto(op, b"_v", b, api.status))
    assert got == want.SerializeToString()


# ---- GraphDef structure ---------------------------------------------------------------------

def test_graph_def_with_a_negative_list_length_is_invalid_argument(api, graph):
    # ConcatV2 with N = -1 and only its axis input: the import used to cut the inputs at
    # a negative length (iterators before begin(), then std::length_error).
    gd = graph_pb2.GraphDef(node=[
        node_def_pb2.NodeDef(name="axis", op="Const", attr={
            "value": attr_value_pb2.AttrValue(tensor=_tensor_proto([], types_pb2.DT_INT32, int_val=[0])),
            "dtype": attr_value_pb2.AttrValue(type=types_pb2.DT_INT32)}),
        node_def_pb2.NodeDef(name="concat", op="ConcatV2", input=["axis"], attr={
            "N": attr_value_pb2.AttrValue(i=-1), "T": attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT)}),
    ])
    with pytest.raises(CApiError) as e:
        api.import_graph_def(graph, gd.SerializeToString())
    assert e.value.code == INVALID_ARGUMENT
    assert "attr 'N' (the length of input 'values') is -1" in e.value.message


def test_load_library_with_an_empty_name_fails(api):
    # dlopen("") returns the main program, which the runtime took for a library.
    assert not api.lib.TF_LoadLibrary(b"", api.status)
    assert api.lib.TF_GetCode(api.status) == INVALID_ARGUMENT
    assert b"empty" in api.lib.TF_Message(api.status)


# ---- Shape functions on constant operands -----------------------------------------------

def test_reshape_to_a_shape_whose_size_overflows_is_refused(api, graph):
    # [2^62 + 1, 4] has 4 elements in wrapping int64 arithmetic, so Reshape's shape
    # function took it for a fit of a 4-element tensor (UBSan: signed integer overflow).
    x = api.const(graph, "x", np.float32([1, 2, 3, 4]))
    shape = api.const(graph, "shape", np.int64([WRAPS_TO_FOUR_BYTES, 4]))
    with pytest.raises(CApiError) as e:
        api.op(graph, "Reshape", "r", [out(x), out(shape)])
    assert e.value.code == INVALID_ARGUMENT
    assert "more elements than int64 counts" in e.value.message


def test_a_splat_constant_gets_its_shape_without_being_made(api, graph):
    # float_val [0] over [2^40]: 4 TiB described in a few bytes, as TensorFlow writes
    # splat constants. Building the graph used to make the tensor (for Const's own shape
    # and again for every consumer's shape inference); it failed to allocate, and the
    # shape came out unknown. Nothing is made now, and the shape is known.
    api.import_graph_def(graph, _const_graph(_tensor_proto([1 << 40], float_val=[0.0])))
    for name in ("c", "i"):
        output = out(api.lib.TF_GraphOperationByName(graph, name.encode()))
        assert api.lib.TF_GraphGetTensorNumDims(graph, output, api.status) == 1
        dims = (c_int64 * 1)()
        api.lib.TF_GraphGetTensorShape(graph, output, dims, 1, api.status)
        api.check()
        assert list(dims) == [1 << 40]


def test_reshape_to_a_shape_operand_of_absurd_length_is_refused(api, graph):
    # A shape operand of 2^40 elements (its value unknown) made Reshape's shape function
    # allocate 2^40 unknown dims (ASan: out of memory; std::bad_alloc as TF_INTERNAL).
    x = api.placeholder(graph, "x")
    shape = api.placeholder(graph, "shape", dtype=3, shape=[1 << 40])  # int32
    with pytest.raises(CApiError) as e:
        api.op(graph, "Reshape", "r", [out(x), out(shape)])
    assert e.value.code == INVALID_ARGUMENT
    assert "rank 1099511627776 is not between 0 and 254" in e.value.message


def test_reshape_kernel_refuses_a_shape_whose_size_overflows(eager):
    # Eagerly there is no shape function first: the kernel's own product wrapped to 4,
    # matched the input's 4 elements, and gave a tensor of dims [2^62 + 1, 4] over 16 bytes.
    code, message = eager("Reshape", [np.float32([1, 2, 3, 4]), np.int64([WRAPS_TO_FOUR_BYTES, 4])])
    assert code == INVALID_ARGUMENT, message


def test_reshape_kernel_refuses_an_empty_tensor_to_sizes_whose_product_overflows(eager):
    # An empty input, a 0 and a -1 in the shape: the kernel solves -1 from the non-zero
    # sizes, and their product wrapped (UBSan in the eager fuzzer). (2^32+1)^2 (2^32-1)^2
    # wraps to 1, so the wrapped count solved -1 as 3 and returned a [3, 0, 2^32+1, ...].
    big, small = (1 << 32) + 1, (1 << 32) - 1
    code, message = eager("Reshape", [np.float32([]).reshape(0, 3),
                                      np.int64([-1, 0, big, big, small, small])])
    assert code == INVALID_ARGUMENT, message
    assert "does not fit them" in message
