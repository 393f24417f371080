"""Freezes a tiny model around each Keras 3 layer that makes sense at inference and
records what TensorFlow computes, so that tests/python_runtime/test_keras_layer_sweep.py
can run every one in opgen and compare.

Each case is frozen the way tools/make_model_fixtures.py freezes the model families
(``convert_variables_to_constants_v2`` over a ``tf.function`` calling the model with
``training=False``) and written to OUT as

    OUT/<case>.pb         the frozen GraphDef (binary)
    OUT/<case>_io.npz     input_names, output_names, in_<i> / out_<i> (TensorFlow's outputs)
    OUT/manifest.json     {case: {"layer": class name, "ops": [op types], "error": str|null}}

Everything is generated in one process in a few seconds, so the test makes it at run time
(nothing is committed). Run it by hand to see which op types each layer needs:

    $OPGEN_TF_PYTHON tools/keras_layer_sweep.py --out /tmp/sweep [--only CASE ...]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

SEED = 20261207
F32 = "float32"
I32 = "int32"
STR = "string"


def cases(keras, layers):
    """{case name: (make the layer (or a function of the inputs), input shapes,
    input dtypes)}; the batch size is part of each shape."""
    act = keras.activations
    c = {}

    def add(name, make, *shapes, dtypes=None):
        c[name] = (make, list(shapes), dtypes or [F32] * len(shapes))

    # --- convolutions ---
    add("Conv1D", lambda: layers.Conv1D(4, 3, padding="same", dilation_rate=2), (2, 10, 3))
    add("Conv1D_causal", lambda: layers.Conv1D(4, 3, padding="causal"), (2, 10, 3))
    add("Conv1D_grouped", lambda: layers.Conv1D(4, 3, groups=2), (2, 10, 4))
    add("Conv2D", lambda: layers.Conv2D(4, 3, strides=2, padding="same"), (2, 9, 9, 3))
    add("Conv2D_grouped", lambda: layers.Conv2D(6, 3, groups=3), (1, 8, 8, 6))
    add("Conv3D", lambda: layers.Conv3D(4, 3, padding="same"), (1, 5, 6, 7, 2))
    add("Conv3D_strided", lambda: layers.Conv3D(3, 2, strides=2), (2, 6, 6, 6, 2))
    add("Conv1DTranspose", lambda: layers.Conv1DTranspose(4, 3, strides=2), (2, 7, 3))
    add("Conv2DTranspose", lambda: layers.Conv2DTranspose(4, 3, strides=2, padding="same"),
        (2, 5, 6, 3))
    add("Conv3DTranspose", lambda: layers.Conv3DTranspose(3, 3, strides=2), (1, 3, 4, 3, 2))
    add("SeparableConv1D", lambda: layers.SeparableConv1D(4, 3, depth_multiplier=2),
        (2, 10, 3))
    add("SeparableConv2D", lambda: layers.SeparableConv2D(4, 3, padding="same"), (2, 8, 8, 3))
    add("DepthwiseConv1D", lambda: layers.DepthwiseConv1D(3, depth_multiplier=2), (2, 10, 3))
    add("DepthwiseConv2D", lambda: layers.DepthwiseConv2D(3, strides=2), (2, 9, 9, 3))

    # --- pooling ---
    for dims, shape in ((1, (2, 12, 3)), (2, (2, 8, 8, 3)), (3, (1, 6, 6, 6, 2))):
        add(f"MaxPooling{dims}D", lambda d=dims: getattr(layers, f"MaxPooling{d}D")(2), shape)
        add(f"AveragePooling{dims}D",
            lambda d=dims: getattr(layers, f"AveragePooling{d}D")(3, strides=2,
                                                                    padding="same"), shape)
        add(f"GlobalMaxPooling{dims}D", lambda d=dims: getattr(layers,
                                                                f"GlobalMaxPooling{d}D")(),
            shape)
        add(f"GlobalAveragePooling{dims}D",
            lambda d=dims: getattr(layers, f"GlobalAveragePooling{d}D")(keepdims=True), shape)

    # --- resizing, padding, cropping ---
    add("UpSampling1D", lambda: layers.UpSampling1D(2), (2, 5, 3))
    add("UpSampling2D", lambda: layers.UpSampling2D(2), (2, 4, 5, 3))
    add("UpSampling2D_bilinear", lambda: layers.UpSampling2D(2, interpolation="bilinear"),
        (2, 4, 5, 3))
    add("UpSampling3D", lambda: layers.UpSampling3D(2), (1, 2, 3, 4, 2))
    add("ZeroPadding1D", lambda: layers.ZeroPadding1D((1, 2)), (2, 5, 3))
    add("ZeroPadding2D", lambda: layers.ZeroPadding2D(((1, 2), (0, 1))), (2, 4, 5, 3))
    add("ZeroPadding3D", lambda: layers.ZeroPadding3D(1), (1, 2, 3, 4, 2))
    add("Cropping1D", lambda: layers.Cropping1D((1, 2)), (2, 8, 3))
    add("Cropping2D", lambda: layers.Cropping2D(((1, 2), (0, 1))), (2, 6, 5, 3))
    add("Cropping3D", lambda: layers.Cropping3D(1), (1, 4, 5, 6, 2))
    for interp in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        add(f"Resizing_{interp}", lambda i=interp: layers.Resizing(7, 9, interpolation=i),
            (2, 5, 6, 3))
    # Shrinking, where antialias widens the filters (ScaleAndTranslate's antialias attr).
    for interp in ("lanczos3", "lanczos5"):
        for aa in (True, False):
            add(f"Resizing_{interp}_shrink_{'antialias' if aa else 'aliased'}",
                lambda i=interp, a=aa: layers.Resizing(3, 4, interpolation=i, antialias=a),
                (2, 7, 9, 3))
    # The filters Keras' Resizing does not offer, through tf.image.resize in a Lambda.
    for method in ("gaussian", "mitchellcubic"):
        for size, aa in (((7, 9), False), ((3, 4), True), ((3, 4), False)):
            suffix = "" if size == (7, 9) else f"_shrink_{'antialias' if aa else 'aliased'}"
            add(f"Resizing_{method}{suffix}",
                lambda m=method, s=size, a=aa: layers.Lambda(
                    lambda t: _tf().image.resize(t, s, method=m, antialias=a)),
                (2, 5, 6, 3) if size == (7, 9) else (2, 7, 9, 3))
    add("Resizing_crop_to_aspect_ratio",
        lambda: layers.Resizing(4, 4, crop_to_aspect_ratio=True), (1, 6, 8, 3))
    add("CenterCrop", lambda: layers.CenterCrop(4, 3), (2, 6, 7, 3))
    add("Rescaling", lambda: layers.Rescaling(1 / 127.5, offset=-1.0), (2, 4, 3))

    # --- core ---
    add("Dense", lambda: layers.Dense(5, activation="relu"), (2, 7))
    add("Dense_3d", lambda: layers.Dense(5), (2, 3, 7))
    add("EinsumDense", lambda: layers.EinsumDense("abc,cd->abd", (3, 5), bias_axes="d"),
        (2, 3, 7))
    add("Embedding", lambda: layers.Embedding(20, 4), (2, 6), dtypes=[I32])
    add("Identity", lambda: layers.Identity(), (2, 3))
    add("Masking", lambda: layers.Masking(0.0), (2, 4, 3))

    # --- normalization ---
    add("LayerNormalization", lambda: layers.LayerNormalization(), (2, 3, 8))
    add("LayerNormalization_rms", lambda: layers.LayerNormalization(rms_scaling=True),
        (2, 3, 8))
    add("BatchNormalization", lambda: layers.BatchNormalization(), (2, 4, 4, 3))
    add("GroupNormalization", lambda: layers.GroupNormalization(groups=2), (2, 4, 4, 6))
    add("UnitNormalization", lambda: layers.UnitNormalization(), (2, 6))
    add("RMSNormalization", lambda: layers.RMSNormalization(), (2, 3, 8))
    add("Normalization", lambda: layers.Normalization(mean=[1.0, 2.0, 3.0],
                                                      variance=[1.0, 4.0, 9.0]), (2, 4, 3))
    add("SpectralNormalization", lambda: layers.SpectralNormalization(layers.Dense(4)),
        (2, 5))

    # --- attention ---
    add("Attention", lambda: (lambda q, v: layers.Attention()([q, v])), (2, 3, 4), (2, 5, 4))
    add("Attention_causal_scaled",
        lambda: (lambda q, v: layers.Attention(use_scale=True, score_mode="concat")(
            [q, v], use_causal_mask=True)), (2, 4, 4), (2, 4, 4))
    add("AdditiveAttention", lambda: (lambda q, v: layers.AdditiveAttention()([q, v])),
        (2, 3, 4), (2, 5, 4))
    add("MultiHeadAttention",
        lambda: (lambda q, v: layers.MultiHeadAttention(2, 4)(q, v)), (2, 3, 8), (2, 5, 8))
    add("MultiHeadAttention_causal",
        lambda: (lambda q: layers.MultiHeadAttention(2, 4)(q, q, use_causal_mask=True)),
        (2, 4, 8))
    add("GroupQueryAttention",
        lambda: (lambda q, v: layers.GroupQueryAttention(4, 4, 2)(q, v)), (2, 3, 8),
        (2, 5, 8))

    # --- recurrent ---
    add("LSTM", lambda: layers.LSTM(4), (2, 5, 3))
    add("LSTM_sequences", lambda: layers.LSTM(4, return_sequences=True), (2, 5, 3))
    add("GRU", lambda: layers.GRU(4), (2, 5, 3))
    add("GRU_reset_before_false", lambda: layers.GRU(4, reset_after=False), (2, 5, 3))
    add("SimpleRNN", lambda: layers.SimpleRNN(4), (2, 5, 3))
    add("Bidirectional", lambda: layers.Bidirectional(layers.LSTM(3, return_sequences=True)),
        (2, 5, 3))
    add("ConvLSTM1D", lambda: layers.ConvLSTM1D(3, 3, padding="same"), (1, 3, 6, 2))
    add("ConvLSTM2D", lambda: layers.ConvLSTM2D(3, 3), (1, 3, 5, 5, 2))
    add("ConvLSTM3D", lambda: layers.ConvLSTM3D(2, 2), (1, 2, 3, 3, 3, 2))
    add("TimeDistributed", lambda: layers.TimeDistributed(layers.Dense(3)), (2, 4, 5))

    # --- activations ---
    add("ReLU", lambda: layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.2),
        (2, 8))
    add("LeakyReLU", lambda: layers.LeakyReLU(0.2), (2, 8))
    add("PReLU", lambda: layers.PReLU(alpha_initializer="random_uniform"), (2, 8))
    add("ELU", lambda: layers.ELU(0.7), (2, 8))
    add("Softmax", lambda: layers.Softmax(axis=1), (2, 5, 3))
    for fn in ("relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign",
               "gelu", "silu", "mish", "hard_sigmoid", "hard_silu", "exponential", "linear",
               "log_softmax", "softmax", "leaky_relu", "celu", "glu", "hard_tanh",
               "hard_shrink", "soft_shrink", "tanh_shrink", "log_sigmoid", "squareplus",
               "sparse_plus", "sparsemax"):
        if hasattr(act, fn):
            add(f"Activation_{fn}", lambda f=fn: layers.Activation(getattr(act, f)), (2, 8))
    add("Activation_gelu_tanh",
        lambda: layers.Activation(lambda t: act.gelu(t, approximate=True)), (2, 8))

    # --- inference-time no-ops ---
    for name in ("Dropout", "SpatialDropout1D", "GaussianNoise", "GaussianDropout",
                 "AlphaDropout", "ActivityRegularization"):
        arg = () if name == "ActivityRegularization" else (0.3,)
        add(name, lambda n=name, a=arg: getattr(layers, n)(*a), (2, 4, 3))
    add("SpatialDropout2D", lambda: layers.SpatialDropout2D(0.3), (2, 3, 3, 2))
    add("SpatialDropout3D", lambda: layers.SpatialDropout3D(0.3), (1, 2, 3, 3, 2))

    # --- reshaping ---
    add("Reshape", lambda: layers.Reshape((3, -1)), (2, 4, 3))
    add("Flatten", lambda: layers.Flatten(), (2, 4, 3, 2))
    add("Permute", lambda: layers.Permute((2, 1, 3)), (2, 4, 3, 2))
    add("RepeatVector", lambda: layers.RepeatVector(3), (2, 4))

    # --- merging ---
    for name in ("Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum",
                 "Minimum"):
        add(name, lambda n=name: (lambda a, b: getattr(layers, n)()([a, b])), (2, 3, 4),
            (2, 3, 4))
    add("Dot", lambda: (lambda a, b: layers.Dot(axes=(2, 2))([a, b])), (2, 3, 4), (2, 5, 4))
    add("Dot_normalized", lambda: (lambda a, b: layers.Dot(axes=1, normalize=True)([a, b])),
        (2, 4), (2, 4))

    # --- preprocessing that runs in a graph ---
    add("CategoryEncoding", lambda: layers.CategoryEncoding(6, output_mode="multi_hot"),
        (2, 3), dtypes=[I32])
    add("Discretization", lambda: layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5]),
        (2, 6))
    add("CategoryEncoding_count_weighted",
        lambda: (lambda x, w: layers.CategoryEncoding(6, output_mode="count")(
            x, count_weights=w)), (2, 3), (2, 3), dtypes=[I32, F32])
    add("CategoryEncoding_count_1d", lambda: layers.CategoryEncoding(12, output_mode="count"),
        (5,), dtypes=["int64"])
    add("Hashing", lambda: layers.Hashing(7), (2, 3), dtypes=["int64"])
    add("Hashing_int32_salted", lambda: layers.Hashing(11, salt=133), (2, 3), dtypes=[I32])
    add("Hashing_strings", lambda: layers.Hashing(13), (2, 4), dtypes=[STR])
    add("Hashing_strings_salted", lambda: layers.Hashing(5, salt=[7, 99]), (3, 2),
        dtypes=[STR])
    add("AutoContrast", lambda: layers.AutoContrast(), (2, 4, 4, 3))
    return c


def _tf():
    import tensorflow as tf

    return tf


def sample(rng, shape, dtype):
    if dtype == STR:  # words of 0..70 letters: FarmHash's length classes, fixed-width bytes
        size = int(np.prod(shape))
        words = [bytes(rng.integers(97, 123, size=int(rng.integers(0, 71))).astype(np.uint8))
                 for _ in range(size)]
        return np.array(words, dtype="S").reshape(shape)
    if dtype == F32:
        return rng.normal(0, 1, size=shape).astype(np.float32)
    return rng.integers(0, 10, size=shape).astype(dtype)


def freeze(tf, keras, make, shapes, dtypes):
    """The frozen GraphDef of a functional model around one layer, and its in/out names."""
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    inputs = [keras.Input(s[1:], batch_size=s[0], dtype=d) for s, d in zip(shapes, dtypes)]
    layer = make()
    out = layer(inputs[0]) if isinstance(layer, keras.Layer) else layer(*inputs)
    model = keras.Model(inputs, out)
    names = [f"x{i}" for i in range(len(shapes))]
    specs = [tf.TensorSpec(s, d, name=n) for s, d, n in zip(shapes, dtypes, names)]
    fn = (lambda x: model(x, training=False)) if len(specs) == 1 else \
        (lambda *xs: model(list(xs), training=False))
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete)
    inputs = [t.name for t in frozen.inputs if t.dtype != tf.resource]
    outputs = [t.name for t in frozen.outputs]
    return frozen.graph.as_graph_def(), inputs, outputs


def run_tf1(tf, graph_def, input_names, output_names, values):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(output_names, dict(zip(input_names, values)))


def op_types(graph_def) -> list[str]:
    ops = {n.op for n in graph_def.node}
    for function in graph_def.library.function:
        ops |= {n.op for n in function.node_def}
    return sorted(ops)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    import keras

    args.out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for index, (name, (make, shapes, dtypes)) in enumerate(cases(keras, keras.layers).items()):
        if args.only and name not in args.only:
            continue
        keras.utils.set_random_seed(SEED + index)
        rng = np.random.default_rng(SEED + index)
        entry = {"layer": name.split("_")[0], "ops": [], "error": None}
        try:
            graph_def, input_names, output_names = freeze(tf, keras, make, shapes, dtypes)
            values = [sample(rng, s, d) for s, d in zip(shapes, dtypes)]
            outputs = run_tf1(tf, graph_def, input_names, output_names, values)
        except Exception as e:  # noqa: BLE001 (a layer this Keras cannot freeze: reported)
            entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            manifest[name] = entry
            continue
        entry["ops"] = op_types(graph_def)
        (args.out / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
        arrays = {f"in_{i}": v for i, v in enumerate(values)}
        arrays.update({f"out_{i}": np.asarray(v) for i, v in enumerate(outputs)})
        np.savez(args.out / f"{name}_io.npz", input_names=np.array(input_names),
                 output_names=np.array(output_names), **arrays)
        manifest[name] = entry
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    for name, entry in manifest.items():
        print(f"{name}: {entry['error'] or ', '.join(entry['ops'])}")


if __name__ == "__main__":
    main()
