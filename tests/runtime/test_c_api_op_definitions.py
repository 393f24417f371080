"""The op-definition builder of the C API: TensorFlow's spec strings become the OpDef
TensorFlow's own registry would hold, checked with the protobuf library."""

from __future__ import annotations

import ctypes
import itertools

import pytest
from google.protobuf import text_format

from opgen.protos import op_def_pb2

_counter = itertools.count()


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t),
                ("data_deallocator", ctypes.c_void_p)]


@pytest.fixture(scope="module")
def capi(runtime_cdll):
    lib = runtime_cdll
    lib.TF_NewStatus.restype = ctypes.c_void_p
    lib.TF_DeleteStatus.argtypes = [ctypes.c_void_p]
    lib.TF_GetCode.argtypes = [ctypes.c_void_p]
    lib.TF_Message.argtypes = [ctypes.c_void_p]
    lib.TF_Message.restype = ctypes.c_char_p
    lib.TF_NewOpDefinitionBuilder.restype = ctypes.c_void_p
    lib.TF_NewOpDefinitionBuilder.argtypes = [ctypes.c_char_p]
    for name in ("AddAttr", "AddInput", "AddOutput"):
        getattr(lib, f"TF_OpDefinitionBuilder{name}").argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.TF_OpDefinitionBuilderSetIsCommutative.argtypes = [ctypes.c_void_p, ctypes.c_bool]
    lib.TF_OpDefinitionBuilderDeprecated.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
    lib.TF_RegisterOpDefinition.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.TF_GetAllOpList.restype = ctypes.POINTER(_Buffer)
    lib.TF_DeleteBuffer.argtypes = [ctypes.POINTER(_Buffer)]
    return lib


def _register(capi, attrs=(), inputs=(), outputs=(), commutative=False, deprecated=None):
    """Registers a uniquely named op; returns (name, code, message)."""
    name = f"OpgenSpecTest{next(_counter)}"
    builder = capi.TF_NewOpDefinitionBuilder(name.encode())
    for spec in attrs:
        capi.TF_OpDefinitionBuilderAddAttr(builder, spec.encode())
    for spec in inputs:
        capi.TF_OpDefinitionBuilderAddInput(builder, spec.encode())
    for spec in outputs:
        capi.TF_OpDefinitionBuilderAddOutput(builder, spec.encode())
    if commutative:
        capi.TF_OpDefinitionBuilderSetIsCommutative(builder, True)
    if deprecated:
        capi.TF_OpDefinitionBuilderDeprecated(builder, deprecated[0], deprecated[1].encode())
    status = capi.TF_NewStatus()
    capi.TF_RegisterOpDefinition(builder, status)
    result = name, capi.TF_GetCode(status), capi.TF_Message(status).decode()
    capi.TF_DeleteStatus(status)
    return result


def _registered(capi, name) -> op_def_pb2.OpDef:
    buf = capi.TF_GetAllOpList()
    try:
        data = ctypes.string_at(buf.contents.data, buf.contents.length)
    finally:
        capi.TF_DeleteBuffer(buf)
    oplist = op_def_pb2.OpList.FromString(data)
    names = [op.name for op in oplist.op]
    assert names == sorted(names), "TF_GetAllOpList must be sorted by name"
    return next(op for op in oplist.op if op.name == name)


def _expect(name, text) -> op_def_pb2.OpDef:
    return text_format.Parse(f'name: "{name}"\n{text}', op_def_pb2.OpDef())


def test_list_input_with_length_and_type_attrs(capi):
    name, code, message = _register(
        capi, attrs=["N: int >= 1", "T: {float, int32} = DT_FLOAT"],
        inputs=["values: N * T"], outputs=["sum: T"], commutative=True)
    assert code == 0, message
    assert _registered(capi, name) == _expect(name, """
        input_arg { name: "values" type_attr: "T" number_attr: "N" }
        output_arg { name: "sum" type_attr: "T" }
        attr { name: "N" type: "int" has_minimum: true minimum: 1 }
        attr { name: "T" type: "type" default_value { type: DT_FLOAT }
               allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
        is_commutative: true""")


@pytest.mark.parametrize("spec, expected", [
    ("s: string = 'a\\'b'", 'type: "string" default_value { s: "a\'b" }'),
    ("f: float = -0.5", 'type: "float" default_value { f: -0.5 }'),
    ("b: bool = true", 'type: "bool" default_value { b: true }'),
    ("b: bool = false", 'type: "bool" default_value { b: false }'),
    ("i: int = -7", 'type: "int" default_value { i: -7 }'),
    ("t: type = DT_INT64", 'type: "type" default_value { type: DT_INT64 }'),
    ("t: type = half", 'type: "type" default_value { type: DT_HALF }'),
    ("s: shape = [2, -1]", 'type: "shape" default_value { shape { dim { size: 2 } dim { size: -1 } } }'),
    ("s: shape = []", 'type: "shape" default_value { shape { } }'),
    ("l: list(int) = [1, 2, 2, 1]", 'type: "list(int)" default_value { list { i: [1, 2, 2, 1] } }'),
    ("l: list(int) >= 2", 'type: "list(int)" has_minimum: true minimum: 2'),
    ("l: list(string) = ['x', 'y']", 'type: "list(string)" default_value { list { s: ["x", "y"] } }'),
    ("l: list(type) = []", 'type: "list(type)" default_value { list { } }'),
    ("l: list(float) = [0.5]", 'type: "list(float)" default_value { list { f: 0.5 } }'),
    ("l: list(shape)", 'type: "list(shape)"'),
    ("p: {'SAME', 'VALID'} = 'SAME'",
     'type: "string" default_value { s: "SAME" } allowed_values { list { s: ["SAME", "VALID"] } }'),
    ("q: quantizedtype",
     'type: "type" allowed_values { list { type: [DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16] } }'),
    ("q: quantizedtypes",  # opgen also accepts the plural
     'type: "type" allowed_values { list { type: [DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16] } }'),
    ("r: realnumbertype",
     'type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, '
     'DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64] } }'),
    ("n: numbertype = DT_INT64",
     'type: "type" default_value { type: DT_INT64 } allowed_values { list { type: [DT_FLOAT, '
     'DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, DT_QINT8, DT_QUINT8, '
     'DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, '
     'DT_UINT64] } }'),
    # Sets keep the written order and repeats, as TensorFlow's registry does (see its Mod).
    ("m: {int32, half, half, float,}",
     'type: "type" allowed_values { list { type: [DT_INT32, DT_HALF, DT_HALF, DT_FLOAT] } }'),
    ("g: {bool, quantizedtype}",
     'type: "type" allowed_values { list { type: [DT_BOOL, DT_QINT8, DT_QUINT8, DT_QINT32, '
     'DT_QINT16, DT_QUINT16] } }'),
    ("l: list({float, int32}) >= 1",
     'type: "list(type)" has_minimum: true minimum: 1 '
     'allowed_values { list { type: [DT_FLOAT, DT_INT32] } }'),
    ("fn: func", 'type: "func"'),
    ("x: tensor", 'type: "tensor"'),
    # Defaults are protobuf text format, as in TensorFlow's own op registrations.
    ("s: shape = { unknown_rank: true }", 'type: "shape" default_value { shape { unknown_rank: true } }'),
    ("s: shape = {}", 'type: "shape" default_value { shape { } }'),
    ("s: shape = { dim { size: 2 } dim { size: 1 } }",
     'type: "shape" default_value { shape { dim { size: 2 } dim { size: 1 } } }'),
    ("s: shape = { dim: [{size: -1}, {size: 3}] }",
     'type: "shape" default_value { shape { dim { size: -1 } dim { size: 3 } } }'),
    ('s: string = "a\\tb\\101"', 'type: "string" default_value { s: "a\\tbA" }'),
    ("i: int = 0x10", 'type: "int" default_value { i: 16 }'),
    ("f: float = 1e-4", 'type: "float" default_value { f: 1e-4 }'),
    ("f: float = 2.5f", 'type: "float" default_value { f: 2.5 }'),
    ("f: float = -inf", 'type: "float" default_value { f: -inf }'),
    ("b: bool = True", 'type: "bool" default_value { b: true }'),
    ("e: {'a', \"b\"} = 'b'",
     'type: "string" default_value { s: "b" } allowed_values { list { s: ["a", "b"] } }'),
    ("l: list(type) = [DT_FLOAT, DT_INT32]",
     'type: "list(type)" default_value { list { type: [DT_FLOAT, DT_INT32] } }'),
    ("l: list(bool) = [true, false]",
     'type: "list(bool)" default_value { list { b: [true, false] } }'),
    ("l: list(shape) = [{ dim { size: 1 } }, { unknown_rank: true }]",
     'type: "list(shape)" default_value { list { shape { dim { size: 1 } } shape { unknown_rank: true } } }'),
    ("i: int >= -3 = -3", 'type: "int" default_value { i: -3 } has_minimum: true minimum: -3'),
])
def test_attr_specs(capi, spec, expected):
    name, code, message = _register(capi, attrs=[spec])
    assert code == 0, message
    attr = _registered(capi, name).attr[0]
    want = text_format.Parse(f'name: "{spec.split(":")[0]}" {expected}', op_def_pb2.OpDef.AttrDef())
    assert attr == want


def test_type_list_and_ref_args(capi):
    name, code, message = _register(
        capi, attrs=["Tin: list(type)", "Tout: list(type) >= 0"],
        inputs=["args: Tin", "ref: Ref(int64)"], outputs=["out: Tout"])
    assert code == 0, message
    assert _registered(capi, name) == _expect(name, """
        input_arg { name: "args" type_list_attr: "Tin" }
        input_arg { name: "ref" type: DT_INT64 is_ref: true }
        output_arg { name: "out" type_list_attr: "Tout" }
        attr { name: "Tin" type: "list(type)" has_minimum: true minimum: 1 }
        attr { name: "Tout" type: "list(type)" has_minimum: true minimum: 0 }""")


def test_length_attrs_get_a_minimum_of_one_unless_written(capi):
    # TensorFlow's registry gives N (a list length) a minimum of 1; an explicit one stays.
    name, code, message = _register(
        capi, attrs=["N: int", "M: int >= 0", "T: type"],
        inputs=["a: N * T", "b: M * int32", "c: Ref(N * T)"], outputs=["y: T"])
    assert code == 0, message
    assert _registered(capi, name) == _expect(name, """
        input_arg { name: "a" type_attr: "T" number_attr: "N" }
        input_arg { name: "b" type: DT_INT32 number_attr: "M" }
        input_arg { name: "c" type_attr: "T" number_attr: "N" is_ref: true }
        output_arg { name: "y" type_attr: "T" }
        attr { name: "N" type: "int" has_minimum: true minimum: 1 }
        attr { name: "M" type: "int" has_minimum: true minimum: 0 }
        attr { name: "T" type: "type" }""")


def test_a_resource_arg_makes_the_op_stateful(capi):
    name, code, message = _register(capi, inputs=["resource: resource"], outputs=["y: float"])
    assert code == 0, message
    assert _registered(capi, name).is_stateful


def test_deprecation_is_recorded(capi):
    name, code, message = _register(capi, outputs=["y: float"], deprecated=(26, "Use Other"))
    assert code == 0, message
    assert _registered(capi, name).deprecation == op_def_pb2.OpDeprecation(version=26, explanation="Use Other")


@pytest.mark.parametrize("attrs, inputs, fragment", [
    ([], ["x: T"], "arg spec 'x: T': names undefined attr 'T'"),
    (["N: float"], ["x: N * float"], "expected int"),
    (["T: {float} = DT_INT32"], [], "not one of the allowed values"),
    (["N: int >= 2 = 1"], [], "below minimum"),
    (["T: type", "T: type"], [], "duplicate name 'T'"),
    (["T: blob"], [], "unknown attr type 'blob'"),
    (["T: {float, floaty}"], [], "unknown type 'floaty'"),
    (["x: int = abc"], [], "cannot parse default"),
    ([], ["Bad: float"], "bad arg name"),
    ([], ["x float"], "expected 'name: type'"),
    (["N: int >= -1"], ["x: N * float"], "needs a minimum >= 0"),
    (["T: numbertypez"], [], "unknown attr type 'numbertypez'"),
    (["s: shape = { dim { size: two } }"], [], "cannot parse default"),
    (["s: shape = [2, 3"], [], "cannot parse default"),
    (["b: bool = yes"], [], "cannot parse default"),
    (["s: {'a', 'b'} = 'c'"], [], "not one of the allowed values"),
    (["l: list(int) >= 2 = [1]"], [], "shorter than minimum"),
    (["T: list(type)", "N: int"], ["x: N * T"], "arg spec 'x: N * T': a list(type) attr cannot"),
    (["T: int"], ["x: T"], "expected type or list(type)"),
])
def test_malformed_definitions_are_refused_with_the_op_and_spec_named(capi, attrs, inputs, fragment):
    name, code, message = _register(capi, attrs=attrs, inputs=inputs)
    assert code == 3  # TF_INVALID_ARGUMENT
    assert name in message and fragment in message


def test_registering_a_name_twice_is_already_exists(capi):
    name, code, _ = _register(capi, outputs=["y: float"])
    assert code == 0
    builder = capi.TF_NewOpDefinitionBuilder(name.encode())
    status = capi.TF_NewStatus()
    capi.TF_RegisterOpDefinition(builder, status)
    assert capi.TF_GetCode(status) == 6  # TF_ALREADY_EXISTS
    assert name in capi.TF_Message(status).decode()
    capi.TF_DeleteStatus(status)
