"""Writes TensorArray graphs from TensorFlow 2.21 and their outputs (run by the test in a child process)."""
import sys
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_control_flow_v2()

out = sys.argv[1]
rng = np.random.default_rng(7)
results = {}


def frozen(graph, session, outputs):
    return tf1.graph_util.convert_variables_to_constants(
        session, graph.as_graph_def(), [o.split(":")[0] for o in outputs])


# A v1 while_loop over TensorArrays: unstack (scatter), read, write, stack, gather,
# concat, split.
x_val = rng.standard_normal((5, 3)).astype(np.float32)
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.float32, [5, 3], name="x")
    ta_in = tf.TensorArray(tf.float32, size=5, name="ta_in").unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, name="ta_out",
                            clear_after_read=False)

    def body(i, acc, ta):
        row = ta_in.read(i)
        acc = acc + row
        return i + 1, acc, ta.write(i, acc * 2.0)

    _, acc, ta_out = tf1.while_loop(lambda i, a, t: i < 5, body,
                                    [tf.constant(0), tf.zeros([3]), ta_out])
    stacked = tf.identity(ta_out.stack(), name="stacked")
    gathered = tf.identity(ta_out.gather([4, 0, 2]), name="gathered")
    split = tf.TensorArray(tf.float32, size=2, name="ta_split", infer_shape=False,
                           clear_after_read=False).split(
        tf.reshape(x, [15]), tf.constant([6, 9], tf.int64))
    concat = tf.identity(split.concat(), name="concat")
    piece = tf.identity(split.read(1), name="piece")
    size = tf.identity(ta_out.size(), name="size")
    fetches = ["stacked:0", "gathered:0", "concat:0", "piece:0", "size:0"]
    with tf1.Session() as s:
        vals = s.run(fetches, {"x:0": x_val})
    results["loop"] = (g.as_graph_def(), ["x:0"], [x_val], fetches, vals)

class LSTMCell:
    """An LSTM cell as dynamic_rnn takes one (Keras 3 dropped tf1's cells)."""

    def __init__(self, units):
        self.units = units
        self.state_size = tf1.nn.rnn_cell.LSTMStateTuple(units, units) if hasattr(
            tf1.nn, "rnn_cell") and hasattr(tf1.nn.rnn_cell, "LSTMStateTuple") else (units, units)
        self.output_size = units

    def zero_state(self, batch, dtype):
        return tuple(tf.zeros([batch, self.units], dtype) for _ in range(2))

    def __call__(self, x, state):
        c, h = state
        w = tf1.get_variable("kernel", [x.shape[-1] + self.units, 4 * self.units],
                             initializer=tf1.random_normal_initializer(0.0, 0.5, seed=3))
        b = tf1.get_variable("bias", [4 * self.units], initializer=tf1.constant_initializer(0.1))
        z = tf.matmul(tf.concat([x, h], 1), w) + b
        i, j, f, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, (c, h)


# dynamic_rnn of an LSTM cell, frozen.
seq = rng.standard_normal((2, 6, 4)).astype(np.float32)
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.float32, [2, 6, 4], name="x")
    cell = LSTMCell(5)
    outputs, state = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    o = tf.identity(outputs, name="outputs")
    c = tf.identity(state[0], name="c")
    fetches = ["outputs:0", "c:0"]
    with tf1.Session() as s:
        s.run(tf1.global_variables_initializer())
        vals = s.run(fetches, {"x:0": seq})
        gd = frozen(g, s, fetches)
    results["lstm"] = (gd, ["x:0"], [seq], fetches, vals)


# Gradients through v1 while loops over TensorArrays: the backward loop pops the forward
# values from stacks (StackV2/StackPushV2/StackPopV2) and writes partial gradients to
# gradient arrays (TensorArrayGradV3), which sum repeated writes.
w_val = rng.standard_normal((5, 3)).astype(np.float32)
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.float32, [5, 3], name="x")
    ta_in = tf.TensorArray(tf.float32, size=5, name="ta_in", clear_after_read=False).unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, name="ta_out",
                            clear_after_read=False)

    def body(i, acc, ta):
        row = ta_in.read(i)
        acc = acc * 0.5 + row * row
        # element 0 is read in every iteration: its gradient sums five partial writes
        return i + 1, acc, ta.write(i, tf.sin(acc) + ta_in.read(0))

    _, acc, ta_out = tf1.while_loop(lambda i, a, t: i < 5, body,
                                    [tf.constant(0), tf.zeros([3]), ta_out])
    loss = (tf.reduce_sum(ta_out.stack() * x_val) + tf.reduce_sum(ta_out.gather([4, 0, 4]))
            + tf.reduce_sum(acc))
    pieces = tf.TensorArray(tf.float32, size=2, name="pieces", infer_shape=False).split(
        tf.reshape(x, [15]) * 2.0, tf.constant([6, 9], tf.int64))
    loss += tf.reduce_sum(tf.square(pieces.read(1))) + tf.reduce_sum(pieces.read(0))
    dx = tf.identity(tf.gradients(loss, [x])[0], name="dx")
    fetches = ["dx:0"]
    with tf1.Session() as s:
        vals = s.run(fetches, {"x:0": w_val})
    results["loop_grad"] = (g.as_graph_def(), ["x:0"], [w_val], fetches, vals)

# dynamic_rnn of an LSTM cell and its gradients (the inputs' and the weights'), frozen.
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.float32, [2, 6, 4], name="x")
    with tf1.variable_scope("rnn_grad"):
        outputs, state = tf1.nn.dynamic_rnn(LSTMCell(5), x, dtype=tf.float32)
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state[0])
    weights = tf1.trainable_variables()
    grads = tf.gradients(loss, [x] + weights)
    names = ["d_x", "d_kernel", "d_bias"]
    fetches = [tf.identity(t, name=n).name for t, n in zip(grads, names)]
    with tf1.Session() as s:
        s.run(tf1.global_variables_initializer())
        vals = s.run(fetches, {"x:0": seq})
        gd = frozen(g, s, fetches)
    results["lstm_grad"] = (gd, ["x:0"], [seq], fetches, vals)


# A tf.function appending to a dynamically sized TensorArray in a loop (TensorLists).
@tf.function
def grow(n):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta = ta.write(i, tf.cast(i, tf.float32) * tf.ones([2]))
    return ta.stack()


# The same TensorArray program as "loop" in a tf.function: TensorFlow 2 lowers it to
# TensorLists (FromTensor, GetItem, SetItem, Stack, Gather, Split, ConcatV2, Length).
@tf.function
def arrays(x):
    ta_in = tf.TensorArray(tf.float32, size=5).unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    acc = tf.zeros([3])
    for i in tf.range(5):
        acc = acc + ta_in.read(i)
        ta_out = ta_out.write(i, acc * 2.0)
    split = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(
        tf.reshape(x, [15]), tf.constant([6, 9], tf.int64))
    return ta_out.stack(), ta_out.gather([4, 0, 2]), split.concat(), split.read(1), ta_out.size()


cf = arrays.get_concrete_function(tf.TensorSpec([5, 3], tf.float32))
results["loop_v2"] = (cf.graph.as_graph_def(), [cf.inputs[0].name], [x_val],
                      [t.name for t in cf.outputs], [v.numpy() for v in arrays(x_val)])

cf = grow.get_concrete_function(tf.TensorSpec([], tf.int32))
gd = cf.graph.as_graph_def()
n_val = np.int32(4)
results["grow"] = (gd, [cf.inputs[0].name], [n_val], [cf.outputs[0].name],
                   [grow(n_val).numpy()])

arrays = {}
for name, (graph_def, feeds, feed_values, fetches, values) in results.items():
    arrays[f"{name}_graph"] = np.frombuffer(graph_def.SerializeToString(), np.uint8)
    arrays[f"{name}_feeds"] = np.array(feeds)
    arrays[f"{name}_fetches"] = np.array(fetches)
    for k, v in enumerate(feed_values):
        arrays[f"{name}_in_{k}"] = np.asarray(v)
    for k, v in enumerate(values):
        arrays[f"{name}_out_{k}"] = np.asarray(v)
np.savez(out, **arrays)
