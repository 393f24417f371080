"""Start-up: from a fresh interpreter to the first eager op's result, against importing
numpy alone (opgen cannot start faster than numpy) and TensorFlow where one is at hand.

    env -u PYTHONDONTWRITEBYTECODE python benchmarks/bench_import.py [--repeats 11]
        [--tf-python PYTHON]

Each repeat starts one child per case, in rotating order, so the machine's load hits
them alike; prints the median wall time of each and the ratios to numpy's and to
TensorFlow's. Bytecode caches are written by a warm-up run first (users have them:
pip compiles on install), so PYTHONDONTWRITEBYTECODE must be unset here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "numpy": "import numpy",
    "import opgen.runtime": "import opgen.runtime",
    "first opgen op": "from opgen import ops\nops.add_v2([1.0, 2.0], [3.0, 4.0]).numpy()",
}
TF_CASE = ("first TensorFlow op",
           "import tensorflow as tf\ntf.raw_ops.AddV2(x=[1.0, 2.0], y=[3.0, 4.0]).numpy()")


def _time_child(python: str, code: str) -> float:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, env=env, cwd=tempfile.gettempdir(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"))
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set here; children run without it")
    cases = [(name, sys.executable, code) for name, code in CASES.items()]
    if args.tf_python:
        cases.append((TF_CASE[0], args.tf_python, TF_CASE[1]))
    for _, python, code in cases:  # warm-up: bytecode caches, the page cache
        _time_child(python, code)
    samples: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for r in range(args.repeats):
        for name, python, code in cases[r % len(cases):] + cases[:r % len(cases)]:
            samples[name].append(_time_child(python, code))
    medians = {name: statistics.median(t) for name, t in samples.items()}
    for name, t in medians.items():
        line = f"{name:22s} {t * 1e3:8.1f} ms   {t / medians['numpy']:5.2f}x numpy"
        if TF_CASE[0] in medians and name != TF_CASE[0]:
            line += f"   TF/this {medians[TF_CASE[0]] / t:5.2f}"
        print(line)
    print(f"(medians of {args.repeats}; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
