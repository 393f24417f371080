"""Sessions through TensorFlow's C API: results against numpy, feeds checked against the
placeholders, pruning, targets, plans reused across runs and threads, and graphs that
grow after the session was made."""

from __future__ import annotations

import ctypes
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import (  # noqa: E402
    FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE, TF_FLOAT, TF_INT32, CApiError,
    TF_Buffer, TF_Output, c_void_p, out)


@pytest.fixture
def dense(api, graph):
    """y = relu(x @ w + b) with x fed: returns (session, x, y, w, b)."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x = api.placeholder(graph, "x", TF_FLOAT, [-1, 3])
    wc = api.const(graph, "w", w)
    bc = api.const(graph, "b", b)
    mm = api.op(graph, "MatMul", "mm", [out(x), out(wc)])
    add = api.op(graph, "AddV2", "add", [out(mm), out(bc)])
    y = api.op(graph, "Relu", "y", [out(add)])
    sess = api.session(graph)
    yield sess, x, y, w, b
    api.lib.TF_DeleteSession(sess, api.status)


def test_dense_layer_matches_numpy(api, dense):
    sess, x, y, w, b = dense
    for rows in (1, 5, 2):  # one plan, several batch sizes
        xv = np.random.default_rng(rows).standard_normal((rows, 3)).astype(np.float32)
        (got,) = api.run(sess, [(out(x), xv)], [out(y)])
        np.testing.assert_allclose(got, np.maximum(xv @ w + b, 0), rtol=1e-5, atol=1e-6)


def test_fetching_an_output_twice_and_a_fed_output(api, dense):
    sess, x, y, w, b = dense
    xv = np.ones((2, 3), np.float32)
    a, a2, xf = api.run(sess, [(out(x), xv)], [out(y), out(y), out(x)])
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(xf, xv)  # a fed output fetched gives the fed value


def test_feeding_an_inner_node_prunes_what_is_upstream(api, graph, dense):
    sess, x, y, w, b = dense
    add = api.lib.TF_GraphOperationByName(graph, b"add")
    v = np.float32([[-1, 2, -3, 4]])
    # x is not fed and not needed: the placeholder must not run.
    (got,) = api.run(sess, [(out(add), v)], [out(y)])
    np.testing.assert_array_equal(got, np.maximum(v, 0))


def test_unfed_placeholder_is_an_error_naming_it(api, dense):
    sess, x, y, w, b = dense
    with pytest.raises(CApiError) as e:
        api.run(sess, [], [out(y)])
    assert e.value.code == INVALID_ARGUMENT and "'x'" in e.value.message


def test_feed_of_wrong_dtype(api, dense):
    sess, x, y, w, b = dense
    with pytest.raises(CApiError) as e:
        api.run(sess, [(out(x), np.ones((1, 3), np.int32))], [out(y)])
    assert e.value.code == INVALID_ARGUMENT and "x:0" in e.value.message


def test_feed_of_wrong_shape(api, dense):
    sess, x, y, w, b = dense
    for bad in (np.ones((2, 4), np.float32), np.ones(3, np.float32)):
        with pytest.raises(CApiError) as e:
            api.run(sess, [(out(x), bad)], [out(y)])
        assert e.value.code == INVALID_ARGUMENT and "x:0" in e.value.message


def test_fetching_a_nonexistent_output_index(api, dense):
    sess, x, y, w, b = dense
    with pytest.raises(CApiError) as e:
        api.run(sess, [(out(x), np.ones((1, 3), np.float32))], [out(y, 1)])
    assert e.value.code == OUT_OF_RANGE and "does not have output 1" in e.value.message


def test_shape_error_at_run_time_comes_from_the_kernel(api, graph):
    """Shapes unknown when the graph is built are checked when the kernel runs."""
    a = api.placeholder(graph, "a")
    b = api.placeholder(graph, "b")
    mm = api.op(graph, "MatMul", "mm", [out(a), out(b)])
    sess = api.session(graph)
    with pytest.raises(CApiError) as e:
        api.run(sess, [(out(a), np.ones((2, 3), np.float32)), (out(b), np.ones((2, 3), np.float32))],
                [out(mm)])
    assert e.value.code == INVALID_ARGUMENT and "{{node mm}}" in e.value.message
    api.lib.TF_DeleteSession(sess, api.status)


def test_targets_run_without_fetches_and_placeholder_with_default(api, graph):
    d = api.const(graph, "d", np.float32([1, 2]))
    p = api.op(graph, "PlaceholderWithDefault", "p", [out(d)],
               attrs={"dtype": ("Type", TF_FLOAT), "shape": ("Shape", [2])})
    y = api.op(graph, "Neg", "y", [out(p)])
    noop = api.op(graph, "NoOp", "done", control_inputs=[y])
    sess = api.session(graph)
    assert api.run(sess, [], [], targets=[noop]) == []
    (got,) = api.run(sess, [], [out(y)])
    np.testing.assert_array_equal(got, [-1, -2])
    (got,) = api.run(sess, [(out(p), np.float32([5, 6]))], [out(y)])
    np.testing.assert_array_equal(got, [-5, -6])
    with pytest.raises(CApiError):
        api.run(sess, [(out(p), np.float32([5, 6, 7]))], [out(y)])
    api.lib.TF_DeleteSession(sess, api.status)


def test_session_sees_nodes_added_after_it_was_made(api, graph, dense):
    sess, x, y, w, b = dense
    xv = np.ones((1, 3), np.float32)
    api.run(sess, [(out(x), xv)], [out(y)])
    z = api.op(graph, "Mul", "z", [out(y), out(y)])
    (got,) = api.run(sess, [(out(x), xv)], [out(z)])
    np.testing.assert_allclose(got, np.maximum(xv @ w + b, 0) ** 2, rtol=1e-5)


def test_concurrent_runs_share_one_session(api, dense):
    sess, x, y, w, b = dense
    lib = api.lib
    errors = []

    def worker(seed):
        status = lib.TF_NewStatus()
        try:
            rng = np.random.default_rng(seed)
            for _ in range(50):
                xv = rng.standard_normal((4, 3)).astype(np.float32)
                (got,) = api.run(sess, [(out(x), xv)], [out(y)], status=status)
                np.testing.assert_allclose(got, np.maximum(xv @ w + b, 0), rtol=1e-5, atol=1e-6)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            lib.TF_DeleteStatus(status)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_long_chain_runs_and_frees_intermediates(api, graph):
    x = api.placeholder(graph, "x", TF_FLOAT, [])
    node = x
    for i in range(1000):
        node = api.op(graph, "AddV2", f"add{i}", [out(node), out(x)])
    sess = api.session(graph)
    for v in (1.0, 2.5):
        (got,) = api.run(sess, [(out(x), np.float32(v))], [out(node)])
        assert got == np.float32(v) * 1001
    api.lib.TF_DeleteSession(sess, api.status)


def test_closed_session_refuses_runs(api, dense):
    sess, x, y, w, b = dense
    api.lib.TF_CloseSession(sess, api.status)
    api.check()
    with pytest.raises(CApiError) as e:
        api.run(sess, [(out(x), np.ones((1, 3), np.float32))], [out(y)])
    assert e.value.code == FAILED_PRECONDITION


def test_run_metadata_and_options_are_accepted(api, dense):
    sess, x, y, w, b = dense
    lib = api.lib
    meta = lib.TF_NewBuffer()
    opts = lib.TF_NewBufferFromString(b"", 0)
    feed = (TF_Output * 1)(out(x))
    vals = (c_void_p * 1)(api.tensor(np.ones((1, 3), np.float32)))
    fetch = (TF_Output * 1)(out(y))
    res = (c_void_p * 1)()
    lib.TF_SessionRun(sess, opts, feed, vals, 1, fetch, res, 1, None, 0, meta, api.status)
    api.check()
    assert meta.contents.length == 0  # an empty RunMetadata message
    lib.TF_DeleteTensor(vals[0])
    lib.TF_DeleteTensor(res[0])
    lib.TF_DeleteBuffer(meta)
    lib.TF_DeleteBuffer(opts)


def test_session_options_config_and_target(api, graph):
    lib = api.lib
    opts = lib.TF_NewSessionOptions()
    # ConfigProto{intra_op_parallelism_threads: 2, inter_op_parallelism_threads: 1}
    config = bytes([0x10, 0x02, 0x28, 0x01])
    lib.TF_SetConfig(opts, config, len(config), api.status)
    api.check()
    lib.TF_SetConfig(opts, b"\x0a\xff", 2, api.status)  # truncated field
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT
    lib.TF_SetTarget(opts, b"grpc://elsewhere:2222")
    assert lib.TF_NewSession(graph, opts, api.status) is None
    assert lib.TF_GetCode(api.status) != OK
    lib.TF_SetTarget(opts, b"")
    sess = lib.TF_NewSession(graph, opts, api.status)
    api.check()
    lib.TF_DeleteSessionOptions(opts)
    lib.TF_DeleteSession(sess, api.status)


def test_graph_deleted_before_its_session_stays_alive(api):
    lib = api.lib
    g = lib.TF_NewGraph()
    c = api.const(g, "c", np.float32([1, 2]))
    y = api.op(g, "Neg", "y", [out(c)])
    sess = api.session(g)
    lib.TF_DeleteGraph(g)  # the session keeps it
    (got,) = api.run(sess, [], [out(y)])
    np.testing.assert_array_equal(got, [-1, -2])
    lib.TF_DeleteSession(sess, api.status)
