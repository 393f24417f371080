"""The model families people freeze from Keras and tf.function code
(tests/fixtures/tf_models/families, made by tools/make_model_fixtures.py) import into
opgen and give TensorFlow's recorded outputs, with the session's graph optimizer on and
off; the optimized run also agrees with the unoptimized one to float rounding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_models" / "families"
FAMILIES = sorted(p.name[:-3] for p in FIXTURES.glob("*.pb"))


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


class Fixture:
    def __init__(self, name: str):
        self.name = name
        self.graph_def = (FIXTURES / f"{name}.pb").read_bytes()
        io = np.load(FIXTURES / f"{name}_io.npz")
        self.input_names = [str(n) for n in io["input_names"]]
        self.output_names = [str(n) for n in io["output_names"]]
        self.inputs = [io[f"in_{i}"] for i in range(len(self.input_names))]
        self.expected = [io[f"out_{i}"] for i in range(len(self.output_names))]

    def run(self, optimize: bool) -> list[np.ndarray]:
        graph = opgen.Graph()
        with graph.as_default():
            opgen.import_graph_def(self.graph_def, name="")
        options = opgen.SessionOptions(optimize=optimize)
        with opgen.Session(graph=graph, options=options) as session:
            return session.run(self.output_names, dict(zip(self.input_names, self.inputs)))


def assert_close(got: np.ndarray, want: np.ndarray, what: str, rel: float = 1e-4):
    """Equal dtype and shape; values within `rel` of the largest magnitude (exact for
    integers and booleans)."""
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, TensorFlow {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, TensorFlow {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=0, atol=rel * max(scale, 1e-30), err_msg=what)


@pytest.fixture(scope="module", params=FAMILIES)
def family(request) -> Fixture:
    return Fixture(request.param)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
def test_family_gives_tensorflows_outputs(family, optimize):
    got = family.run(optimize)
    assert len(got) == len(family.expected)
    for name, g, want in zip(family.output_names, got, family.expected):
        assert_close(g, want, f"{family.name} {name} (optimize={optimize})")


def test_optimized_agrees_with_unoptimized(family):
    optimized, plain = family.run(True), family.run(False)
    for name, a, b in zip(family.output_names, optimized, plain):
        assert_close(a, b, f"{family.name} {name}: optimized vs unoptimized", rel=2e-5)


def test_recurrent_families_hold_lowered_loops_over_tensor_lists():
    """Freezing lowers Keras' While to v1 control flow over TensorLists: the executor's
    frames are what these fixtures exercise."""
    from opgen.protos import graph_pb2
    for name in ("lstm", "gru"):
        ops = {n.op for n in graph_pb2.GraphDef.FromString(Fixture(name).graph_def).node}
        assert {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit",
                "TensorListReserve", "TensorListGetItem", "TensorListSetItem",
                "TensorListStack"} <= ops


def test_a_recurrent_model_reads_its_input_on_every_run():
    lstm = Fixture("lstm")
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(lstm.graph_def, name="")
    with opgen.Session(graph=graph) as session:
        feeds = dict(zip(lstm.input_names, lstm.inputs))
        for run in range(2):  # the second run reuses the plan
            got = session.run(lstm.output_names, feeds)
            assert_close(got[0], lstm.expected[0], f"lstm, run {run}")
        other = session.run(lstm.output_names, {k: -0.5 * v for k, v in feeds.items()})
        assert not np.allclose(other[0], lstm.expected[0])


def test_every_family_is_present():
    """The fixture list is what tools/make_model_fixtures.py makes: a family whose
    files went missing must not pass by being skipped."""
    assert set(FAMILIES) >= {
        "resnet", "mobilenetv2", "efficientnet", "densenet", "transformer",
        "attention_masked", "lstm", "gru", "conv1d_text", "unet", "image_ops",
        "detection_head", "mobilenetv3small", "convnext", "efficientnetv2", "regnet",
        "inception", "resnetv2", "nasnet", "vgg", "bilstm", "mha_einsum", "bert",
        "preprocessing"}


def _ops(graph_def) -> set:
    """The op types of a GraphDef's nodes and of its library's functions."""
    ops = {n.op for n in graph_def.node}
    for function in graph_def.library.function:
        ops |= {n.op for n in function.node_def}
    return ops


def test_families_hold_the_patterns_they_were_added_for():
    """Keras writes a grouped Conv2D (RegNet, ConvNeXt) as an XLA-marked function call
    whose Conv2D filter has fewer in-channels than its input; a Bidirectional layer's
    backward pass reverses the sequence; MultiHeadAttention's masked softmax checks for
    infinities; exact GELU is Erfc."""
    from opgen.protos import graph_pb2
    wanted = {"regnet": {"StatefulPartitionedCall", "Conv2D"},
              "convnext": {"StatefulPartitionedCall", "Erfc", "DepthwiseConv2dNative"},
              "bilstm": {"ReverseV2", "TensorListStack"},
              "mha_einsum": {"IsFinite", "Einsum", "BatchMatMulV2"},
              "bert": {"Erfc", "Einsum", "BatchMatMulV2", "GatherV2"},
              "inception": {"AvgPool", "ConcatV2", "DepthwiseConv2dNative"},
              "preprocessing": {"ResizeBilinear", "ResizeNearestNeighbor"}}
    for name, ops in wanted.items():
        graph_def = graph_pb2.GraphDef.FromString(Fixture(name).graph_def)
        assert ops <= _ops(graph_def), f"{name}: {sorted(ops - _ops(graph_def))}"
        if name == "regnet":
            grouped = [n for f in graph_def.library.function for n in f.node_def
                       if n.op == "Conv2D"]
            assert grouped, "regnet: no Conv2D inside a function"


DEPTHWISE_FAMILIES = ["mobilenetv2", "mobilenetv3small", "efficientnet", "efficientnetv2",
                      "nasnet"]

_ISA_SCRIPT = """
import sys
import numpy as np
import opgen
from opgen.protos import graph_pb2
name, folder, out = sys.argv[1:]
io = np.load(f"{folder}/{name}_io.npz")
inputs = [str(n) for n in io["input_names"]]
outputs = [str(n) for n in io["output_names"]]
graph_def = open(f"{folder}/{name}.pb", "rb").read()
graph = opgen.Graph()
with graph.as_default():
    opgen.import_graph_def(graph_def, name="")
feeds = {n: io[f"in_{i}"] for i, n in enumerate(inputs)}
with opgen.Session(graph=graph) as session:
    got = session.run(outputs, feeds)
    ops = sorted({n.op for n in session.optimized_graph_def(outputs, inputs).node})
np.savez(out, *got, ops=np.array(ops))
"""


@pytest.mark.parametrize("isa", ["avx2", "portable"])
@pytest.mark.parametrize("name", DEPTHWISE_FAMILIES)
def test_depthwise_families_on_each_isa(name, isa, tmp_path):
    """The depthwise models through the fused depthwise kernel (and the convolutions)
    with each narrower vector path picked (OPGEN_CPU_ISA caps it at load, so each runs in
    its own process): TensorFlow's recorded outputs, and the fused op in the graph."""
    import os
    import subprocess
    import sys
    out = tmp_path / "out.npz"
    subprocess.run([sys.executable, "-c", _ISA_SCRIPT, name, str(FIXTURES), str(out)],
                   check=True, cwd=tmp_path, env=dict(os.environ, OPGEN_CPU_ISA=isa))
    fixture = Fixture(name)
    got = np.load(out)
    for i, (output, want) in enumerate(zip(fixture.output_names, fixture.expected)):
        assert_close(got[f"arr_{i}"], want, f"{name} {output} ({isa})")
    if name != "nasnet":  # NASNet's depthwise layers feed a 1x1 convolution directly
        assert "_OpgenFusedDepthwiseConv2dNative" in set(got["ops"])
