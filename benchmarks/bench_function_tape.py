"""An SGD step whose loss is an opgen.function reading the model's variables, under an
opgen.GradientTape: against the same step with the loss as plain eager ops, and against
TensorFlow 2.21's tf.function under tf.GradientTape (a child process with
$OPGEN_TF_PYTHON, never imported here).

Model: 64 -> 32 relu -> 1, batch 64, mean squared error, float32; the step is the loss
under a tape, tape.gradient for the four variables and assign_sub(lr * grad) on each.
Prints each median step time (after a warm-up) and the ratio TF/opgen (above 1,
opgen's step is faster), and checks that the first losses agree.

    python benchmarks/bench_function_tape.py [--repeats 200]

For stable numbers unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess

import numpy as np
from _timing import median_seconds

LR, CHECK_STEPS = 0.05, 5


def initial_values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"x": rng.standard_normal((64, 64)).astype(np.float32),
            "y": rng.standard_normal((64, 1)).astype(np.float32),
            "W1": (rng.standard_normal((64, 32)) * 0.1).astype(np.float32),
            "b1": np.zeros(32, np.float32),
            "W2": (rng.standard_normal((32, 1)) * 0.1).astype(np.float32),
            "b2": np.zeros(1, np.float32)}


def opgen_step(as_function: bool):
    import opgen
    ops = opgen.ops
    data = initial_values()
    params = [opgen.Variable(data[k]) for k in ("W1", "b1", "W2", "b2")]
    W1, b1, W2, b2 = params
    x, y = opgen.constant(data["x"]), opgen.constant(data["y"])

    def loss_of(x, y):
        h = ops.relu(ops.mat_mul(x, W1) + b1)
        return ops.mean(ops.square(ops.mat_mul(h, W2) + b2 - y), [0, 1])
    loss_fn = opgen.function(loss_of) if as_function else loss_of

    def step() -> float:
        with opgen.GradientTape() as tape:
            loss = loss_fn(x, y)
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(LR * g)
        return loss
    return step


TF_SCRIPT = """
import json, statistics, sys, time
import numpy as np, tensorflow as tf
req = json.loads(sys.stdin.read())
d = {k: np.float32(v) for k, v in req["data"].items()}
params = [tf.Variable(d[k]) for k in ("W1", "b1", "W2", "b2")]
W1, b1, W2, b2 = params
x, y = tf.constant(d["x"]), tf.constant(d["y"])
@tf.function
def loss_fn(x, y):
    h = tf.nn.relu(tf.matmul(x, W1) + b1)
    return tf.reduce_mean(tf.square(tf.matmul(h, W2) + b2 - y))
def step():
    with tf.GradientTape() as tape:
        loss = loss_fn(x, y)
    for p, g in zip(params, tape.gradient(loss, params)):
        p.assign_sub(LR * g)
    return loss
losses = [float(step()) for _ in range(CHECK_STEPS)]
for _ in range(20):
    step()
times = []
for _ in range(req["repeats"]):
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)
print(json.dumps({"losses": losses, "median": statistics.median(times)}))
""".replace("CHECK_STEPS", str(CHECK_STEPS)).replace("LR", str(LR))


def time_step(step, repeats: int) -> tuple[list[float], float]:
    losses = [float(step().numpy()) for _ in range(CHECK_STEPS)]
    return losses, median_seconds(step, repeats, warmup=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    fn_losses, fn_time = time_step(opgen_step(True), args.repeats)
    eager_losses, eager_time = time_step(opgen_step(False), args.repeats)
    np.testing.assert_allclose(fn_losses, eager_losses, rtol=1e-5)
    print(f"opgen, loss as opgen.function:  {fn_time * 1e6:8.1f} us/step")
    print(f"opgen, loss as eager ops:       {eager_time * 1e6:8.1f} us/step")
    tf_python = os.environ.get("OPGEN_TF_PYTHON")
    if not tf_python or not os.path.exists(tf_python):
        print("TensorFlow: skipped ($OPGEN_TF_PYTHON is not set)")
        return
    request = {"data": {k: v.tolist() for k, v in initial_values().items()},
               "repeats": args.repeats}
    done = subprocess.run([tf_python, "-c", TF_SCRIPT], input=json.dumps(request),
                          capture_output=True, text=True, timeout=600, cwd="/",
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    tf = json.loads(done.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(fn_losses, tf["losses"], rtol=1e-5)
    print(f"TensorFlow, tf.function:        {tf['median'] * 1e6:8.1f} us/step")
    print(f"ratio TF/opgen (function):      {tf['median'] / fn_time:8.2f}")
    print(f"first losses agree to 1e-5: {[round(v, 6) for v in fn_losses]}")


if __name__ == "__main__":
    main()
