"""opgen.Session.run: fetch structures come back in the caller's shape, feeds convert
as TensorFlow converts them, results equal numpy, runs from many threads at once are
right, and misuse raises the matching opgen.errors class."""

from __future__ import annotations

import collections
import threading

import numpy as np
import pytest

import opgen
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def placeholder(g, dtype=opgen.float32, shape=None, name="x"):
    return g.create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name).outputs[0]


def const(g, value, dtype=np.float32, name="Const"):
    array = np.asarray(value, dtype=dtype)
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(array.dtype), "value": array},
                       name=name).outputs[0]


def binary(g, op_type, a, b, name=None):
    return g.create_op(op_type, [a, b], name=name).outputs[0]


@pytest.fixture
def dense():
    """relu(x @ w + b) with x: float32 [None, 3], and numpy's answer for a given x."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, shape=[None, 3])
    logits = binary(g, "AddV2", binary(g, "MatMul", x, const(g, w, name="w")),
                    const(g, b, name="b"), name="logits")
    out = g.create_op("Relu", [logits], name="out").outputs[0]
    session = opgen.Session(graph=g)
    yield g, session, x, logits, out, (lambda v: np.maximum(v @ w + b, 0))
    session.close()


def test_run_matches_numpy_for_feeds_by_output_and_by_name(dense):
    g, session, x, _, out, reference = dense
    value = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    by_output = session.run(out, {x: value})
    by_name = session.run("out:0", {"x:0": value})
    assert isinstance(by_output, np.ndarray) and by_output.dtype == np.float32
    assert by_output.shape == (5, 4)
    np.testing.assert_allclose(by_output, reference(value), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(by_name, by_output)


def test_repeated_runs_reuse_the_plan_with_new_values(dense):
    g, session, x, _, out, reference = dense
    rng = np.random.default_rng(2)
    for batch in (1, 4, 4, 2):
        value = rng.standard_normal((batch, 3)).astype(np.float32)
        np.testing.assert_allclose(session.run(out, {x: value}), reference(value),
                                   rtol=1e-5, atol=1e-6)


def test_fetch_structures_come_back_in_the_same_shape(dense):
    g, session, x, logits, out, reference = dense
    value = np.ones((2, 3), np.float32)
    want_out = reference(value)
    want_logits = session.run(logits, {x: value})
    Pair = collections.namedtuple("Pair", "first second")

    as_list = session.run([out, "logits:0"], {x: value})
    assert isinstance(as_list, list) and len(as_list) == 2
    np.testing.assert_allclose(as_list[0], want_out, rtol=1e-6)
    np.testing.assert_array_equal(as_list[1], want_logits)

    as_tuple = session.run((out,), {x: value})
    assert isinstance(as_tuple, tuple) and len(as_tuple) == 1

    pair = session.run(Pair(out, logits), {x: value})
    assert isinstance(pair, Pair)
    np.testing.assert_array_equal(pair.second, want_logits)

    nested = session.run({"a": [out, {"b": logits}], "c": (logits, out)}, {x: value})
    assert set(nested) == {"a", "c"}
    np.testing.assert_array_equal(nested["a"][1]["b"], want_logits)
    np.testing.assert_array_equal(nested["c"][1], nested["a"][0])

    twice = session.run([out, out], {x: value})
    np.testing.assert_array_equal(twice[0], twice[1])
    assert session.run([], {x: value}) == []


def test_operations_are_run_as_targets_and_give_none(dense):
    g, session, x, _, out, _ = dense
    value = np.ones((1, 3), np.float32)
    assert session.run(out.op, {x: value}) is None
    assert session.run("out", {x: value}) is None
    result, nothing = session.run([out, out.op], {x: value})
    assert result.shape == (1, 4) and nothing is None


def test_python_values_take_the_placeholder_dtype():
    g = opgen.Graph()
    x = placeholder(g, opgen.float64, shape=[3])
    i = placeholder(g, opgen.int64, shape=[], name="i")
    doubled = binary(g, "Mul", x, x)
    with opgen.Session(graph=g) as session:
        got = session.run(doubled, {x: [1, 2.5, 3]})
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, [1, 6.25, 9])
        scalar = session.run(i, {i: 7})
        assert scalar.dtype == np.int64 and scalar.shape == () and scalar == 7
        # numpy float64 into float32 and int32 into int64 cast as in TensorFlow.
        y = placeholder(g, opgen.float32, shape=[2], name="y")
        got = session.run(y, {y: np.array([0.5, 1.5])})
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, [0.5, 1.5])
        assert session.run(i, {i: np.int32(3)}) == 3


def test_wrong_feeds_raise_invalid_argument(dense):
    g, session, x, _, out, _ = dense
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        session.run(out, {x: np.ones((2, 5), np.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        session.run(out, {x: np.ones(3, np.float32)})
    with pytest.raises(errors.InvalidArgumentError):
        session.run(out, {x: np.ones((2, 3), np.int32) > 0})  # bool data into float32
    with pytest.raises(errors.InvalidArgumentError):
        session.run(out, {x: [[1 + 2j, 0, 0]]})
    i = placeholder(g, opgen.int32, shape=[], name="i")
    with pytest.raises(errors.InvalidArgumentError):
        session.run(i, {i: 1.5})
    with pytest.raises(errors.InvalidArgumentError):
        session.run(i, {i: np.float32(1.0)})
    with pytest.raises(errors.InvalidArgumentError):
        session.run(i, {i: 2 ** 40})
    # errors are ValueErrors too, as TensorFlow's feed checks raise ValueError
    with pytest.raises(ValueError):
        session.run(out, {"x:0": np.ones((1, 2), np.float32)})


def test_missing_feed_and_kernel_errors_raise_from_the_c_status():
    g = opgen.Graph()
    a = placeholder(g, shape=None, name="a")
    b = placeholder(g, shape=None, name="b")
    product = binary(g, "MatMul", a, b)
    with opgen.Session(graph=g) as session:
        with pytest.raises(errors.InvalidArgumentError):
            session.run(product, {a: np.ones((2, 3), np.float32)})
        with pytest.raises(errors.InvalidArgumentError):
            session.run(product, {a: np.ones((2, 3), np.float32), b: np.ones((2, 3), np.float32)})
        np.testing.assert_array_equal(
            session.run(product, {a: np.ones((2, 3), np.float32), b: np.ones((3, 1), np.float32)}),
            np.full((2, 1), 3.0, np.float32))


def test_bad_fetches_and_feed_keys(dense):
    g, session, x, _, out, _ = dense
    with pytest.raises(TypeError):
        session.run(3, {x: np.ones((1, 3), np.float32)})
    with pytest.raises(TypeError):
        session.run(out, {3: np.ones((1, 3), np.float32)})
    with pytest.raises(KeyError):
        session.run("nope:0")
    with pytest.raises(ValueError):
        session.run(out, {"x": np.ones((1, 3), np.float32)})  # an operation name
    foreign = placeholder(opgen.Graph())
    with pytest.raises(ValueError):
        session.run(foreign)


def test_closed_sessions_refuse_to_run(dense):
    g, session, x, _, out, _ = dense
    with opgen.Session(graph=g) as other:
        other.run(out, {x: np.ones((1, 3), np.float32)})
    with pytest.raises(RuntimeError, match="closed"):
        other.run(out, {x: np.ones((1, 3), np.float32)})
    other.close()  # closing twice is harmless


def test_session_runs_the_default_graph():
    with opgen.Graph().as_default() as g:
        c = const(g, [1.0, 2.0])
        total = binary(g, "AddV2", c, c)
        with opgen.Session() as session:
            assert session.graph is g
            np.testing.assert_array_equal(session.run(total), [2.0, 4.0])


def test_runs_from_many_threads_at_once_are_right(dense):
    g, session, x, logits, out, reference = dense
    failures = []
    barrier = threading.Barrier(8)

    def worker(seed):
        rng = np.random.default_rng(seed)
        barrier.wait()
        for _ in range(40):
            value = rng.standard_normal((seed % 3 + 1, 3)).astype(np.float32)
            got = session.run({"out": out, "logits": logits}, {x: value})
            try:
                np.testing.assert_allclose(got["out"], reference(value), rtol=1e-5, atol=1e-6)
            except AssertionError as e:
                failures.append(e)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_a_session_keeps_its_graph_alive():
    import gc
    g = opgen.Graph()
    total = binary(g, "AddV2", const(g, 1.0), const(g, 2.0, name="two"))
    session = opgen.Session(graph=g)
    del g
    gc.collect()
    assert session.run(total) == 3.0
    session.close()
