"""No kernel holds the Python GIL while it runs (issue 18): while one thread runs a long
op with small inputs, another Python thread keeps making progress, on the eager fast
path, the eager ctypes path and Session.run. Before the fix the fast path released
the GIL only for inputs of 64 KiB or more, so a long MaxPool over a 37 KB image stopped
every other thread: a counting thread made 1% of its ticks, with pauses of over 1 s."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import opgen
from opgen.runtime import eager

pytestmark = pytest.mark.usefixtures("runtime_lib")

# 1x96x96x1 float32: 36,864 bytes (under the old 64 KiB threshold). A 97x97 SAME window
# clipped to the image reads ~5,000 values per output: ~5 * 10^7 reads in all.
SIZE = 96
IMAGE = np.random.default_rng(5).standard_normal((1, SIZE, SIZE, 1)).astype(np.float32)
ATTRS = {"ksize": [1, SIZE + 1, SIZE + 1, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}


def ticks_per_second(seconds: float) -> float:
    count, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        count += 1
    return count / seconds


def progress_while(run_op, min_seconds: float = 0.4) -> tuple[float, float, float]:
    """Runs `run_op` repeatedly in a thread for at least `min_seconds`; meanwhile this
    thread counts. Returns (ticks/s while the op ran, ticks/s alone, longest gap)."""
    run_op()  # warm up: kernel resolution, plan building
    alone = ticks_per_second(0.15)
    stop = threading.Event()
    calls = []

    def worker():
        start = time.perf_counter()
        while not calls or time.perf_counter() - start < min_seconds:
            run_op()
            calls.append(time.perf_counter())
        stop.set()

    thread = threading.Thread(target=worker)
    count, last, gap = 0, time.perf_counter(), 0.0
    begin = last
    thread.start()
    while not stop.is_set():
        now = time.perf_counter()
        gap = max(gap, now - last)
        last = now
        count += 1
    thread.join()
    return count / (time.perf_counter() - begin), alone, gap


def check_progress(run_op):
    during, alone, gap = progress_while(run_op)
    # Holding the GIL, a kernel leaves the counter a few ticks per call (~0% of its rate
    # alone); released, the counter shares the CPU with the kernel. 5% leaves room for
    # a loaded machine.
    assert during > 0.05 * alone, (
        f"the counting thread made {during:.0f} ticks/s while the op ran, {alone:.0f} alone; "
        f"longest pause {gap * 1e3:.0f} ms")


def max_pool_reference(x, k):
    n, h, w, c = x.shape
    half = k // 2
    out = np.empty_like(x)
    for i in range(h):
        for j in range(w):
            window = x[:, max(i - half, 0):i + k - half, max(j - half, 0):j + k - half]
            out[:, i, j] = window.max(axis=(1, 2))
    return out


def test_the_long_op_is_long_and_right():
    start = time.perf_counter()
    got = np.asarray(opgen.execute_op("MaxPool", [IMAGE], ATTRS)[0])
    elapsed = time.perf_counter() - start
    np.testing.assert_array_equal(got, max_pool_reference(IMAGE, SIZE + 1))
    assert elapsed > 0.01  # long enough for the progress tests to mean something


def test_eager_fast_path_releases_the_gil():
    fastpath = pytest.importorskip("opgen.runtime._eager_fastpath")
    if eager.execute_op is not fastpath.execute_op:
        pytest.skip("the fast path is disabled ($OPGEN_DISABLE_FAST_PATH)")
    check_progress(lambda: eager.execute_op("MaxPool", [IMAGE], ATTRS))


def test_eager_ctypes_path_releases_the_gil():
    check_progress(lambda: eager._execute_op_python("MaxPool", [IMAGE], ATTRS, None))


def test_session_run_releases_the_gil():
    g = opgen.Graph()
    x = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": list(IMAGE.shape)},
                    name="x").outputs[0]
    pooled = g.create_op("MaxPool", [x], dict(ATTRS), name="pool").outputs[0]
    with opgen.Session(graph=g) as session:
        check_progress(lambda: session.run(pooled, {x: IMAGE}))
