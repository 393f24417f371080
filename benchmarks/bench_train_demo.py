"""One SGD step of examples/train's models (the MLP 64 -> 32 -> 10 and the small CNN, batch
64): opgen's Session.run([loss, train_op], feeds) against TensorFlow 2.21's Session.run on
the same graph (tf.compat.v1, built by examples/train/train_tensorflow.py from the same
files, in a child process: TensorFlow is never imported here). The two are timed in
alternating rounds; each figure is the median over the rounds of each round's median
step. The ratio is TensorFlow's time / opgen's (the target: at least 2).

    python benchmarks/bench_train_demo.py [--repeats 600] [--rounds 6] [--threads N]
        [--tf-python PYTHON]

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


# TensorFlow's side, a child process serving requests so that the two libraries' timings
# interleave (the machine's other load then weighs on both alike). argv: demo dir, data
# dir, threads, step_times' source; each stdin line "MODEL REPEATS" gets a JSON median.
TF_CHILD = textwrap.dedent("""
    import json, os, statistics, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    import train_tensorflow as demo
    exec(sys.argv[4])   # step_times, shared with the parent
    data, threads = Path(sys.argv[2]), int(sys.argv[3])
    images, classes = demo.load(data, "x", 640, 64), demo.load(data, "labels", 640)
    runs = {}
    for model in ("mlp", "cnn"):
        g, t = demo.build(data, model)
        sess = demo.session(g, threads)
        sess.run(t["init"])
        runs[model] = (sess, t)
    print("ready", flush=True)
    for line in sys.stdin:
        model, repeats = line.split()
        sess, t = runs[model]
        print(json.dumps(step_times(sess, t, images, classes, int(repeats))), flush=True)
""")


class TensorFlowSide:
    """The child process with TensorFlow's sessions; None-like when it cannot start."""

    def __init__(self, python: str | None, data: Path, threads: int) -> None:
        import inspect
        self.proc = None
        try:
            if not python:
                raise RuntimeError("no --tf-python given and OPGEN_TF_PYTHON is not set")
            self.proc = subprocess.Popen(
                [python, "-c", "import statistics, time\n" + TF_CHILD, str(DEMO), str(data),
                 str(threads), inspect.getsource(step_times)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                cwd=tempfile.gettempdir())
            if self.proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the TensorFlow child did not start")
        except (OSError, RuntimeError) as e:
            print(f"TensorFlow not measured: {e}", file=sys.stderr)
            self.close()

    def time(self, model: str, repeats: int) -> float | None:
        if self.proc is None:
            return None
        self.proc.stdin.write(f"{model} {repeats}\n")
        self.proc.stdin.flush()
        return float(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.proc = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"),
                        help="an interpreter with tensorflow (default: $OPGEN_TF_PYTHON)")
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
    sessions = {}
    for model in MODELS:
        g, t = demo.build(data, model)
        sess = opgen.Session(g)
        sess.run(t["init"])
        sessions[model] = (sess, t)
    tf_side = TensorFlowSide(args.tf_python, data, args.threads)
    ours: dict[str, list[float]] = {m: [] for m in MODELS}
    theirs: dict[str, list[float]] = {m: [] for m in MODELS}
    per_round = max(1, args.repeats // args.rounds)
    for _ in range(args.rounds):   # alternating: each round times both, model by model
        for model in MODELS:
            sess, t = sessions[model]
            ours[model].append(step_times(sess, t, images, classes, per_round))
            their_time = tf_side.time(model, per_round)
            if their_time is not None:
                theirs[model].append(their_time)
    tf_side.close()
    for sess, _ in sessions.values():
        sess.close()

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; threads "
          f"{args.threads or 'default'}; one SGD step (Session.run of loss + train op, "
          f"batch 64); medians of {args.rounds} alternating rounds of {args.repeats // args.rounds}")
    for model in MODELS:
        mine = statistics.median(ours[model])
        line = f"{model}: opgen {mine * 1e6:8.1f} us"
        if theirs[model]:
            tf_time = statistics.median(theirs[model])
            line += f" | TensorFlow {tf_time * 1e6:8.1f} us | ratio TF/opgen {tf_time / mine:.2f}"
        print(line)

if __name__ == "__main__":
    main()
