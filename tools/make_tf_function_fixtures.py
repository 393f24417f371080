"""Writes tests/fixtures/tf_functions: GraphDefs of TensorFlow 2.21 tf.functions whose
control flow stays functional (StatelessIf / StatelessWhile / PartitionedCall nodes and a
FunctionDefLibrary, as concrete_function.graph.as_graph_def() gives them, before any
lowering to Switch/Merge), with inputs and TensorFlow's outputs.

Run with TensorFlow 2.21's Python:  $OPGEN_TF_PYTHON tools/make_tf_function_fixtures.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "tf_functions"


@tf.function
def scaled(v):
    return tf.nn.relu(v) * 0.5 + 0.25  # a nested tf.function: a PartitionedCall node


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)])
def control_flow(x, n):
    y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: scaled(x) * 2.0, lambda: x - 1.0)

    def body(i, acc):
        acc = tf.cond(i % 2 == 0, lambda: acc * 1.5, lambda: acc - tf.reduce_mean(acc))
        return i + 1, acc

    _, z = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), y])
    return tf.reduce_sum(z, axis=1) + tf.reduce_max(y)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    concrete = control_flow.get_concrete_function()
    (OUT / "control_flow.pb").write_bytes(concrete.graph.as_graph_def().SerializeToString())
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal((4, 3)).astype(np.float32), -np.abs(rng.standard_normal((2, 3))).astype(np.float32)]
    ns = [np.int32(5), np.int32(3)]
    outs = [control_flow(x, n).numpy() for x, n in zip(xs, ns)]
    np.savez(OUT / "control_flow_io.npz", x0=xs[0], n0=ns[0], out0=outs[0], x1=xs[1], n1=ns[1],
             out1=outs[1], inputs=np.array([t.name for t in concrete.inputs]),
             outputs=np.array([t.name for t in concrete.outputs]))


if __name__ == "__main__":
    main()
