"""Keras text models saved by TensorFlow 2.21 run in opgen with TensorFlow's outputs:
TextVectorization (output_mode "int" with and without a fixed sequence length, bigrams,
"multi_hot", "count", "tf_idf"), a TextVectorization -> Embedding ->
GlobalAveragePooling1D -> Dense classifier, StringLookup and IntegerLookup. The models are
made and run by TensorFlow in a child process ($OPGEN_TF_PYTHON,
tests/fixtures/text_models/make_text_models.py) on inputs with unknown words, empty
strings, punctuation, upper case and UTF-8; opgen loads the SavedModels (tables made by
HashTableV2 / MutableHashTableV2, filled by the init and restore functions) and must give
the same integers exactly and the same floats to 1e-6."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from opgen import saved_model
from opgen.protos import saved_model_pb2
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "text_models" / "make_text_models.py"
MODELS = ["string_lookup", "integer_lookup", "tv_int", "tv_int_ragged_pad", "tv_bigrams",
          "tv_classifier", "tv_multi_hot", "tv_count", "tv_tf_idf"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tf_python()  # skips first when there is no TensorFlow
    out = tmp_path_factory.mktemp("text_models")
    run_tf([SCRIPT, out], cwd=out)
    return out


def _ops_used(path: Path) -> set[str]:
    sm = saved_model_pb2.SavedModel.FromString((path / "saved_model.pb").read_bytes())
    graph = sm.meta_graphs[0].graph_def
    used = {n.op for n in graph.node}
    for f in graph.library.function:
        used |= {n.op for n in f.node_def}
    return used


def _missing_ops(path: Path) -> list[str]:
    from opgen.protos import op_def_pb2
    from opgen.runtime import _lib

    have = {o.name for o in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}
    return sorted(_ops_used(path) - have)


@pytest.mark.parametrize("name", MODELS)
def test_keras_text_model_gives_tensorflows_outputs(exported, name):
    path = exported / name
    missing = _missing_ops(path)
    if missing:
        # DenseBincount/RaggedBincount (the ragged row lengths, multi_hot/count/tf_idf)
        # are another family's kernels; the model runs once the runtime has them.
        pytest.skip(f"this runtime lacks {missing}")
    with np.load(exported / f"{name}_io.npz", allow_pickle=True) as io:
        probe, want = io["in"], io["out"]
    with saved_model.load(path) as model:
        signature = model.meta_graph.signature_def["serving_default"]
        (key,) = signature.inputs
        (got,) = model.signatures["serving_default"](**{key: probe}).values()
    assert got.shape == want.shape and got.dtype == want.dtype
    if np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_lookup_models_need_no_other_family(exported):
    """StringLookup/IntegerLookup graphs use only tables and the save/restore ops, so
    they run whatever other kernel families a build has."""
    for name in ("string_lookup", "integer_lookup"):
        assert _missing_ops(exported / name) == []


def test_tensorflow_freezes_tables_only_as_unfilled_handles(exported):
    """TensorFlow's convert_variables_to_constants_v2 leaves the lookup ops reading a
    table handle the frozen GraphDef never fills: a SavedModel is the format that carries
    a text model's vocabulary (docs/saved_model.md)."""
    report = json.loads((exported / "report.json").read_text())
    assert all("without their initializers" in v or "Error" in v for v in report.values())
