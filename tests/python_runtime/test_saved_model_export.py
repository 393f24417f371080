"""opgen.saved_model.save: a model trained in opgen, exported with two signatures, loads
back in opgen and in TensorFlow 2.21 (tf.saved_model.load and the TF1 session loader that
TensorFlow Serving uses; in the child interpreter $OPGEN_TF_PYTHON names, skipped without
it) and gives the function's results."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf

_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(sys.stdin)
x = np.asarray(spec["x"], np.float32)
m = tf.saved_model.load(spec["dir"])
out = {"keys": sorted(m.signatures)}
serving = m.signatures["serving_default"](x=tf.constant(x))
out["v2"] = {k: v.numpy().tolist() for k, v in serving.items()}
out["v2_scale"] = {k: v.numpy().tolist()
                   for k, v in m.signatures["scale"](x=tf.constant(x), factor=tf.constant(3.0)).items()}
with tf.compat.v1.Session(graph=tf.Graph()) as sess:
    meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], spec["dir"])
    sig = meta.signature_def["serving_default"]
    feeds = {sig.inputs["x"].name: x}
    out["v1"] = {k: sess.run(info.name, feeds).tolist() for k, info in sig.outputs.items()}
    out["shapes"] = {k: [d.size for d in info.tensor_shape.dim] for k, info in sig.outputs.items()}
print(json.dumps(out))
"""


def _model_and_signatures():
    rng = np.random.default_rng(5)
    w = opgen.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="dense/kernel")
    b = opgen.Variable(np.zeros(3, np.float32), name="dense/bias")
    steps = opgen.Variable(np.int64(0), name="steps", trainable=False)
    opt = opgen.train.GradientDescentOptimizer(0.1)

    @opgen.function
    def train(x, y):
        with opgen.GradientTape() as tape:
            loss = ops.mean(ops.square(ops.mat_mul(x, w) + b - y), np.int32([0, 1]))
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        steps.assign_add(np.int64(1), read_value=False)
        return loss

    x = rng.standard_normal((8, 4)).astype(np.float32)
    y = rng.standard_normal((8, 3)).astype(np.float32)
    for _ in range(3):
        train(x, y)

    @opgen.function(input_signature=[opgen.TensorSpec([None, 4], opgen.float32, name="x")])
    def serve(x):
        logits = ops.mat_mul(x, w) + b
        return {"probabilities": ops.softmax(logits), "steps": steps.read_value()}

    @opgen.function(input_signature=[opgen.TensorSpec([None, 4], opgen.float32),
                                     opgen.TensorSpec([], opgen.float32)])
    def scale(x, factor):
        return ops.mat_mul(x, w) * factor

    return serve, scale


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    serve, scale = _model_and_signatures()
    directory = tmp_path_factory.mktemp("export") / "model"
    opgen.saved_model.save(directory, {"serving_default": serve, "scale": scale})
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    want = {k: v.numpy() for k, v in serve(x).items()}
    want_scale = scale(x, np.float32(3)).numpy()
    return directory, x, want, want_scale


def test_opgen_loads_what_it_saved(exported):
    directory, x, want, want_scale = exported
    model = opgen.saved_model.load(directory)
    got = model.signatures["serving_default"](x=x)
    np.testing.assert_array_equal(got["probabilities"], want["probabilities"])
    assert int(got["steps"]) == 3
    np.testing.assert_array_equal(
        model.signatures["scale"](x=x, factor=np.float32(3))["output_0"], want_scale)


def test_tensorflow_loads_it_with_both_loaders(exported):
    directory, x, want, want_scale = exported
    spec = {"dir": str(directory), "x": x.tolist()}
    got = json.loads(run_tf(["-c", _TF_SCRIPT], input=json.dumps(spec)).stdout)
    assert got["keys"] == ["scale", "serving_default"]
    for loader in ("v2", "v1"):
        np.testing.assert_allclose(got[loader]["probabilities"], want["probabilities"], rtol=1e-6)
        assert got[loader]["steps"] == 3
    np.testing.assert_allclose(got["v2_scale"]["output_0"], want_scale, rtol=1e-6)
    assert got["shapes"] == {"probabilities": [-1, 3], "steps": []}


def test_errors(tmp_path):
    @opgen.function
    def no_signature(x):
        return x

    with pytest.raises(ValueError, match="needs an input_signature"):
        opgen.saved_model.save(tmp_path / "a", {"serving_default": no_signature})
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    spec = [opgen.TensorSpec([2], opgen.float32)]
    with pytest.raises(FileExistsError, match="not empty"):
        opgen.saved_model.save(tmp_path / "full", opgen.function(lambda x: x * 2.0,
                                                                  input_signature=spec))
    with pytest.raises(TypeError, match=r"not an opgen\.function"):
        opgen.saved_model.save(tmp_path / "b", {"serving_default": lambda x: x})
    # A model without variables has no saver and still loads.
    opgen.saved_model.save(tmp_path / "c", opgen.function(lambda x: x * 2.0, input_signature=spec))
    out = opgen.saved_model.load(tmp_path / "c").signatures["serving_default"](
        x=np.float32([1, 2]))
    np.testing.assert_array_equal(out["output_0"], [2, 4])
