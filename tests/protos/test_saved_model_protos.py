"""The SavedModel protos are TensorFlow's on the wire: TensorFlow 2.21's SavedModels parse
with nothing unknown and serialize back to the same bytes, and every message has the
fields (name, number, type, repetition) TensorFlow's descriptors give, compared through
a child TensorFlow process ($OPGEN_TF_PYTHON; that part skips without it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf.unknown_fields import UnknownFieldSet

from opgen.protos import (meta_graph_pb2, saved_model_pb2, saved_object_graph_pb2, saver_pb2,
                          struct_pb2, trackable_object_graph_pb2, variable_pb2)
from tf_reference import run_tf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "saved_models"
MODELS = sorted(p.parent for p in FIXTURES.glob("*/saved_model.pb"))
MODULES = {"saved_model": saved_model_pb2, "meta_graph": meta_graph_pb2, "saver": saver_pb2,
           "saved_object_graph": saved_object_graph_pb2, "struct": struct_pb2,
           "trackable_object_graph": trackable_object_graph_pb2, "variable": variable_pb2}


def _unknown_fields(message) -> int:
    count = len(UnknownFieldSet(message))
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = field.message_type.fields_by_name["value"].message_type
            children = list(value.values()) if values else []
        elif field.is_repeated:
            children = list(value)
        else:
            children = [value]
        count += sum(_unknown_fields(child) for child in children)
    return count


def test_fixtures_exist():
    assert {p.name for p in MODELS} >= {"tf1_dense", "keras_dense", "keras_conv",
                                        "keras_lstm", "module_flow"}


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_tensorflow_saved_models_parse_whole(model):
    data = (model / "saved_model.pb").read_bytes()
    saved = saved_model_pb2.SavedModel.FromString(data)
    assert _unknown_fields(saved) == 0
    assert saved.SerializeToString(deterministic=True) == data
    (meta,) = saved.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert "serving_default" in meta.signature_def
    assert meta.saver_def.version == saver_pb2.SaverDef.V2
    assert meta.graph_def.node


# Dumps every message of the named TensorFlow proto modules as
# {"Message.Nested": {"field": [number, type, repeated]}} (package prefix dropped).
_DUMP = r"""
import importlib, json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
out = {}
def walk(d):
    out[d.full_name.split(".", 1)[1]] = {
        f.name: [f.number, f.type, f.is_repeated] for f in d.fields}
    for n in d.nested_types: walk(n)
for path in sys.argv[1:]:
    for d in importlib.import_module(path).DESCRIPTOR.message_types_by_name.values(): walk(d)
print(json.dumps(out))
"""


def _ours() -> dict:
    out: dict = {}

    def walk(d):
        out[d.full_name.split(".", 1)[1]] = {
            f.name: [f.number, f.type, f.is_repeated] for f in d.fields}
        for n in d.nested_types:
            walk(n)

    for module in MODULES.values():
        for d in module.DESCRIPTOR.message_types_by_name.values():
            walk(d)
    return out


@pytest.mark.tensorflow
def test_fields_match_tensorflows():
    modules = [f"tensorflow.core.protobuf.{name}_pb2" for name in MODULES if name != "variable"]
    modules.append("tensorflow.core.framework.variable_pb2")
    result = run_tf(["-c", _DUMP, *modules], timeout=300)
    theirs = json.loads(result.stdout.strip().splitlines()[-1])
    assert _ours() == theirs
