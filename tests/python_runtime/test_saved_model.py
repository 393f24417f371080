"""opgen.saved_model.load on SavedModels TensorFlow 2.21 wrote
(tests/fixtures/saved_models, made by make_saved_models.py there): signatures give
TensorFlow's outputs (the .npz files hold TensorFlow's results for fixed inputs), TF2
models whose graphs call functions fail clearly while the runtime lacks them, and bad
directories, tags, signatures and checkpoints are clear errors. The `opgen run` CLI runs a
SavedModel directory in a child process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import saved_model
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "saved_models"
TF2_MODELS = ["keras_dense", "keras_conv", "keras_lstm", "module_flow"]


def _io(name: str) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """{signature: {"in": {key: array}, "out": {key: array}}} from <name>_io.npz."""
    out: dict = {}
    with np.load(FIXTURES / f"{name}_io.npz") as data:
        for key in data.files:
            signature, side, arg = key.split("/")
            out.setdefault(signature, {"in": {}, "out": {}})[side][arg] = data[key]
    return out


def _runtime_has(op: str) -> bool:
    from opgen.protos import op_def_pb2
    from opgen.runtime import _lib

    return op in {o.name for o in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}


def _check_signatures(model, name: str) -> None:
    expected = _io(name)
    assert set(expected) <= set(model.signatures)
    for signature, io in expected.items():
        got = model.signatures[signature](**io["in"])
        assert set(got) == set(io["out"])
        for key, want in io["out"].items():
            np.testing.assert_allclose(got[key], want, rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name} {signature} {key}")


def test_tf1_saved_model_gives_tensorflows_outputs():
    with saved_model.load(FIXTURES / "tf1_dense") as model:
        assert model.tags == ["serve"]
        assert list(model.signatures) == ["serving_default"]
        _check_signatures(model, "tf1_dense")
        # The variables came from the checkpoint: TensorFlow's values, not fresh ones.
        w = model.session.run(model.graph.get_tensor_by_name("w/Read/ReadVariableOp:0"))
        assert w.shape == (4, 3)


def test_tags_select_the_meta_graph():
    with saved_model.load(FIXTURES / "tf1_dense", tags=["serve"]) as model:
        _check_signatures(model, "tf1_dense")
    with pytest.raises(errors.NotFoundError, match=r"tags \{gpu, serve\}.*tag sets are: \{serve\}"):
        saved_model.load(FIXTURES / "tf1_dense", tags=["serve", "gpu"])


@pytest.mark.parametrize("name", TF2_MODELS)
def test_tf2_saved_models(name):
    """Keras and tf.Module SavedModels (signatures and the restore graph are
    StatefulPartitionedCalls; the LSTM runs a While, the module an If) give TensorFlow's
    outputs."""
    with saved_model.load(FIXTURES / name) as model:
        _check_signatures(model, name)


def test_unknown_signature_lists_those_there_are():
    with saved_model.load(FIXTURES / "tf1_dense") as model:
        with pytest.raises(KeyError, match=r"no signature 'predict'.*serving_default"):
            model.signatures["predict"]
        signature = model.signatures["serving_default"]
        with pytest.raises(TypeError, match="missing: x"):
            signature()
        with pytest.raises(TypeError, match="unknown: z"):
            signature(x=np.zeros((1, 4), np.float32), z=1)
        with pytest.raises(errors.InvalidArgumentError):
            signature(x=np.zeros((1, 5), np.float32))


def test_inputs_are_converted_to_the_signatures_dtype():
    io = _io("tf1_dense")["serving_default"]
    with saved_model.load(FIXTURES / "tf1_dense") as model:
        got = model.signatures["serving_default"](x=io["in"]["x"].astype(np.float64).tolist())
        np.testing.assert_allclose(got["y"], io["out"]["y"], rtol=2e-5, atol=2e-6)
        got = model.signatures["serving_default"](x=opgen.constant(io["in"]["x"]))
        np.testing.assert_allclose(got["logits"], io["out"]["logits"], rtol=2e-5, atol=2e-6)


def _copy(tmp_path: Path, name: str = "tf1_dense") -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def test_missing_directory_and_missing_pb(tmp_path):
    with pytest.raises(errors.NotFoundError, match="does not exist"):
        saved_model.load(tmp_path / "nowhere")
    with pytest.raises(errors.NotFoundError, match=r"no saved_model\.pb"):
        saved_model.load(tmp_path)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_corrupt_saved_model_pb(tmp_path, damage):
    model = _copy(tmp_path)
    pb = model / "saved_model.pb"
    data = pb.read_bytes()
    pb.write_bytes({"garbage": b"\xff" * 64, "truncated": data[: len(data) // 2],
                    "empty": b""}[damage])
    with pytest.raises(errors.DataLossError, match=r"saved_model\.pb"):
        saved_model.load(model)


def test_missing_variables(tmp_path):
    model = _copy(tmp_path)
    shutil.rmtree(model / "variables")
    with pytest.raises(errors.NotFoundError, match=r"variables\.index"):
        saved_model.load(model)


def test_missing_variables_data_file(tmp_path):
    model = _copy(tmp_path)
    (model / "variables" / "variables.data-00000-of-00001").unlink()
    with pytest.raises(errors.OpError, match="restoring the variables"):
        saved_model.load(model)


@pytest.mark.parametrize("file", ["variables.data-00000-of-00001", "variables.index"])
def test_corrupt_variables(tmp_path, file):
    model = _copy(tmp_path)
    path = model / "variables" / file
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 8):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match="restoring the variables"):
        saved_model.load(model)


def test_cli_runs_a_saved_model_directory(tmp_path):
    io = _io("tf1_dense")["serving_default"]
    np.save(tmp_path / "x.npy", io["in"]["x"])
    out = tmp_path / "out.npz"
    result = subprocess.run(
        [sys.executable, "-m", "opgen", "run", str(FIXTURES / "tf1_dense"),
         "--signature", "serving_default", "-i", f"x={tmp_path / 'x.npy'}", "--save", str(out)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    with np.load(out) as got:
        np.testing.assert_allclose(got["y:0"], io["out"]["y"], rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(got["logits:0"], io["out"]["logits"], rtol=2e-5, atol=2e-6)
    result = subprocess.run(
        [sys.executable, "-m", "opgen", "run", str(FIXTURES / "tf1_dense"), "-s", "nope",
         "--random-inputs"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode != 0 and "serving_default" in result.stderr


@pytest.mark.parametrize("encoding", ["tensor_content", "float_val"])
def test_signature_defaults_fill_left_out_inputs(tmp_path, encoding):
    """A SignatureDef's `defaults` (TensorProtos) feed the inputs a call leaves out, read
    from raw content or from typed values with the last one repeated, as TensorFlow reads
    them."""
    from opgen.protos import saved_model_pb2, types_pb2

    model = _copy(tmp_path)
    saved = saved_model_pb2.SavedModel.FromString((model / "saved_model.pb").read_bytes())
    default = saved.meta_graphs[0].signature_def["serving_default"].defaults["x"]
    default.dtype = types_pb2.DT_FLOAT
    default.tensor_shape.dim.add(size=2)
    default.tensor_shape.dim.add(size=4)
    if encoding == "tensor_content":
        want = np.arange(8, dtype=np.float32).reshape(2, 4) - 3
        default.tensor_content = want.tobytes()
    else:
        default.float_val.extend([0.5, -1.5])  # the rest repeats -1.5
        want = np.array([0.5] + [-1.5] * 7, np.float32).reshape(2, 4)
    (model / "saved_model.pb").write_bytes(saved.SerializeToString())
    with saved_model.load(model) as loaded:
        signature = loaded.signatures["serving_default"]
        np.testing.assert_array_equal(signature()["logits"], signature(x=want)["logits"])
        assert not np.array_equal(signature(x=want + 1)["logits"], signature()["logits"])


def test_mangled_saved_model_pb_raises_op_errors(tmp_path):
    """Truncations and byte flips in saved_model.pb: an opgen error (or a load, when the
    flip hit nothing that matters), never another exception or a crash."""
    model = _copy(tmp_path)
    pb = model / "saved_model.pb"
    original = pb.read_bytes()
    rng = np.random.default_rng(1)
    refused = 0
    for trial in range(40):
        data = bytearray(original)
        if trial % 2:
            data = data[: int(rng.integers(0, len(data)))]
        else:
            for i in rng.integers(0, len(data), size=4):
                data[i] ^= int(rng.integers(1, 256))
        pb.write_bytes(bytes(data))
        try:
            saved_model.load(model).close()
        except errors.OpError:
            refused += 1
    assert refused
