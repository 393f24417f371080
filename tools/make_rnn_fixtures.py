"""Writes the frozen recurrent models that tests/python_runtime/test_rnn_models.py runs.

A Keras LSTM and GRU (16 units) on an input of shape [1, 8, 4], each wrapped in a
``tf.function`` with an input signature and frozen with
``convert_variables_to_constants_v2``, which lowers the layer's While loop to v1 control
flow (Enter, Merge, Switch, LoopCond, NextIteration, Exit) over TensorLists. Written as

    tests/fixtures/rnn_models/<name>.pb      the frozen GraphDef (binary)
    tests/fixtures/rnn_models/<name>_io.npz  input, output (TensorFlow's, from a TF1
                                             session on the frozen graph), input_name,
                                             output_name, ops (the node types)

Remake them with TensorFlow installed (the repository's tests never need it):

    /work/tfvenv/bin/python tools/make_rnn_fixtures.py [--out tests/fixtures/rnn_models]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "rnn_models"
SEED = 20261127
INPUT_SHAPE = (1, 8, 4)

# name -> (layer class, return_sequences)
MODELS = {"lstm": ("LSTM", True), "gru": ("GRU", False)}


def build(layer_name: str, return_sequences: bool):
    layer = getattr(tf.keras.layers, layer_name)(16, return_sequences=return_sequences)
    model = tf.keras.Sequential([tf.keras.Input(INPUT_SHAPE[1:], batch_size=INPUT_SHAPE[0]), layer])

    @tf.function(input_signature=[tf.TensorSpec(INPUT_SHAPE, tf.float32, name="x")])
    def forward(x):
        return model(x)

    return forward


def freeze(forward):
    """The frozen GraphDef of a tf.function, with its input and output tensor names."""
    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    (inp,) = [t for t in frozen.inputs if t.dtype != tf.resource]
    (out,) = frozen.outputs
    return graph_def, inp.name, out.name


def run_in_tf1_session(graph_def, input_name: str, output_name: str, sample: np.ndarray):
    """TensorFlow's own result for the frozen graph, run as opgen will run it."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(output_name, {input_name: sample})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for index, (name, (layer, return_sequences)) in enumerate(sorted(MODELS.items())):
        tf.keras.utils.set_random_seed(SEED + index)
        forward = build(layer, return_sequences)
        sample = np.random.default_rng(SEED + index).normal(size=INPUT_SHAPE).astype(np.float32)
        graph_def, input_name, output_name = freeze(forward)
        expected = run_in_tf1_session(graph_def, input_name, output_name, sample)
        np.testing.assert_allclose(expected, forward(sample).numpy(), rtol=1e-5, atol=1e-6)
        ops = sorted({node.op for node in graph_def.node})
        (args.out / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
        np.savez(args.out / f"{name}_io.npz", input=sample, output=expected,
                 input_name=np.array(input_name), output_name=np.array(output_name),
                 ops=np.array(ops))
        print(f"{name}: {len(graph_def.node)} nodes ({', '.join(ops)}); "
              f"{input_name} {sample.shape} -> {output_name} {expected.shape}")
        placeholders = [n.name for n in graph_def.node if n.op == "Placeholder"]
        print(f"  placeholders: {placeholders}")


if __name__ == "__main__":
    main()
