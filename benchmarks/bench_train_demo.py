"""One SGD step of examples/train's models (the MLP 64 -> 32 -> 10 and the small CNN, batch
64): opgen's Session.run([loss, train_op], feeds) against TensorFlow 2.21's Session.run on
the same graph (tf.compat.v1, built by examples/train/train_tensorflow.py from the same
files, in a child process: TensorFlow is never imported here). Medians; the ratio is
TensorFlow's time / opgen's (the target: at least 2).

    python benchmarks/bench_train_demo.py [--repeats 500] [--threads N]
        [--tf-python /work/venv-tf/bin/python]

--threads sets opgen's OPGEN_NUM_THREADS and TensorFlow's intra/inter-op thread counts
(0: each library's default). For numbers comparable with TensorFlow's, unset
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "examples" / "train"
MODELS = ("mlp", "cnn")


def step_times(sess, t, images, classes, repeats: int) -> float:
    """The median seconds of one training step, rotating over the ten batches."""
    feeds = [{t["x"]: images[b * 64:(b + 1) * 64], t["labels"]: classes[b * 64:(b + 1) * 64]}
             for b in range(10)]
    fetches = [t["loss"], t["train"]]
    for i in range(20):  # warm up: plans built, buffers touched
        sess.run(fetches, feeds[i % 10])
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        sess.run(fetches, feeds[i % 10])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# The same loop in TensorFlow's Python: argv = demo dir, data dir, repeats, threads.
TF_CHILD = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    import train_tensorflow as demo
    exec(sys.argv[5])   # step_times, shared with the parent
    data, repeats, threads = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    images, classes = demo.load(data, "x", 640, 64), demo.load(data, "labels", 640)
    out = {}
    for model in ("mlp", "cnn"):
        g, t = demo.build(data, model)
        with demo.session(g, threads) as sess:
            sess.run(t["init"])
            out[model] = step_times(sess, t, images, classes, repeats)
    print(json.dumps(out))
""")


def tensorflow_times(python: str, data: Path, repeats: int, threads: int) -> dict | None:
    import inspect
    source = inspect.getsource(step_times)
    try:
        result = subprocess.run([python, "-c", "import statistics, time\n" + TF_CHILD,
                                 str(DEMO), str(data), str(repeats), str(threads), source],
                                capture_output=True, text=True, timeout=900, check=True,
                                cwd=tempfile.gettempdir())
    except (OSError, subprocess.SubprocessError) as e:
        print(f"TensorFlow not measured: {e}", file=sys.stderr)
        return None
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=500)
    parser.add_argument("--threads", type=int, default=0)
    default_tf = os.environ.get("OPGEN_TF_PYTHON", "/work/venv-tf/bin/python")
    parser.add_argument("--tf-python", default=default_tf)
    args = parser.parse_args()
    if args.threads:
        os.environ["OPGEN_NUM_THREADS"] = str(args.threads)  # read when the pool starts

    sys.path.insert(0, str(DEMO))
    import make_data
    import train as demo

    import opgen

    data = Path(tempfile.mkdtemp(prefix="opgen-train-bench-"))
    make_data.write(data)
    images, classes = demo.load(data, "x", 640, 64), demo.load(data, "labels", 640)
    ours = {}
    for model in MODELS:
        g, t = demo.build(data, model)
        with opgen.Session(g) as sess:
            sess.run(t["init"])
            ours[model] = step_times(sess, t, images, classes, args.repeats)
    theirs = tensorflow_times(args.tf_python, data, args.repeats, args.threads)

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; threads "
          f"{args.threads or 'default'}; one SGD step (Session.run of loss + train op, "
          f"batch 64), median of {args.repeats}")
    for model in MODELS:
        line = f"{model}: opgen {ours[model] * 1e6:8.1f} us"
        if theirs is not None:
            line += (f" | TensorFlow {theirs[model] * 1e6:8.1f} us | "
                     f"ratio TF/opgen {theirs[model] / ours[model]:.2f}")
        print(line)


if __name__ == "__main__":
    main()
