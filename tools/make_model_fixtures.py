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

    $OPGEN_TF_PYTHON tools/make_model_fixtures.py [--out DIR] [--only NAME ...]
    $OPGEN_TF_PYTHON tools/make_model_fixtures.py --full /tmp/opgen-models
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

import keras
from keras import layers

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
            # gamma and beta are there only with scale / center (InceptionV3 has no gamma).
            kinds = (["gamma"] if layer.scale else []) + (["beta"] if layer.center else [])
            new = []
            for kind, w in zip(kinds + ["mean", "var"], layer.get_weights()):
                if kind in ("gamma", "var"):
                    new.append(rng.uniform(0.5, 1.5, w.shape).astype(np.float32))
                else:
                    new.append(rng.normal(0, 0.1, w.shape).astype(np.float32))
            layer.set_weights(new)
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


# --- Keras applications and layers at small widths -----------------------------------

def hard_sigmoid(x):
    """MobileNetV3's hard sigmoid as Keras' application writes it: ReLU6(x + 3) / 6."""
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x):
    return layers.Multiply()([x, hard_sigmoid(x)])


def mobilenetv3small(rng):
    """MobileNetV3Small's blocks: hard-swish / hard-sigmoid, squeeze-and-excitation on
    inverted residuals, its Rescaling input; Keras' own activations.hard_swish too."""
    inp = keras.Input((32, 32, 3))
    x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(inp)
    x = conv_bn(x, 8, 3, 2, None)
    x = hard_swish(x)
    for expand, filters, kernel, stride, se, act in ((1, 8, 3, 2, True, "relu"),
                                                     (4.5, 12, 3, 2, False, "relu"),
                                                     (3, 12, 5, 1, True, "hard_swish")):
        inputs, channels = x, x.shape[-1]
        if expand != 1:
            x = conv_bn(x, int(channels * expand), 1, activation=None)
            x = hard_swish(x) if act == "hard_swish" else layers.ReLU()(x)
        if stride == 2:
            x = layers.ZeroPadding2D(((kernel // 2 - 1, kernel // 2), (kernel // 2 - 1, kernel // 2)))(x)
        x = layers.DepthwiseConv2D(kernel, strides=stride,
                                   padding="same" if stride == 1 else "valid", use_bias=False)(x)
        x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999)(x)
        x = hard_swish(x) if act == "hard_swish" else layers.ReLU()(x)
        if se:
            s = layers.GlobalAveragePooling2D(keepdims=True)(x)
            s = layers.Conv2D(max(1, x.shape[-1] // 4), 1)(s)
            s = layers.ReLU()(s)
            s = layers.Conv2D(x.shape[-1], 1)(s)
            x = layers.Multiply()([x, hard_sigmoid(s)])
        x = conv_bn(x, filters, 1, activation=None)
        if stride == 1 and channels == filters:
            x = layers.Add()([inputs, x])
    x = layers.GlobalAveragePooling2D(keepdims=True)(x)
    x = layers.Conv2D(32, 1)(x)
    x = layers.Activation("hard_swish")(x)
    x = layers.Dropout(0.2)(x)
    x = layers.Conv2D(10, 1)(x)
    x = layers.Flatten()(x)
    model = keras.Model(inp, layers.Activation("softmax")(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


class LayerScale(layers.Layer):
    """ConvNeXt's per-channel learned scale of a residual branch."""

    def __init__(self, init, dim, **kwargs):
        super().__init__(**kwargs)
        self.init, self.dim = init, dim

    def build(self, shape):
        self.gamma = self.add_weight(shape=(self.dim,),
                                     initializer=keras.initializers.Constant(self.init))

    def call(self, x):
        return x * self.gamma


def convnext(rng):
    """ConvNeXt's stem (4x4 patchify + LayerNormalization) and blocks: a 7x7 convolution
    grouped per channel, LayerNormalization, exact GELU (Erf), layer scale, a stage
    downsampling; Keras' application writes the 7x7 as Conv2D(groups=channels)."""
    inp = keras.Input((32, 32, 3))
    x = layers.Normalization(axis=-1, mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                             variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2,
                                       (0.225 * 255) ** 2])(inp)
    x = layers.Conv2D(16, 4, strides=4)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    for stage, dim in enumerate((16, 24)):
        if stage:
            x = layers.LayerNormalization(epsilon=1e-6)(x)
            x = layers.Conv2D(dim, 2, strides=2)(x)
        for block in range(2):
            inputs = x
            if block == 0:
                x = layers.Conv2D(dim, 7, padding="same", groups=dim)(x)
            else:
                x = layers.DepthwiseConv2D(7, padding="same")(x)
            x = layers.LayerNormalization(epsilon=1e-6)(x)
            x = layers.Dense(4 * dim)(x)
            x = layers.Activation("gelu")(x)
            x = layers.Dense(dim)(x)
            x = LayerScale(0.5, dim)(x)
            x = layers.Add()([inputs, x])
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    model = keras.Model(inp, layers.Dense(10)(x))
    for layer in model.layers:  # LayerNormalization initialises to the identity too
        if isinstance(layer, layers.LayerNormalization):
            gamma, beta = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape).astype(np.float32),
                               rng.normal(0, 0.1, beta.shape).astype(np.float32)])
    return model, [(1, 32, 32, 3)]


def efficientnetv2(rng):
    """EfficientNetV2's fused MBConv (a full 3x3 expansion convolution, no depthwise)
    ahead of MBConv with squeeze-and-excitation; its Rescaling(1/128, -1) input."""
    inp = keras.Input((32, 32, 3))
    x = layers.Rescaling(scale=1.0 / 128.0, offset=-1.0)(inp)
    x = conv_bn(x, 8, 3, 2, "swish")
    for kind, expand, filters, stride in (("fused", 1, 8, 1), ("fused", 4, 12, 2),
                                          ("mb", 4, 16, 2), ("mb", 4, 16, 1)):
        inputs, channels = x, x.shape[-1]
        if kind == "fused":
            if expand != 1:
                x = conv_bn(x, channels * expand, 3, stride, "swish")
                x = conv_bn(x, filters, 1, activation=None)
            else:
                x = conv_bn(x, filters, 3, stride, "swish")
        else:
            x = conv_bn(x, channels * expand, 1, activation="swish")
            x = layers.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
            x = layers.BatchNormalization(momentum=0.9)(x)
            x = layers.Activation("swish")(x)
            se = layers.GlobalAveragePooling2D()(x)
            se = layers.Reshape((1, 1, x.shape[-1]))(se)
            se = layers.Conv2D(max(1, channels // 4), 1, activation="swish")(se)
            se = layers.Conv2D(x.shape[-1], 1, activation="sigmoid")(se)
            x = layers.Multiply()([x, se])
            x = conv_bn(x, filters, 1, activation=None)
        if stride == 1 and channels == filters:
            x = layers.Dropout(0.2, noise_shape=(None, 1, 1, 1))(x)
            x = layers.Add()([x, inputs])
    x = conv_bn(x, 48, 1, activation="swish")
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(layers.Dropout(0.2)(x)))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def regnet(rng):
    """RegNetX / RegNetY blocks: grouped 3x3 convolutions (Conv2D(groups=...): the
    filter's input depth divides the input's), and the Y block's squeeze-excite."""
    inp = keras.Input((32, 32, 3))
    x = layers.Rescaling(1.0 / 255.0)(inp)
    x = conv_bn(x, 16, 3, 2)
    for filters, group_width, stride, se in ((16, 8, 1, False), (24, 8, 2, True),
                                             (32, 4, 2, False)):
        inputs, channels = x, x.shape[-1]
        if stride != 1 or channels != filters:
            inputs = conv_bn(x, filters, 1, stride, None)
        x = conv_bn(x, filters, 1)
        x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False,
                          groups=filters // group_width)(x)
        x = layers.BatchNormalization(epsilon=1e-5, momentum=0.9)(x)
        x = layers.ReLU()(x)
        if se:
            s = layers.GlobalAveragePooling2D(keepdims=True)(x)
            s = layers.Conv2D(channels // 4, 1, activation="relu")(s)
            s = layers.Conv2D(filters, 1, activation="sigmoid")(s)
            x = layers.Multiply()([x, s])
        x = conv_bn(x, filters, 1, activation=None)
        x = layers.ReLU()(layers.Add()([x, inputs]))
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10)(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def inception(rng):
    """InceptionV3's mixed blocks (parallel 1x1 / factorised 1x7-7x1 / pooled branches,
    concatenated) and Xception's separable convolutions with strided-max-pool
    shortcuts."""
    inp = keras.Input((35, 35, 3))
    x = conv_bn(inp, 8, 3, 2)
    x = layers.Conv2D(8, 3, padding="valid", use_bias=False)(x)
    x = layers.MaxPooling2D(3, strides=1)(x)
    b1 = conv_bn(x, 8, 1)
    b5 = conv_bn(conv_bn(x, 6, 1), 8, 5)
    b3 = conv_bn(conv_bn(conv_bn(x, 8, 1), 12, 3), 12, 3)
    bp = conv_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 4, 1)
    x = layers.Concatenate(axis=3)([b1, b5, b3, bp])
    b7 = conv_bn(conv_bn(conv_bn(x, 8, 1), 8, (1, 7)), 8, (7, 1))
    bpool = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    x = layers.Concatenate()([layers.MaxPooling2D(3, strides=2, padding="same")(b7), bpool])
    # Xception: separable convolutions, a residual through a strided 1x1.
    residual = layers.BatchNormalization()(layers.Conv2D(32, 1, strides=2, padding="same",
                                                         use_bias=False)(x))
    y = layers.SeparableConv2D(32, 3, padding="same", use_bias=False)(x)
    y = layers.Activation("relu")(layers.BatchNormalization()(y))
    y = layers.SeparableConv2D(32, 3, padding="same", use_bias=False, depth_multiplier=2)(y)
    y = layers.BatchNormalization()(y)
    y = layers.MaxPooling2D(3, strides=2, padding="same")(y)
    x = layers.Add()([y, residual])
    x = layers.SeparableConv2D(16, 3, padding="same", activation="relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 35, 35, 3)]


def resnetv2(rng):
    """ResNetV2's pre-activation bottlenecks: BatchNorm + ReLU ahead of each convolution,
    a 1x1-max-pool shortcut on strided blocks, post-BN before pooling."""
    inp = keras.Input((32, 32, 3))
    x = layers.ZeroPadding2D(3)(inp)
    x = layers.Conv2D(16, 7, strides=2)(x)
    x = layers.ZeroPadding2D(1)(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    for filters, stride, project in ((8, 1, True), (8, 2, False), (16, 1, True)):
        pre = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(x))
        if project:
            shortcut = layers.Conv2D(4 * filters, 1, strides=stride)(pre)
        else:
            shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
        y = conv_bn(pre, filters, 1)
        y = layers.ZeroPadding2D(1)(y)
        y = layers.Conv2D(filters, 3, strides=stride, use_bias=False)(y)
        y = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(y))
        y = layers.Conv2D(4 * filters, 1)(y)
        x = layers.Add()([shortcut, y])
    x = layers.Activation("relu")(layers.BatchNormalization(epsilon=1.001e-5)(x))
    x = layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 32, 32, 3)]


def nasnet(rng):
    """NASNetMobile's cells: ReLU-separable-conv-BN stacks of 3x3/5x5/7x7, average and
    max pooling branches, the factorised reduction (1x1 average pooling on two offsets,
    Cropping2D), everything added pairwise and concatenated."""
    inp = keras.Input((34, 34, 3))
    x = layers.Conv2D(12, 3, strides=2, padding="valid", use_bias=False)(inp)
    x = layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(x)

    def sep(t, filters, kernel, stride=1):
        t = layers.Activation("relu")(t)
        if stride == 2:
            t = layers.ZeroPadding2D(((kernel // 2 - 1, kernel // 2),) * 2)(t)
        t = layers.SeparableConv2D(filters, kernel, strides=stride,
                                   padding="valid" if stride == 2 else "same", use_bias=False)(t)
        t = layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(t)
        t = layers.Activation("relu")(t)
        t = layers.SeparableConv2D(filters, kernel, padding="same", use_bias=False)(t)
        return layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(t)

    def adjust(p, filters):
        """The factorised reduction of the previous cell's output to half its size."""
        p = layers.Activation("relu")(p)
        p1 = layers.AveragePooling2D(1, strides=2, padding="valid")(p)
        p1 = layers.Conv2D(filters // 2, 1, padding="same", use_bias=False)(p1)
        p2 = layers.ZeroPadding2D(((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D(1, strides=2, padding="valid")(p2)
        p2 = layers.Conv2D(filters // 2, 1, padding="same", use_bias=False)(p2)
        p = layers.Concatenate()([p1, p2])
        return layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(p)

    # A reduction cell.
    p = x
    h = layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(
        layers.Conv2D(8, 1, use_bias=False)(layers.Activation("relu")(x)))
    hp = layers.ZeroPadding2D(((0, 1), (0, 1)))(h)
    a1 = layers.Add()([sep(h, 8, 5, 2), sep(p, 8, 7, 2)])
    a2 = layers.Add()([layers.MaxPooling2D(3, strides=2, padding="valid")(hp), sep(p, 8, 7, 2)])
    a3 = layers.Add()([layers.AveragePooling2D(3, strides=2, padding="valid")(hp),
                       sep(p, 8, 5, 2)])
    a4 = layers.Add()([layers.AveragePooling2D(3, strides=1, padding="same")(a1), a2])
    x = layers.Concatenate()([a2, a3, a4])
    # A normal cell over (this, the previous one reduced).
    p = adjust(p, 8)
    h = layers.BatchNormalization(momentum=0.9997, epsilon=1e-3)(
        layers.Conv2D(8, 1, use_bias=False)(layers.Activation("relu")(x)))
    n1 = layers.Add()([sep(h, 8, 5), sep(p, 8, 3)])
    n2 = layers.Add()([layers.AveragePooling2D(3, strides=1, padding="same")(h), p])
    n3 = layers.Add()([layers.AveragePooling2D(3, strides=1, padding="same")(p),
                       layers.AveragePooling2D(3, strides=1, padding="same")(p)])
    x = layers.Concatenate()([p, n1, n2, n3])
    x = layers.GlobalAveragePooling2D()(layers.Activation("relu")(x))
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return randomize_weights(model, rng), [(1, 34, 34, 3)]


def vgg(rng):
    """VGG's plain stacks of 3x3 convolutions and max pooling, Flatten, Dropout and a
    dense classifier."""
    inp = keras.Input((32, 32, 3))
    x = inp
    for filters, convs in ((8, 2), (16, 2), (16, 3)):
        for _ in range(convs):
            x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D(2, strides=2)(x)
    x = layers.Flatten()(x)
    x = layers.Dropout(0.5)(layers.Dense(32, activation="relu")(x))
    model = keras.Model(inp, layers.Dense(10, activation="softmax")(x))
    return model, [(2, 32, 32, 3)]


def bilstm(rng):
    """Embedding into a Bidirectional LSTM (the backward pass reverses
    the sequence) and a second, summarising Bidirectional GRU."""
    ids = keras.Input((10,), dtype="int32")
    # Unit-scale embeddings and logits out: Keras' default +-0.05 embeddings under a
    # softmax leave outputs within 1e-3 of 1/3, too flat to tell a wrong pass from a right one.
    x = layers.Embedding(60, 12, embeddings_initializer=keras.initializers.RandomNormal(0, 1))(ids)
    x = layers.Bidirectional(layers.LSTM(8, return_sequences=True))(x)
    x = layers.Bidirectional(layers.GRU(6), merge_mode="sum")(x)
    model = keras.Model(ids, layers.Dense(3)(x))
    return model, [(2, 10)], [tf.int32]


def mha_einsum(rng):
    """MultiHeadAttention in the shapes that give other Einsum equations: cross
    attention of a shorter query over a key and a distinct value, attention over two
    axes of a grid, and scores returned."""
    query, value, key = keras.Input((5, 16)), keras.Input((9, 12)), keras.Input((9, 8))
    cross = layers.MultiHeadAttention(num_heads=2, key_dim=6, value_dim=4, output_shape=10)
    out, scores = cross(query, value, key=key, return_attention_scores=True)
    grid = layers.Reshape((3, 3, 12))(value)
    axes = layers.MultiHeadAttention(num_heads=2, key_dim=4, attention_axes=(1, 2))
    g = layers.GlobalAveragePooling2D()(axes(grid, grid))
    model = keras.Model([query, value, key], [out, scores, g])
    return model, [(2, 5, 16), (2, 9, 12), (2, 9, 8)]


def bert(rng):
    """A small BERT-style encoder as tf.function code: token + position + segment
    embeddings, LayerNormalization, self-attention with a padding mask written with
    Einsum and BatchMatMul, exact GELU feed-forward, the tanh pooler."""
    vocab, dim, heads, length = 40, 16, 2, 8
    tokens = layers.Embedding(vocab, dim)
    segments = layers.Embedding(2, dim)
    positions = layers.Embedding(length, dim)
    norm_in = layers.LayerNormalization(epsilon=1e-12)
    blocks = []
    for _ in range(2):
        blocks.append(dict(
            qkv=layers.EinsumDense("btd,dnh->btnh", (length, 3 * heads, dim // heads),
                                   bias_axes="nh"),
            out=layers.EinsumDense("btnh,nhd->btd", (length, dim), bias_axes="d"),
            norm1=layers.LayerNormalization(epsilon=1e-12),
            ff1=layers.Dense(4 * dim, activation="gelu"),
            ff2=layers.Dense(dim),
            norm2=layers.LayerNormalization(epsilon=1e-12)))
    pooler = layers.Dense(dim, activation="tanh")
    head = layers.Dense(2)

    def forward(ids, types, mask):
        x = tokens(ids) + segments(types) + positions(tf.range(length))[tf.newaxis]
        x = norm_in(x)
        bias = (1.0 - tf.cast(mask, tf.float32))[:, tf.newaxis, tf.newaxis, :] * -10000.0
        for b in blocks:
            q, k, v = tf.split(b["qkv"](x), 3, axis=2)
            q = tf.transpose(q, [0, 2, 1, 3])
            k = tf.transpose(k, [0, 2, 1, 3])
            scores = tf.matmul(q, k, transpose_b=True) / float(np.sqrt(dim // heads))
            probs = tf.nn.softmax(scores + bias, axis=-1)
            context = tf.einsum("bnqk,bknh->bqnh", probs, v)
            x = b["norm1"](x + b["out"](context))
            x = b["norm2"](x + b["ff2"](b["ff1"](x)))
        return head(pooler(x[:, 0])), x

    spec = tf.zeros((2, length), tf.int32)
    forward(spec, spec, tf.ones((2, length), tf.int32))
    return forward, [(2, length), (2, length), (2, length)], [tf.int32] * 3


def preprocessing(rng):
    """Keras' preprocessing layers inside a model: Resizing (bilinear and nearest),
    CenterCrop, Rescaling, an adapted Normalization."""
    inp = keras.Input((20, 24, 3))
    norm = layers.Normalization(axis=-1)
    norm.adapt(rng.normal(2.0, 3.0, (16, 20, 24, 3)).astype(np.float32))
    x = layers.Resizing(16, 16)(inp)
    y = layers.Resizing(12, 10, interpolation="nearest")(inp)
    x = layers.CenterCrop(12, 10)(x)
    x = layers.Rescaling(0.5, offset=0.25)(x)
    x = norm(layers.Add()([x, y]))
    x = layers.Conv2D(4, 3, activation="relu")(x)
    model = keras.Model(inp, layers.GlobalMaxPooling2D()(x))
    return model, [(2, 20, 24, 3)]


# Each family is seeded by its place here: append new ones so that the older fixtures
# regenerate byte for byte.
FAMILIES = {
    "attention_masked": attention_masked, "conv1d_text": conv1d_text, "densenet": densenet,
    "detection_head": detection_head, "efficientnet": efficientnet, "gru": gru,
    "image_ops": image_ops, "lstm": lstm, "mobilenetv2": mobilenetv2, "resnet": resnet,
    "transformer": transformer, "unet": unet,
    "mobilenetv3small": mobilenetv3small, "convnext": convnext,
    "efficientnetv2": efficientnetv2, "regnet": regnet, "inception": inception,
    "resnetv2": resnetv2, "nasnet": nasnet, "vgg": vgg, "bilstm": bilstm,
    "mha_einsum": mha_einsum, "bert": bert, "preprocessing": preprocessing,
}

# The full-size Keras applications, for benchmarks (not committed).
FULL = {
    "resnet50": lambda: keras.applications.ResNet50(weights=None),
    "mobilenetv2": lambda: keras.applications.MobileNetV2(weights=None),
    "efficientnetb0": lambda: keras.applications.EfficientNetB0(weights=None),
    "densenet121": lambda: keras.applications.DenseNet121(weights=None),
    "mobilenetv3small": lambda: keras.applications.MobileNetV3Small(weights=None),
    "convnexttiny": lambda: keras.applications.ConvNeXtTiny(weights=None),
    "efficientnetv2b0": lambda: keras.applications.EfficientNetV2B0(weights=None),
    "inceptionv3": lambda: keras.applications.InceptionV3(weights=None, input_shape=(224, 224, 3)),
    "xception": lambda: keras.applications.Xception(weights=None, input_shape=(224, 224, 3)),
    "resnet50v2": lambda: keras.applications.ResNet50V2(weights=None),
    "nasnetmobile": lambda: keras.applications.NASNetMobile(weights=None),
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
    for index, name in enumerate(FAMILIES):
        if args.only and name not in args.only:
            continue
        keras.utils.set_random_seed(SEED + index)
        rng = np.random.default_rng(SEED + index)
        write_fixture(args.out, name, *build(name, rng))


if __name__ == "__main__":
    main()
