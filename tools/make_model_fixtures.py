"""Writes the model-family fixtures that tests/python_runtime/test_model_families.py runs:
graphs frozen by TensorFlow from the layers real models use (Keras applications and
layers, and tf.function code written the way users write it).

Each model is frozen with ``convert_variables_to_constants_v2`` (which also lowers
functional control flow to TensorFlow's v1 Switch/Merge/Enter/Exit loops, as a user's
frozen LSTM has them) and written as

    tests/fixtures/tf_models/families/<name>.pb       the frozen GraphDef (binary)
    tests/fixtures/tf_models/families/<name>_io.npz   input_names, output_names (str arrays),
                                                      in_<i> / out_<i>: inputs and TF's outputs

Widths and inputs are small so each file stays well under 2 MB; ``--full DIR`` instead
writes the full-size Keras applications (ResNet50, MobileNetV2, EfficientNetB0,
DenseNet121 at 224x224, random weights) that benchmarks/bench_models.py times.

    /work/tfvenv/bin/python tools/make_model_fixtures.py [--out DIR] [--only NAME ...]
    /work/tfvenv/bin/python tools/make_model_fixtures.py --full /tmp/opgen-models
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2,
)

import keras  # noqa: E402
from keras import layers  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "tf_models" / "families"
SEED = 20261127


# --- freezing -------------------------------------------------------------------------

def freeze_function(fn, specs):
    """The frozen GraphDef of ``fn`` over ``specs`` with its input and output names."""
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete)
    inputs = [t.name for t in frozen.inputs if t.dtype != tf.resource]
    outputs = [t.name for t in frozen.outputs]
    return frozen.graph.as_graph_def(), inputs, outputs


def freeze_keras(model, shapes, dtypes=None):
    dtypes = dtypes or [tf.float32] * len(shapes)
    names = [f"x{i}" if len(shapes) > 1 else "x" for i in range(len(shapes))]
    specs = [tf.TensorSpec(s, d, name=n) for s, d, n in zip(shapes, dtypes, names)]
    if len(specs) == 1:
        return freeze_function(lambda x: model(x, training=False), specs)
    return freeze_function(lambda *xs: model(list(xs), training=False), specs)


def run_in_tf1_session(graph_def, input_names, output_names, inputs):
    """TensorFlow's own result for the frozen graph, run as opgen runs it."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(output_names, dict(zip(input_names, inputs)))


def randomize_weights(model, rng):
    """Keras initialises BatchNorm to the identity; real models' statistics are not."""
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape).astype(np.float32),
                               rng.normal(0, 0.1, beta.shape).astype(np.float32),
                               rng.normal(0, 0.1, mean.shape).astype(np.float32),
                               rng.uniform(0.5, 1.5, var.shape).astype(np.float32)])
    return model


# --- the families (small) -------------------------------------------------------------

def conv_bn(x, filters, kernel, strides=1, activation="relu", name=None):
    x = layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization(epsilon=1.001e-5)(x)
    return layers.Activation(activation)(x) if activation else x


def resnet(rng):
    """ResNet50's stem and bottleneck blocks (projection and identity shortcuts)."""
    inp = keras.Input((32, 32, 3))
    x = layers.ZeroPadding2D(3)(inp)
    x = layers.Conv2D(16, 7, strides=2)(x)
    x = layers.BatchNormalization(epsilon=1.001e-5)(x)
    x = layers.Activation("relu")(x)
    x = layers.ZeroPadding2D(1)(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    for filters, stride, project in ((8, 1, True), (8, 1, False), (16, 2, True)):
        shortcut = conv_bn(x, 4 * filters, 1, stride, None) if project else x
        y = conv_bn(x, filters, 1, stride)
        y = conv_bn(y, filters, 3)
        y = conv_bn(y, 4 * filters, 1, activation=None)
        x = layers.Activation("relu")(layers.Add()([shortcut, y]))
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def mobilenetv2(rng):
    """Keras' own MobileNetV2 (alpha 0.35): depthwise convolutions, ReLU6, inverted
    residuals."""
    model = keras.applications.MobileNetV2(alpha=0.35, input_shape=(32, 32, 3), weights=None,
                                           classes=10)
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def efficientnet(rng):
    """EfficientNet's MBConv blocks: swish (IdentityN in the frozen graph), depthwise
    convolutions, squeeze-and-excitation, and its Rescaling + Normalization input."""
    inp = keras.Input((32, 32, 3))
    norm = layers.Normalization(axis=-1, mean=[0.485, 0.456, 0.406], variance=[0.05, 0.05, 0.05])
    x = norm(layers.Rescaling(1.0 / 255.0)(inp))
    x = layers.ZeroPadding2D(1)(x)
    x = conv_bn(x, 16, 3, 2, "swish")
    for expand, filters, kernel, stride in ((1, 8, 3, 1), (4, 12, 3, 2), (4, 12, 5, 1)):
        inputs = x
        channels = x.shape[-1]
        if expand != 1:
            x = conv_bn(x, channels * expand, 1, activation="swish")
        if stride == 2:
            x = layers.ZeroPadding2D(kernel // 2)(x)
        x = layers.DepthwiseConv2D(kernel, strides=stride,
                                   padding="valid" if stride == 2 else "same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("swish")(x)
        se = layers.GlobalAveragePooling2D(keepdims=True)(x)
        se = layers.Conv2D(max(1, channels // 4), 1, activation="swish")(se)
        se = layers.Conv2D(x.shape[-1], 1, activation="sigmoid")(se)
        x = layers.Multiply()([x, se])
        x = conv_bn(x, filters, 1, activation=None)
        if stride == 1 and channels == filters:
            x = layers.Dropout(0.2)(x)
            x = layers.Add()([x, inputs])
    x = conv_bn(x, 64, 1, activation="swish")
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def densenet(rng):
    """DenseNet's dense blocks (concatenation) and transitions (average pooling)."""
    inp = keras.Input((32, 32, 3))
    x = layers.ZeroPadding2D(3)(inp)
    x = conv_bn(x, 16, 7, 2)
    x = layers.ZeroPadding2D(1)(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    for block in range(2):
        for _ in range(3):
            y = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(x))
            y = layers.Conv2D(16, 1, use_bias=False)(y)
            y = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(y))
            y = layers.Conv2D(8, 3, padding="same", use_bias=False)(y)
            x = layers.Concatenate()([x, y])
        if block == 0:
            x = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(x))
            x = layers.Conv2D(x.shape[-1] // 2, 1, use_bias=False)(x)
            x = layers.AveragePooling2D(2, strides=2)(x)
    x = layers.GlobalAveragePooling2D()(layers.BatchNormalization()(x))
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def transformer(rng):
    """A Transformer encoder block: MultiHeadAttention (Einsum), LayerNormalization,
    a GELU feed-forward (Erfc), as Keras builds them."""
    inp = keras.Input((16, 32))
    attention = layers.MultiHeadAttention(num_heads=4, key_dim=8)(inp, inp)
    x = layers.LayerNormalization(epsilon=1e-6)(inp + attention)
    ff = layers.Dense(64, activation="gelu")(x)
    ff = layers.Dense(32)(ff)
    model = keras.Model(inp, layers.LayerNormalization(epsilon=1e-6)(x + ff))
    return model, [(2, 16, 32)]


def attention_masked(rng):
    """Self-attention with a padding mask and a causal mask, tanh-GELU, sinusoidal
    positions, over an embedding of token ids: Keras layers called from tf.function
    code, with two inputs (ids and mask)."""
    embed = layers.Embedding(50, 16)
    attention = layers.MultiHeadAttention(num_heads=2, key_dim=8)
    norm = layers.LayerNormalization()
    dense = layers.Dense(32, activation=lambda t: keras.activations.gelu(t, approximate=True))
    head = layers.Dense(4)

    def forward(ids, mask):
        x = embed(ids)
        angles = tf.cast(tf.range(12), tf.float32)[tf.newaxis, :, tf.newaxis] / 10.0
        x = x + tf.concat([tf.sin(angles), tf.cos(angles)], -1)[..., :1]
        pad = tf.cast(mask, tf.bool)[:, tf.newaxis, :]
        x = norm(x + attention(x, x, attention_mask=pad, use_causal_mask=True))
        return head(tf.reduce_mean(dense(x), axis=1))

    forward(tf.zeros((2, 12), tf.int32), tf.ones((2, 12), tf.int32))  # build the weights
    return forward, [(2, 12), (2, 12)], [tf.int32, tf.int32]


def lstm(rng):
    inp = keras.Input((8, 4))
    x = layers.LSTM(16, return_sequences=True)(inp)
    model = keras.Model(inp, layers.Dense(3)(x))
    return model, [(2, 8, 4)]


def gru(rng):
    inp = keras.Input((8, 4))
    model = keras.Model(inp, layers.GRU(16)(inp))
    return model, [(2, 8, 4)]


def conv1d_text(rng):
    """A Conv1D text classifier: embedding, convolutions over time, global max pooling."""
    ids = keras.Input((20,), dtype="int32")
    x = layers.Embedding(100, 16)(ids)
    x = layers.Conv1D(24, 5, activation="relu", padding="same")(x)
    x = layers.MaxPooling1D(2)(x)
    x = layers.Conv1D(24, 3, activation="relu", dilation_rate=2)(x)
    x = layers.GlobalMaxPooling1D()(x)
    model = keras.Model(ids, layers.Dense(2, activation="softmax")(x))
    return model, [(3, 20)], [tf.int32]


def unet(rng):
    """A UNet: strided convolutions down, transposed convolutions and resizing up,
    skip connections by concatenation."""
    inp = keras.Input((32, 32, 3))
    d1 = conv_bn(inp, 8, 3)
    d2 = conv_bn(layers.MaxPooling2D()(d1), 16, 3)
    d3 = conv_bn(layers.Conv2D(16, 3, strides=2, padding="same")(d2), 24, 3)
    u2 = layers.Conv2DTranspose(16, 3, strides=2, padding="same")(d3)
    u2 = conv_bn(layers.Concatenate()([u2, d2]), 16, 3)
    u1 = layers.UpSampling2D(interpolation="bilinear")(u2)
    u1 = conv_bn(layers.Concatenate()([u1, d1]), 8, 3)
    side = layers.UpSampling2D(size=4, interpolation="nearest")(d3)
    side = layers.Conv2D(8, 1)(side)
    out = layers.Conv2D(2, 1, activation="softmax")(layers.Add()([u1, side]))
    return randomize_weights(keras.Model(inp, out), rng), [(1, 32, 32, 3)]


def image_ops(rng):
    """tf.function code: dilated (atrous) convolutions, which TF writes with
    SpaceToBatchND / BatchToSpaceND, depth-to-space upsampling, mirror padding,
    resizing with both corner conventions."""
    w1 = tf.constant(rng.normal(0, 0.3, (3, 3, 4, 8)).astype(np.float32))
    w2 = tf.constant(rng.normal(0, 0.3, (3, 3, 8, 2)).astype(np.float32))

    def forward(x):
        y = tf.nn.atrous_conv2d(x, w1, rate=2, padding="SAME")
        y = tf.nn.depthwise_conv2d(y, w2, [1, 1, 1, 1], "SAME", dilations=[2, 2])
        y = tf.nn.leaky_relu(y, alpha=0.1)
        y = tf.nn.depth_to_space(y, 2)
        y = tf.pad(y, [[0, 0], [2, 2], [1, 1], [0, 0]], mode="REFLECT")
        y = tf.nn.space_to_depth(y, 2)
        a = tf.compat.v1.image.resize_bilinear(y, [13, 7], align_corners=True)
        b = tf.image.resize(y, [13, 7], method="bilinear")
        c = tf.image.resize(y, [5, 30], method="nearest")
        return a + b, tf.reduce_sum(c, axis=[1, 2])

    return forward, [(2, 12, 12, 4)]


def detection_head(rng):
    """Post-processing as detectors write it: top-k scores, a one-hot of the classes,
    cumulative sums, where / select on a threshold, split and broadcast."""
    def forward(scores):
        top_values, top_indices = tf.math.top_k(scores, k=5)
        hot = tf.one_hot(top_indices, depth=scores.shape[-1], dtype=tf.float32)
        csum = tf.cumsum(top_values, axis=-1, exclusive=True)
        cprod = tf.math.cumprod(tf.nn.sigmoid(top_values), axis=-1, reverse=True)
        keep = tf.where(top_values > 0.0, top_values, tf.zeros_like(top_values))
        first, rest = tf.split(scores, [3, scores.shape[-1] - 3], axis=-1)
        spread = tf.broadcast_to(tf.reduce_max(first, axis=-1, keepdims=True), [2, 4])
        rounded = tf.round(rest * 4.0) + tf.floor(rest) - tf.math.ceil(rest)
        best = tf.argmax(scores, axis=-1, output_type=tf.int32)
        coords = tf.where(scores > 0.5)
        return (tf.reduce_sum(hot, axis=1) + tf.nn.softsign(csum[:, :1]), cprod, keep, spread,
                rounded, best, coords)

    return forward, [(2, 12)]


FAMILIES = {
    "resnet": resnet, "mobilenetv2": mobilenetv2, "efficientnet": efficientnet,
    "densenet": densenet, "transformer": transformer, "attention_masked": attention_masked,
    "lstm": lstm, "gru": gru, "conv1d_text": conv1d_text, "unet": unet,
    "image_ops": image_ops, "detection_head": detection_head,
}

# The full-size Keras applications, for benchmarks (not committed).
FULL = {
    "resnet50": lambda: keras.applications.ResNet50(weights=None),
    "mobilenetv2": lambda: keras.applications.MobileNetV2(weights=None),
    "efficientnetb0": lambda: keras.applications.EfficientNetB0(weights=None),
    "densenet121": lambda: keras.applications.DenseNet121(weights=None),
}


def sample_inputs(rng, shapes, dtypes):
    values = []
    for shape, dtype in zip(shapes, dtypes):
        if dtype == tf.int32:
            values.append(rng.integers(0, 2 if len(values) else 40, size=shape).astype(np.int32))
        else:
            values.append(rng.normal(0, 1, size=shape).astype(np.float32))
    if len(values) == 2 and dtypes[1] == tf.int32:  # a padding mask: at least one token
        values[1][:, 0] = 1
    return values


def build(name, rng):
    made = FAMILIES[name](rng)
    fn, shapes = made[0], made[1]
    dtypes = made[2] if len(made) > 2 else [tf.float32] * len(shapes)
    if isinstance(fn, keras.Model):
        graph_def, input_names, output_names = freeze_keras(fn, shapes, dtypes)
    else:
        specs = [tf.TensorSpec(s, d, name=f"x{i}" if len(shapes) > 1 else "x")
                 for i, (s, d) in enumerate(zip(shapes, dtypes))]
        graph_def, input_names, output_names = freeze_function(fn, specs)
    return graph_def, input_names, output_names, sample_inputs(rng, shapes, dtypes)


def write_fixture(out: Path, name: str, graph_def, input_names, output_names, inputs):
    outputs = run_in_tf1_session(graph_def, input_names, output_names, inputs)
    (out / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
    arrays = {f"in_{i}": v for i, v in enumerate(inputs)}
    arrays.update({f"out_{i}": v for i, v in enumerate(outputs)})
    np.savez(out / f"{name}_io.npz", input_names=np.array(input_names),
             output_names=np.array(output_names), **arrays)
    ops = Counter(node.op for node in graph_def.node)
    size = (out / f"{name}.pb").stat().st_size
    print(f"{name}: {len(graph_def.node)} nodes, {size / 1e6:.2f} MB; ops: "
          + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", nargs="*", default=None, help="family names to (re)make")
    parser.add_argument("--full", type=Path, default=None,
                        help="write the full-size Keras applications (224x224) to this folder")
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(SEED)
    if args.full is not None:
        args.full.mkdir(parents=True, exist_ok=True)
        for name, make in FULL.items():
            if args.only and name not in args.only:
                continue
            rng = np.random.default_rng(SEED)
            model = randomize_weights(make(), rng)
            graph_def, input_names, output_names = freeze_keras(model, [(1, 224, 224, 3)])
            inputs = [rng.uniform(0, 255, (1, 224, 224, 3)).astype(np.float32)]
            write_fixture(args.full, name, graph_def, input_names, output_names, inputs)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(sorted(FAMILIES)):
        if args.only and name not in args.only:
            continue
        keras.utils.set_random_seed(SEED + index)
        rng = np.random.default_rng(SEED + index)
        write_fixture(args.out, name, *build(name, rng))


if __name__ == "__main__":
    main()
