"""The runtime's hand-written protobuf reader and writer (runtime/src/wire_format.cc over
wire_reader.h) agree with the protobuf library: every op of TensorFlow's registry, read by
the runtime and written back, comes out as the same message and the same bytes; odd but
valid encodings read as protobuf reads them, and malformed bytes are refused as protobuf
refuses them."""

from __future__ import annotations

import subprocess

import pytest

from opgen.protos import op_def_pb2

@pytest.fixture(scope="module")
def roundtrip(build_runtime_harness):
    """A small program built from the runtime's wire-format sources: OpList bytes in,
    the same OpList parsed and re-serialized out."""
    exe = build_runtime_harness("wire_format_roundtrip.cc")

    def run(data: bytes, message: str = "oplist") -> subprocess.CompletedProcess:
        return subprocess.run([str(exe), message], input=data, capture_output=True)
    return run

def _modelled(oplist: op_def_pb2.OpList) -> op_def_pb2.OpList:
    """`oplist` without the fields the runtime's OpDef model does not keep."""
    out = op_def_pb2.OpList()
    out.CopyFrom(oplist)
    for op in out.op:
        for arg in list(op.input_arg) + list(op.output_arg):
            arg.ClearField("experimental_full_type")
            arg.ClearField("handle_data")
    return out

def test_tensorflows_op_list_round_trips_through_the_runtime(roundtrip, tf_oplist_path):
    oplist = _modelled(op_def_pb2.OpList.FromString(tf_oplist_path.read_bytes()))
    assert len(oplist.op) > 1000
    data = oplist.SerializeToString(deterministic=True)
    result = roundtrip(data)
    assert result.returncode == 0, result.stderr.decode()
    back = op_def_pb2.OpList.FromString(result.stdout)
    for want, got in zip(oplist.op, back.op):
        assert got == want, want.name
    assert len(back.op) == len(oplist.op)
    assert result.stdout == data  # field order, packing and oneof defaults as protobuf writes them

def test_truncated_bytes_are_an_error_not_a_crash(roundtrip, tf_oplist_path):
    data = _modelled(op_def_pb2.OpList.FromString(tf_oplist_path.read_bytes())).SerializeToString()
    for cut in (1, 7, 100, len(data) // 2, len(data) - 1):
        result = roundtrip(data[:cut])
        assert result.returncode == 1 and b"malformed" in result.stderr, cut

# ---- GraphDef / NodeDef ----------------------------------------------------------------

def _graph_def_with_every_attr_kind():
    """A GraphDef built with the protobuf library: every AttrValue kind, data and control
    inputs, devices, a function library and versions."""
    from opgen.protos import attr_value_pb2, graph_pb2, tensor_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    graph.versions.producer = 1994
    graph.versions.min_consumer = 12
    graph.versions.bad_consumers.extend([3, 7])
    fn = graph.library.function.add()
    fn.signature.name = "my_function"
    const = graph.node.add(name="c", op="Const", device="/device:CPU:0")
    value = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_content=b"\x00\x00\x80?")
    value.tensor_shape.dim.add(size=1)
    const.attr["value"].tensor.CopyFrom(value)
    const.attr["dtype"].type = types_pb2.DT_FLOAT
    node = graph.node.add(name="scope/n", op="Anything", input=["c", "c:1", "^c"])
    attrs = node.attr
    attrs["s"].s = b"bytes \x00\xff"
    attrs["i"].i = -5
    attrs["f"].f = 2.5
    attrs["b"].b = False  # a oneof member set to its default still counts as set
    attrs["t"].type = types_pb2.DT_INT64
    attrs["shape"].shape.dim.add(size=-1)
    attrs["shape"].shape.dim.add(size=3)
    attrs["unknown_rank"].shape.unknown_rank = True
    attrs["fn"].func.name = "my_function"
    attrs["ph"].placeholder = "T"
    attrs["ls"].list.s.extend([b"a", b""])
    attrs["li"].list.i.extend([1, -2, 1 << 40])
    attrs["lf"].list.f.extend([0.5, -1.0])
    attrs["lb"].list.b.extend([True, False])
    attrs["lt"].list.type.extend([types_pb2.DT_FLOAT, types_pb2.DT_BOOL])
    attrs["lshape"].list.shape.add().dim.add(size=4)
    attrs["ltensor"].list.tensor.add().CopyFrom(value)
    attrs["lfunc"].list.func.add(name="my_function")
    attrs["empty_list"].list.CopyFrom(attr_value_pb2.AttrValue.ListValue())
    return graph

def test_graph_def_round_trips_through_the_runtime(roundtrip):
    from opgen.protos import graph_pb2

    graph = _graph_def_with_every_attr_kind()
    data = graph.SerializeToString(deterministic=True)
    result = roundtrip(data, "graphdef")
    assert result.returncode == 0, result.stderr.decode()
    assert graph_pb2.GraphDef.FromString(result.stdout) == graph
    # Byte-stable: attrs come out in one order whatever order they came in.
    reordered = graph_pb2.GraphDef()
    reordered.CopyFrom(graph)
    node = reordered.node[1]
    saved = {key: node.attr[key] for key in node.attr}
    node.ClearField("attr")
    for key in sorted(saved, reverse=True):
        node.attr[key].CopyFrom(saved[key])
    again = roundtrip(reordered.SerializeToString(), "graphdef")
    assert again.stdout == result.stdout

def test_graph_def_read_back_keeps_node_order_and_empty_graph(roundtrip):
    from opgen.protos import graph_pb2

    graph = graph_pb2.GraphDef()
    graph.versions.SetInParent()
    for i in range(50):
        graph.node.add(name=f"n{49 - i}", op="NoOp")
    result = roundtrip(graph.SerializeToString(), "graphdef")
    assert result.returncode == 0, result.stderr.decode()
    assert graph_pb2.GraphDef.FromString(result.stdout) == graph

def test_truncated_graph_def_is_an_error_not_a_crash(roundtrip):
    data = _graph_def_with_every_attr_kind().SerializeToString()
    for cut in (1, 5, 40, len(data) // 2, len(data) - 1):
        result = roundtrip(data[:cut], "graphdef")
        assert result.returncode == 1 and b"malformed" in result.stderr, cut

# ---- Odd but valid encodings, and malformed ones ---------------------------------------
# Bytes the protobuf library reads although no serializer writes them: unknown groups,
# known field numbers with another wire type (kept by protobuf as unknown fields, so a
# oneof member of the wrong wire type does not select the member), repeated scalars
# packed, unpacked, mixed, or with a wrong element wire type. The runtime must read each
# as protobuf does: protobuf's message, its unknown fields dropped, serialized, equals
# what the runtime reads and writes back.

VARINT, FIXED64, LEN, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5

def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))

def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)

def _len(number: int, payload: bytes) -> bytes:
    return _key(number, LEN) + _varint(len(payload)) + payload

def _int(number: int, value: int) -> bytes:
    return _key(number, VARINT) + _varint(value)

def _fixed32(number: int, value: int = 0x3F800000) -> bytes:
    return _key(number, FIXED32) + value.to_bytes(4, "little")

def _fixed64(number: int, value: int = 5) -> bytes:
    return _key(number, FIXED64) + value.to_bytes(8, "little")

def _group(number: int, body: bytes = b"") -> bytes:
    return _key(number, START_GROUP) + body + _key(number, END_GROUP)

# A group of every wire type, one nested in it, as an unknown field numbered 900.
GROUP = _group(900, _int(1, 7) + _len(2, b"xy") + _fixed64(3) + _fixed32(4) +
               _group(5, _int(1, 1)))

def _attr_node(attrs: dict[str, bytes], extra: bytes = b"") -> bytes:
    """NodeDef bytes: name "n", op "Op", `attrs` as map entries of raw AttrValue bytes,
    then `extra`."""
    entries = b"".join(_len(5, _len(1, k.encode()) + _len(2, v)) for k, v in attrs.items())
    return _len(1, b"n") + _len(2, b"Op") + entries + extra

def _graph(node: bytes, extra: bytes = b"") -> bytes:
    return _len(1, node) + _len(4, _int(1, 27)) + extra

def _dim(size_field: bytes) -> bytes:
    return _len(2, size_field)

GRAPH_DEFS = {
    "unknown group in GraphDef": _graph(_attr_node({}), GROUP),
    "unknown group in NodeDef": _graph(_attr_node({}, GROUP)),
    "unknown group in AttrValue": _graph(_attr_node({"a": _int(3, 5) + GROUP})),
    "unknown group in ListValue": _graph(_attr_node({"a": _len(1, _int(3, 1) + GROUP)})),
    "unknown group in TensorShapeProto and Dim": _graph(_attr_node(
        {"a": _len(7, GROUP + _dim(_int(1, 3) + GROUP))})),
    "unknown group in VersionDef": _len(1, _attr_node({})) + _len(4, _int(1, 3) + GROUP),
    "a known number as a group": _graph(_attr_node({"a": _int(3, 1)}, _group(5, _int(1, 2)))),
    "NodeDef.name as a varint": _graph(_attr_node({}, _int(1, 3))),
    "NodeDef.input as fixed32": _graph(_attr_node({}, _len(3, b"x") + _fixed32(3))),
    "AttrValue.i as length-delimited": _graph(_attr_node({"a": _len(3, b"\x05")})),
    "AttrValue.s, then i as fixed32": _graph(_attr_node({"a": _len(2, b"x") + _fixed32(3)})),
    "AttrValue.f as a varint": _graph(_attr_node({"a": _int(4, 1)})),
    "AttrValue.b as fixed64, then b": _graph(_attr_node({"a": _fixed64(5) + _int(5, 0)})),
    "AttrValue.type as fixed64": _graph(_attr_node({"a": _int(6, 1) + _fixed64(6, 3)})),
    "AttrValue.list as a varint": _graph(_attr_node({"a": _int(1, 1)})),
    "AttrValue.shape as fixed32": _graph(_attr_node({"a": _fixed32(7)})),
    "AttrValue.tensor as a group": _graph(_attr_node({"a": _int(3, 2) + _group(8)})),
    "ListValue.i as fixed64": _graph(_attr_node({"a": _len(1, _fixed64(3))})),
    "ListValue.i between fixed64 ones": _graph(_attr_node(
        {"a": _len(1, _int(3, 1) + _fixed64(3) + _int(3, 2))})),
    "ListValue.i unpacked, packed, unpacked": _graph(_attr_node(
        {"a": _len(1, _int(3, 1) + _len(3, _varint(2) + _varint(3)) + _int(3, 4))})),
    "ListValue.f unpacked and packed": _graph(_attr_node(
        {"a": _len(1, _fixed32(4) + _len(4, (0x40000000).to_bytes(4, "little")))})),
    "ListValue.f as a varint and fixed64": _graph(_attr_node(
        {"a": _len(1, _int(4, 1) + _fixed64(4) + _fixed32(4))})),
    "ListValue.b and type as fixed32": _graph(_attr_node(
        {"a": _len(1, _fixed32(5) + _fixed32(6) + _int(6, 1))})),
    "ListValue.s as a varint": _graph(_attr_node({"a": _len(1, _int(2, 1) + _len(2, b"x"))})),
    "ListValue.shape as fixed64": _graph(_attr_node({"a": _len(1, _fixed64(7))})),
    "Dim.size as length-delimited": _graph(_attr_node({"a": _len(7, _dim(_len(1, b"\x03")))})),
    "unknown_rank as fixed64": _graph(_attr_node({"a": _len(7, _fixed64(3, 1))})),
    "bad_consumers as fixed32, unpacked and packed": _len(1, _attr_node({})) + _len(
        4, _fixed32(3) + _int(3, 4) + _len(3, _varint(5))),
}

def _protobuf_reads(message_class, data: bytes) -> bytes:
    message = message_class.FromString(data)
    message.DiscardUnknownFields()
    return message.SerializeToString(deterministic=True)

@pytest.mark.parametrize("case", sorted(GRAPH_DEFS))
def test_odd_graph_def_encodings_read_as_protobuf_reads_them(roundtrip, case):
    from opgen.protos import graph_pb2

    data = GRAPH_DEFS[case]
    want = _protobuf_reads(graph_pb2.GraphDef, data)
    assert want != data  # the case is odd: protobuf does not write it back as it came
    result = roundtrip(data, "graphdef")
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == want

def test_a_map_entry_with_unknown_fields_keeps_its_attr(roundtrip):
    """An attr's map entry with unknown fields (a group, a key of the wrong wire type)
    keeps the attr, as TensorFlow's C++ protobuf reads it (a Placeholder whose dtype
    entry carries them imports into libtensorflow_cc). Python's upb moves such an entry
    to the unknown fields instead, so the reference here is the entry without them."""
    from opgen.protos import graph_pb2

    def entry(extra: bytes) -> bytes:
        return _graph(_attr_node({}, _len(5, _len(1, b"a") + extra + _len(2, _int(3, 4)))))

    want = _protobuf_reads(graph_pb2.GraphDef, entry(b""))
    assert graph_pb2.GraphDef.FromString(want).node[0].attr["a"].i == 4
    for extra in (GROUP, _fixed32(1), _int(2, 1), _int(7, 1)):
        result = roundtrip(entry(extra), "graphdef")
        assert result.returncode == 0, result.stderr.decode()
        assert result.stdout == want, extra

def _op_list(op: bytes) -> bytes:
    return _len(1, op)

def _op(extra: bytes = b"", arg: bytes = b"", attr: bytes = b"") -> bytes:
    """OpDef bytes: name "Op", an input x: float, an attr T: type with default float."""
    return (_len(1, b"Op") + _len(2, _len(1, b"x") + _int(3, 1) + arg) +
            _len(4, _len(1, b"T") + _len(2, b"type") + _len(3, _int(6, 1)) + attr) + extra)

OP_LISTS = {
    "unknown group in OpList": _op_list(_op()) + GROUP,
    "unknown group in OpDef, ArgDef and AttrDef": _op_list(_op(GROUP, GROUP, GROUP)),
    "OpDef.is_stateful as fixed32": _op_list(_op(_fixed32(17) + _int(18, 1))),
    "OpDef.name as a varint": _op_list(_op(_int(1, 5))),
    "OpDef.deprecation.version as length-delimited": _op_list(_op(
        _len(8, _int(1, 3) + _len(1, b"\x09") + _len(2, b"why")))),
    "ArgDef.type as length-delimited": _op_list(_op(arg=_len(3, b"\x03"))),
    "ArgDef.is_ref as fixed64": _op_list(_op(arg=_fixed64(16, 1))),
    "AttrDef.default_value as a varint": _op_list(_op(attr=_int(3, 1))),
    "AttrDef.minimum as fixed64, has_minimum as fixed32": _op_list(_op(
        attr=_int(5, 1) + _int(6, 2) + _fixed64(6) + _fixed32(5))),
    "AttrDef.allowed_values with an odd list": _op_list(_op(
        attr=_len(7, _len(1, _int(6, 1) + _fixed32(6) + GROUP + _len(6, _varint(2)))))),
}

@pytest.mark.parametrize("case", sorted(OP_LISTS))
def test_odd_op_list_encodings_read_as_protobuf_reads_them(roundtrip, case):
    data = OP_LISTS[case]
    want = _protobuf_reads(op_def_pb2.OpList, data)
    assert want != data
    result = roundtrip(data, "oplist")
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == want

def test_odd_tensor_proto_encodings_read_as_protobuf_reads_them(roundtrip):
    """float_val unpacked, packed and with wrong wire types; dtype and tensor_content
    with wrong wire types; groups in the proto and its shape."""
    import numpy as np
    from opgen.protos import tensor_pb2

    floats = lambda *xs: b"".join(np.float32(x).tobytes() for x in xs)  # noqa: E731
    data = (_int(1, 1) + _fixed64(1, 9) +                        # dtype float; one skipped
            _len(2, _dim(_int(1, 4)) + GROUP) + GROUP +          # shape [4]
            _key(5, FIXED32) + floats(1.5) + _len(5, floats(2.5, -3)) +
            _int(5, 7) + _fixed64(5) +                           # float_val of other types
            _int(4, 1) + _fixed32(7))                            # tensor_content, int_val
    message = tensor_pb2.TensorProto.FromString(data)
    message.DiscardUnknownFields()
    values = list(message.float_val)
    assert values == [1.5, 2.5, -3.0] and not message.tensor_content
    want = np.float32(values + values[-1:] * (4 - len(values))).tobytes()  # the last repeats
    result = roundtrip(data, "tensorproto")
    assert result.returncode == 0, result.stderr.decode()
    back = tensor_pb2.TensorProto.FromString(result.stdout)
    assert back.dtype == message.dtype
    assert back.tensor_shape == message.tensor_shape
    assert back.tensor_content == want

# Malformed bytes: protobuf refuses them, and so must the runtime, wherever they sit.
MALFORMED = {
    "a stray end-group tag": _key(9, END_GROUP),
    "a group ended by another number": _key(9, START_GROUP) + _int(1, 1) + _key(8, END_GROUP),
    "a group with no end": _key(9, START_GROUP) + _int(1, 1),
    "field number 0": _int(0, 1),
    "field number 0 in a group": _key(9, START_GROUP) + _key(0, END_GROUP),
    "wire type 6": _key(9, 6) + b"\x00",
    "wire type 7": _key(9, 7) + b"\x00",
    "a varint of 11 bytes": _key(9, VARINT) + b"\xff" * 10 + b"\x01",
    "a tag of 11 bytes": b"\xff" * 10 + b"\x01",
    "a length past the end": _key(9, LEN) + _varint(5) + b"abc",
    "a truncated fixed64": _key(9, FIXED64) + b"\x00" * 7,
}

# Where the malformed bytes go: (message class name, harness mode, bytes around them).
MALFORMED_PLACES = {
    "GraphDef": ("graphdef", lambda bad: _graph(_attr_node({})) + bad),
    "NodeDef": ("graphdef", lambda bad: _graph(_attr_node({}, bad))),
    "AttrValue": ("graphdef", lambda bad: _graph(_attr_node({"a": _int(3, 1) + bad}))),
    "ListValue": ("graphdef", lambda bad: _graph(_attr_node({"a": _len(1, _int(3, 1) + bad)}))),
    "OpDef": ("oplist", lambda bad: _op_list(_op(bad))),
    "AttrDef": ("oplist", lambda bad: _op_list(_op(attr=bad))),
}

@pytest.mark.parametrize("place", sorted(MALFORMED_PLACES))
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_bytes_are_refused_as_protobuf_refuses_them(roundtrip, case, place):
    from google.protobuf.message import DecodeError
    from opgen.protos import graph_pb2

    mode, build = MALFORMED_PLACES[place]
    data = build(MALFORMED[case])
    with pytest.raises(DecodeError):
        (graph_pb2.GraphDef if mode == "graphdef" else op_def_pb2.OpList).FromString(data)
    result = roundtrip(data, mode)
    assert result.returncode == 1 and b"malformed" in result.stderr, result.stderr

def test_packed_values_that_do_not_divide_are_refused(roundtrip):
    from google.protobuf.message import DecodeError
    from opgen.protos import graph_pb2

    for packed in (_len(4, b"\x00" * 6), _len(3, b"\x01\x80")):  # floats; a cut varint
        data = _graph(_attr_node({"a": _len(1, packed)}))
        with pytest.raises(DecodeError):
            graph_pb2.GraphDef.FromString(data)
        result = roundtrip(data, "graphdef")
        assert result.returncode == 1 and b"malformed" in result.stderr
