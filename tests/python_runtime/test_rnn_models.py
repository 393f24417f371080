"""Frozen Keras LSTM and GRU models (tests/fixtures/rnn_models, made by
tools/make_rnn_fixtures.py with TensorFlow 2.21): their While loops, lowered to v1
control flow over TensorLists, run in opgen's session and give TensorFlow's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2, op_def_pb2

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rnn_models"


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def registered_ops() -> set[str]:
    from opgen.runtime import _lib
    return {op.name for op in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}


@pytest.fixture(params=["lstm", "gru"])
def model(request):
    name = request.param
    graph_def = (FIXTURES / f"{name}.pb").read_bytes()
    io = np.load(FIXTURES / f"{name}_io.npz")
    needed = {n.op for n in graph_def_nodes(graph_def)}
    missing = sorted(needed - registered_ops())
    if missing:  # other array ops arrive from other branches; say which
        pytest.skip(f"{name} needs ops this runtime lacks: {', '.join(missing)}")
    return name, graph_def, io


def graph_def_nodes(data: bytes):
    return graph_pb2.GraphDef.FromString(data).node


def test_the_fixtures_hold_lowered_loops_over_tensor_lists():
    for name in ["lstm", "gru"]:
        ops = {n.op for n in graph_def_nodes((FIXTURES / f"{name}.pb").read_bytes())}
        assert {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit",
                "TensorListReserve", "TensorListGetItem", "TensorListSetItem",
                "TensorListStack"} <= ops
        assert (FIXTURES / f"{name}.pb").stat().st_size < 1_000_000


def test_frozen_rnns_give_tensorflows_outputs(model):
    name, graph_def, io = model
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(graph_def, name="")
    expected = io["output"]
    with opgen.Session(graph=graph) as session:
        for _ in range(2):  # a second run reuses the plan
            got = session.run(str(io["output_name"]), {str(io["input_name"]): io["input"]})
            assert got.shape == expected.shape and got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4 * np.abs(expected).max())
        # another input gives another output: the loop really reads it
        other = session.run(str(io["output_name"]), {str(io["input_name"]): io["input"] * -0.5})
        assert not np.allclose(other, expected)
