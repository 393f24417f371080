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
         "-o", str(exe)],
        check=True)

    def run(data: bytes) -> subprocess.CompletedProcess:
        return subprocess.run([str(exe)], input=data, capture_output=True)
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
