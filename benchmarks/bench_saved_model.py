"""A SavedModel signature call: opgen.saved_model.load(...).signatures[name](**inputs)
against TensorFlow's tf.saved_model.load(...).signatures[name](**inputs) on the same
SavedModel and inputs (TensorFlow in a child process, $OPGEN_TF_PYTHON or --tf-python,
never imported here). Uses the fixtures of tests/fixtures/saved_models (their
<name>_io.npz inputs). Prints medians and the ratio TensorFlow / opgen (above 1: opgen is
faster); models opgen cannot load yet (TF2 graphs need function calls) are reported as
such, not timed.

    python benchmarks/bench_saved_model.py [--models tf1_dense,keras_conv] [--repeats 200]

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
from pathlib import Path

import numpy as np
from _timing import median_seconds as _median_seconds

import opgen

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "saved_models"
MODELS = ["tf1_dense", "keras_dense", "keras_conv", "keras_lstm", "module_flow"]


def inputs_of(name: str) -> dict[str, dict[str, np.ndarray]]:
    """{signature: {key: array}} from the fixture's .npz."""
    out: dict[str, dict[str, np.ndarray]] = {}
    with np.load(FIXTURES / f"{name}_io.npz") as data:
        for key in data.files:
            signature, side, arg = key.split("/")
            if side == "in":
                out.setdefault(signature, {})[arg] = data[key]
    return out


def median_seconds(fn, repeats: int) -> float:
    return _median_seconds(fn, repeats, warmup=5)


TF_CHILD = textwrap.dedent("""
    import json, os, statistics, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import numpy as np
    import tensorflow as tf
    path, signature, npz, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    fn = tf.saved_model.load(path).signatures[signature]
    with np.load(npz) as data:
        feeds = {k.split("/")[2]: tf.constant(data[k]) for k in data.files
                 if k.startswith(signature + "/in/")}
    call = lambda: {k: v.numpy() for k, v in fn(**feeds).items()}
    for _ in range(5):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    print(json.dumps({"median": statistics.median(times)}))
""")


def tensorflow_median(python: str, name: str, signature: str, repeats: int) -> float | None:
    result = subprocess.run(
        [python, "-c", TF_CHILD, str(FIXTURES / name), signature,
         str(FIXTURES / f"{name}_io.npz"), str(repeats)],
        capture_output=True, text=True, timeout=600, cwd="/")
    if result.returncode != 0:
        print(f"  TensorFlow failed: {result.stderr.strip().splitlines()[-1:]}")
        return None
    return float(json.loads(result.stdout.strip().splitlines()[-1])["median"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"))
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()}")
    for name in args.models.split(","):
        try:
            model = opgen.saved_model.load(FIXTURES / name)
        except opgen.errors.UnimplementedError as e:
            print(f"{name}: not loaded by opgen yet ({e.op_name or 'an op'} missing)")
            continue
        with model:
            for signature, feeds in sorted(inputs_of(name).items()):
                call = model.signatures[signature]
                ours = median_seconds(lambda call=call, feeds=feeds: call(**feeds), args.repeats)
                line = f"{name}/{signature}: opgen {ours * 1e6:.1f} us"
                theirs = (tensorflow_median(args.tf_python, name, signature, args.repeats)
                          if args.tf_python else None)
                if theirs is not None:
                    line += f", TensorFlow {theirs * 1e6:.1f} us, TF/opgen {theirs / ours:.2f}x"
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
