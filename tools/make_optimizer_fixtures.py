"""Writes the frozen Keras models that tests/python_runtime/test_graph_optimizer.py runs
with and without the session's graph optimizer.

Each model is a small Keras model with the layer patterns the optimizer rewrites
(Conv2D + BatchNormalization + ReLU with a residual Add, Conv2D + bias + ReLU6,
Dense + GELU in both forms, Dense + swish, convolutions with ELU / LeakyReLU / sigmoid
/ tanh), frozen with ``convert_variables_to_constants_v2`` as a TensorFlow 2 user
freezes one, and written as

    tests/fixtures/tf_models/opt_<name>.pb      the frozen GraphDef (binary)
    tests/fixtures/tf_models/opt_<name>_io.npz  input, output (TensorFlow's), input_name,
                                                output_name

Remake them with TensorFlow installed (the repository's tests never need it):

    $OPGEN_TF_PYTHON tools/make_optimizer_fixtures.py [--out DIR]
    $OPGEN_TF_PYTHON tools/make_optimizer_fixtures.py --resnet50 /tmp/resnet50.pb

The second form freezes a full-size Keras ResNet50 (random weights, batch 1, 224x224),
for benchmarks/bench_optimizer.py; it is too large to commit.
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

keras = tf.keras
layers = keras.layers

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "tf_models"
SEED = 20261127


def _randomize_batchnorm(model, rng):
    """Non-trivial BatchNorm statistics, so folding them is really tested."""
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            c = layer.gamma.shape[0]
            layer.gamma.assign(rng.uniform(0.5, 1.5, c).astype(np.float32))
            layer.beta.assign(rng.normal(0, 0.2, c).astype(np.float32))
            layer.moving_mean.assign(rng.normal(0, 0.3, c).astype(np.float32))
            layer.moving_variance.assign(rng.uniform(0.5, 2.0, c).astype(np.float32))


def resnet_block():
    """Conv(no bias) + BN + ReLU, Conv + BN, a 1x1 projection + BN, Add, ReLU, and a
    Conv2D + bias + ReLU6 head with global pooling and a Dense softmax."""
    x = keras.Input((12, 12, 3), batch_size=2, name="image")
    y = layers.Conv2D(8, 3, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization(epsilon=1.001e-5)(y)
    y = layers.Activation("relu")(y)
    y = layers.Conv2D(8, 3, padding="same")(y)
    y = layers.BatchNormalization()(y)
    shortcut = layers.Conv2D(8, 1)(x)
    shortcut = layers.BatchNormalization()(shortcut)
    y = layers.Activation("relu")(layers.Add()([y, shortcut]))
    y = layers.Conv2D(6, 3, strides=2, activation="relu6")(y)
    y = layers.GlobalAveragePooling2D()(y)
    y = layers.Dense(5, activation="softmax")(y)
    return keras.Model(x, y), (2, 12, 12, 3)


def dense_activations():
    """Dense layers with gelu (exact), gelu (tanh form), swish, elu, sigmoid, tanh."""
    x = keras.Input((16,), batch_size=3, name="x")
    y = layers.Dense(24, activation="gelu")(x)
    y = layers.Dense(20, activation=lambda t: keras.activations.gelu(t, approximate=True))(y)
    y = layers.Dense(18, activation="swish")(y)
    y = layers.Dense(16, activation="elu")(y)
    y = layers.Dense(14, activation="sigmoid")(y)
    y = layers.Dense(12, activation="tanh")(y)
    y = layers.Dense(4)(y)
    return keras.Model(x, y), (3, 16)


def conv_activations():
    """Convolutions with leaky_relu, elu, sigmoid, tanh, a Dense-free head."""
    x = keras.Input((10, 10, 4), batch_size=1, name="image")
    y = layers.Conv2D(6, 3, padding="same")(x)
    y = layers.LeakyReLU(negative_slope=0.1)(y)
    y = layers.Conv2D(6, 3, padding="same", activation="elu")(y)
    y = layers.Conv2D(6, 3, padding="valid", activation="sigmoid")(y)
    y = layers.Conv2D(6, 1, activation="tanh")(y)
    y = layers.Conv2D(5, 3, strides=2, padding="same", activation="swish")(y)
    return keras.Model(x, y), (1, 10, 10, 4)


MODELS = {"resnet_block": resnet_block, "dense_activations": dense_activations,
          "conv_activations": conv_activations}


def freeze(model, shape):
    """The frozen GraphDef of a Keras model called in inference mode."""
    spec = tf.TensorSpec(shape, tf.float32, name=model.inputs[0].name.split(":")[0])

    @tf.function(input_signature=[spec])
    def forward(x):
        return model(x, training=False)

    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    (inp,) = [t for t in frozen.inputs if t.dtype != tf.resource]
    (out,) = frozen.outputs
    return graph_def, inp.name, out.name


def run_in_tf1_session(graph_def, input_name: str, output_name: str, sample: np.ndarray):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(output_name, {input_name: sample})


def write_resnet50(path: Path) -> None:
    """A full-size Keras ResNet50 (random weights), frozen, batch 1, 224x224x3."""
    tf.keras.utils.set_random_seed(SEED)
    model = keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3))
    _randomize_batchnorm(model, np.random.default_rng(SEED))
    graph_def, input_name, output_name = freeze(model, (1, 224, 224, 3))
    path.write_bytes(graph_def.SerializeToString(deterministic=True))
    print(f"{path}: {len(graph_def.node)} nodes; {input_name} -> {output_name}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--resnet50", type=Path, default=None,
                        help="write only a frozen full-size ResNet50 to this path")
    args = parser.parse_args(argv)
    if args.resnet50 is not None:
        write_resnet50(args.resnet50)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    for index, (name, build) in enumerate(sorted(MODELS.items())):
        tf.keras.utils.set_random_seed(SEED + index)
        rng = np.random.default_rng(SEED + index)
        model, shape = build()
        _randomize_batchnorm(model, rng)
        sample = rng.normal(size=shape).astype(np.float32)
        graph_def, input_name, output_name = freeze(model, shape)
        expected = run_in_tf1_session(graph_def, input_name, output_name, sample)
        np.testing.assert_allclose(expected, model(sample, training=False).numpy(),
                                   rtol=1e-5, atol=1e-6)
        (args.out / f"opt_{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
        np.savez(args.out / f"opt_{name}_io.npz", input=sample, output=expected,
                 input_name=np.array(input_name), output_name=np.array(output_name))
        ops = sorted({node.op for node in graph_def.node})
        print(f"opt_{name}: {len(graph_def.node)} nodes ({', '.join(ops)}); "
              f"{input_name} {sample.shape} -> {output_name} {expected.shape}")


if __name__ == "__main__":
    main()
