"""The runtime's hand-written protobuf reader and writer (runtime/src/wire_format.cc)
agree with the protobuf library: every op of TensorFlow's registry, read by the runtime
and written back, comes out as the same message and the same bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from opgen.protos import op_def_pb2

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory):
    """A small program built from the runtime's wire-format sources: OpList bytes in,
    the same OpList parsed and re-serialized out."""
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not compiler:
        pytest.skip("no C++ compiler to build the wire-format harness")
    exe = tmp_path_factory.mktemp("wire") / "wire_format_roundtrip"
    src = REPO / "runtime" / "src"
    subprocess.run(
        [compiler, "-std=c++17", "-O0", f"-I{REPO / 'runtime' / 'include'}", f"-I{src}",
         str(REPO / "tests" / "runtime" / "wire_format_roundtrip.cc"),
         str(src / "wire_format.cc"), str(src / "tensor.cc"), str(src / "status.cc"),
         str(src / "host_block_cache.cc"), str(src / "shape_check.cc"),
         "-o", str(exe)],
        check=True)

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
    from opgen.protos import attr_value_pb2, function_pb2, graph_pb2, tensor_pb2, types_pb2

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
