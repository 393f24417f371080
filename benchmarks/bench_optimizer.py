"""Frozen models with the session's graph optimizer on and off, against TensorFlow.

Runs tests/fixtures/tf_models/cnn.pb and a full-size Keras ResNet50 (batch 1, 224x224,
random weights) frozen by TensorFlow into a temporary folder (never committed), each
through opgen.Session with SessionOptions(optimize=True) and (optimize=False), and
through TensorFlow's own session (tf.compat.v1.Session, Grappler on) when a Python with
TensorFlow is at hand. Prints the median latency of each and the ratios; checks the
outputs agree.

    python benchmarks/bench_optimizer.py [--repeats 30] [--tf-python PYTHON]

TensorFlow is never imported into this process: the ResNet50 is frozen, and
TensorFlow's latency measured, by a child process of the --tf-python interpreter
(default: $OPGEN_TF_PYTHON, else this one if it can import tensorflow). Without one, only cnn.pb runs, opgen against itself. For
numbers comparable with TensorFlow's, unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import opgen
from opgen.protos import graph_pb2

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "tf_models"

# Run by the TensorFlow interpreter: the median latency of a frozen graph in a TF1
# session, and its output, for one input.
_TF_TIMER = r"""
import json, os, statistics, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
pb, inp, out, x_path, y_path, repeats = sys.argv[1:7]
graph_def = tf.compat.v1.GraphDef.FromString(open(pb, "rb").read())
graph = tf.Graph()
with graph.as_default():
    tf.compat.v1.import_graph_def(graph_def, name="")
x = np.load(x_path)
with tf.compat.v1.Session(graph=graph) as session:
    y = session.run(out, {inp: x})
    for _ in range(3):
        session.run(out, {inp: x})
    times = []
    for _ in range(int(repeats)):
        start = time.perf_counter()
        session.run(out, {inp: x})
        times.append(time.perf_counter() - start)
np.save(y_path, y)
print(json.dumps({"median": statistics.median(times)}))
"""


def tf_python(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("OPGEN_TF_PYTHON")):
        if candidate and Path(candidate).exists():
            return candidate
    try:
        import importlib.util
        if importlib.util.find_spec("tensorflow") is not None:
            return sys.executable
    except (ImportError, ValueError):
        pass
    return None


def child_env() -> dict:
    env = dict(os.environ)
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(name, None)
    return env


def opgen_median(pb: Path, inp: str, out: str, x: np.ndarray, optimize: bool, repeats: int):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(graph_pb2.GraphDef.FromString(pb.read_bytes()), name="")
    with opgen.Session(graph, options=opgen.SessionOptions(optimize=optimize)) as session:
        start = time.perf_counter()
        y = session.run(out, {inp: x})  # plans (and optimizes) the signature
        first = time.perf_counter() - start
        for _ in range(3):
            session.run(out, {inp: x})
        times, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            session.run(out, {inp: x})
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        nodes = len(session.optimized_graph_def(out, [inp]).node)
    return statistics.median(times), first, y, nodes, statistics.median(cpu)


def bench(name: str, pb: Path, inp: str, out: str, x: np.ndarray, repeats: int,
          tf_exe: str | None) -> None:
    on, on_first, y_on, n_on, on_cpu = opgen_median(pb, inp, out, x, True, repeats)
    off, off_first, y_off, n_off, off_cpu = opgen_median(pb, inp, out, x, False, repeats)
    scale = float(np.abs(y_off).max()) or 1.0
    diff = float(np.abs(y_on - y_off).max()) / scale
    print(f"{name}: opgen optimized {on * 1e3:8.3f} ms ({n_on} nodes; first run "
          f"{on_first * 1e3:.0f} ms)   unoptimized {off * 1e3:8.3f} ms ({n_off} nodes; first "
          f"run {off_first * 1e3:.0f} ms)   speed-up x{off / on:.2f}   max |diff| / max|y| "
          f"{diff:.1e}")
    # CPU time (all threads) per run: the work done, less disturbed by a busy machine.
    print(f"{name}: CPU time per run, optimized {on_cpu * 1e3:8.3f} ms   unoptimized "
          f"{off_cpu * 1e3:8.3f} ms   x{off_cpu / on_cpu:.2f}")
    if tf_exe is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        x_path, y_path = Path(tmp) / "x.npy", Path(tmp) / "y.npy"
        np.save(x_path, x)
        result = subprocess.run(
            [tf_exe, "-c", _TF_TIMER, str(pb), inp, out, str(x_path), str(y_path), str(repeats)],
            capture_output=True, text=True, env=child_env(), check=True)
        tf_median = json.loads(result.stdout.strip().splitlines()[-1])["median"]
        y_tf = np.load(y_path)
    tf_diff = float(np.abs(y_on - y_tf).max()) / (float(np.abs(y_tf).max()) or 1.0)
    print(f"{name}: TensorFlow session {tf_median * 1e3:8.3f} ms   TF / opgen optimized "
          f"x{tf_median / on:.2f}   TF / opgen unoptimized x{tf_median / off:.2f}   "
          f"max |diff| / max|y| vs TF {tf_diff:.1e}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--tf-python", default=None)
    parser.add_argument("--resnet50", type=Path, default=None,
                        help="a frozen ResNet50 to reuse (made in a temporary folder otherwise)")
    args = parser.parse_args(argv)
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            print(f"note: {name} is set; unset it for numbers comparable with TensorFlow's")
    tf_exe = tf_python(args.tf_python)

    io = np.load(FIXTURES / "cnn_io.npz")
    bench("cnn.pb", FIXTURES / "cnn.pb", str(io["input_name"]), str(io["output_name"]),
          io["input"], args.repeats * 10, tf_exe)

    if tf_exe is None and args.resnet50 is None:
        print("ResNet50: skipped (no Python with TensorFlow to freeze it; see --tf-python)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        pb = args.resnet50
        if pb is None:
            pb = Path(tmp) / "resnet50.pb"
            subprocess.run([tf_exe, str(REPO / "tools" / "make_optimizer_fixtures.py"),
                            "--resnet50", str(pb)], check=True, env=child_env(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        graph_def = graph_pb2.GraphDef.FromString(pb.read_bytes())
        inp = next(n.name for n in graph_def.node if n.op == "Placeholder") + ":0"
        x = np.random.default_rng(0).normal(size=(1, 224, 224, 3)).astype(np.float32)
        bench("ResNet50", pb, inp, "Identity:0", x, args.repeats, tf_exe)


if __name__ == "__main__":
    main()
