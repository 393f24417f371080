"""DepthwiseConv2dNative (float32, NHWC) against TensorFlow on MobileNetV2's and NASNet's shapes.

opgen runs in this process (the generated wrapper on inputs that are already runtime
tensors); TensorFlow runs in its own interpreter (--tf-python, a venv with tensorflow;
never a dependency of opgen), this same file in --worker mode, eager raw_ops on
tf.constant inputs. Every figure is the median of --repeats timings; the ratio is
TensorFlow's time over opgen's (above 1: opgen is faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_depthwise.py \
        [--tf-python PYTHON] [--repeats 50]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
from _timing import median_seconds as _median_seconds

# (name, input NHWC, kernel, stride): MobileNetV2's depthwise layers at 224x224, one
# EfficientNet 5x5, and NASNetMobile's separable convolutions (5x5 and 7x7, 11 to 176
# channels: few channels, wide kernels, half of them strided).
CASES = [
    ("112x112x32 k3 s1", (1, 112, 112, 32), 3, 1),
    ("112x112x96 k3 s2", (1, 112, 112, 96), 3, 2),
    ("56x56x144 k3 s1", (1, 56, 56, 144), 3, 1),
    ("56x56x144 k3 s2", (1, 56, 56, 144), 3, 2),
    ("28x28x192 k3 s1", (1, 28, 28, 192), 3, 1),
    ("14x14x576 k3 s1", (1, 14, 14, 576), 3, 1),
    ("14x14x576 k3 s2", (1, 14, 14, 576), 3, 2),
    ("7x7x960 k3 s1", (1, 7, 7, 960), 3, 1),
    ("28x28x240 k5 s1", (1, 28, 28, 240), 5, 1),
    ("112x112x11 k5 s2", (1, 112, 112, 11), 5, 2),
    ("112x112x11 k7 s2", (1, 112, 112, 11), 7, 2),
    ("56x56x11 k7 s1", (1, 56, 56, 11), 7, 1),
    ("56x56x22 k5 s2", (1, 56, 56, 22), 5, 2),
    ("28x28x44 k5 s1", (1, 28, 28, 44), 5, 1),
    ("28x28x88 k7 s2", (1, 28, 28, 88), 7, 2),
    ("14x14x88 k7 s1", (1, 14, 14, 88), 7, 1),
    ("14x14x176 k5 s2", (1, 14, 14, 176), 5, 2),
    ("7x7x176 k7 s1", (1, 7, 7, 176), 7, 1),
]


def median_seconds(fn, repeats: int) -> float:
    return _median_seconds(fn, repeats, warmup=3)


def inputs(shape, k):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape, dtype=np.float32)
    f = rng.standard_normal((k, k, shape[3], 1), dtype=np.float32)
    return x, f


def time_tensorflow(repeats: int) -> dict:
    import tensorflow as tf
    out = {}
    for name, shape, k, s in CASES:
        x, f = (tf.constant(a) for a in inputs(shape, k))

        def run():
            tf.raw_ops.DepthwiseConv2dNative(input=x, filter=f, strides=[1, s, s, 1],  # noqa: B023 (timed in its own iteration)
                                             padding="SAME").numpy()
        out[name] = median_seconds(run, repeats)
    return out


def time_opgen(repeats: int) -> dict:
    import opgen
    from opgen import ops
    out = {}
    for name, shape, k, s in CASES:
        x, f = (opgen.convert_to_tensor(a) for a in inputs(shape, k))

        def run():
            ops.depthwise_conv2d_native(x, f, strides=[1, s, s, 1], padding="SAME").numpy()  # noqa: B023 (timed in its own iteration)
        out[name] = median_seconds(run, repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"),
                        help="an interpreter with tensorflow (default: $OPGEN_TF_PYTHON)")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(time_tensorflow(args.repeats)))
        return
    mine = time_opgen(args.repeats)
    tf_times = None
    if args.tf_python and os.path.exists(args.tf_python):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        result = subprocess.run([args.tf_python, __file__, "--worker", "--repeats", str(args.repeats)],
                                capture_output=True, text=True, env=env)
        if result.returncode == 0:
            tf_times = json.loads(result.stdout.strip().splitlines()[-1])
        else:
            print(f"TensorFlow worker failed:\n{result.stderr[-2000:]}", file=sys.stderr)
    print(f"{'case':<22}{'opgen ms':>10}{'TF ms':>10}{'TF/opgen':>10}")
    ratios = []
    for name, *_ in CASES:
        t = tf_times.get(name) if tf_times else None
        ratio = t / mine[name] if t else None
        if ratio:
            ratios.append(ratio)
        print(f"{name:<22}{mine[name] * 1e3:>10.3f}{(t or float('nan')) * 1e3:>10.3f}"
              f"{(ratio or float('nan')):>10.2f}")
    if ratios:
        print(f"geometric mean TF/opgen: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
