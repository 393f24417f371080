"""Node names, devices and control dependencies of graphs built with the generated ops
under opgen.name_scope / device / control_dependencies: the same construction run
with TensorFlow's graph mode (tf.compat.v1) gives the same node names, and the
expected names are also written out, so the test means something without TensorFlow."""

from __future__ import annotations

import types

import numpy as np
import pytest

import opgen
from opgen import ops


def build_named_graph(o, scopes, float32):
    """A construction exercising TensorFlow's naming: default names (the op type),
    repeated names, explicit names (and one differing only in case), nested and
    re-entered scopes, Const inputs named after their arg, list inputs."""
    x = o.placeholder(float32, shape=[None, 3], name="x")
    y = o.add_v2(x, 1.0)
    y = o.add_v2(y, y)
    with scopes.name_scope("a/b"):
        m = o.mul(y, 2.0)
        m = o.mul(m, 3.0, name="Mul")
        with scopes.name_scope("c"):
            m = o.neg(m)
        with scopes.name_scope("c"):
            m = o.neg(m)
    with scopes.name_scope("a/b"):
        s = o.sub(m, x)
    with scopes.name_scope("a/b/"):
        s = o.relu(s)
    with scopes.name_scope("a"):
        s = o.identity(s)
    c = o.concat_v2([x, [[1.0, 2.0, 3.0]]], 0)
    o.add_n([c, c, c], name="sum")
    o.identity(c, name="out")
    o.identity(c, name="Out")
    o.placeholder(float32, name="x_1")
    o.placeholder(float32, name="x")
    with scopes.name_scope(None):
        o.identity(c, name="root")


EXPECTED_NAMES = [
    "x",
    "AddV2/y", "AddV2",
    "AddV2_1",
    "a/b/Mul/y", "a/b/Mul",
    "a/b/Mul_1/y", "a/b/Mul_1",
    "a/b/c/Neg",
    "a/b/c_1/Neg",
    "a/b_1/Sub",
    "a/b/Relu",
    "a/Identity",  # "a" itself was never handed out: only "a/b" and "a/b_1"
    "ConcatV2/values_1", "ConcatV2/axis", "ConcatV2",
    "sum",
    "out",
    "Out_1",
    "x_1",
    "x_2",
    "root",
]


def _opgen_names():
    g = opgen.Graph()
    with g.as_default():
        build_named_graph(ops, opgen, opgen.float32)
    return [op.name for op in g.get_operations()]


def test_names_follow_tensorflows_rules():
    assert _opgen_names() == EXPECTED_NAMES


@pytest.mark.tensorflow
def test_names_equal_tensorflows_on_the_same_construction():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import gen_array_ops, gen_math_ops, gen_nn_ops

    tf_ops = types.SimpleNamespace(
        placeholder=gen_array_ops.placeholder, add_v2=gen_math_ops.add_v2,
        mul=gen_math_ops.mul, neg=gen_math_ops.neg, sub=gen_math_ops.sub,
        relu=gen_nn_ops.relu, identity=gen_array_ops.identity,
        concat_v2=gen_array_ops.concat_v2, add_n=gen_math_ops.add_n)
    g = tf.Graph()
    with g.as_default():
        build_named_graph(tf_ops, tf.compat.v1, tf.float32)
    tf_names = [op.name for op in g.get_operations()]
    assert _opgen_names() == tf_names


def test_name_scope_yields_the_scope_and_validates_names():
    g = opgen.Graph()
    with g.as_default():
        with opgen.name_scope("outer") as outer:
            assert outer == "outer/"
            with opgen.name_scope("inner") as inner:
                assert inner == "outer/inner/"
                op = ops.identity(1.0).op
                assert op.name == "outer/inner/Identity"
                assert op.inputs[0].op.name == "outer/inner/Identity/input"
        with opgen.name_scope("outer") as again:
            assert again == "outer_1/"
        with opgen.name_scope("outer/") as reused:
            assert reused == "outer/"
        with pytest.raises(ValueError):
            with opgen.name_scope("_bad"):
                pass
    # Eagerly there is no graph to name anything in: the block still yields its scope.
    with opgen.name_scope("eager") as scope:
        assert scope == "eager/"
        assert isinstance(ops.add_v2(1.0, 2.0), opgen.Tensor)


def test_device_sets_the_device_of_nodes_built_inside():
    g = opgen.Graph()
    with g.as_default():
        with opgen.device("/CPU:0"):
            a = ops.placeholder(opgen.float32, name="a")
            with opgen.device(None):
                b = ops.neg(a)
            c = ops.neg(a)
        with opgen.device("/job:worker/task:1"), opgen.device("/cpu:0"):
            merged = ops.neg(a)
        d = ops.neg(a)
    # TensorFlow's canonical form, the inner block's fields merged into the outer's.
    assert a.op.device == "/device:CPU:0"
    assert b.op.device == ""
    assert c.op.device == "/device:CPU:0"
    assert merged.op.device == "/job:worker/task:1/device:CPU:0"
    assert d.op.device == ""
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(c, {a: np.float32(2.0)}), np.float32(-2.0))


def test_control_dependencies_add_control_inputs():
    g = opgen.Graph()
    with g.as_default():
        a = ops.placeholder(opgen.float32, name="a")
        first = ops.neg(a, name="first")
        with opgen.control_dependencies([first]):
            second = ops.relu(a, name="second")
            with opgen.control_dependencies([second.op]):
                third = ops.identity(a, name="third")
                # Its input was built inside both blocks: it waits already.
                fourth = ops.identity(second, name="fourth")
            # Its Const input gets the control edge, so it needs none itself.
            const_fed = ops.identity(2.0, name="const_fed")
            with opgen.control_dependencies(None):
                free = ops.identity(a, name="free")
        after = ops.identity(a, name="after")
    assert [op.name for op in second.op.control_inputs] == ["first"]
    assert sorted(op.name for op in third.op.control_inputs) == ["first", "second"]
    assert fourth.op.control_inputs == []
    assert const_fed.op.control_inputs == []
    assert [op.name for op in const_fed.op.inputs[0].op.control_inputs] == ["first"]
    assert free.op.control_inputs == []
    assert after.op.control_inputs == []
    with opgen.Session(g) as sess:
        assert sess.run(third, {a: np.float32(-1.5)}) == np.float32(-1.5)
    with g.as_default(), pytest.raises(ValueError):
        with opgen.control_dependencies([opgen.Graph()]):
            pass


def _build_with_devices_and_controls(o, scopes, float32):
    a = o.placeholder(float32, name="a")
    with scopes.device("/CPU:0"):
        b = o.neg(a)
        with scopes.device("/job:worker/task:1"):
            c = o.neg(b)
    with scopes.device("/job:worker/replica:0"), scopes.device("/cpu:0"):
        d = o.neg(c)
    with scopes.control_dependencies([b]):
        e = o.identity(a)
        with scopes.control_dependencies([e, d]):
            f = o.identity(b)
            g = o.identity(e)
            h = o.add_v2(a, 3.0)
        i = o.identity(1.0)


@pytest.mark.tensorflow
def test_devices_and_control_inputs_equal_tensorflows():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import gen_array_ops, gen_math_ops

    tf_ops = types.SimpleNamespace(placeholder=gen_array_ops.placeholder, neg=gen_math_ops.neg,
                                   identity=gen_array_ops.identity, add_v2=gen_math_ops.add_v2)
    g = opgen.Graph()
    with g.as_default():
        _build_with_devices_and_controls(ops, opgen, opgen.float32)
    tg = tf.Graph()
    with tg.as_default():
        _build_with_devices_and_controls(tf_ops, tf.compat.v1, tf.float32)

    def summary(graph):
        return [(op.name, op.device, sorted(c.name for c in op.control_inputs))
                for op in graph.get_operations()]

    assert summary(g) == summary(tg)
