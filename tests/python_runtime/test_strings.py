"""TF_STRING tensors (TF_TString elements): numpy bytes / str / object data in, object
arrays of bytes out, as TensorFlow's Tensor.numpy(); through Identity, Const (GraphDef
string_val), Placeholder feeds and fetches; and the kernels that copy bytes refusing
strings instead of sharing the elements' heap memory."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")

# Empty, SMALL (up to 22 bytes), exactly 22, LARGE, binary with NULs, UTF-8.
VALUES = [b"", b"short", b"s" * 22, b"L" * 23, b"x" * 1000, b"\x00\xff\x00", "h\u00e9llo".encode()]


def _objects(values, shape=None):
    array = np.empty(len(values), object)
    array[:] = values
    return array.reshape(shape) if shape else array


def test_eager_round_trip_bytes_and_str():
    t = opgen.constant(_objects(VALUES))
    assert t.dtype == opgen.string
    out = t.numpy()
    assert out.dtype == object and out.shape == (len(VALUES),)
    assert list(out) == VALUES
    # str is encoded as UTF-8; numpy 'S' and 'U' arrays and nested lists convert too
    assert opgen.constant("h\u00e9llo").numpy() == "h\u00e9llo".encode()
    np.testing.assert_array_equal(opgen.constant(np.array([b"ab", b"c"])).numpy(),
                                  _objects([b"ab", b"c"]))
    np.testing.assert_array_equal(opgen.constant(np.array([["a", "bc"]])).numpy(),
                                  _objects([b"a", b"bc"], (1, 2)))
    np.testing.assert_array_equal(opgen.constant([[b"a"], [b"b"]]).numpy(),
                                  _objects([b"a", b"b"], (2, 1)))


def test_identity_shares_strings():
    t = opgen.constant(_objects(VALUES[:6], (2, 3)))
    for _ in range(3):  # the buffer is shared, its strings freed once with the last
        t = ops.identity(t)
    assert t.numpy().tolist() == [VALUES[:3], VALUES[3:6]]
    assert ops.shape(t).numpy().tolist() == [2, 3]
    assert ops.stop_gradient(t).numpy().tolist() == [VALUES[:3], VALUES[3:6]]


def test_reshape_copies_strings_element_by_element():
    t = opgen.constant(_objects([b"a" * 30, b"b", b"", b"c" * 3]))
    got = ops.reshape(t, [2, 2]).numpy()
    np.testing.assert_array_equal(got, np.array([[b"a" * 30, b"b"], [b"", b"ccc"]], object))


def test_kernels_that_copy_bytes_refuse_strings():
    t = opgen.constant(_objects([b"a" * 30, b"b"]))
    with pytest.raises(errors.OpError):
        ops.concat_v2([t, t], 0)
    with pytest.raises(errors.OpError):
        ops.transpose(t, [0])


def test_non_string_values_are_refused():
    with pytest.raises((errors.InvalidArgumentError, TypeError, ValueError)):
        opgen.constant(_objects([b"a", 3]))


def test_graph_const_feed_fetch_and_graph_def():
    g = opgen.Graph()
    with g.as_default():
        c = opgen.constant(_objects(VALUES, (7,)))
        p = g.create_op("Placeholder", [], {"dtype": opgen.string, "shape": None},
                        name="p").outputs[0]
        ident = ops.identity(p)
        both = ops.identity(c)
    with opgen.Session(graph=g) as sess:
        fed = np.array([b"fed", b"y" * 50])
        out_fed, out_const = sess.run([ident, both], {p: fed})
    assert out_fed.dtype == object and list(out_fed) == [b"fed", b"y" * 50]
    assert list(out_const) == VALUES
    gd = g.as_graph_def()
    const = next(n for n in gd.node if n.op == "Const")
    assert list(const.attr["value"].tensor.string_val) == VALUES
    # ... and the GraphDef imports and runs again
    g2 = opgen.Graph()
    with g2.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(graph=g2) as sess:
        assert list(sess.run(const.name + ":0")) == VALUES
