"""TF_LoadSessionFromSavedModel through ctypes (independent of opgen.runtime): TensorFlow
2.21's TF1-style SavedModel loads, its signature's tensors (read from the returned
MetaGraphDef) give TensorFlow's outputs; TF2 ones report the function op the runtime
lacks; bad directories, tags, graphs, saved_model.pb files and checkpoints are errors
with a clear message, never a crash."""

from __future__ import annotations

import ctypes
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from google.protobuf.message import DecodeError

from opgen.protos import meta_graph_pb2

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import NOT_FOUND, OK, TF_Buffer, TF_Output, c_char_p, c_int, c_void_p

P = ctypes.POINTER
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "saved_models"
INVALID_ARGUMENT, UNIMPLEMENTED, DATA_LOSS = 3, 12, 15


@pytest.fixture
def load(api):
    lib = api.lib
    lib.TF_LoadSessionFromSavedModel.restype = c_void_p
    lib.TF_LoadSessionFromSavedModel.argtypes = [
        c_void_p, P(TF_Buffer), c_char_p, P(c_char_p), c_int, c_void_p, P(TF_Buffer), c_void_p]
    made = []

    def load_(directory, tags=("serve",), graph=None):
        """(code, message, session, graph, MetaGraphDef or None)."""
        graph = graph or lib.TF_NewGraph()
        made.append(graph)
        opts = lib.TF_NewSessionOptions()
        buffer = lib.TF_NewBuffer()
        tag_array = (c_char_p * len(tags))(*[t.encode() for t in tags])
        session = lib.TF_LoadSessionFromSavedModel(opts, None, str(directory).encode(), tag_array,
                                                   len(tags), graph, buffer, api.status)
        lib.TF_DeleteSessionOptions(opts)
        code = lib.TF_GetCode(api.status)
        message = lib.TF_Message(api.status).decode(errors="replace")
        meta = None
        if code == OK:
            data = ctypes.string_at(buffer.contents.data, buffer.contents.length)
            try:  # a byte flip the loader did not need may leave bad UTF-8 in a name
                meta = meta_graph_pb2.MetaGraphDef.FromString(data)
            except DecodeError:
                meta = None
            made.append(("session", session))
        else:
            assert session is None
        lib.TF_DeleteBuffer(buffer)
        return code, message, session, graph, meta

    yield load_
    for item in reversed(made):
        if isinstance(item, tuple):
            lib.TF_DeleteSession(item[1], api.status)
        else:
            lib.TF_DeleteGraph(item)


def _output(api, graph, name: str) -> TF_Output:
    node, _, index = name.partition(":")
    op = api.lib.TF_GraphOperationByName(graph, node.encode())
    assert op, name
    return TF_Output(op, int(index or 0))


@pytest.mark.parametrize("name", ["tf1_dense", "keras_dense", "keras_conv", "keras_lstm",
                                  "module_flow"])
def test_saved_model_signatures_give_tensorflows_outputs(api, load, name):
    """Every signature the fixture recorded, fed and fetched by the tensor names its
    SignatureDef gives, through the C API alone (the TF2 ones run StatefulPartitionedCall,
    While and If)."""
    code, message, session, graph, meta = load(FIXTURES / name)
    assert code == OK, message
    assert list(meta.meta_info_def.tags) == ["serve"]
    with np.load(FIXTURES / f"{name}_io.npz") as io:
        recorded: dict = {}
        for key in io.files:
            signature_name, side, arg = key.split("/")
            recorded.setdefault(signature_name, {"in": {}, "out": {}})[side][arg] = io[key]
        assert recorded
        for signature_name, values in recorded.items():
            signature = meta.signature_def[signature_name]
            feeds = [(_output(api, graph, signature.inputs[arg].name), value)
                     for arg, value in values["in"].items()]
            keys = sorted(values["out"])
            got = api.run(session, feeds, [_output(api, graph, signature.outputs[k].name)
                                           for k in keys])
            for key, value in zip(keys, got):
                np.testing.assert_allclose(value, values["out"][key], rtol=2e-5, atol=2e-6,
                                           err_msg=f"{name} {signature_name} {key}")


def test_tags_must_match_and_the_error_lists_the_tag_sets(load):
    code, message, *_ = load(FIXTURES / "tf1_dense", tags=("serve", "gpu"))
    assert code == NOT_FOUND
    assert "{gpu, serve}" in message and "tag sets are: {serve}" in message
    code, message, *_ = load(FIXTURES / "tf1_dense", tags=())
    assert code == NOT_FOUND and "{serve}" in message


def test_graph_must_be_empty(api, load):
    graph = api.lib.TF_NewGraph()
    api.placeholder(graph, "already_here", 1, [1])
    code, message, *_ = load(FIXTURES / "tf1_dense", graph=graph)
    assert code == INVALID_ARGUMENT and "empty" in message


def test_missing_directory_and_saved_model_pb(load, tmp_path):
    code, message, *_ = load(tmp_path / "nowhere")
    assert code == NOT_FOUND and "does not exist" in message
    code, message, *_ = load(tmp_path)
    assert code == NOT_FOUND and "saved_model.pb" in message


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "model"
    shutil.copytree(FIXTURES / "tf1_dense", target)
    return target


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_corrupt_saved_model_pb(load, tmp_path, damage):
    model = _copy(tmp_path)
    pb = model / "saved_model.pb"
    data = pb.read_bytes()
    pb.write_bytes({"garbage": b"\xff" * 64, "truncated": data[: len(data) // 2],
                    "empty": b""}[damage])
    code, message, *_ = load(model)
    assert code == DATA_LOSS and "saved_model.pb" in message


def test_missing_variables(load, tmp_path):
    model = _copy(tmp_path)
    shutil.rmtree(model / "variables")
    code, message, *_ = load(model)
    assert code == NOT_FOUND and "variables.index" in message


@pytest.mark.parametrize("file", ["variables.data-00000-of-00001", "variables.index"])
def test_corrupt_variables(load, tmp_path, file):
    model = _copy(tmp_path)
    path = model / "variables" / file
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 8):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    code, message, *_ = load(model)
    assert code == DATA_LOSS and "restoring the variables" in message


def test_mangled_saved_model_pb_never_crashes(load, tmp_path):
    """Truncations and byte flips anywhere in saved_model.pb: each load fails with a
    status (or, for a harmless flip, succeeds); none crashes the process."""
    model = _copy(tmp_path)
    pb = model / "saved_model.pb"
    original = pb.read_bytes()
    rng = np.random.default_rng(0)
    codes = set()
    for trial in range(60):
        data = bytearray(original)
        if trial % 2:
            data = data[: int(rng.integers(0, len(data)))]
        else:
            for i in rng.integers(0, len(data), size=4):
                data[i] ^= int(rng.integers(1, 256))
        pb.write_bytes(bytes(data))
        code, message, *_ = load(model)
        assert code == OK or message, code
        codes.add(code)
    assert codes - {OK}, "no mangled file was refused"
