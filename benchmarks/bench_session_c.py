"""Per-run cost of TF_SessionRun, called through ctypes, against TensorFlow's graph mode
in the same process (when TensorFlow is importable).

    python benchmarks/bench_session_c.py [--repeats 7]

Cases: one AddV2 node on fed scalars (the fixed cost of a run), and a chain of 1000
scalar AddV2 nodes (the per-node cost). The opgen column times one TF_SessionRun plus
the TF_DeleteTensor of its result, with the ctypes argument arrays built once; the
TensorFlow column times a callable made with `Session.make_callable`, TensorFlow's
cheapest Python route into a graph run. Medians of several repeats; the ratio is
tensorflow/opgen (above 1.0 means opgen is faster). An opgen run is one thread, so its
CPU time (the `opgen cpu` column, thread time) is also given: on a loaded, shared machine
it is what an idle one would show as wall time.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "runtime"))
from _timing import median_seconds as _median_seconds
from graph_capi import TF_FLOAT, Api, TF_Output, c_void_p, out  # noqa: E402


def median_seconds(fn, repeats: int, inner: int, clock=time.perf_counter) -> float:
    return _median_seconds(fn, repeats, inner, warmup=max(inner // 10, 1), clock=clock)


def load_api() -> Api:
    from opgen import _paths
    from opgen.runtime import _lib
    _lib._preload_openblas()
    return Api(ctypes.CDLL(str(_paths.runtime_library_path())))


def opgen_chain(api: Api, length: int):
    """A session computing x + x + ... (length AddV2 nodes); returns a run function."""
    lib = api.lib
    graph = lib.TF_NewGraph()
    x = api.placeholder(graph, "x", TF_FLOAT, [])
    node = x
    for i in range(length):
        node = api.op(graph, "AddV2", f"add{i}", [out(node), out(x)])
    sess = api.session(graph)
    feeds = (TF_Output * 1)(out(x))
    values = (c_void_p * 1)(api.tensor(np.float32(1.0)))
    fetches = (TF_Output * 1)(out(node))
    results = (c_void_p * 1)()
    status, run, delete = api.status, lib.TF_SessionRun, lib.TF_DeleteTensor

    def run_once():
        run(sess, None, feeds, values, 1, fetches, results, 1, None, 0, None, status)
        delete(results[0])

    run_once()
    api.check()
    assert api.to_numpy(_fetch(api, sess, feeds, values, fetches)) == np.float32(length + 1)
    return run_once


def _fetch(api, sess, feeds, values, fetches):
    results = (c_void_p * 1)()
    api.lib.TF_SessionRun(sess, None, feeds, values, 1, fetches, results, 1, None, 0, None, api.status)
    api.check()
    return results[0]


def tensorflow_chain(length: int):
    try:
        import tensorflow as tf
    except ImportError:
        return None
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        node = x
        for _ in range(length):
            node = tf.raw_ops.AddV2(x=node, y=x)
    sess = tf.compat.v1.Session(graph=g)
    fn = sess.make_callable(node, feed_list=[x])
    value = np.float32(1.0)
    assert fn(value) == np.float32(length + 1)
    return lambda: fn(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    api = load_api()
    print(f"{'case':34s} {'opgen':>12s} {'opgen cpu':>12s} {'tensorflow':>12s} {'tf/opgen':>10s}")
    for label, length, inner in (("1 AddV2 node, scalar feed", 1, 20000),
                                 ("1000 AddV2 nodes chain, scalar", 1000, 500)):
        run = opgen_chain(api, length)
        t_ours = median_seconds(run, args.repeats, inner)
        cpu_ours = median_seconds(run, args.repeats, inner, clock=time.thread_time)
        head = f"{label:34s} {t_ours * 1e6:10.1f}us {cpu_ours * 1e6:10.1f}us"
        tf_fn = tensorflow_chain(length)
        if tf_fn is None:
            print(f"{head} {'n/a':>12s}")
            continue
        t_tf = median_seconds(tf_fn, args.repeats, inner // 4)
        print(f"{head} {t_tf * 1e6:10.1f}us {t_tf / t_ours:10.2f}")


if __name__ == "__main__":
    main()
