"""Sessions and graphs used from several threads at once, bounded in time (~20 s in
all): closing or deleting a session while another thread runs it, deleting a graph
while a session runs it, and running a session while its graph gains nodes. Before
the fix, closing a session during a run crashed the process (issue 18), so each race
runs in a child process and the test checks it exited cleanly, with the results and
errors the contract allows: a run returns the right value, or, once the session is
closed, fails with RuntimeError (Python) / FAILED_PRECONDITION (C)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent
C_API_HELPERS = HERE.parent / "runtime"  # graph_capi.py: ctypes declarations of the C API


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def run_child(body: str, timeout: float = 60) -> str:
    """Runs `body` in a fresh interpreter; fails on a crash, a hang or an exception."""
    script = textwrap.dedent(body)
    env = dict(os.environ)
    env["PYTHONFAULTHANDLER"] = "1"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(HERE))
    assert proc.returncode == 0, (
        f"child exited with {proc.returncode} (negative: killed by that signal)\n"
        f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    return proc.stdout


PY_GRAPH = """
import threading, time
import numpy as np
import opgen

def build():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 10)).astype(np.float32)
    g = opgen.Graph()
    x = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [None, 64]},
                    name="x").outputs[0]
    wc = g.create_op("Const", [], {"dtype": opgen.float32, "value": w}, name="w").outputs[0]
    logits = g.create_op("MatMul", [x, wc], name="logits").outputs[0]
    g.create_op("Softmax", [logits], name="probs")
    return g, w

def softmax(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
"""


def test_python_close_while_another_thread_runs():
    """The issue's loop: close() races a thread inside run(), 300 times (or 4 s)."""
    out = run_child(PY_GRAPH + """
g, w = build()
x = np.random.default_rng(1).standard_normal((8, 64)).astype(np.float32)
want = softmax(x @ w)
counts = {"ok": 0, "closed": 0, "wrong": 0, "other": []}

def worker(sess):
    for _ in range(50):
        try:
            got = sess.run("probs:0", {"x:0": x})
        except RuntimeError as e:
            if "closed" not in str(e):
                counts["other"].append(repr(e))
            counts["closed"] += 1
            return  # once closed, every later run fails the same way
        except Exception as e:
            counts["other"].append(repr(e))
            return
        if np.allclose(got, want, rtol=1e-4, atol=1e-6):
            counts["ok"] += 1
        else:
            counts["wrong"] += 1

deadline = time.monotonic() + 4
reps = 0
while reps < 300 and time.monotonic() < deadline:
    sess = opgen.Session(graph=g)
    t = threading.Thread(target=worker, args=(sess,))
    t.start()
    if reps % 2:
        time.sleep(0.0005 * (reps % 7))  # close at different points of the runs
    sess.close()
    t.join()
    reps += 1
assert counts["wrong"] == 0 and not counts["other"], counts
assert counts["ok"] > 0 and counts["closed"] > 0, counts
print("reps", reps, counts["ok"], counts["closed"])
""")
    assert out.startswith("reps")


def test_python_close_from_many_threads_and_runs_from_many():
    """Several runners and several closers on one session: one close frees it."""
    run_child(PY_GRAPH + """
g, w = build()
x = np.ones((4, 64), np.float32)
want = softmax(x @ w)
errors = []
deadline = time.monotonic() + 3
while time.monotonic() < deadline:
    sess = opgen.Session(graph=g)
    def runner():
        try:
            for _ in range(20):
                np.testing.assert_allclose(sess.run("probs:0", {"x:0": x}), want, rtol=1e-4)
        except RuntimeError as e:
            if "closed" not in str(e):
                errors.append(repr(e))
        except Exception as e:
            errors.append(repr(e))
    threads = [threading.Thread(target=runner) for _ in range(4)]
    threads += [threading.Thread(target=sess.close) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
assert not errors, errors[:5]
""")


C_API = f"""
import ctypes, sys, threading, time
import numpy as np
sys.path.insert(0, {str(C_API_HELPERS)!r})
from graph_capi import Api, CApiError, FAILED_PRECONDITION, TF_FLOAT, TF_Output, out
from opgen import _paths
from opgen.runtime import _lib
_lib._preload_openblas()
api = Api(ctypes.CDLL(str(_paths.runtime_library_path())))
lib = api.lib

def build(graph):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    x = api.placeholder(graph, "x", TF_FLOAT, [-1, 64])
    y = api.op(graph, "MatMul", "y", [out(x), out(api.const(graph, "w", w))])
    z = api.op(graph, "Tanh", "z", [out(y)])
    return x, z, w
"""


def test_c_close_while_another_thread_runs():
    """TF_CloseSession while another thread runs: the run in flight finishes right,
    the runs after the close fail with FAILED_PRECONDITION, nothing crashes."""
    out = run_child(C_API + """
graph = lib.TF_NewGraph()
x, z, w = build(graph)
value = np.random.default_rng(2).standard_normal((32, 64)).astype(np.float32)
want = np.tanh(value @ w)
ok = refused = 0
bad = []
started = threading.Event()

def runner(sess):
    global ok, refused
    status = lib.TF_NewStatus()
    try:
        for i in range(40):
            if i == 1:
                started.set()
            try:
                got, = api.run(sess, [(out(x), value)], [out(z)], status=status)
            except CApiError as e:
                if e.code == FAILED_PRECONDITION and "closed" in e.message:
                    refused += 1
                else:
                    bad.append(repr(e))
                return
            if np.allclose(got, want, rtol=1e-4, atol=1e-5):
                ok += 1
            else:
                bad.append("wrong result")
    finally:
        started.set()
        lib.TF_DeleteStatus(status)

deadline = time.monotonic() + 3
reps = 0
while reps < 200 and time.monotonic() < deadline:
    sess = api.session(graph)
    started.clear()
    t = threading.Thread(target=runner, args=(sess,))
    t.start()
    started.wait()
    status = lib.TF_NewStatus()
    lib.TF_CloseSession(sess, status)  # returns once the run in flight is over
    assert lib.TF_GetCode(status) == 0
    t.join()  # the runner stops at its next run: refused
    lib.TF_DeleteSession(sess, status)
    assert lib.TF_GetCode(status) == 0
    lib.TF_DeleteStatus(status)
    reps += 1
lib.TF_DeleteGraph(graph)
assert not bad, bad[:5]
assert ok > 0 and refused > 0, (ok, refused)
print("reps", reps, ok, refused)
""")
    assert out.startswith("reps")


def test_c_delete_waits_for_the_run_in_flight():
    """TF_DeleteSession called while another thread is inside a long TF_SessionRun
    waits for that run, which returns the right value."""
    out = run_child(C_API + """
rng = np.random.default_rng(3)
n = 384
graph = lib.TF_NewGraph()
x = api.placeholder(graph, "x", TF_FLOAT, [n, n])
weights = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in range(6)]
y = x
for i, wi in enumerate(weights):  # a run of about 0.1 s
    y = api.op(graph, "MatMul", f"mm{i}", [out(y), out(api.const(graph, f"w{i}", wi))])
value = rng.standard_normal((n, n)).astype(np.float32)
want = value
for wi in weights:
    want = want @ wi
sess = api.session(graph)
api.run(sess, [(out(x), value)], [out(y)])  # the first run builds the plan: not timed
start = time.perf_counter()
api.run(sess, [(out(x), value)], [out(y)])
one_run = time.perf_counter() - start
lib.TF_DeleteSession(sess, api.status)
tooks = []
def enter_run(sess, in_ops, in_vals, out_ops, out_vals, status):
    # While a thread's top Python frame is this function, it is inside TF_SessionRun
    # (or a few bytecodes from it): ctypes calls have no frame of their own.
    lib.TF_SessionRun(sess, None, in_ops, in_vals, 1, out_ops, out_vals, 1, None, 0, None, status)

# Whether a delete lands inside the run is up to the scheduler: on a loaded machine the
# runner can be descheduled past its run's end. Try until three deletes waited.
waited = 0
reps = 0
give_up_all = time.monotonic() + 60
while waited < 3 and reps < 24 and time.monotonic() < give_up_all:
    reps += 1
    sess = api.session(graph)
    result = {}
    def runner():
        status = lib.TF_NewStatus()
        in_ops, out_ops = (TF_Output * 1)(out(x)), (TF_Output * 1)(out(y))
        in_vals, out_vals = (ctypes.c_void_p * 1)(api.tensor(value)), (ctypes.c_void_p * 1)()
        enter_run(sess, in_ops, in_vals, out_ops, out_vals, status)
        result["code"] = lib.TF_GetCode(status)
        if out_vals[0]:
            result["value"] = api.to_numpy(out_vals[0])
        lib.TF_DeleteTensor(in_vals[0])
        lib.TF_DeleteStatus(status)
    t = threading.Thread(target=runner)
    t.start()
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        frame = sys._current_frames().get(t.ident)
        if frame is not None and frame.f_code is enter_run.__code__:
            break
        time.sleep(0.0005)
    time.sleep(0.2 * one_run)  # well inside the run now
    status = lib.TF_NewStatus()
    start = time.perf_counter()
    lib.TF_DeleteSession(sess, status)
    delete_took = time.perf_counter() - start
    lib.TF_DeleteStatus(status)
    t.join()
    assert result["code"] == 0, result
    # Freed under the run, the plan's kernels and buffers would crash it or give
    # garbage; the delete waited instead, for the rest of the run (a delete alone
    # takes microseconds).
    np.testing.assert_allclose(result["value"], want, rtol=1e-3, atol=1e-3)
    waited += delete_took > 0.2 * one_run
    tooks.append(round(delete_took, 4))
lib.TF_DeleteGraph(graph)
assert waited >= 3, (waited, reps, one_run, tooks)
print("waited", waited)
""")
    assert out.startswith("waited")


def test_c_delete_graph_while_its_session_runs_and_races_the_session_delete():
    """TF_DeleteGraph while a session runs the graph defers the delete to the session's;
    a session's delete racing the graph's frees the graph once."""
    run_child(C_API + """
value = np.ones((16, 64), np.float32)
deadline = time.monotonic() + 4
reps = 0
while reps < 400 and time.monotonic() < deadline:
    graph = lib.TF_NewGraph()
    x, z, w = build(graph)
    sess = api.session(graph)
    results = []
    def runner():
        status = lib.TF_NewStatus()
        results.append(api.run(sess, [(out(x), value)], [out(z)], status=status)[0])
        lib.TF_DeleteStatus(status)
    t = threading.Thread(target=runner)
    t.start()
    if reps % 2 == 0:
        lib.TF_DeleteGraph(graph)  # while the run may be in flight
        t.join()
        status = lib.TF_NewStatus()
        lib.TF_DeleteSession(sess, status)  # frees the graph too
        lib.TF_DeleteStatus(status)
    else:
        t.join()
        # The session's delete and the graph's, from two threads at once.
        barrier = threading.Barrier(2)
        def delete_session():
            status = lib.TF_NewStatus()
            barrier.wait()
            lib.TF_DeleteSession(sess, status)
            lib.TF_DeleteStatus(status)
        def delete_graph():
            barrier.wait()
            lib.TF_DeleteGraph(graph)
        pair = [threading.Thread(target=delete_session), threading.Thread(target=delete_graph)]
        for p in pair:
            p.start()
        for p in pair:
            p.join()
    np.testing.assert_allclose(results[0], np.tanh(value @ w), rtol=1e-4, atol=1e-5)
    reps += 1
print("reps", reps)
""")


def test_session_runs_while_its_graph_gains_nodes():
    """One thread adds nodes (C API and Python Graph) while others run the session on
    the old part and on nodes added meanwhile; every result is right."""
    run_child(PY_GRAPH + """
g, w = build()
x = np.ones((2, 64), np.float32)
want = softmax(x @ w)
sess = opgen.Session(graph=g)
errors = []
added = []
stop = threading.Event()

def grower():
    i = 0
    logits = g.get_tensor_by_name("logits:0")
    while not stop.is_set() and i < 3000:
        node = g.create_op("Relu", [logits], name=f"relu_{i}").outputs[0]
        added.append(node)
        i += 1

def runner(seed):
    rng = np.random.default_rng(seed)
    try:
        while not stop.is_set():
            np.testing.assert_allclose(sess.run("probs:0", {"x:0": x}), want, rtol=1e-4)
            if added:
                node = added[int(rng.integers(len(added)))]
                got = sess.run(node, {"x:0": x})
                np.testing.assert_allclose(got, np.maximum(x @ w, 0), rtol=1e-4, atol=1e-5)
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=grower)] + [threading.Thread(target=runner, args=(s,))
                                               for s in range(3)]
for t in threads:
    t.start()
time.sleep(2.5)
stop.set()
for t in threads:
    t.join()
sess.close()
assert not errors, errors[:3]
assert len(added) > 10
""")
