"""One eager training step: the forward pass under an opgen.GradientTape, tape.gradient
and an opgen.train optimizer's apply_gradients, against PyTorch's forward +
loss.backward() + optimizer.step() on the same model with the same initial values
(PyTorch runs in a child process, never imported here).

Models: an MLP (64 -> 32 relu -> 10, batch 64) and a small CNN (8x8x1 input, 3x3 conv
to 8 channels, relu, 2x2 max pool, dense to 10, batch 64), both with the mean sparse
softmax cross-entropy; SGD (both models) and Adam (the MLP). Prints the median step
time of each and the ratio torch/opgen (above 1, opgen's step is faster), and checks
that both frameworks compute the same losses for the first steps.

    python benchmarks/bench_eager_training.py [--repeats 300] [--rounds 3]
        [--torch-python PYTHON]   # an interpreter with torch; without it, opgen alone

PyTorch gets as many threads as opgen's pool (OPGEN_NUM_THREADS, else the cores this
process may use). For stable numbers unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time

import numpy as np

BATCH, CHECK_STEPS = 64, 5
CASES = [("mlp", "sgd"), ("cnn", "sgd"), ("mlp", "adam")]


def initial_values(model: str) -> dict[str, np.ndarray]:
    """The data and the initial parameters (TensorFlow's layouts: HWIO filters,
    (in, out) dense kernels); PyTorch transposes them."""
    rng = np.random.default_rng(0)
    if model == "mlp":
        x = rng.standard_normal((BATCH, 64)).astype(np.float32)
        params = {"w1": rng.standard_normal((64, 32)) * 0.2, "b1": np.zeros(32),
                  "w2": rng.standard_normal((32, 10)) * 0.2, "b2": np.zeros(10)}
    else:
        x = rng.standard_normal((BATCH, 8, 8, 1)).astype(np.float32)
        params = {"filt": rng.standard_normal((3, 3, 1, 8)) * 0.3, "bias": np.zeros(8),
                  "w": rng.standard_normal((4 * 4 * 8, 10)) * 0.1, "b": np.zeros(10)}
    values = {k: v.astype(np.float32) for k, v in params.items()}
    values["x"] = x
    values["y"] = rng.integers(0, 10, BATCH).astype(np.int64)
    return values


# ---- opgen -------------------------------------------------------------------------------

def opgen_case(model: str, optimizer: str):
    """(step function returning the loss Tensor) for one case."""
    import opgen
    ops = opgen.ops
    values = initial_values(model)
    x, y = opgen.constant(values["x"]), opgen.constant(values["y"])
    names = [k for k in values if k not in ("x", "y")]
    params = [opgen.Variable(values[k], name=k) for k in names]
    axis0 = opgen.constant(np.int32(0))
    opt = (opgen.train.GradientDescentOptimizer(0.1) if optimizer == "sgd"
           else opgen.train.AdamOptimizer(0.01))

    if model == "mlp":
        w1, b1, w2, b2 = params

        def logits_of():
            h = ops.relu(ops.bias_add(ops.mat_mul(x, w1), b1))
            return ops.bias_add(ops.mat_mul(h, w2), b2)
    else:
        filt, bias, w, b = params
        flat_shape = opgen.constant(np.int32([BATCH, 4 * 4 * 8]))

        def logits_of():
            h = ops.relu(ops.bias_add(ops.conv2d(x, filt, strides=[1, 1, 1, 1],
                                                 padding="SAME"), bias))
            h = ops.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
            return ops.bias_add(ops.mat_mul(ops.reshape(h, flat_shape), w), b)

    def step():
        with opgen.GradientTape() as tape:
            loss = ops.mean(ops.sparse_softmax_cross_entropy_with_logits(logits_of(), y)[0],
                            axis0)
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss
    return step


def opgen_threads() -> int:
    return int(os.environ.get("OPGEN_NUM_THREADS") or len(os.sched_getaffinity(0)))


# ---- PyTorch (child process) -------------------------------------------------------------

TORCH_SCRIPT = textwrap.dedent("""
    import json, statistics, sys, time
    import numpy as np
    import torch
    import torch.nn.functional as F
    request = json.loads(sys.stdin.read())
    torch.set_num_threads(request["threads"])
    out = {"version": torch.__version__, "threads": torch.get_num_threads(), "cases": {}}
    for case in request["cases"]:
        model, optimizer = case["model"], case["optimizer"]
        v = {k: np.array(a, dtype=np.int64 if k == "y" else np.float32)
             for k, a in case["values"].items()}
        x, y = torch.from_numpy(v["x"]), torch.from_numpy(v["y"])
        if model == "mlp":
            net = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(),
                                      torch.nn.Linear(32, 10))
            with torch.no_grad():
                net[0].weight.copy_(torch.from_numpy(v["w1"].T.copy()))
                net[0].bias.copy_(torch.from_numpy(v["b1"]))
                net[2].weight.copy_(torch.from_numpy(v["w2"].T.copy()))
                net[2].bias.copy_(torch.from_numpy(v["b2"]))
        else:
            x = x.permute(0, 3, 1, 2).contiguous()  # NHWC -> NCHW
            net = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(),
                                      torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                      torch.nn.Linear(128, 10))
            with torch.no_grad():
                net[0].weight.copy_(torch.from_numpy(v["filt"].transpose(3, 2, 0, 1).copy()))
                net[0].bias.copy_(torch.from_numpy(v["bias"]))
                # opgen flattens NHWC, PyTorch NCHW: reorder the dense kernel's rows
                w = v["w"].reshape(4, 4, 8, 10).transpose(2, 0, 1, 3).reshape(128, 10)
                net[4].weight.copy_(torch.from_numpy(w.T.copy()))
                net[4].bias.copy_(torch.from_numpy(v["b"]))
        opt = (torch.optim.SGD(net.parameters(), lr=0.1) if optimizer == "sgd" else
               torch.optim.Adam(net.parameters(), lr=0.01, eps=1e-8))

        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss
        losses = [float(step()) for _ in range(request["check_steps"])]
        for _ in range(20):
            step()
        times = []
        for _ in range(request["repeats"]):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        out["cases"][model + "-" + optimizer] = {"losses": losses, "times": times}
    print(json.dumps(out))
""")


def run_torch(python: str | None, repeats: int) -> dict | None:
    if not python:
        print("PyTorch not run: no --torch-python given", file=sys.stderr)
        return None
    cases = [{"model": m, "optimizer": o,
              "values": {k: a.tolist() for k, a in initial_values(m).items()}}
             for m, o in CASES]
    request = {"threads": opgen_threads(), "repeats": repeats, "check_steps": CHECK_STEPS,
               "cases": cases}
    try:
        done = subprocess.run([python, "-c", TORCH_SCRIPT], input=json.dumps(request),
                              capture_output=True, text=True, timeout=900, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"PyTorch not run: {e}", file=sys.stderr)
        return None
    if done.returncode != 0:
        print(f"PyTorch failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout)


def time_opgen(repeats: int) -> dict:
    out = {}
    for model, optimizer in CASES:
        step = opgen_case(model, optimizer)
        losses = [float(step().numpy()) for _ in range(CHECK_STEPS)]
        for _ in range(20):
            step()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        out[f"{model}-{optimizer}"] = {"losses": losses, "times": times}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternate opgen and PyTorch this many times (noisy machines)")
    parser.add_argument("--torch-python", help="an interpreter with torch (PyTorch is not run without it)")
    args = parser.parse_args()

    opgen_times: dict[str, list] = {}
    torch_times: dict[str, list] = {}
    opgen_losses: dict = {}
    torch_info = None
    for _ in range(args.rounds):
        for name, result in time_opgen(args.repeats).items():
            opgen_times.setdefault(name, []).extend(result["times"])
            opgen_losses[name] = result["losses"]
        got = run_torch(args.torch_python, args.repeats)
        if got is not None:
            torch_info = got
            for name, result in got["cases"].items():
                torch_times.setdefault(name, []).extend(result["times"])

    print(f"threads: opgen {opgen_threads()}"
          + (f", torch {torch_info['threads']} (PyTorch {torch_info['version']})"
             if torch_info else ", PyTorch not run"))
    print(f"{'case':12s} {'opgen us':>9s} {'torch us':>9s} {'torch/opgen':>11s}  "
          f"{'loss rel diff (first steps)':>28s}")
    for model, optimizer in CASES:
        name = f"{model}-{optimizer}"
        mine = statistics.median(opgen_times[name]) * 1e6
        line = f"{name:12s} {mine:9.1f}"
        if name in torch_times:
            theirs = statistics.median(torch_times[name]) * 1e6
            ref = np.array(torch_info["cases"][name]["losses"])  # type: ignore[index]
            diff = np.max(np.abs(np.array(opgen_losses[name]) - ref) / np.abs(ref))
            line += f" {theirs:9.1f} {theirs / mine:11.2f}  {diff:28.1e}"
        print(line)


if __name__ == "__main__":
    main()
