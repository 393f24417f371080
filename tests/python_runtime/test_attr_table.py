"""One attr-conversion table (opgen.runtime._opplan) for eager and graph mode: the same
op call with the same attr value gives the same result, or the same error with the
same message, in both modes; and a graph node holds the converted value.

The Python types follow TensorFlow (checked against tf.raw_ops and graph building,
TF 2.21): an int attr takes anything with ``__index__`` (numpy integers, user
types), in eager and graph mode alike. opgen refuses what TensorFlow silently
truncates: bools for int/float attrs (TF: True -> 1) and floats for int attrs
(TF: 2.5 -> 2).
"""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen.runtime import _opplan, errors

pytestmark = pytest.mark.usefixtures("runtime_lib")


class Index:
    """Not an int, but usable as one (``__index__``), as TensorFlow takes it."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class Real:
    """Not a float, but convertible (``__float__``)."""

    def __float__(self):
        return 0.25


def _eager(op, inputs, attrs):
    return [np.asarray(t) for t in _flat(opgen.execute_op(op, inputs, attrs))]


def _graph(op, inputs, attrs):
    g = opgen.Graph()
    with g.as_default():
        outputs = _flat(opgen.execute_op(op, inputs, attrs))
    with opgen.Session(g) as sess:
        return [np.asarray(v) for v in sess.run(outputs)], outputs[0].op


def _flat(outputs):
    return [t for o in outputs for t in (o if isinstance(o, list) else [o])]


def _outcome(run, op, inputs, attrs):
    try:
        return "ok", run(op, inputs, attrs)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return "error", (type(e), str(e))


X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
POOL_IN = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)

# (op, inputs, attr name, value, the converted value a graph node holds or None when
# both modes must refuse it)
CASES = [
    # int: Python and numpy ints, __index__ objects, 0-d integer Tensors
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", 0, 0),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", np.int64(0), 0),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", np.int32(-1), -1),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", Index(0), 0),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", True, None),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", np.bool_(False), None),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", 0.0, None),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", "0", None),
    ("OneHot", [[0, 2], 3, 1.0, 0.0], "axis", 2 ** 63, None),
    # float
    ("LeakyRelu", [X], "alpha", 0.5, 0.5),
    ("LeakyRelu", [X], "alpha", np.float32(0.5), 0.5),
    ("LeakyRelu", [X], "alpha", 1, 1.0),
    ("LeakyRelu", [X], "alpha", Real(), 0.25),
    ("LeakyRelu", [X], "alpha", True, None),
    ("LeakyRelu", [X], "alpha", "0.5", None),
    # bool
    ("MatMul", [X, X.T], "transpose_a", False, False),
    ("MatMul", [X, X.T], "transpose_b", np.bool_(False), False),
    ("MatMul", [X, X.T], "transpose_a", 1, None),
    # string with allowed values
    ("MaxPool", [POOL_IN], "padding", "SAME", b"SAME"),
    ("MaxPool", [POOL_IN], "padding", b"VALID", b"VALID"),
    ("MaxPool", [POOL_IN], "padding", "FULL", None),
    ("MaxPool", [POOL_IN], "padding", 1, None),
    # list(int)
    ("MaxPool", [POOL_IN], "ksize", [1, np.int64(2), Index(2), 1], [1, 2, 2, 1]),
    ("MaxPool", [POOL_IN], "ksize", (1, 2, 2, 1), [1, 2, 2, 1]),
    ("MaxPool", [POOL_IN], "ksize", [1, 2.0, 2, 1], None),
    ("MaxPool", [POOL_IN], "ksize", "1221", None),
    # type
    ("Cast", [X], "DstT", "int32", opgen.int32),
    ("Cast", [X], "DstT", np.float64, opgen.float64),
    ("Cast", [X], "DstT", 3, opgen.int32),
    ("Cast", [X], "DstT", "no_such_type", None),
]


def _attrs_for(op, name, value):
    if op == "MaxPool":
        attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}
        attrs[name] = value
        return attrs
    return {name: value}


@pytest.mark.parametrize("op, inputs, name, value, held", CASES,
                         ids=[f"{c[0]}-{c[2]}-{type(c[3]).__name__}-{i}" for i, c in enumerate(CASES)])
def test_eager_and_graph_convert_attrs_alike(op, inputs, name, value, held):
    attrs = _attrs_for(op, name, value)
    eager = _outcome(_eager, op, inputs, attrs)
    graph = _outcome(_graph, op, inputs, attrs)
    if held is None:
        assert eager[0] == graph[0] == "error", (eager, graph)
        assert eager[1][0] is graph[1][0] is errors.InvalidArgumentError
        assert eager[1][1] == graph[1][1]  # one message, naming the op and the attr
        assert op in eager[1][1] and f"'{name}'" in eager[1][1]
        return
    assert eager[0] == graph[0] == "ok", (eager, graph)
    graph_values, node = graph[1]
    for e, g in zip(eager[1], graph_values):
        np.testing.assert_array_equal(e, g)
    assert node.get_attr(name) == held


def test_the_int_rule_is_the_same_function_in_both_modes():
    """The table's conversions, directly: what TensorFlow's wrappers accept as ints."""
    assert _opplan.convert_int(np.int64(7)) == 7
    assert _opplan.convert_int(Index(-3)) == -3
    assert _opplan.convert_int(opgen.convert_to_tensor(np.int32(4))) == 4
    for bad in (True, np.bool_(True), 1.5, np.float32(1.0), "1", None):
        with pytest.raises(TypeError):
            _opplan.convert_int(bad)
    with pytest.raises(OverflowError):
        _opplan.convert_int(-(2 ** 63) - 1)
    assert _opplan.convert_shape([None, -1, np.int64(3), Index(2)]) == (None, None, 3, 2)
    assert _opplan.convert_shape(None) is None
    with pytest.raises(TypeError):
        _opplan.convert_shape([True])


def test_one_registry_serves_both_modes():
    g = opgen.Graph()
    with g.as_default():
        opgen.execute_op("Neg", [np.ones(2, np.float32)], {})
    opgen.execute_op("Neg", [np.ones(2, np.float32)], {})
    assert _opplan.registry._plans["Neg"] is _opplan.registry.plan("Neg")
