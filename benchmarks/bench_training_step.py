"""One optimizer step (SGD, Adam) on a 1M-element float32 variable: opgen.train eagerly,
against numpy updating arrays in place (the least work a step can do), and against
TensorFlow's tf.compat.v1.train optimizers eagerly when a Python with TensorFlow is at
hand (run in a child process, never imported here). Also opgen's step while a reader
holds the old value (copy-on-write) against the same step in place. Prints the median
of each and the ratios (reference time / opgen time: above 1, opgen is faster).

    python benchmarks/bench_training_step.py [--size 1000000] [--repeats 50]
        [--tf-python PYTHON]

For numbers comparable with TensorFlow's, unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
from _timing import median_seconds

import opgen


def numpy_steps(w, g):
    lr, b1, b2, eps = np.float32(0.01), np.float32(0.9), np.float32(0.999), np.float32(1e-8)
    m, v, tmp = np.zeros_like(w), np.zeros_like(w), np.empty_like(w)
    state = {"t": 0}

    def sgd():
        np.multiply(g, lr, out=tmp)
        np.subtract(w, tmp, out=w)

    def adam():
        state["t"] += 1
        t = state["t"]
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        np.subtract(g, m, out=tmp)
        np.multiply(tmp, 1 - b1, out=tmp)
        np.add(m, tmp, out=m)
        np.multiply(g, g, out=tmp)
        np.subtract(tmp, v, out=tmp)
        np.multiply(tmp, 1 - b2, out=tmp)
        np.add(v, tmp, out=v)
        np.sqrt(v, out=tmp)
        np.add(tmp, eps, out=tmp)
        np.divide(m, tmp, out=tmp)
        np.multiply(tmp, lr_t, out=tmp)
        np.subtract(w, tmp, out=w)

    return sgd, adam


TF_CHILD = textwrap.dedent("""
    import json, os, statistics, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import numpy as np
    import tensorflow as tf
    size, repeats = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    g = tf.constant(rng.standard_normal(size, dtype=np.float32))
    out = {}
    for name, opt in (("sgd", tf.compat.v1.train.GradientDescentOptimizer(0.01)),
                      ("adam", tf.compat.v1.train.AdamOptimizer(0.01))):
        w = tf.Variable(rng.standard_normal(size, dtype=np.float32))
        step = lambda: opt.apply_gradients([(g, w)])
        step()
        times = []
        for _ in range(repeats):
            start = time.perf_counter(); step(); times.append(time.perf_counter() - start)
        out[name] = statistics.median(times)
    print(json.dumps(out))
""")


def tensorflow_times(python: str | None, size: int, repeats: int) -> dict | None:
    if not python:
        return None
    try:
        result = subprocess.run([python, "-c", TF_CHILD, str(size), str(repeats)],
                                capture_output=True, text=True, timeout=600, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"),
                        help="an interpreter with tensorflow (default: $OPGEN_TF_PYTHON)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    g_np = rng.standard_normal(args.size, dtype=np.float32)
    g = opgen.convert_to_tensor(g_np)
    results = {}
    for name, opt in (("sgd", opgen.train.GradientDescentOptimizer(0.01)),
                      ("adam", opgen.train.AdamOptimizer(0.01))):
        w = opgen.Variable(rng.standard_normal(args.size, dtype=np.float32))
        in_place = median_seconds(lambda: opt.apply_gradients([(g, w)]), args.repeats)  # noqa: B023
        held = []

        def copy_on_write():
            held[:] = [w.read_value()]  # noqa: B023 - a reader holds the value: each step copies
            opt.apply_gradients([(g, w)])  # noqa: B023

        results[name] = {"opgen": in_place, "opgen_copy_on_write": median_seconds(
            copy_on_write, args.repeats)}
    sgd, adam = numpy_steps(rng.standard_normal(args.size, dtype=np.float32), g_np)
    results["sgd"]["numpy"] = median_seconds(sgd, args.repeats)
    results["adam"]["numpy"] = median_seconds(adam, args.repeats)
    tf_times = tensorflow_times(args.tf_python, args.size, args.repeats)
    for name in results:
        if tf_times is not None:
            results[name]["tensorflow"] = tf_times[name]

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"{args.size} float32 elements, median of {args.repeats}")
    for name, r in results.items():
        line = (f"{name:5s} opgen {r['opgen'] * 1e3:7.3f} ms | numpy in place "
                f"{r['numpy'] * 1e3:7.3f} ms (ratio {r['numpy'] / r['opgen']:.2f})")
        if "tensorflow" in r:
            line += (f" | TensorFlow {r['tensorflow'] * 1e3:7.3f} ms "
                     f"(ratio {r['tensorflow'] / r['opgen']:.2f})")
        line += (f" | copy-on-write step {r['opgen_copy_on_write'] * 1e3:7.3f} ms "
                 f"(in place saves {r['opgen_copy_on_write'] / r['opgen']:.2f}x)")
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
