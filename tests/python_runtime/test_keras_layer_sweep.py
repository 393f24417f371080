"""Every common Keras 3 layer, frozen as users freeze models, runs in opgen and gives
TensorFlow's outputs.

tools/keras_layer_sweep.py builds a tiny model around each layer in TensorFlow's
Python (OPGEN_TF_PYTHON, a child process: TensorFlow is never imported here), freezes it,
and records TensorFlow's outputs; this test imports each GraphDef into opgen, runs it
with the session's graph optimizer on, and compares."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import numpy as np
import pytest

import opgen
from tf_reference import run_tf

TOOL = Path(__file__).resolve().parents[2] / "tools" / "keras_layer_sweep.py"

# Cases whose frozen graph needs an op opgen does not have yet: the op named. A case
# that starts to pass must leave this table, so it stays the truth.
KNOWN_GAPS: dict[str, str] = {}

# Ops of the frozen layers that have no gradient in opgen, and why: training does not meet
# them. (Freezing turns Keras' recurrent loops into v1 while loops; a layer trained in
# opgen runs them as While, whose gradient opgen has.)
NO_GRADIENT = {op: "a v1 while loop of the frozen graph: training runs While"
               for op in ("Enter", "Exit", "NextIteration")}

# The layers the sweep must cover (a case that went missing must not pass unnoticed).
LAYERS = {
    "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "SeparableConv1D", "SeparableConv2D", "DepthwiseConv1D", "DepthwiseConv2D",
    "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
    "AveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
    "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
    "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D", "ZeroPadding2D",
    "ZeroPadding3D", "Cropping1D", "Cropping2D", "Cropping3D", "Dense", "EinsumDense",
    "Embedding", "LayerNormalization", "BatchNormalization", "GroupNormalization",
    "UnitNormalization", "RMSNormalization", "Attention", "AdditiveAttention",
    "MultiHeadAttention", "GroupQueryAttention", "LSTM", "GRU", "SimpleRNN",
    "Bidirectional", "ConvLSTM1D", "ConvLSTM2D", "ReLU", "LeakyReLU", "PReLU", "ELU",
    "Softmax", "Activation", "Dropout", "SpatialDropout1D", "GaussianNoise", "Reshape",
    "Flatten", "Permute", "RepeatVector", "Concatenate", "Add", "Subtract", "Multiply",
    "Average", "Maximum", "Minimum", "Dot", "Rescaling", "Normalization", "CenterCrop",
    "Resizing",
}
ACTIVATIONS = {"relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign",
               "gelu", "silu", "mish", "hard_sigmoid", "hard_silu", "log_softmax", "softmax"}
INTERPOLATIONS = {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                  "mitchellcubic"}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("keras_sweep")
    run_tf([TOOL, "--out", out], cwd=out)
    return out, json.loads((out / "manifest.json").read_text())


def _run(folder: Path, name: str) -> str | None:
    """None when opgen gives TensorFlow's outputs, else what went wrong."""
    graph_def = (folder / f"{name}.pb").read_bytes()
    io = np.load(folder / f"{name}_io.npz")
    inputs = [str(n) for n in io["input_names"]]
    outputs = [str(n) for n in io["output_names"]]
    graph = opgen.Graph()
    try:
        with graph.as_default():
            opgen.import_graph_def(graph_def, name="")
        with opgen.Session(graph=graph) as session:
            got = session.run(outputs, {n: io[f"in_{i}"] for i, n in enumerate(inputs)})
    except opgen.errors.OpError as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    for i, value in enumerate(got):
        want = io[f"out_{i}"]
        if value.dtype != want.dtype or value.shape != want.shape:
            return f"output {i}: {value.dtype}{value.shape}, TensorFlow {want.dtype}{want.shape}"
        if want.dtype.kind in "biu":
            if not np.array_equal(value, want):
                return f"output {i}: values differ"
            continue
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
        err = float(np.max(np.abs(value.astype(np.float64) - want))) if want.size else 0.0
        if not err <= 1e-4 * scale:
            return f"output {i}: max error {err:.3g} at scale {scale:.3g}"
    return None


def test_every_layer_freezes_in_tensorflow(sweep):
    _, manifest = sweep
    errors = {name: e["error"] for name, e in manifest.items() if e["error"]}
    assert not errors
    assert {e["layer"] for e in manifest.values()} >= LAYERS
    assert {f"Activation_{a}" for a in ACTIVATIONS} <= set(manifest)
    assert {f"Resizing_{i}" for i in INTERPOLATIONS} <= set(manifest)


def test_every_layer_runs_in_opgen_and_matches_tensorflow(sweep):
    folder, manifest = sweep
    failures = {name: _run(folder, name) for name in manifest}
    failures = {name: why for name, why in failures.items() if why}
    unexpected = {n: w for n, w in failures.items() if n not in KNOWN_GAPS}
    assert not unexpected, "\n".join(f"{n}: {w}" for n, w in unexpected.items())
    for name, op in KNOWN_GAPS.items():
        assert name in failures, f"{name} passes now: remove it from KNOWN_GAPS"
        assert op in failures[name], f"{name}: {failures[name]}"
        assert op in manifest[name]["ops"]


def test_every_layer_can_train_in_opgen(sweep):
    """Each op a layer's frozen graph holds has a gradient in opgen's registry (or is
    declared not differentiable), so Keras models of these layers can train. (A registered
    gradient may still refuse, as ResizeArea's does, TensorFlow having none; the values of
    the 3-D pools' and bicubic resizing's are test_pool3d_training.py's.)"""
    _, manifest = sweep
    from opgen.runtime import _lib
    has_gradient = _lib.lib().OPGEN_HasGradient
    has_gradient.argtypes, has_gradient.restype = [ctypes.c_char_p], ctypes.c_int
    missing = {}
    for name, entry in manifest.items():
        if name in KNOWN_GAPS:  # it cannot run at all yet
            continue
        for op in entry["ops"]:
            if op not in NO_GRADIENT and not has_gradient(op.encode()):
                missing.setdefault(op, []).append(name)
    assert not missing, f"ops without a gradient (op: layers): {missing}"
    for op in ("MaxPool3D", "AvgPool3D", "ResizeBicubic"):
        assert any(op in e["ops"] for e in manifest.values()), op
