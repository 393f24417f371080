"""TensorBoard event files (opgen.summary over the OPGEN_EventsWriter C API): the
TFRecord framing and CRC-32C checked here, the Event protos parsed by the protobuf
library, and the whole file read back by TensorBoard's own loader where TensorFlow (which
brings tensorboard) is installed."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import opgen
from opgen import ops
from opgen.protos import graph_pb2
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _event_class():
    """tensorflow.Event and Summary with TensorFlow's field numbers, built for the protobuf
    library (opgen ships no event.proto: the runtime writes the bytes itself)."""
    f = descriptor_pb2.FileDescriptorProto(name="opgen_test_event.proto", package="t",
                                           syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    value = f.message_type.add(name="Value")
    value.field.add(name="tag", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    value.field.add(name="simple_value", number=2, type=F.TYPE_FLOAT, label=F.LABEL_OPTIONAL)
    summary = f.message_type.add(name="Summary")
    summary.field.add(name="value", number=1, type=F.TYPE_MESSAGE, type_name=".t.Value",
                      label=F.LABEL_REPEATED)
    event = f.message_type.add(name="Event")
    event.field.add(name="wall_time", number=1, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
    event.field.add(name="step", number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    event.field.add(name="file_version", number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    event.field.add(name="graph_def", number=4, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    event.field.add(name="summary", number=5, type=F.TYPE_MESSAGE, type_name=".t.Summary",
                    label=F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("t.Event"))


def _records(path: Path) -> list[bytes]:
    data, records, pos = path.read_bytes(), [], 0
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        assert length_crc == _masked(_crc32c(header))
        record = data[pos + 12:pos + 12 + length]
        (record_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        assert record_crc == _masked(_crc32c(record))
        records.append(record)
        pos += 16 + length
    assert pos == len(data)
    return records


def _write_run(logdir: Path) -> tuple[Path, opgen.Graph]:
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(opgen.float32, shape=[None, 3], name="x")
        ops.relu(ops.mat_mul(x, np.ones((3, 2), np.float32)), name="hidden")
    writer = opgen.summary.create_file_writer(logdir, filename_suffix=".v2")
    writer.graph(graph)
    with writer.as_default():
        for step in range(5):
            assert opgen.summary.scalar("loss", 1.0 / (step + 1), step=step)
    writer.scalar("accuracy", np.float32(0.75), step=4)
    writer.close()
    return Path(writer.path), graph


def test_the_event_file_holds_the_version_graph_and_scalars(tmp_path):
    path, graph = _write_run(tmp_path / "logs")
    assert path.parent == tmp_path / "logs"
    assert path.name.startswith("events.out.tfevents.") and path.name.endswith(".v2")
    Event = _event_class()
    events = [Event.FromString(r) for r in _records(path)]
    assert events[0].file_version == "brain.Event:2"
    assert events[0].wall_time > 1.6e9
    assert graph_pb2.GraphDef.FromString(events[1].graph_def) == graph.as_graph_def()
    scalars = [(e.step, v.tag, v.simple_value) for e in events[2:] for v in e.summary.value]
    assert scalars == [(s, "loss", np.float32(1.0 / (s + 1))) for s in range(5)] + [
        (4, "accuracy", 0.75)]


def test_scalar_without_a_default_writer_writes_nothing():
    assert opgen.summary.scalar("loss", 1.0, step=0) is False


def test_bad_input_is_refused_clearly(tmp_path):
    writer = opgen.summary.create_file_writer(tmp_path)
    with pytest.raises(ValueError, match="'loss' must be one number"):
        writer.scalar("loss", np.ones(3), step=0)
    writer.close()
    writer.close()  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        writer.scalar("loss", 1.0, step=0)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(opgen.errors.FailedPreconditionError, match="a_file"):
        opgen.summary.create_file_writer(blocker / "logs")


_TENSORBOARD_READER = """
import json, sys
from tensorboard.backend.event_processing import event_accumulator
acc = event_accumulator.EventAccumulator(sys.argv[1])
acc.Reload()
scalars = {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
nodes = sorted(n.name for n in acc.Graph().node)
json.dump({"scalars": scalars, "nodes": nodes}, open(sys.argv[2], "w"))
"""


def test_tensorboard_reads_the_run(tmp_path):
    probe = run_tf(["-c", "import tensorboard"], timeout=120, check=False)
    if probe.returncode != 0:
        pytest.skip(f"tensorboard does not import in {tf_python()}")
    _, graph = _write_run(tmp_path / "logs")
    out = tmp_path / "read.json"
    run_tf(["-c", _TENSORBOARD_READER, tmp_path / "logs", out], timeout=300)
    read = json.loads(out.read_text())
    assert read["scalars"]["loss"] == [[s, pytest.approx(1.0 / (s + 1))] for s in range(5)]
    assert read["scalars"]["accuracy"] == [[4, 0.75]]
    assert read["nodes"] == sorted(op.name for op in graph.get_operations())
