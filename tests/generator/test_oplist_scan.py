"""The compiled front end (``opgen._oplist_scan``) gives the Python front end's answers.

It validates an OpList and builds its OpSpecs in C for speed; :mod:`opgen.opdefs` and
:mod:`opgen.model` are the reference. Both run here on the same inputs: TensorFlow's
registry and the bundled one, OpLists that Hypothesis builds field by field (valid and
invalid names, types, attr references, minimums, allowed values, defaults of every kind,
lists holding values of the wrong kind, duplicates), real TensorFlow ops with one field
changed, and byte-corrupted slices of TensorFlow's binary registry that protobuf still
parses. The oracle for validity is the Python validator's list of problems; for specs,
equality and ``repr`` (which also tells ``1`` from ``True`` and ``nan`` from itself).
"""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys

import pytest
from google.protobuf import message as protobuf_message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgen import model, opdef_wire, opdefs
from opgen.protos import attr_value_pb2, op_def_pb2, tensor_shape_pb2

from .conftest import REPO, TF_OPLIST, TF_OPLIST_TEXT
from .test_bad_input import _encode_varint as _varint
from .test_bad_input import _varint as _read_varint
from .test_bad_input import corrupt_binary, tf_binary_ops, tf_binary_slice

SCANNER = opdef_wire.scanner()
pytestmark = pytest.mark.skipif(
    SCANNER is None, reason="opgen._oplist_scan is not built (or OPGEN_PURE_PYTHON is set): "
                            "the Python front end is all there is to test")

_SCALE = int(os.environ.get("OPGEN_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int):
    return settings(max_examples=_SCALE or examples, deadline=None, derandomize=not _SCALE,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    database=None)


@contextlib.contextmanager
def pure_python():
    """The front end without the compiled scanner."""
    saved = opdef_wire._scanner
    opdef_wire._scanner = None
    try:
        yield
    finally:
        opdef_wire._scanner = saved


def python_valid(oplist: op_def_pb2.OpList) -> bool:
    with pure_python():
        return not opdefs.validate_oplist(oplist)


def compiled_valid(oplist: op_def_pb2.OpList) -> bool | None:
    return SCANNER.check(opdef_wire.canonical_bytes(oplist), opdef_wire.DATA_TYPES)


def assert_same_answers(oplist: op_def_pb2.OpList, *, may_refuse: bool = False) -> None:
    """Both front ends agree on ``oplist``; with ``may_refuse``, the compiled one may also
    decline to read it (an unknown group protobuf kept, say): Python decides then."""
    with pure_python():   # the description's bytes: ops in name order
        assert opdefs.to_binary(oplist) == _sorted_binary(oplist)
    assert opdefs.to_binary(oplist) == _sorted_binary(oplist)
    valid = python_valid(oplist)
    verdict = compiled_valid(oplist)
    if verdict is None and may_refuse:
        assert SCANNER.op_specs(opdef_wire.canonical_bytes(oplist),
                                model._scan_context(model.SharedSpecs())) is None
        return
    assert verdict == valid, oplist
    compiled = SCANNER.op_specs(opdef_wire.canonical_bytes(oplist),
                                model._scan_context(model.SharedSpecs()))
    if not valid:
        assert compiled is None
        return
    with pure_python():
        expected = model.op_specs(oplist)
    compiled = sorted(compiled, key=lambda s: s.name)
    assert repr(compiled) == repr(expected)
    if not any(_has_nan(s) for s in expected):
        assert compiled == expected
    # what the Python layers read through cached properties is there, and right
    for spec, reference in zip(compiled, expected):
        assert repr(spec.caller_attrs) == repr(reference.caller_attrs)   # (nan != nan)
        assert repr(spec.signature_inputs) == repr(reference.signature_inputs)
        for attr in spec.inferred_attrs + spec.caller_attrs:
            assert (attr.is_list, attr.element_type) == (attr.type.startswith("list("),
                                                         attr.type[5:-1] if attr.is_list else attr.type)


def _sorted_binary(oplist: op_def_pb2.OpList) -> bytes:
    return opdefs.sorted_oplist(oplist).SerializeToString(deterministic=True)


def _has_nan(spec: model.OpSpec) -> bool:
    def nan(value) -> bool:
        if isinstance(value, float):
            return math.isnan(value)
        return isinstance(value, (list, tuple)) and any(nan(v) for v in value)
    return any(nan(a.default) for a in spec.inferred_attrs + spec.caller_attrs)


# ------------------------------------------------------------------- real registries


@pytest.mark.parametrize("path", [
    pytest.param(TF_OPLIST, id="tensorflow-binary",
                 marks=pytest.mark.skipif(TF_OPLIST is None, reason="no TensorFlow OpList")),
    pytest.param(TF_OPLIST_TEXT, id="tensorflow-text",
                 marks=pytest.mark.skipif(TF_OPLIST_TEXT is None, reason="no TensorFlow OpList")),
    pytest.param(REPO / "ops.pbtxt", id="bundled"),
])
def test_registries_give_the_same_specs(path):
    oplist = opdefs.load(path, validate=False)
    assert compiled_valid(oplist) is True
    assert_same_answers(oplist)


def test_specs_share_identical_args_and_attrs():
    """As model.SharedSpecs does: one object per distinct ArgDef / AttrDef, and one per
    attr and the inputs it is inferred from."""
    two_ops = """
    op { name: "Neg" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
         attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
         attr { name: "keep" type: "bool" default_value { b: true } } }
    op { name: "Abs" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
         attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
         attr { name: "keep" type: "bool" default_value { b: true } } }
    """
    specs = {s.name: s for s in model.op_specs(opdefs.load(two_ops.encode()))}
    neg, abs_ = specs["Neg"], specs["Abs"]
    assert neg.inputs[0] is abs_.inputs[0] and neg.outputs[0] is abs_.outputs[0]
    assert neg.inferred_attrs[0] is abs_.inferred_attrs[0]
    assert neg.optional_attrs[0] is abs_.optional_attrs[0]
    assert neg.inferred_attrs[0].inferred_from == ("x",)


def test_ops_with_api_defs_are_built_by_the_python_code(tmp_path):
    """ApiDefs rename and document: those ops come from OpSpec.from_opdef, the rest from C."""
    from opgen import api_def

    from .test_bad_input import API_DEFS, MATMUL_OPS

    extra = 'op { name: "Plain" input_arg { name: "x" type: DT_FLOAT } }\n'
    oplist = opdefs.load((MATMUL_OPS + extra).encode())
    (tmp_path / "api.pbtxt").write_text(API_DEFS)
    api_defs = api_def.load([tmp_path / "api.pbtxt"])
    specs = model.op_specs(oplist, api_defs)
    with pure_python():
        expected = model.op_specs(oplist, api_defs)
    assert specs == expected and repr(specs) == repr(expected)
    by_name = {s.name: s for s in specs}
    assert by_name["MatMul"].endpoints[0] == "linalg.MatrixProduct"
    assert by_name["Scale"].visibility == "HIDDEN" and by_name["Plain"].visibility == "VISIBLE"


def test_pure_python_switch():
    code = ("from opgen import opdef_wire, opdefs, model;"
            "assert opdef_wire.scanner() is None;"
            "print(len(model.op_specs(opdefs.load(%r))))" % str(REPO / "ops.pbtxt"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "OPGEN_PURE_PYTHON": "1"})
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 50


# ------------------------------------------------------------- OpLists built by field

OP_NAMES = ["MatMul", "A", "_Internal", "__X2", "Ns>Op", "Ns>", ">Op", "bad name", "", "1Op",
            "Op\n", "Caf\u00e9", "Op_2"]
ARG_NAMES = ["x", "y", "_z", "input", "out_1", "X", "1a", "", "a b", "x\n", "T", "N", "name"]
ATTR_NAMES = ["T", "N", "Tlist", "dtype", "shape", "x", "_a", "1T", "", "T\n", "a-b"]
ATTR_TYPES = sorted(opdefs.ATTR_TYPES) + ["list(type", "tensor2", "", "list()", "LIST(int)",
                                          "list(list(int))"]
DATA_TYPE_VALUES = [0, 1, 2, 3, 9, 10, 19, 20, 101, 119, 23, 30, 99999, -1, 2**31 - 1]
STRINGS = [b"", b"a", b"SAME", b"VALID", b"\xff\xfe", "caf\u00e9".encode(), b"x" * 40]
FLOATS = [0.0, -0.0, 0.1, 1.5, -2.25, 3.4e38, 1e-45, float("inf"), float("nan")]
INTS = [0, 1, -1, 2, 5, 2**31, -2**63, 2**63 - 1]


def _shape(draw) -> tensor_shape_pb2.TensorShapeProto:
    shape = tensor_shape_pb2.TensorShapeProto()
    if draw(st.booleans()):
        shape.unknown_rank = True
    else:
        for size in draw(st.lists(st.sampled_from([-1, 0, 1, 3, 7]), max_size=3)):
            shape.dim.add(size=size)
    return shape


@st.composite
def attr_values(draw) -> attr_value_pb2.AttrValue:
    """An AttrValue of any kind, or holding nothing, or a list of mixed kinds."""
    value = attr_value_pb2.AttrValue()
    kind = draw(st.sampled_from(["s", "i", "f", "b", "type", "shape", "tensor", "func",
                                 "placeholder", "none", "list", "list", "list"]))
    if kind == "s":
        value.s = draw(st.sampled_from(STRINGS))
    elif kind == "i":
        value.i = draw(st.sampled_from(INTS))
    elif kind == "f":
        value.f = draw(st.sampled_from(FLOATS))
    elif kind == "b":
        value.b = draw(st.booleans())
    elif kind == "type":
        value.type = draw(st.sampled_from(DATA_TYPE_VALUES))
    elif kind == "shape":
        value.shape.CopyFrom(_shape(draw))
    elif kind == "tensor":
        value.tensor.dtype = 1
        value.tensor.tensor_shape.dim.add(size=2)
        value.tensor.float_val.extend(draw(st.lists(st.sampled_from([0.5, 1.0]), max_size=2)))
    elif kind == "func":
        value.func.name = draw(st.sampled_from(["f", "g", ""]))
    elif kind == "placeholder":
        value.placeholder = "T"
    elif kind == "list":
        value.list.SetInParent()
        for element in draw(st.lists(st.sampled_from(["s", "i", "f", "b", "type", "shape",
                                                      "func"]), max_size=2, unique=True)):
            count = draw(st.integers(0, 3))
            if element == "s":
                value.list.s.extend(draw(st.sampled_from(STRINGS)) for _ in range(count))
            elif element == "i":
                value.list.i.extend(draw(st.sampled_from(INTS)) for _ in range(count))
            elif element == "f":
                value.list.f.extend(draw(st.sampled_from(FLOATS)) for _ in range(count))
            elif element == "b":
                value.list.b.extend(draw(st.booleans()) for _ in range(count))
            elif element == "type":
                value.list.type.extend(draw(st.sampled_from(DATA_TYPE_VALUES))
                                       for _ in range(count))
            elif element == "shape":
                for _ in range(count):
                    value.list.shape.add().CopyFrom(_shape(draw))
            else:
                for _ in range(count):
                    value.list.func.add(name="f")
    return value


@st.composite
def attr_defs(draw, name: str) -> op_def_pb2.OpDef.AttrDef:
    attr = op_def_pb2.OpDef.AttrDef(name=name)
    attr.type = draw(st.sampled_from(ATTR_TYPES))
    if draw(st.booleans()):
        attr.has_minimum = True
        attr.minimum = draw(st.sampled_from([-1, 0, 1, 2, 5]))
    if draw(st.integers(0, 2)) == 0:
        attr.allowed_values.CopyFrom(draw(attr_values()))
    if draw(st.booleans()):
        attr.default_value.CopyFrom(draw(attr_values()))
    if draw(st.integers(0, 3)) == 0:
        attr.description = draw(st.sampled_from(["The type.", "caf\u00e9", "  "]))
    return attr


@st.composite
def arg_defs(draw, attr_names: list[str]) -> op_def_pb2.OpDef.ArgDef:
    arg = op_def_pb2.OpDef.ArgDef(name=draw(st.sampled_from(ARG_NAMES)))
    refer = st.sampled_from(attr_names + ["", "", "Missing"]) if attr_names else st.just("")
    source = draw(st.sampled_from(["type", "type_attr", "type_list_attr", "none", "two"]))
    if source in ("type", "two"):
        arg.type = draw(st.sampled_from(DATA_TYPE_VALUES))
    if source in ("type_attr", "two"):
        arg.type_attr = draw(refer)
    if source == "type_list_attr":
        arg.type_list_attr = draw(refer)
    if draw(st.integers(0, 2)) == 0:
        arg.number_attr = draw(refer)
    arg.is_ref = draw(st.integers(0, 5)) == 0
    if draw(st.integers(0, 3)) == 0:
        arg.description = draw(st.sampled_from(["A tensor.", "\u00e9", "x\ny"]))
    return arg


@st.composite
def op_defs(draw) -> op_def_pb2.OpDef:
    op = op_def_pb2.OpDef(name=draw(st.sampled_from(OP_NAMES)))
    attr_names = draw(st.lists(st.sampled_from(ATTR_NAMES), max_size=4))
    for name in attr_names:
        op.attr.add().CopyFrom(draw(attr_defs(name)))
    for args in (op.input_arg, op.output_arg):
        for _ in range(draw(st.integers(0, 3))):
            args.add().CopyFrom(draw(arg_defs(attr_names)))
    op.summary = draw(st.sampled_from(["", "Adds.", "caf\u00e9"]))
    op.description = draw(st.sampled_from(["", "Long text.\n\nMore."]))
    if draw(st.integers(0, 4)) == 0:
        op.deprecation.version = draw(st.sampled_from([0, 7, -3]))
        op.deprecation.explanation = draw(st.sampled_from(["", "Use Other."]))
    for flag in ("is_stateful", "is_commutative", "is_aggregate", "allows_uninitialized_input",
                 "is_distributed_communication"):
        setattr(op, flag, draw(st.integers(0, 4)) == 0)
    op.control_output.extend(draw(st.lists(st.sampled_from(["c", "d"]), max_size=2)))
    return op


@st.composite
def well_formed_ops(draw) -> op_def_pb2.OpDef:
    """Mostly-valid ops: every reference resolves, so specs get compared often."""
    op = op_def_pb2.OpDef(name=draw(st.sampled_from(["MatMul", "Op_2", "_Internal", "Ns>Op"])))
    kinds = draw(st.lists(st.sampled_from(["type", "int", "list(type)", "float", "string",
                                           "bool", "shape", "list(int)", "list(string)",
                                           "tensor", "func", "list(float)"]),
                          max_size=5, unique=True))
    for index, attr_type in enumerate(kinds):
        attr = op.attr.add(name=f"a{index}", type=attr_type)
        element = attr_type[5:-1] if attr_type.startswith("list(") else attr_type
        if attr_type == "int" and draw(st.booleans()):
            attr.has_minimum, attr.minimum = True, draw(st.sampled_from([0, 1, 2]))
        if element in ("type", "string") and draw(st.booleans()):
            field = "type" if element == "type" else "s"
            pool = [1, 2, 3, 9, 19, 14] if element == "type" else STRINGS[:4]
            allowed = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
            getattr(attr.allowed_values.list, field).extend(allowed)
            if draw(st.booleans()):
                default = draw(st.sampled_from(allowed))
                if attr_type.startswith("list("):
                    getattr(attr.default_value.list, field).append(default)
                elif element == "type":
                    attr.default_value.type = default
                else:
                    attr.default_value.s = default
        elif draw(st.booleans()):
            value = draw(attr_values())
            kind = value.WhichOneof("value")
            wanted = "list" if attr_type.startswith("list(") else \
                opdefs._VALUE_FIELD.get(element)
            if kind == wanted or draw(st.integers(0, 4)) == 0:
                attr.default_value.CopyFrom(value)
    names = [a.name for a in op.attr]
    for args, prefix in ((op.input_arg, "in"), (op.output_arg, "out")):
        for index in range(draw(st.integers(0, 3))):
            arg = args.add(name=f"{prefix}{index}")
            types = [a.name for a in op.attr if a.type == "type"]
            counts = [a.name for a in op.attr if a.type == "int" and a.has_minimum]
            lists = [a.name for a in op.attr if a.type == "list(type)"]
            choice = draw(st.sampled_from(["fixed", "type_attr", "list"]))
            if choice == "type_attr" and types:
                arg.type_attr = draw(st.sampled_from(types))
            elif choice == "list" and lists:
                arg.type_list_attr = draw(st.sampled_from(lists))
            else:
                arg.type = draw(st.sampled_from([1, 3, 9, 7, 20]))
            if not arg.type_list_attr and counts and draw(st.booleans()):
                arg.number_attr = draw(st.sampled_from(counts))
            arg.is_ref = draw(st.integers(0, 6)) == 0
    if draw(st.integers(0, 4)) == 0:
        op.deprecation.version, op.deprecation.explanation = 9, "Gone."
    op.is_stateful = draw(st.booleans())
    del names
    return op


@fuzz_settings(300)
@given(st.lists(op_defs(), min_size=1, max_size=3))
def test_ops_built_field_by_field(ops):
    assert_same_answers(op_def_pb2.OpList(op=ops))


@fuzz_settings(300)
@given(st.lists(well_formed_ops(), min_size=1, max_size=3))
def test_well_formed_ops(ops):
    assert_same_answers(op_def_pb2.OpList(op=ops))


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's binary OpList is absent")
@fuzz_settings(150)
@given(st.data())
def test_tensorflow_ops_with_one_field_changed(data):
    ops = tf_binary_ops()
    op = op_def_pb2.OpList.FromString(ops[data.draw(st.integers(0, len(ops) - 1))]).op[0]
    change = data.draw(st.sampled_from(["attr_type", "drop_attr", "default", "allowed",
                                        "minimum", "arg", "rename", "duplicate"]))
    if change in ("attr_type", "drop_attr", "default", "allowed", "minimum") and op.attr:
        attr = op.attr[data.draw(st.integers(0, len(op.attr) - 1))]
        if change == "attr_type":
            attr.type = data.draw(st.sampled_from(ATTR_TYPES))
        elif change == "drop_attr":
            op.attr.remove(attr)
        elif change == "default":
            attr.default_value.CopyFrom(data.draw(attr_values()))
        elif change == "allowed":
            attr.allowed_values.CopyFrom(data.draw(attr_values()))
        else:
            attr.has_minimum = True
            attr.minimum = data.draw(st.sampled_from([-1, 0, 3, 100]))
    elif change == "arg":
        op.input_arg.add().CopyFrom(data.draw(arg_defs([a.name for a in op.attr])))
    elif change == "rename":
        op.name = data.draw(st.sampled_from(OP_NAMES))
    else:
        op.attr.add().CopyFrom(op.attr[0] if op.attr else op_def_pb2.OpDef.AttrDef(name="T",
                                                                                   type="type"))
    assert_same_answers(op_def_pb2.OpList(op=[op]))


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's binary OpList is absent")
@fuzz_settings(150)
@given(st.data())
def test_corrupted_tensorflow_bytes(data):
    raw = data.draw(tf_binary_slice().flatmap(corrupt_binary))
    try:
        oplist = op_def_pb2.OpList.FromString(raw)
    except protobuf_message.DecodeError:
        return
    assert_same_answers(oplist, may_refuse=True)
    # opdefs.load checks binary input as it came, not serialized again
    assert SCANNER.check(raw, opdef_wire.DATA_TYPES) in (None, python_valid(oplist))


# ----------------------------------------------- the same content, encoded differently


def _fields(data: bytes) -> list[tuple[int, int, bytes]]:
    """A message's fields as (number, wire type, encoded value) in wire order."""
    fields, pos = [], 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        start = pos
        if wire_type == 0:
            _, pos = _read_varint(data, pos)
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        else:
            length, pos = _read_varint(data, pos)
            pos += length
        fields.append((number, wire_type, data[start:pos]))
    return fields


def _encode(fields: list[tuple[int, int, bytes]]) -> bytes:
    return b"".join(_varint(number << 3 | wire_type) + value for number, wire_type, value in fields)


def _body(value: bytes) -> bytes:
    """The payload of an encoded length-delimited value."""
    return value[_read_varint(value, 0)[1]:]


def _delimited(body: bytes) -> bytes:
    return _varint(len(body)) + body


@st.composite
def reencoded(draw, message: bytes, depth: int = 0) -> bytes:
    """``message`` with fields repeated, reordered, unpacked, or unknown ones (some with a
    known number and the wrong wire type) added; nested messages likewise."""
    fields = _fields(message)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["duplicate", "shuffle", "unknown", "nested", "unpack"]))
        if kind == "duplicate" and fields:
            fields.append(draw(st.sampled_from(fields)))
        elif kind == "shuffle":
            fields = draw(st.permutations(fields))
        elif kind == "unknown":
            extra = draw(st.sampled_from([(99, 0, _varint(5)), (1, 0, _varint(7)),
                                          (4, 5, b"\0\0\0\0"), (3, 1, bytes(8)),
                                          (2, 0, _varint(1)), (77, 2, _delimited(b"zz"))]))
            fields.insert(draw(st.integers(0, len(fields))), extra)
        elif kind == "nested" and depth < 3:
            nested = [i for i, f in enumerate(fields) if f[1] == 2]
            if nested:
                i = draw(st.sampled_from(nested))
                number, wire_type, value = fields[i]
                try:
                    _fields(_body(value))
                except IndexError:
                    continue   # a string, not a message
                fields[i] = (number, wire_type,
                             _delimited(draw(reencoded(_body(value), depth + 1))))
        elif kind == "unpack":
            # a packed field of varints as one field per value (protobuf reads both)
            packed = [i for i, f in enumerate(fields) if f[1] == 2]
            if packed:
                i = draw(st.sampled_from(packed))
                number, _, value = fields[i]
                body, values, pos = _body(value), [], 0
                try:
                    while pos < len(body):
                        v, pos = _read_varint(body, pos)
                        values.append((number, 0, _varint(v)))
                except IndexError:
                    continue
                fields[i:i + 1] = values
    return _encode(fields)


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's binary OpList is absent")
@fuzz_settings(200)
@given(st.data())
def test_tensorflow_ops_encoded_differently(data):
    """opgen.opdefs.load checks binary input as it came: the scanner must read any
    encoding protobuf accepts as protobuf does, or decline it."""
    ops = tf_binary_ops()
    start = data.draw(st.integers(0, len(ops) - 1))
    bodies = [_body(op[1:]) for op in ops[start:start + data.draw(st.integers(1, 3))]]
    raw = b"".join(b"\x0a" + _delimited(data.draw(reencoded(body))) for body in bodies)
    try:
        oplist = op_def_pb2.OpList.FromString(raw)
    except protobuf_message.DecodeError:
        return
    assert SCANNER.check(raw, opdef_wire.DATA_TYPES) in (None, python_valid(oplist))
    assert_same_answers(oplist, may_refuse=True)


@fuzz_settings(200)
@given(st.binary(max_size=200))
def test_any_bytes_are_read_or_refused(raw):
    """Bytes that are not canonical (or not an OpList at all) never crash the scanner."""
    assert SCANNER.check(raw, opdef_wire.DATA_TYPES) in (True, False, None)
    specs = SCANNER.op_specs(raw, model._scan_context(model.SharedSpecs()))
    assert specs is None or isinstance(specs, list)
