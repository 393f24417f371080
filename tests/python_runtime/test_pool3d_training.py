"""Training through the 3-D pooling and bicubic resize layers: a Keras-like Conv3D +
MaxPooling3D + AveragePooling3D model and a Conv2D + bicubic upsampling model, one step
each in opgen (opgen.GradientTape, then a plain SGD update), against TensorFlow 2.21's
tf.GradientTape on the same ops and values (its own interpreter, $OPGEN_TF_PYTHON; the
test skips without one). The graph path (opgen.gradients, i.e. TF_AddGradients) is
checked on the same model."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf_script

pytestmark = pytest.mark.usefixtures("runtime_lib")

LR = 0.1
POOL = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
AVG = {"ksize": [1, 2, 3, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}
CONV3 = {"strides": [1, 1, 1, 1, 1], "padding": "SAME"}
CONV2 = {"strides": [1, 1, 1, 1], "padding": "SAME"}
RESIZE = {"half_pixel_centers": True}

# Run by TensorFlow's interpreter: argv[1] the inputs (.npz), argv[2] the results.
TF_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    d, out = dict(np.load(sys.argv[1])), {}
    raw = tf.raw_ops
    POOL = dict(ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="VALID")
    AVG = dict(ksize=[1, 2, 3, 2, 1], strides=[1, 1, 2, 1, 1], padding="SAME")
    f, b = tf.Variable(d["f3"]), tf.Variable(d["b3"])
    with tf.GradientTape() as tape:
        h = tf.nn.relu(raw.BiasAdd(value=raw.Conv3D(input=d["x3"], filter=f, strides=[1] * 5,
                                                    padding="SAME"), bias=b))
        y = raw.AvgPool3D(input=raw.MaxPool3D(input=h, **POOL), **AVG)
        loss = tf.reduce_mean(tf.square(y - d["t3"]))
    out["loss3"] = loss.numpy()
    out["df3"], out["db3"] = (g.numpy() for g in tape.gradient(loss, [f, b]))
    f, b = tf.Variable(d["f2"]), tf.Variable(d["b2"])
    with tf.GradientTape() as tape:
        h = tf.nn.relu(raw.BiasAdd(value=raw.Conv2D(input=d["x2"], filter=f, strides=[1] * 4,
                                                    padding="SAME"), bias=b))
        y = raw.ResizeBicubic(images=h, size=[7, 9], half_pixel_centers=True)
        loss = tf.reduce_mean(tf.square(y - d["t2"]))
    out["loss2"] = loss.numpy()
    out["df2"], out["db2"] = (g.numpy() for g in tape.gradient(loss, [f, b]))
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(31)
    u = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)  # noqa: E731
    return {"x3": u(2, 6, 8, 7, 2), "f3": u(3, 3, 3, 2, 4) * 0.5, "b3": u(4) * 0.1,
            "t3": u(2, 3, 2, 3, 4), "x2": u(2, 5, 6, 3), "f2": u(3, 3, 3, 4) * 0.5,
            "b2": u(4) * 0.1, "t2": u(2, 7, 9, 4)}


@pytest.fixture(scope="module")
def tensorflow(data):
    return run_tf_script(TF_SCRIPT, data)


def _model3(x, f, b, t):
    h = ops.relu(ops.bias_add(ops.conv3d(x, f, **CONV3), b))
    y = ops.avg_pool3d(ops.max_pool3d(h, **POOL), **AVG)
    return ops.mean(ops.square(ops.sub(y, t)), np.arange(5, dtype=np.int32))


def _model2(x, f, b, t):
    h = ops.relu(ops.bias_add(ops.conv2d(x, f, **CONV2), b))
    y = ops.resize_bicubic(h, np.array([7, 9], np.int32), **RESIZE)
    return ops.mean(ops.square(ops.sub(y, t)), np.arange(4, dtype=np.int32))


def _close(got, want):
    # float32 convolutions sum in another order than TensorFlow's: a few ulps of the sums
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-6)


@pytest.mark.parametrize("dims, model", [("3", _model3), ("2", _model2)], ids=["conv3d-pool3d", "conv2d-bicubic"])
def test_sgd_step_matches_tensorflow(dims, model, data, tensorflow):
    f, b = opgen.Variable(data["f" + dims]), opgen.Variable(data["b" + dims])
    with opgen.GradientTape() as tape:
        loss = model(data["x" + dims], f.value(), b.value(), data["t" + dims])
    df, db = tape.gradient(loss, [f, b])
    _close(loss.numpy(), tensorflow["loss" + dims])
    _close(df.numpy(), tensorflow["df" + dims])
    _close(db.numpy(), tensorflow["db" + dims])
    assert np.abs(df.numpy()).max() > 1e-3  # the gradient reached the filter through the pools
    f.assign_sub(LR * df.numpy())
    _close(f.numpy(), data["f" + dims] - LR * tensorflow["df" + dims])


@pytest.mark.parametrize("dims, model", [("3", _model3), ("2", _model2)], ids=["conv3d-pool3d", "conv2d-bicubic"])
def test_graph_gradients_match_the_tape(dims, model, data, tensorflow):
    """TF_AddGradients (opgen.gradients in a graph) builds the same gradients."""
    g = opgen.Graph()
    with g.as_default():
        f = ops.placeholder(opgen.float32, shape=data["f" + dims].shape)
        b = ops.placeholder(opgen.float32, shape=data["b" + dims].shape)
        loss = model(data["x" + dims], f, b, data["t" + dims])
        grads = opgen.gradients(loss, [f, b])
    df, db = opgen.Session(g).run(grads, {f: data["f" + dims], b: data["b" + dims]})
    _close(df, tensorflow["df" + dims])
    _close(db, tensorflow["db" + dims])
