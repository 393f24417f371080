"""opgen.Module against tf.Module (TensorFlow 2.21, in the child interpreter
$OPGEN_TF_PYTHON names; skipped without it): the same classes list the same variables
and submodules in the same order, and tf.train.Checkpoint restores a module that
opgen.train.Checkpoint saved."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opgen
from tf_reference import run_tf

# The same model source for both: `Module` and `Variable` are bound to TF's or opgen's.
_MODEL = """
class Dense(Module):
    def __init__(self, n_in, n_out, start, name=None):
        super().__init__(name=name)
        self.w = Variable(np.full((n_in, n_out), start, np.float32), name="w")
        self.b = Variable(np.full(n_out, start + 0.5, np.float32), name="b")
        self.calls = Variable(np.int64(start), trainable=False, name="calls")

class Block(Module):
    def __init__(self):
        super().__init__()
        self.zeta = Dense(3, 2, 10.0, name="zeta")
        self.alpha = Dense(2, 2, 20.0)

class MLP(Module):
    def __init__(self):
        super().__init__(name="mlp")
        self.layers = [Dense(4, 3, 1.0), {"b": Block(), "a": Dense(2, 1, 30.0)}]
        self.shared = self.layers[0]          # the same module twice: listed once
        self.scale = Variable(np.float32(5.0), name="scale")
"""

_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
Module, Variable = tf.Module, tf.Variable
spec = json.load(sys.stdin)
exec(spec["model"])
m = MLP()
def values(vs): return [np.asarray(v.numpy()).ravel()[0].item() for v in vs]
out = {"trainable": values(m.trainable_variables), "all": values(m.variables),
       "non_trainable": values(m.non_trainable_variables),
       "submodules": [s.name for s in m.submodules], "name": m.name,
       "block_name": m.layers[1]["b"].name}
ckpt = tf.train.Checkpoint(model=m)
status = ckpt.restore(spec["path"])
status.assert_consumed()
out["restored"] = values(m.variables)
print(json.dumps(out))
"""


def _opgen_model():
    namespace = {"Module": opgen.Module, "Variable": opgen.Variable, "np": np}
    exec(_MODEL, namespace)
    return namespace["MLP"]()


def _values(variables):
    return [np.asarray(v.numpy()).ravel()[0].item() for v in variables]


@pytest.fixture(scope="module")
def tf_module(tmp_path_factory):
    m = _opgen_model()
    for v in m.variables:  # values TensorFlow's fresh module does not have
        v.assign(v.numpy() + 100, read_value=False)
    path = opgen.train.Checkpoint(model=m).save(str(tmp_path_factory.mktemp("mod") / "c"))
    spec = {"model": _MODEL, "path": path}
    return json.loads(run_tf(["-c", _TF_SCRIPT], input=json.dumps(spec)).stdout), m


def test_variables_and_submodules_in_tensorflows_order(tf_module):
    want, _ = tf_module
    m = _opgen_model()
    assert _values(m.trainable_variables) == want["trainable"]
    assert _values(m.variables) == want["all"]
    assert _values(m.non_trainable_variables) == want["non_trainable"]
    assert [s.name for s in m.submodules] == want["submodules"]
    assert m.name == want["name"] and m.layers[1]["b"].name == want["block_name"] == "block"


def test_tensorflow_restores_a_saved_module(tf_module):
    want, saved = tf_module
    assert want["restored"] == _values(saved.variables)


def test_names_and_scopes():
    with pytest.raises(ValueError, match="not a valid module name"):
        opgen.Module(name="has space")
    assert opgen.Module().name == "module"

    class MyDenseLayer(opgen.Module):
        @opgen.Module.with_name_scope
        def build(self):
            return opgen.ops.placeholder(opgen.float32, shape=[2])

    g = opgen.Graph()
    with g.as_default():
        assert MyDenseLayer().build().name == "my_dense_layer/Placeholder:0"
