"""The demo in Python: opgen's graph mode (opgen.gradients + opgen.train).

    python train.py DATA_DIR mlp|cnn [STEPS]

Reads make_data.py's files, builds the model, and runs STEPS (100) steps of plain SGD
(learning rate 0.1), step i on batch i % 10; prints, per step, the loss of that batch
before the update: "step float32-bits-in-hex %.9g". The C, C++, Rust and Go programs
beside this one build the same graph, node for node, and print the same lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import opgen
from opgen import ops

BATCH, BATCHES, LEARNING_RATE = 64, 10, 0.1


def load(data: Path, name: str, *shape: int) -> np.ndarray:
    dtype = "<i4" if name == "labels" else "<f4"
    suffix = "i32" if name == "labels" else "f32"
    return np.fromfile(data / f"{name}.{suffix}", dtype=dtype).reshape(shape)


def build(data: Path, model: str) -> tuple[opgen.Graph, dict]:
    """The graph: placeholders x [64, 64] and labels [64], the variables, the loss (mean
    sparse softmax cross-entropy), the SGD train op and the initializer, in that order."""
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[BATCH, 64], name="x")
        labels = ops.placeholder(opgen.int32, shape=[BATCH], name="labels")
        if model == "mlp":
            w1 = opgen.Variable(load(data, "mlp_w1", 64, 32), name="w1")
            b1 = opgen.Variable(load(data, "mlp_b1", 32), name="b1")
            w2 = opgen.Variable(load(data, "mlp_w2", 32, 10), name="w2")
            b2 = opgen.Variable(load(data, "mlp_b2", 10), name="b2")
            hidden = ops.relu(ops.bias_add(ops.mat_mul(x, w1.read_value()), b1.read_value()))
            logits = ops.bias_add(ops.mat_mul(hidden, w2.read_value()), b2.read_value())
            variables = [w1, b1, w2, b2]
        else:
            k = opgen.Variable(load(data, "cnn_k", 3, 3, 1, 8), name="k")
            b1 = opgen.Variable(load(data, "cnn_b1", 8), name="b1")
            w2 = opgen.Variable(load(data, "cnn_w2", 128, 10), name="w2")
            b2 = opgen.Variable(load(data, "cnn_b2", 10), name="b2")
            images = ops.reshape(x, np.int32([-1, 8, 8, 1]))
            conv = ops.conv2d(images, k.read_value(), strides=[1, 1, 1, 1], padding="SAME")
            hidden = ops.relu(ops.bias_add(conv, b1.read_value()))
            pooled = ops.avg_pool(hidden, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
            flat = ops.reshape(pooled, np.int32([-1, 128]))
            logits = ops.bias_add(ops.mat_mul(flat, w2.read_value()), b2.read_value())
            variables = [k, b1, w2, b2]
        per_example, _ = ops.sparse_softmax_cross_entropy_with_logits(logits, labels)
        loss = ops.mean(per_example, np.int32(0))
        grads = opgen.gradients(loss, variables)
        train = opgen.train.GradientDescentOptimizer(LEARNING_RATE).apply_gradients(
            zip(grads, variables))
        init = opgen.global_variables_initializer()
    return g, {"x": x, "labels": labels, "loss": loss, "train": train, "init": init}


def main() -> None:
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("mlp", "cnn"):
        sys.exit("usage: train.py DATA_DIR mlp|cnn [STEPS]")
    data, steps = Path(sys.argv[1]), int(sys.argv[3]) if len(sys.argv) == 4 else 100
    images = load(data, "x", BATCHES * BATCH, 64)
    classes = load(data, "labels", BATCHES * BATCH)
    g, t = build(data, sys.argv[2])
    with opgen.Session(g) as sess:
        sess.run(t["init"])
        for step in range(steps):
            batch = slice(step % BATCHES * BATCH, (step % BATCHES + 1) * BATCH)
            loss, _ = sess.run([t["loss"], t["train"]],
                               {t["x"]: images[batch], t["labels"]: classes[batch]})
            loss = np.float32(loss)
            print(f"{step} {loss.view(np.uint32):08x} {float(loss):.9g}")


if __name__ == "__main__":
    main()
