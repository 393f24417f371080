"""opgen's protos are TensorFlow's on the wire, and the checked-in modules are fresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import text_format
from google.protobuf.unknown_fields import UnknownFieldSet

from opgen.protos import api_def_pb2, graph_pb2, kernel_def_pb2, op_def_pb2, tensor_pb2, types_pb2

REPO = Path(__file__).resolve().parents[2]


def _unknown_field_count(message) -> int:
    count = len(UnknownFieldSet(message))
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            has_message_values = field.message_type.fields_by_name["value"].message_type
            children = list(value.values()) if has_message_values else []
        elif field.is_repeated:
            children = value
        else:
            children = [value]
        count += sum(_unknown_field_count(child) for child in children)
    return count


def test_checked_in_modules_are_what_protoc_makes(tmp_path):
    pytest.importorskip("grpc_tools", reason="grpcio-tools (test extra) regenerates the modules")
    # protoc runs in a child process: in-process it shares symbols with whatever else the
    # test process loaded (it crashes once tensorflow has been imported by another test).
    code = ("import pathlib, sys; sys.path.insert(0, sys.argv[1]); import gen_protos; "
            "gen_protos.generate(pathlib.Path(sys.argv[2]))")
    subprocess.run([sys.executable, "-c", code, str(REPO / "tools"), str(tmp_path)],
                   check=True, cwd=tmp_path, timeout=300)
    fresh = sorted((tmp_path / "opgen" / "protos").glob("*_pb2.py"))
    assert fresh, "protoc produced nothing"
    checked_in = REPO / "opgen" / "protos"
    for module in fresh:
        assert module.read_bytes() == (checked_in / module.name).read_bytes(), (
            f"{module.name} is stale: run `python tools/gen_protos.py`")
    assert sorted(p.name for p in checked_in.glob("*_pb2.py")) == [m.name for m in fresh]


def test_tensorflow_oplist_parses_with_no_unknown_fields(tf_oplist_path):
    oplist = op_def_pb2.OpList.FromString(tf_oplist_path.read_bytes())
    assert len(oplist.op) == 1908
    assert _unknown_field_count(oplist) == 0
    assert oplist.SerializeToString() == tf_oplist_path.read_bytes()


def test_text_and_binary_tensorflow_oplists_are_equal(tf_oplist_path, tf_ops_text_path):
    binary = op_def_pb2.OpList.FromString(tf_oplist_path.read_bytes())
    text = text_format.Parse(tf_ops_text_path.read_text(), op_def_pb2.OpList())
    assert text == binary


def test_known_field_numbers_match_tensorflow():
    # A few numbers that graphs saved by TensorFlow rely on.
    fields = op_def_pb2.OpDef.DESCRIPTOR.fields_by_name
    assert fields["is_commutative"].number == 18 and fields["is_stateful"].number == 17
    assert graph_pb2.GraphDef.DESCRIPTOR.fields_by_name["versions"].number == 4
    assert tensor_pb2.TensorProto.DESCRIPTOR.fields_by_name["half_val"].number == 13
    assert types_pb2.DT_BFLOAT16 == 14 and types_pb2.DT_FLOAT_REF == 101
    assert types_pb2.DT_UINT64 == 23 and types_pb2.DT_HALF == 19


def test_graph_and_api_defs_round_trip():
    graph = graph_pb2.GraphDef()
    node = graph.node.add(name="x", op="Placeholder", device="/CPU:0")
    node.attr["dtype"].type = types_pb2.DT_FLOAT
    node.attr["shape"].shape.dim.add(size=-1)
    node.attr["value"].tensor.float_val.extend([1.0, 2.0])
    node.attr["ks"].list.i.extend([1, 2, 2, 1])
    graph.versions.producer = 1994
    graph.library.function.add().signature.name = "f"
    assert graph_pb2.GraphDef.FromString(graph.SerializeToString()) == graph

    api = api_def_pb2.ApiDefs()
    entry = api.op.add(graph_op_name="MatMul", visibility=api_def_pb2.ApiDef.HIDDEN)
    entry.endpoint.add(name="linalg.matmul")
    entry.in_arg.add(name="a", rename_to="x")
    entry.arg_order.extend(["b", "a"])
    assert text_format.Parse(text_format.MessageToString(api), api_def_pb2.ApiDefs()) == api


def _fields(descriptor) -> dict:
    return {f.name: (f.number, f.type, f.is_repeated) for f in descriptor.fields}


@pytest.mark.tensorflow
def test_kernel_def_is_tensorflows_on_the_wire():
    """opgen's KernelDef/KernelList have TensorFlow's fields, and TensorFlow's own kernel
    list reads back with nothing unknown."""
    tf_kernels = pytest.importorskip("tensorflow.python.framework.kernels",
                                     reason="TensorFlow is the reference here")
    from tensorflow.core.framework import kernel_def_pb2 as tf_kernel_def_pb2

    for name in ("KernelDef", "KernelList"):
        ours = getattr(kernel_def_pb2, name).DESCRIPTOR
        theirs = getattr(tf_kernel_def_pb2, name).DESCRIPTOR
        assert _fields(ours) == _fields(theirs)
    ours = kernel_def_pb2.KernelDef.AttrConstraint.DESCRIPTOR
    theirs = tf_kernel_def_pb2.KernelDef.AttrConstraint.DESCRIPTOR
    assert _fields(ours) == _fields(theirs)

    tf_list = tf_kernels.get_registered_kernels_for_op("MatMul")
    assert len(tf_list.kernel) > 1
    read = kernel_def_pb2.KernelList.FromString(tf_list.SerializeToString())
    assert _unknown_field_count(read) == 0
    assert read.SerializeToString() == tf_list.SerializeToString()
