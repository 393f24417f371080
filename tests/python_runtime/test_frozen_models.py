"""Frozen TensorFlow models (tests/fixtures/tf_models, made by tools/make_tf_fixtures.py)
imported with opgen.import_graph_def and run with opgen.Session give TensorFlow's
recorded outputs; exporting and re-importing them changes nothing."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2
from opgen.runtime import errors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_models"
MODELS = ["mlp", "cnn"]


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


class Model:
    def __init__(self, name: str):
        self.graph_def_bytes = (FIXTURES / f"{name}.pb").read_bytes()
        io = np.load(FIXTURES / f"{name}_io.npz")
        self.input, self.expected = io["input"], io["output"]
        self.input_name, self.output_name = str(io["input_name"]), str(io["output_name"])


@pytest.fixture(params=MODELS)
def model(request) -> Model:
    return Model(request.param)


def assert_matches_tensorflow(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_imported_models_give_tensorflows_outputs(model):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(model.graph_def_bytes, name="")
    with opgen.Session(graph=graph) as session:
        got = session.run(model.output_name, {model.input_name: model.input})
    assert_matches_tensorflow(got, model.expected)


def test_feeds_by_output_and_fetches_of_structures(model):
    graph = opgen.Graph()
    with graph.as_default():
        output, = opgen.import_graph_def(graph_pb2.GraphDef.FromString(model.graph_def_bytes),
                                         return_elements=[model.output_name])
    inp = graph.get_tensor_by_name("import/" + model.input_name)
    assert inp.op.type == "Placeholder" and inp.dtype == opgen.float32
    assert inp.shape == model.input.shape
    with opgen.Session(graph=graph) as session:
        results = session.run({"probs": [output], "again": output}, {inp: model.input})
    assert_matches_tensorflow(results["probs"][0], model.expected)
    assert_matches_tensorflow(results["again"], model.expected)
    np.testing.assert_allclose(results["probs"][0].sum(axis=-1), 1.0, rtol=1e-5)


def test_export_parse_and_reimport_give_the_same_results(model):
    first = opgen.Graph()
    with first.as_default():
        opgen.import_graph_def(model.graph_def_bytes, name="")
    exported = first.as_graph_def()
    reparsed = graph_pb2.GraphDef.FromString(exported.SerializeToString())
    original = graph_pb2.GraphDef.FromString(model.graph_def_bytes)
    # The same nodes with the same inputs (an import may add them in another
    # topological order).
    assert sorted((n.name, n.op, list(n.input)) for n in reparsed.node) == \
        sorted((n.name, n.op, list(n.input)) for n in original.node)
    second = opgen.Graph()
    with second.as_default():
        opgen.import_graph_def(reparsed, name="")
    with opgen.Session(graph=second) as session:
        got = session.run(model.output_name, {model.input_name: model.input})
    assert_matches_tensorflow(got, model.expected)


def test_import_with_a_prefix_and_an_input_map(model):
    graph = opgen.Graph()
    with graph.as_default():
        outer = graph.create_op("Placeholder", [], {"dtype": opgen.float32,
                                                    "shape": list(model.input.shape)},
                                name="outer_input").outputs[0]
        # Feed the model twice the outer input: Identity -> AddV2(x, x).
        doubled = graph.create_op("AddV2", [outer, outer], name="doubled").outputs[0]
        probs, = opgen.import_graph_def(model.graph_def_bytes, input_map={model.input_name: doubled},
                                        return_elements=[model.output_name], name="net")
    assert probs.name == "net/" + model.output_name
    half = model.input / np.float32(2)
    with opgen.Session(graph=graph) as session:
        got = session.run(probs, {"outer_input:0": half})
    assert_matches_tensorflow(got, model.expected)


def test_wrong_feeds_raise_invalid_argument(model):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(model.graph_def_bytes, name="")
    with opgen.Session(graph=graph) as session:
        with pytest.raises(errors.InvalidArgumentError):
            session.run(model.output_name, {model.input_name: model.input.astype(np.complex64)})
        with pytest.raises(errors.InvalidArgumentError):
            session.run(model.output_name, {model.input_name: model.input[:1]})
        with pytest.raises(errors.InvalidArgumentError):
            session.run(model.output_name, {model.input_name: model.input > 0})


def test_one_session_serves_many_threads(model):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(model.graph_def_bytes, name="")
    session = opgen.Session(graph=graph)
    # Each thread feeds the recorded input scaled by 1 (TensorFlow's answer) or by a
    # factor whose answer the first run gives, and checks every result.
    inputs = [model.input * np.float32(scale) for scale in (1.0, 0.5, -1.0, 2.0)]
    expected = [session.run(model.output_name, {model.input_name: x}) for x in inputs]
    assert_matches_tensorflow(expected[0], model.expected)
    failures = []

    def worker(index):
        for step in range(25):
            which = (index + step) % len(inputs)
            got = session.run(model.output_name, {model.input_name: inputs[which]})
            if not np.allclose(got, expected[which], rtol=1e-6, atol=0):
                failures.append((index, step))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    session.close()
    assert not failures


@pytest.mark.tensorflow
def test_tensorflows_own_graph_def_message_is_accepted(model):
    tf = pytest.importorskip("tensorflow")
    graph_def = tf.compat.v1.GraphDef.FromString(model.graph_def_bytes)
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(graph_def, name="tf")
    with opgen.Session(graph=graph) as session:
        got = session.run("tf/" + model.output_name, {"tf/" + model.input_name: model.input})
    assert_matches_tensorflow(got, model.expected)


@pytest.mark.tensorflow
def test_tensorflow_runs_the_graph_def_opgen_exports(model):
    tf = pytest.importorskip("tensorflow")
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(model.graph_def_bytes, name="")
    exported = graph.as_graph_def().SerializeToString()
    tf_graph = tf.Graph()
    with tf_graph.as_default():
        tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString(exported), name="")
    with tf.compat.v1.Session(graph=tf_graph) as session:
        got = session.run(model.output_name, {model.input_name: model.input})
    assert_matches_tensorflow(got, model.expected)
