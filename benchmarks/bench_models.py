"""Frozen Keras models on opgen against TensorFlow's session and ONNX Runtime, in the
same process.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/bench_models.py [--models resnet50 mobilenetv2 ...] [--batch 1 16]

Needs TensorFlow (the reference, and to freeze the models: full-size Keras applications
with random weights, written once to --cache by tools/make_model_fixtures.py --full);
ONNX Runtime and tf2onnx where installed (the frozen graph converted at opset 17). Also
runs the small families of tests/fixtures/tf_models/families (transformer, lstm, ...)
with --families.

For each model and batch size: the median latency (ms) of opgen with its graph optimizer,
opgen without it, TensorFlow's tf.compat.v1.Session, ONNX Runtime; the ratios
TF/opgen and ORT/opgen (above 1.0: opgen is faster); and the largest difference of
opgen's outputs from TensorFlow's, relative to the largest output; and the time from the
GraphDef to each runtime's first result (import, optimization, first run; the median of
--first-repeats fresh runners). Rounds alternate
between the runtimes, so a shared machine's load hits them alike.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "tests" / "fixtures" / "tf_models" / "families"
FULL_MODELS = ["resnet50", "mobilenetv2", "efficientnetb0", "densenet121"]


def ensure_full_models(cache: Path, names):
    missing = [n for n in names if not (cache / f"{n}.pb").exists()]
    if missing:
        print(f"freezing {', '.join(missing)} into {cache} (once)...", file=sys.stderr)
        subprocess.run([sys.executable, str(REPO / "tools" / "make_model_fixtures.py"),
                        "--full", str(cache), "--only", *missing], check=True)


def load_fixture(folder: Path, name: str):
    graph_def = (folder / f"{name}.pb").read_bytes()
    io = np.load(folder / f"{name}_io.npz")
    inputs = [str(n) for n in io["input_names"]]
    outputs = [str(n) for n in io["output_names"]]
    values = [io[f"in_{i}"] for i in range(len(inputs))]
    return graph_def, inputs, outputs, values


def with_batch(values, batch: int):
    if batch == 1:
        return values
    return [np.concatenate([v] * batch, axis=0) if v.shape and v.shape[0] == 1 else v
            for v in values]


def rebatch_graph_def(graph_def: bytes, batch: int) -> bytes:
    """The same graph with its placeholders' batch size set to `batch` (Keras freezes
    the batch size it was traced with)."""
    from opgen.protos import graph_pb2
    g = graph_pb2.GraphDef.FromString(graph_def)
    for node in g.node:
        if node.op == "Placeholder" and node.attr["shape"].shape.dim:
            node.attr["shape"].shape.dim[0].size = batch
    return g.SerializeToString()


class OpgenRunner:
    def __init__(self, graph_def: bytes, inputs, outputs, optimize: bool):
        import opgen
        self.graph = opgen.Graph()
        with self.graph.as_default():
            opgen.import_graph_def(graph_def, name="")
        self.session = opgen.Session(graph=self.graph,
                                     options=opgen.SessionOptions(optimize=optimize))
        self.outputs = outputs
        self.inputs = inputs

    def __call__(self, values):
        return self.session.run(self.outputs, dict(zip(self.inputs, values)))


class TensorFlowRunner:
    def __init__(self, graph_def: bytes, inputs, outputs):
        import tensorflow as tf
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString(graph_def), name="")
        self.session = tf.compat.v1.Session(graph=graph)
        self.outputs = [graph.get_tensor_by_name(n) for n in outputs]
        self.inputs = [graph.get_tensor_by_name(n) for n in inputs]

    def __call__(self, values):
        return self.session.run(self.outputs, dict(zip(self.inputs, values)))


class OnnxRunner:
    def __init__(self, graph_def: bytes, inputs, outputs):
        import onnxruntime
        import tensorflow as tf
        import tf2onnx
        g = tf.compat.v1.GraphDef.FromString(graph_def)
        model, _ = tf2onnx.convert.from_graph_def(g, input_names=inputs, output_names=outputs,
                                                  opset=17)
        self.session = onnxruntime.InferenceSession(model.SerializeToString(),
                                                    providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def __call__(self, values):
        return self.session.run(None, dict(zip(self.inputs, values)))


def measure(runners: dict, values, repeats: int) -> dict:
    for run in runners.values():  # warm up: plans, kernels, caches
        for _ in range(2):
            run(values)
    samples = {name: [] for name in runners}
    for _ in range(repeats):
        for name, run in runners.items():
            # A pause between runtimes: TensorFlow's and ONNX Runtime's thread pools spin
            # on both cores for a while after a run, and would slow whichever runtime
            # came next. Every runtime starts its timed run on a quiet machine.
            time.sleep(0.05)
            start = time.perf_counter()
            run(values)
            samples[name].append((time.perf_counter() - start) * 1e3)
    return {name: statistics.median(t) for name, t in samples.items()}


def max_rel_diff(got, want) -> float:
    worst = 0.0
    for g, w in zip(got, want):
        w = np.asarray(w)
        scale = max(float(np.max(np.abs(w))), 1e-30) if w.size else 1.0
        worst = max(worst, float(np.max(np.abs(np.asarray(g, np.float64) - w))) / scale
                    if w.size else 0.0)
    return worst


def with_co_runner(fn):
    """fn() while one busy-looping process competes for the cores (issue 18's
    co-runner test: a user's other work on the same machine)."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let the scheduler see it
        return fn()
    finally:
        busy.kill()
        busy.wait()


def first_results(makers, values, first_repeats):
    """Each runtime's runner, and the median seconds from the GraphDef to its first result
    (import, optimizer, plan, first run) over `first_repeats` fresh runners, built in
    alternating rounds. The first round of the first model also pays each runtime's
    start-up in the process; later rounds find the process warm, as a server loading
    its next model does."""
    runners, errors = {}, {}
    samples = {label: [] for label in makers}
    for _ in range(first_repeats):
        for label, make in makers.items():
            if label in errors:
                continue
            try:
                start = time.perf_counter()
                runner = make()
                runner(values)
                samples[label].append(time.perf_counter() - start)
                runners[label] = runner  # the last one built is the one timed
            except Exception as e:  # noqa: BLE001 - report and go on: one failing runtime must not hide the rest
                errors[label] = f"{type(e).__name__}: {str(e).splitlines()[0][:150]}"
                runners.pop(label, None)
    first = {label: statistics.median(t) for label, t in samples.items()
             if t and label not in errors}
    return runners, first, errors


def bench(name, graph_def, inputs, outputs, values, repeats, batch, use_onnx, co_runner=False,
          first_repeats=1):
    makers = {"opgen": lambda: OpgenRunner(graph_def, inputs, outputs, True),
              "opgen-noopt": lambda: OpgenRunner(graph_def, inputs, outputs, False),
              "tf": lambda: TensorFlowRunner(graph_def, inputs, outputs)}
    if use_onnx:
        makers["ort"] = lambda: OnnxRunner(graph_def, inputs, outputs)
    runners, first, errors = first_results(makers, values, first_repeats)
    times = measure(runners, values, repeats)
    diff = (max_rel_diff(runners["opgen"](values), runners["tf"](values))
            if "opgen" in runners and "tf" in runners else float("nan"))
    cols = [f"{name:16s} b={batch:<3d}"]
    for label in ("opgen", "opgen-noopt", "tf", "ort"):
        cols.append(f"{label} {times[label]:8.2f} ms" if label in times else f"{label} {'—':>8s}   ")
    if "opgen" in times:
        for ref in ("tf", "ort"):
            if ref in times:
                cols.append(f"{ref}/opgen {times[ref] / times['opgen']:.2f}")
    cols.append(f"max diff {diff:.1e}")
    print("  ".join(cols), flush=True)
    print(f"    first result{f' (median of {first_repeats})' if first_repeats > 1 else ''}: "
          + "  ".join(f"{label} {t:.2f} s" for label, t in first.items()), flush=True)
    for label, message in errors.items():
        print(f"    {label} failed: {message}", flush=True)
    if co_runner:
        loaded = with_co_runner(lambda: measure(runners, values, repeats))
        print("    with one busy-loop co-runner: " + "  ".join(
            f"{label} {loaded[label]:.2f} ms ({loaded[label] / times[label]:.2f}x idle)"
            for label in loaded), flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=FULL_MODELS)
    parser.add_argument("--families", nargs="*", default=[],
                        help="small fixture families to time as well (e.g. transformer lstm)")
    parser.add_argument("--batch", nargs="*", type=int, default=[1])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/opgen-bench-models"))
    parser.add_argument("--first-repeats", type=int, default=1,
                        help="fresh runners built per runtime for the first-result time "
                             "(the median is printed)")
    parser.add_argument("--no-onnx", action="store_true")
    parser.add_argument("--co-runner", action="store_true",
                        help="also time each model beside one busy-looping process")
    args = parser.parse_args(argv)

    try:
        import onnxruntime  # noqa: F401
        import tf2onnx  # noqa: F401
        use_onnx = not args.no_onnx
    except ImportError:
        use_onnx = False
    import tensorflow as tf

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"TensorFlow {tf.__version__}; OPENBLAS_CORETYPE="
          f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; medians of {args.repeats}")
    if args.models:
        ensure_full_models(args.cache, args.models)
    for name in args.models:
        graph_def, inputs, outputs, values = load_fixture(args.cache, name)
        for batch in args.batch:
            bench(name, rebatch_graph_def(graph_def, batch), inputs, outputs,
                  with_batch(values, batch), args.repeats, batch, use_onnx, args.co_runner,
                  args.first_repeats)
    for name in args.families:
        graph_def, inputs, outputs, values = load_fixture(FAMILIES, name)
        bench(name, graph_def, inputs, outputs, values, args.repeats, values[0].shape[0],
              use_onnx, args.co_runner, args.first_repeats)


if __name__ == "__main__":
    main()
