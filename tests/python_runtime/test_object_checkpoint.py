"""opgen.train.Checkpoint and CheckpointManager against tf.train.Checkpoint (TensorFlow
2.21, in the child interpreter $OPGEN_TF_PYTHON names; skipped without it): the same
objects give the same checkpoint keys; TensorFlow restores what opgen saved and opgen
what TensorFlow saved, every value consumed (optimizer slots and beta powers included,
restored before the optimizer made them), and one more Adam step from either side gives
the same numbers."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf

_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(sys.stdin)
class Model(tf.Module):
    def __init__(self, w, layers):
        self.w = tf.Variable(w); self.layers = [tf.Variable(layers[0]), {"k": tf.Variable(layers[1])}]
def build(init):
    v = tf.Variable(np.float32(init["v"])); b = tf.Variable(np.float32(init["b"]))
    m = Model(np.float32(init["w"]), [np.int32(init["l0"]), np.float32(init["k"])])
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    gen = tf.random.Generator.from_seed(init["seed"])
    return v, b, m, opt, gen, tf.train.Checkpoint(v=v, b=b, model=m, opt=opt, gen=gen)
def step(v, b, opt):
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(v * v * b)
    opt.apply_gradients(zip(t.gradient(loss, [v, b]), [v, b]))
out = {}
# TensorFlow's own checkpoint, after one step and one draw, for opgen to restore
v, b, m, opt, gen, ck = build(spec["init"])
step(v, b, opt)
gen.normal([3])
out["tf_path"] = ck.save(spec["tf_prefix"])
# opgen's checkpoint restored here, then one more step
v, b, m, opt, gen, ck = build(spec["zeros"])
status = ck.restore(spec["opgen_path"])
out["restored"] = {"v": v.numpy().tolist(), "b": float(b.numpy()), "w": m.w.numpy().tolist(),
                   "l0": int(m.layers[0].numpy()), "k": float(m.layers[1]["k"].numpy()),
                   "counter": int(ck.save_counter.numpy())}
step(v, b, opt)
status.assert_consumed()  # the optimizer's variables are restored when the step makes them
out["after_step"] = {"v": v.numpy().tolist(), "b": float(b.numpy()),
                     "m": opt.get_slot(v, "m").numpy().tolist(),
                     "normal": gen.normal([4]).numpy().tolist()}
r = tf.train.load_checkpoint(out["tf_path"])
out["tf_keys"] = sorted(r.get_variable_to_shape_map())
print(json.dumps(out))
"""

_INIT = {"v": [1.0, 2.0], "b": 3.0, "w": [[1.5]], "l0": 4, "k": 2.5, "seed": 11}
_ZEROS = {"v": [0.0, 0.0], "b": 0.0, "w": [[0.0]], "l0": 0, "k": 0.0, "seed": 99}


class Model:
    """A model class as users write one: its variables are attributes."""

    def __init__(self, w, layers):
        self.w = opgen.Variable(np.float32(w))
        self.layers = [opgen.Variable(np.int32(layers[0])), {"k": opgen.Variable(np.float32(layers[1]))}]
        self.note = "not saved"


def _build(init):
    v, b = opgen.Variable(np.float32(init["v"])), opgen.Variable(np.float32(init["b"]))
    m = Model(init["w"], [init["l0"], init["k"]])
    opt = opgen.train.AdamOptimizer(0.1)
    gen = opgen.random.Generator.from_seed(init["seed"])
    return v, b, m, opt, gen, opgen.train.Checkpoint(v=v, b=b, model=m, opt=opt, gen=gen)


def _step(v, b, opt):
    with opgen.GradientTape() as tape:
        loss = ops.sum(v * v * b, np.int32(0))
    opt.apply_gradients(zip(tape.gradient(loss, [v, b]), [v, b]))


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    v, b, _, opt, gen, ck = _build(_INIT)
    _step(v, b, opt)
    gen.normal([3])
    ours = ck.save(str(folder / "opgen" / "c"))
    spec = {"init": _INIT, "zeros": _ZEROS, "opgen_path": ours,
            "tf_prefix": str(folder / "tf" / "c")}
    result = json.loads(run_tf(["-c", _TF_SCRIPT], input=json.dumps(spec)).stdout)
    _step(v, b, opt)  # opgen's own next step, for the comparison
    result["ours_after_step"] = {"v": v.numpy().tolist(), "b": float(b.numpy()),
                                 "m": opt.get_slot(v, "m").numpy().tolist(),
                                 "normal": gen.normal([4]).numpy().tolist()}
    result["ours_path"] = ours
    return result


def test_tensorflow_restores_opgens_checkpoint_and_goes_on_alike(exchange):
    restored = exchange["restored"]
    assert (restored["w"], restored["l0"], restored["k"], restored["counter"]) == ([[1.5]], 4, 2.5, 1)
    after, ours = exchange["after_step"], exchange["ours_after_step"]
    np.testing.assert_allclose(after["v"], ours["v"], rtol=1e-6)
    np.testing.assert_allclose(after["b"], ours["b"], rtol=1e-6)
    np.testing.assert_allclose(after["m"], ours["m"], rtol=1e-6)
    np.testing.assert_array_equal(np.float32(after["normal"]), np.float32(ours["normal"]))


def test_same_keys_as_tensorflow(exchange):
    """opgen's checkpoint of the same objects has TensorFlow's keys, read back here from
    opgen's own file."""
    from opgen.runtime.object_checkpoint import _read_object_graph
    graph = _read_object_graph(exchange["ours_path"])
    keys = {a.checkpoint_key for node in graph.nodes for a in node.attributes}
    assert sorted([*keys, "_CHECKPOINTABLE_OBJECT_GRAPH"]) == exchange["tf_keys"]


def test_opgen_restores_tensorflows_checkpoint(exchange):
    v, b, m, opt, gen, ck = _build(_ZEROS)
    ck.restore(exchange["tf_path"]).assert_consumed()
    assert int(ck.save_counter.numpy()) == 1
    np.testing.assert_array_equal(m.w.numpy(), [[1.5]])
    assert int(m.layers[0].numpy()) == 4 and float(m.layers[1]["k"].numpy()) == 2.5
    _step(v, b, opt)  # its slots and beta powers are TensorFlow's, set when made
    ours = exchange["ours_after_step"]  # opgen's second step from the same state
    np.testing.assert_allclose(v.numpy(), ours["v"], rtol=1e-6)
    np.testing.assert_allclose(float(b.numpy()), ours["b"], rtol=1e-6)
    np.testing.assert_allclose(opt.get_slot(v, "m").numpy(), ours["m"], rtol=1e-6)
    np.testing.assert_array_equal(gen.normal([4]).numpy(), np.float32(ours["normal"]))


def test_round_trip_manager_and_deferred_slots(tmp_path):
    v, b, _, opt, _, ck = _build(_INIT)
    _step(v, b, opt)
    manager = opgen.train.CheckpointManager(ck, tmp_path / "run", max_to_keep=2)
    paths = [manager.save() for _ in range(3)]
    assert paths == [str(tmp_path / "run" / f"ckpt-{i}") for i in (1, 2, 3)]
    assert manager.checkpoints == paths[1:]
    assert sorted(os.listdir(tmp_path / "run")) == [
        "checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index",
        "ckpt-3.data-00000-of-00001", "ckpt-3.index"]
    assert opgen.train.latest_checkpoint(str(tmp_path / "run")) == paths[-1]
    v2, b2, _, opt2, _, ck2 = _build(_ZEROS)
    ck2.restore(opgen.train.latest_checkpoint(str(tmp_path / "run"))).assert_consumed()
    assert int(ck2.save_counter.numpy()) == 3
    _step(v, b, opt)
    _step(v2, b2, opt2)
    np.testing.assert_array_equal(v2.numpy(), v.numpy())
    np.testing.assert_array_equal(opt2.get_slot(v2, "v").numpy(), opt.get_slot(v, "v").numpy())
    assert ck2.restore(None).assert_consumed() is not None  # no checkpoint yet: nothing


def test_partial_restores_and_errors(tmp_path):
    ck = _build(_INIT)[-1]
    path = ck.write(str(tmp_path / "all"))
    only_v = opgen.Variable(np.float32([0, 0]))
    status = opgen.train.Checkpoint(v=only_v).restore(path)
    np.testing.assert_array_equal(only_v.numpy(), _INIT["v"])
    with pytest.raises(AssertionError, match="checkpoint values not used"):
        status.assert_consumed()
    status.expect_partial()
    extra = opgen.train.Checkpoint(v=only_v, new=opgen.Variable(1.0)).restore(path)
    with pytest.raises(AssertionError, match="new"):
        extra.assert_existing_objects_matched()
    wrong = opgen.Variable(np.float32([0, 0, 0]))
    with pytest.raises(ValueError, match=r"'v/.ATTRIBUTES/VARIABLE_VALUE' has shape \(2,\)"):
        opgen.train.Checkpoint(v=wrong).restore(path)
    saver_path = opgen.train.Saver([only_v]).save(None, str(tmp_path / "named"))
    with pytest.raises(errors.NotFoundError, match="not an object-based checkpoint"):
        opgen.train.Checkpoint(v=only_v).restore(saver_path)
    with pytest.raises(ValueError, match="holds no variables"):
        opgen.train.Checkpoint(x=np.float32(1))
    g = opgen.Graph()
    with g.as_default():
        in_graph = opgen.Variable(1.0)
    with pytest.raises(ValueError, match="variables of a graph"):
        opgen.train.Checkpoint(v=in_graph)
