"""The reference: the demo's models trained by TensorFlow (tf.compat.v1 graph mode,
tf.compat.v1.train.GradientDescentOptimizer) from the same files and initial values.

    python train_tensorflow.py DATA_DIR mlp|cnn [STEPS]

Prints the lines train.py prints. TensorFlow's kernels round differently from opgen's
(other summation orders), so the losses agree to about 1e-6, not bit for bit;
tests/integration/test_train_demo.py compares them to 1e-5 relative.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

BATCH, BATCHES, LEARNING_RATE = 64, 10, 0.1


def load(data: Path, name: str, *shape: int) -> np.ndarray:
    dtype, suffix = ("<i4", "i32") if name == "labels" else ("<f4", "f32")
    return np.fromfile(data / f"{name}.{suffix}", dtype=dtype).reshape(shape)


def build(data: Path, model: str) -> tuple[tf.Graph, dict]:
    """train.py's graph in TensorFlow."""
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [BATCH, 64], name="x")
        labels = v1.placeholder(tf.int32, [BATCH], name="labels")

        def var(name: str, file: str, *shape: int) -> tf.Variable:
            return v1.Variable(load(data, file, *shape), name=name, use_resource=True)

        if model == "mlp":
            w1, b1 = var("w1", "mlp_w1", 64, 32), var("b1", "mlp_b1", 32)
            w2, b2 = var("w2", "mlp_w2", 32, 10), var("b2", "mlp_b2", 10)
            hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
            variables = [w1, b1, w2, b2]
        else:
            k, b1 = var("k", "cnn_k", 3, 3, 1, 8), var("b1", "cnn_b1", 8)
            w2, b2 = var("w2", "cnn_w2", 128, 10), var("b2", "cnn_b2", 10)
            images = tf.reshape(x, [-1, 8, 8, 1])
            conv = tf.nn.conv2d(images, k, strides=[1, 1, 1, 1], padding="SAME")
            hidden = tf.nn.relu(tf.nn.bias_add(conv, b1))
            pooled = tf.nn.avg_pool2d(hidden, ksize=2, strides=2, padding="VALID")
            hidden = tf.reshape(pooled, [-1, 128])
            variables = [k, b1, w2, b2]
        logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2)
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss = tf.reduce_mean(per_example)
        train = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss, var_list=variables)
        init = v1.global_variables_initializer()
    return g, {"x": x, "labels": labels, "loss": loss, "train": train, "init": init}


def session(g: tf.Graph, threads: int = 0) -> tf.compat.v1.Session:
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=threads)
    return tf.compat.v1.Session(graph=g, config=config)


def main() -> None:
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("mlp", "cnn"):
        sys.exit("usage: train_tensorflow.py DATA_DIR mlp|cnn [STEPS]")
    data, steps = Path(sys.argv[1]), int(sys.argv[3]) if len(sys.argv) == 4 else 100
    images = load(data, "x", BATCHES * BATCH, 64)
    classes = load(data, "labels", BATCHES * BATCH)
    g, t = build(data, sys.argv[2])
    with session(g) as sess:
        sess.run(t["init"])
        for step in range(steps):
            batch = slice(step % BATCHES * BATCH, (step % BATCHES + 1) * BATCH)
            loss, _ = sess.run([t["loss"], t["train"]],
                               {t["x"]: images[batch], t["labels"]: classes[batch]})
            loss = np.float32(loss)
            print(f"{step} {loss.view(np.uint32):08x} {float(loss):.9g}")


if __name__ == "__main__":
    main()
