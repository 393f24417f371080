"""Writes the frozen TensorFlow models that tests/python_runtime/test_frozen_models.py runs.

Each model is built as a ``tf.function`` over ``tf.Variable`` weights drawn from a
seeded generator, frozen with ``convert_variables_to_constants_v2`` (the way a
TensorFlow 2 user freezes a model), and written as

    tests/fixtures/tf_models/<name>.pb      the frozen GraphDef (binary)
    tests/fixtures/tf_models/<name>_io.npz  input:        a random input (float32)
                                            output:       TensorFlow's output for it
                                            input_name:   e.g. "x:0"
                                            output_name:  e.g. "Identity:0"

Remake them with TensorFlow installed (the repository's tests never need it):

    $OPGEN_TF_PYTHON tools/make_tf_fixtures.py [--out tests/fixtures/tf_models]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "tf_models"
SEED = 20261122


def _weights(rng: np.random.Generator, *shape: int) -> tf.Variable:
    fan_in = int(np.prod(shape[:-1]))
    values = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=shape).astype(np.float32)
    return tf.Variable(values)


def mlp(rng: np.random.Generator):
    """16 -> 32 (relu) -> 10 (softmax), batch 4."""
    w1, b1 = _weights(rng, 16, 32), _weights(rng, 32)
    w2, b2 = _weights(rng, 32, 10), _weights(rng, 10)

    @tf.function(input_signature=[tf.TensorSpec([4, 16], tf.float32, name="x")])
    def forward(x):
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        return tf.nn.softmax(tf.matmul(hidden, w2) + b2, name="probs")

    sample = rng.normal(size=(4, 16)).astype(np.float32)
    return forward, sample


def cnn(rng: np.random.Generator):
    """NHWC 2x8x8x3 -> Conv2D 3x3x8 SAME + BiasAdd + Relu -> MaxPool 2x2 -> Reshape
    -> MatMul 128x10 + bias -> Softmax."""
    kernel, conv_bias = _weights(rng, 3, 3, 3, 8), _weights(rng, 8)
    dense, dense_bias = _weights(rng, 4 * 4 * 8, 10), _weights(rng, 10)

    @tf.function(input_signature=[tf.TensorSpec([2, 8, 8, 3], tf.float32, name="image")])
    def forward(image):
        conv = tf.nn.conv2d(image, kernel, strides=[1, 1, 1, 1], padding="SAME")
        features = tf.nn.relu(tf.nn.bias_add(conv, conv_bias))
        pooled = tf.nn.max_pool2d(features, ksize=2, strides=2, padding="VALID")
        flat = tf.reshape(pooled, [2, 4 * 4 * 8])
        return tf.nn.softmax(tf.matmul(flat, dense) + dense_bias, name="probs")

    sample = rng.normal(size=(2, 8, 8, 3)).astype(np.float32)
    return forward, sample


MODELS = {"mlp": mlp, "cnn": cnn}


def freeze(forward):
    """The frozen GraphDef of a tf.function, with its input and output tensor names."""
    concrete = forward.get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete)
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
    for index, (name, build) in enumerate(sorted(MODELS.items())):
        rng = np.random.default_rng(SEED + index)
        forward, sample = build(rng)
        graph_def, input_name, output_name = freeze(forward)
        expected = run_in_tf1_session(graph_def, input_name, output_name, sample)
        np.testing.assert_allclose(expected, forward(sample).numpy(), rtol=1e-6)
        (args.out / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
        np.savez(args.out / f"{name}_io.npz", input=sample, output=expected,
                 input_name=np.array(input_name), output_name=np.array(output_name))
        ops = sorted({node.op for node in graph_def.node})
        print(f"{name}: {len(graph_def.node)} nodes ({', '.join(ops)}); "
              f"{input_name} {sample.shape} -> {output_name} {expected.shape}")


if __name__ == "__main__":
    main()
