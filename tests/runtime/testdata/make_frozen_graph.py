"""Writes frozen_cnn.pb (a GraphDef frozen by TensorFlow) and frozen_cnn_io.npz (an input
and TensorFlow's output for it), which test_graph_def.py imports and runs.

    /path/to/tensorflow/python tests/runtime/testdata/make_frozen_graph.py

Nodes carry what TensorFlow fills in: Const `value` tensors, `_output_shapes`-style
private attrs, `data_format`, `explicit_paddings`, `use_cudnn_on_gpu`, control inputs.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

HERE = Path(__file__).resolve().parent


def main():
    rng = np.random.default_rng(0)
    kernel = tf.Variable(rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.5)
    bias = tf.Variable(rng.standard_normal(4).astype(np.float32))
    w = tf.Variable(rng.standard_normal((4 * 4 * 4, 5)).astype(np.float32) * 0.2)
    b = tf.Variable(rng.standard_normal(5).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 3], tf.float32, name="x")])
    def model(x):
        y = tf.nn.conv2d(x, kernel, strides=1, padding="SAME")
        y = tf.nn.relu(tf.nn.bias_add(y, bias))
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        y = tf.reshape(y, [-1, 4 * 4 * 4])
        return tf.nn.softmax(tf.matmul(y, w) + b)

    frozen = convert_variables_to_constants_v2(model.get_concrete_function())
    graph_def = frozen.graph.as_graph_def(add_shapes=True)
    (HERE / "frozen_cnn.pb").write_bytes(graph_def.SerializeToString())
    x = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    np.savez(HERE / "frozen_cnn_io.npz", x=x, y=model(x).numpy(),
             output=frozen.outputs[0].name)


if __name__ == "__main__":
    main()
