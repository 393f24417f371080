"""Session.run overhead of opgen against TensorFlow's graph mode, in the same process.

    python benchmarks/bench_graph.py [--repeats 15]

Cases, each a Graph built with opgen and imported into TensorFlow from opgen's own
GraphDef (so both run the same nodes):
- "1000-node chain": y = x + x + ... (1000 scalar AddV2 nodes), x a fed float32 scalar;
- "one node, fed": x + x with x a fed float32 scalar;
- "one node, no feed": fetch a scalar Const.

Prints the median time per ``Session.run`` of opgen and, when TensorFlow is importable,
of ``tf.compat.v1.Session.run`` with the same fetch and feed (tensor objects as keys
in both), and the ratio TF/opgen
(above 1.0 means opgen is faster). Run with a Python where both are installed, e.g.
``pip install .`` into TensorFlow's environment.
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from _timing import median_seconds_each

import opgen


def median_seconds(fns, repeats: int, inner: int) -> list[float]:
    """Median seconds per call of each function, their samples taken in turn (a shared
    machine's load changes hit all of them alike), after plan-cache warm-up calls."""
    return median_seconds_each(fns, repeats, inner, warmup=max(inner // 10, 3))


def placeholder(g, name="x"):
    return g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": []}, name=name).outputs[0]


def chain_graph(length: int):
    g = opgen.Graph()
    x = placeholder(g)
    y = x
    for i in range(length):
        y = g.create_op("AddV2", [y, x], name=f"add_{i}").outputs[0]
    return g, y.name, {x.name: np.float32(1.0)}, float(length + 1)


def one_node_fed_graph():
    g = opgen.Graph()
    x = placeholder(g)
    y = g.create_op("AddV2", [x, x], name="y").outputs[0]
    return g, y.name, {x.name: np.float32(1.5)}, 3.0


def one_node_const_graph():
    g = opgen.Graph()
    c = g.create_op("Const", [], {"dtype": opgen.float32, "value": np.float32(4.0)},
                    name="c").outputs[0]
    return g, c.name, {}, 4.0


CASES = [
    ("1000-node chain, scalar AddV2", lambda: chain_graph(1000), 300),
    ("one node (x + x), fed scalar", one_node_fed_graph, 2000),
    ("one node (Const), no feed", one_node_const_graph, 2000),
]


def tensorflow_runner(graph: opgen.Graph, fetch: str, feeds: dict):
    """A TensorFlow 1.x-style session over the same GraphDef, or None without TensorFlow."""
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
    except ImportError:
        return None
    tf_graph = tf.Graph()
    with tf_graph.as_default():
        tf.compat.v1.import_graph_def(
            tf.compat.v1.GraphDef.FromString(graph.as_graph_def().SerializeToString()), name="")
    session = tf.compat.v1.Session(graph=tf_graph)
    output = tf_graph.get_tensor_by_name(fetch)
    feed_dict = {tf_graph.get_tensor_by_name(name): value for name, value in feeds.items()}
    return lambda: session.run(output, feed_dict)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus")
    print(f"{'case':34s} {'opgen':>11s} {'tensorflow':>11s} {'tf/opgen':>9s}")
    for label, build, inner in CASES:
        graph, fetch, feeds, want = build()
        session = opgen.Session(graph=graph)
        feed_dict = {graph.get_tensor_by_name(name): value for name, value in feeds.items()}
        output = graph.get_tensor_by_name(fetch)
        result = session.run(output, feed_dict)
        assert result == want, (label, result, want)
        ours = lambda: session.run(output, feed_dict)  # noqa: E731
        tf_run = tensorflow_runner(graph, fetch, feeds)
        if tf_run is None:
            (t_ours,) = median_seconds([ours], args.repeats, inner)
            print(f"{label:34s} {t_ours * 1e6:9.1f}us {'-':>11s} {'-':>9s}")
        else:
            assert tf_run() == want
            t_ours, t_tf = median_seconds([ours, tf_run], args.repeats, inner)
            print(f"{label:34s} {t_ours * 1e6:9.1f}us {t_tf * 1e6:9.1f}us {t_tf / t_ours:9.2f}")
        session.close()


if __name__ == "__main__":
    main()
