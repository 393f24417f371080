"""A Const's value is held once (runtime/src/tensor_attr.cc): the graph's attr, the
optimizer's copy of the graph and every session's Const kernel share one buffer, seen
through the C API as one data address; values the caller may write (the attr getter)
are copies; folded weights, graph mutations after a run, a second import and
TF_GraphToGraphDef still give numpy's values."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import TF_FLOAT, TF_Buffer, TF_Output, c_void_p, out

RNG = np.random.default_rng(7)
# 8 KiB: read at import as a tensor (TensorAttr::Read); SCALE stays bytes until parsed.
W = RNG.standard_normal((64, 32)).astype(np.float32)
SCALE = RNG.standard_normal(32).astype(np.float32)


def session(api, graph, optimize: bool):
    lib = api.lib
    opts = lib.TF_NewSessionOptions()
    lib.OPGEN_SetGraphOptimizer(opts, int(optimize))
    sess = lib.TF_NewSession(graph, opts, api.status)
    lib.TF_DeleteSessionOptions(opts)
    api.check()
    return sess


def run_raw(api, sess, feeds, fetches):
    """TF_SessionRun's output tensors, not copied (the caller deletes them)."""
    lib = api.lib
    in_ops = (TF_Output * len(feeds))(*[k for k, _ in feeds])
    in_vals = (c_void_p * len(feeds))(*[api.tensor(v) for _, v in feeds])
    out_ops = (TF_Output * len(fetches))(*fetches)
    out_vals = (c_void_p * len(fetches))()
    lib.TF_SessionRun(sess, None, in_ops, in_vals, len(feeds), out_ops, out_vals, len(fetches),
                      None, 0, None, api.status)
    for t in in_vals:
        lib.TF_DeleteTensor(t)
    api.check()
    return list(out_vals)


@pytest.fixture
def lib(api):
    lib = api.lib
    lib.OPGEN_SetGraphOptimizer.argtypes = [c_void_p, ctypes.c_int]
    lib.OPGEN_SetGraphOptimizer.restype = None
    lib.OPGEN_SessionOptimizedGraphDef.argtypes = [
        c_void_p, ctypes.POINTER(TF_Output), ctypes.c_int, ctypes.POINTER(TF_Output),
        ctypes.c_int, c_void_p, ctypes.c_int, ctypes.POINTER(TF_Buffer), c_void_p]
    lib.OPGEN_SessionOptimizedGraphDef.restype = None
    return lib


@pytest.fixture
def dense(api, graph, lib):
    """y = (x @ w) * scale, imported from a GraphDef: returns (x, w, y)."""
    x = api.placeholder(graph, "x", TF_FLOAT, [-1, 64])
    w = api.const(graph, "w", W)
    s = api.const(graph, "scale", SCALE)
    mm = api.op(graph, "MatMul", "mm", [out(x), out(w)])
    api.op(graph, "Mul", "y", [out(mm), out(s)])
    # Imported into a fresh graph: the values come from GraphDef bytes, as a frozen model's.
    data = api.graph_def(graph)
    g2 = lib.TF_NewGraph()
    api.import_graph_def(g2, data)
    yield g2, *(lib.TF_GraphOperationByName(g2, n) for n in (b"x", b"w", b"y"))
    lib.TF_DeleteGraph(g2)


def test_sessions_share_the_graphs_copy_of_a_const(api, lib, dense):
    g, x, w, y = dense
    xv = RNG.standard_normal((3, 64)).astype(np.float32)
    addresses = []
    for optimize in (True, True, False):
        sess = session(api, g, optimize)
        got_y, got_w = run_raw(api, sess, [(out(x), xv)], [out(y), out(w)])
        np.testing.assert_allclose(api.to_numpy(got_y), (xv @ W) * SCALE, rtol=1e-5, atol=1e-5)
        addresses.append(lib.TF_TensorData(got_w))
        np.testing.assert_array_equal(api.to_numpy(got_w), W)
        lib.TF_DeleteSession(sess, api.status)
    # One buffer: two optimized sessions and an unoptimized one output the same memory.
    assert addresses[0] == addresses[1] == addresses[2]


def test_attr_getter_gives_a_copy_the_caller_may_write(api, lib, dense):
    g, _, w, _ = dense
    sess = session(api, g, True)
    (first,) = run_raw(api, sess, [], [out(w)])
    t = c_void_p()
    lib.TF_OperationGetAttrTensor(w, b"value", ctypes.byref(t), api.status)
    api.check()
    assert lib.TF_TensorData(t) != lib.TF_TensorData(first)
    ctypes.memset(lib.TF_TensorData(t), 0, W.nbytes)  # the caller's copy
    lib.TF_DeleteTensor(t)
    (again,) = run_raw(api, sess, [], [out(w)])
    np.testing.assert_array_equal(api.to_numpy(again), W)
    lib.TF_DeleteTensor(first)
    lib.TF_DeleteSession(sess, api.status)


def test_folded_weights_serialize_with_their_values(api, lib, dense):
    """The optimizer folds scale into w (a new Const sharing the product's buffer, with no
    bytes until asked): the optimized GraphDef holds w * scale."""
    from opgen.protos import graph_pb2

    g, x, _, y = dense
    sess = session(api, g, True)
    buf = lib.TF_NewBuffer()
    feeds, fetches = (TF_Output * 1)(out(x)), (TF_Output * 1)(out(y))
    lib.OPGEN_SessionOptimizedGraphDef(sess, feeds, 1, fetches, 1, None, 0, buf, api.status)
    api.check()
    gd = graph_pb2.GraphDef.FromString(ctypes.string_at(buf.contents.data, buf.contents.length))
    lib.TF_DeleteBuffer(buf)
    lib.TF_DeleteSession(sess, api.status)
    folded = [n for n in gd.node if "_opgen_folded_filter" in n.name]
    assert len(folded) == 1, [n.name for n in gd.node]
    value = np.frombuffer(folded[0].attr["value"].tensor.tensor_content, np.float32)
    np.testing.assert_allclose(value.reshape(W.shape), W * SCALE, rtol=1e-6)


def test_graph_grows_after_a_run(api, lib, dense):
    g, x, w, y = dense
    xv = RNG.standard_normal((2, 64)).astype(np.float32)
    sess = session(api, g, True)
    (before,) = run_raw(api, sess, [(out(x), xv)], [out(y)])
    np.testing.assert_allclose(api.to_numpy(before), (xv @ W) * SCALE, rtol=1e-5, atol=1e-5)
    # New readers of the shared Const, and a second import of the same nodes under a
    # prefix (its own values), after the session has run.
    two = api.const(g, "two", np.float32(2))
    z = api.op(g, "Mul", "z", [out(w), out(two)])
    data = api.graph_def(g)
    api.import_graph_def(g, data, prefix="again")
    y2 = lib.TF_GraphOperationByName(g, b"again/y")
    x2 = lib.TF_GraphOperationByName(g, b"again/x")
    got_z, got_y, got_y2 = run_raw(api, sess, [(out(x), xv), (out(x2), -xv)],
                                   [out(z), out(y), out(y2)])
    np.testing.assert_array_equal(api.to_numpy(got_z), W * 2)
    np.testing.assert_allclose(api.to_numpy(got_y), (xv @ W) * SCALE, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(api.to_numpy(got_y2), (-xv @ W) * SCALE, rtol=1e-5, atol=1e-5)
    lib.TF_DeleteSession(sess, api.status)


def test_export_gives_the_imported_bytes_back(api, lib, graph, dense):
    """Values kept as tensors only are written back as the bytes they were read from."""
    g = dense[0]
    original = api.graph_def(graph)
    sess = session(api, g, True)
    lib.TF_DeleteTensor(run_raw(api, sess, [(out(dense[1]), np.ones((1, 64), np.float32))],
                                [out(dense[3])])[0])
    lib.TF_DeleteSession(sess, api.status)
    assert api.graph_def(g) == original


def test_graph_def_round_trip_after_runs_keeps_values(api, lib, dense):
    """TF_GraphToGraphDef after sessions parsed the values writes the same tensors."""
    from opgen.protos import graph_pb2

    g, x, _, y = dense
    sess = session(api, g, True)
    run_raw_out = run_raw(api, sess, [(out(x), np.ones((1, 64), np.float32))], [out(y)])
    lib.TF_DeleteTensor(run_raw_out[0])
    lib.TF_DeleteSession(sess, api.status)
    gd = graph_pb2.GraphDef.FromString(api.graph_def(g))
    node = {n.name: n for n in gd.node}["w"]
    value = np.frombuffer(node.attr["value"].tensor.tensor_content, np.float32)
    np.testing.assert_array_equal(value.reshape(W.shape), W)
