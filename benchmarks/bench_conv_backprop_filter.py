"""Conv2DBackpropFilter and Conv2DBackpropInput (float32, NHWC) against TensorFlow on ResNet shapes.

opgen runs in this process (the generated wrapper on inputs that are already runtime
tensors); TensorFlow runs in its own interpreter (--tf-python, a venv with tensorflow;
never a dependency of opgen), this same file in --worker mode, eager raw_ops on
tf.constant inputs. Both gradients of each layer are timed (--ops picks). Every figure is the median of --repeats timings; the ratio is
TensorFlow's time over opgen's (above 1: opgen is faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_conv_backprop_filter.py \
        [--tf-python PYTHON] [--repeats 20] [--ops filter,input]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
from _timing import median_seconds as _median_seconds

# (name, input NHWC, kernel, out channels, stride): a batch of 8 through ResNet-ish layers.
CASES = [
    ("56x56x64 k3 s1 ->64", (8, 56, 56, 64), 3, 64, 1),
    ("56x56x64 k1 s1 ->256", (8, 56, 56, 64), 1, 256, 1),
    ("28x28x128 k3 s1 ->128", (8, 28, 28, 128), 3, 128, 1),
    ("28x28x128 k3 s2 ->256", (8, 28, 28, 128), 3, 256, 2),
    ("14x14x256 k3 s1 ->256", (8, 14, 14, 256), 3, 256, 1),
    ("7x7x512 k3 s1 ->512", (8, 7, 7, 512), 3, 512, 1),
]


def median_seconds(fn, repeats: int) -> float:
    return _median_seconds(fn, repeats, warmup=2)


def inputs(shape, k, oc, s):
    """input, filter_sizes, out_backprop, filter, input_sizes of one layer."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape, dtype=np.float32)
    out = (shape[0], -(-shape[1] // s), -(-shape[2] // s), oc)
    dy = rng.standard_normal(out, dtype=np.float32)
    w = rng.standard_normal((k, k, shape[3], oc), dtype=np.float32)
    return x, np.array([k, k, shape[3], oc], np.int32), dy, w, np.array(shape, np.int32)


def time_tensorflow(repeats: int, ops: list[str]) -> dict:
    import tensorflow as tf
    out = {}
    for name, shape, k, oc, s in CASES:
        x, sizes, dy, w, in_sizes = inputs(shape, k, oc, s)
        x, dy, w = tf.constant(x), tf.constant(dy), tf.constant(w)
        strides = [1, s, s, 1]

        def filt(x=x, sizes=sizes, dy=dy, strides=strides):
            tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=sizes, out_backprop=dy,
                                            strides=strides, padding="SAME").numpy()

        def inp(in_sizes=in_sizes, w=w, dy=dy, strides=strides):
            tf.raw_ops.Conv2DBackpropInput(input_sizes=in_sizes, filter=w, out_backprop=dy,
                                           strides=strides, padding="SAME").numpy()
        for op, fn in (("filter", filt), ("input", inp)):
            if op in ops:
                out[f"{op} {name}"] = median_seconds(fn, repeats)
    return out


def time_opgen(repeats: int, ops_: list[str]) -> dict:
    import opgen
    from opgen import ops
    out = {}
    for name, shape, k, oc, s in CASES:
        x, sizes, dy, w, in_sizes = inputs(shape, k, oc, s)
        x, dy, w = (opgen.convert_to_tensor(x), opgen.convert_to_tensor(dy),
                    opgen.convert_to_tensor(w))
        strides = [1, s, s, 1]

        def filt(x=x, sizes=sizes, dy=dy, strides=strides):
            ops.conv2d_backprop_filter(x, sizes, dy, strides=strides, padding="SAME").numpy()

        def inp(in_sizes=in_sizes, w=w, dy=dy, strides=strides):
            ops.conv2d_backprop_input(in_sizes, w, dy, strides=strides, padding="SAME").numpy()
        for op, fn in (("filter", filt), ("input", inp)):
            if op in ops_:
                out[f"{op} {name}"] = median_seconds(fn, repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"),
                        help="an interpreter with tensorflow (default: $OPGEN_TF_PYTHON)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--ops", default="filter,input", help="comma-separated: filter, input")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ops = args.ops.split(",")
    if args.worker:
        print(json.dumps(time_tensorflow(args.repeats, ops)))
        return
    mine = time_opgen(args.repeats, ops)
    tf_times = None
    if args.tf_python and os.path.exists(args.tf_python):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        result = subprocess.run([args.tf_python, __file__, "--worker", "--repeats", str(args.repeats),
                                 "--ops", args.ops],
                                capture_output=True, text=True, env=env)
        if result.returncode == 0:
            tf_times = json.loads(result.stdout.strip().splitlines()[-1])
        else:
            print(f"TensorFlow worker failed:\n{result.stderr[-2000:]}", file=sys.stderr)
    print(f"{'case':<33}{'opgen ms':>10}{'TF ms':>10}{'TF/opgen':>10}")
    ratios = []
    for name in mine:
        t = tf_times.get(name) if tf_times else None
        ratio = t / mine[name] if t else None
        if ratio:
            ratios.append(ratio)
        print(f"{name:<33}{mine[name] * 1e3:>10.3f}{(t or float('nan')) * 1e3:>10.3f}"
              f"{(ratio or float('nan')):>10.2f}")
    if ratios:
        print(f"geometric mean TF/opgen: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
