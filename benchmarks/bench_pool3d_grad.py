"""MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad and ResizeBicubicGrad (float32) against TensorFlow.

opgen runs in this process (execute_op on runtime tensors); TensorFlow runs in its own
interpreter (--tf-python, a venv with tensorflow; never a dependency of opgen), this same
file in --worker mode, eager raw_ops on tf.constant inputs. Every figure is the median of
--repeats timings; the ratio is TensorFlow's time over opgen's (above 1: opgen is faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_pool3d_grad.py \
        [--tf-python PYTHON] [--repeats 20]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
from _timing import median_seconds as _median_seconds

# (name, op, input NDHWC / NHWC, window, stride, padding or resized size)
CASES = [
    ("maxpool3d 2/2 8x16x32x32x16", "MaxPool3DGrad", (8, 16, 32, 32, 16), 2, 2, "VALID"),
    ("maxpool3d 3/2 SAME 4x16x24x24x32", "MaxPool3DGrad", (4, 16, 24, 24, 32), 3, 2, "SAME"),
    ("avgpool3d 2/2 8x16x32x32x16", "AvgPool3DGrad", (8, 16, 32, 32, 16), 2, 2, "VALID"),
    ("avgpool3d 3/1 SAME 2x8x16x16x32", "AvgPool3DGrad", (2, 8, 16, 16, 32), 3, 1, "SAME"),
    ("maxpool3d gradgrad 2/2 8x16x32x32x16", "MaxPool3DGradGrad", (8, 16, 32, 32, 16), 2, 2, "VALID"),
    ("bicubic grad 32x32x16 -> 64x64", "ResizeBicubicGrad", (4, 32, 32, 16), 0, 0, (64, 64)),
    ("bicubic grad 56x56x8 -> 112x112", "ResizeBicubicGrad", (2, 56, 56, 8), 0, 0, (112, 112)),
]


def median_seconds(fn, repeats: int) -> float:
    return _median_seconds(fn, repeats, warmup=2)


def _pooled(shape, k, s, padding):
    def size(n):
        return -(-n // s) if padding == "SAME" else (n - k) // s + 1
    return (shape[0], size(shape[1]), size(shape[2]), size(shape[3]), shape[4])


def inputs(op, shape, k, s, extra):
    """The op's inputs and attrs, the same in both processes."""
    rng = np.random.default_rng(0)
    if op == "ResizeBicubicGrad":
        grads = rng.standard_normal((shape[0], *extra, shape[3]), dtype=np.float32)
        return [grads, np.zeros(shape, np.float32)], {"half_pixel_centers": True}
    attrs = {"ksize": [1, k, k, k, 1], "strides": [1, s, s, s, 1], "padding": extra}
    x = rng.standard_normal(shape, dtype=np.float32)
    pooled = rng.standard_normal(_pooled(shape, k, s, extra), dtype=np.float32)
    if op == "AvgPool3DGrad":
        return [np.array(shape, np.int32), pooled], attrs
    if op == "MaxPool3DGrad":
        return [x, pooled, pooled], attrs
    return [x, pooled, x], attrs


NAMES = {"MaxPool3DGrad": ["orig_input", "orig_output", "grad"], "AvgPool3DGrad": ["orig_input_shape", "grad"],
         "MaxPool3DGradGrad": ["orig_input", "orig_output", "grad"],
         "ResizeBicubicGrad": ["grads", "original_image"]}


def time_tensorflow(repeats: int) -> dict:
    import tensorflow as tf
    out = {}
    for name, op, shape, k, s, extra in CASES:
        values, attrs = inputs(op, shape, k, s, extra)
        kwargs = {n: (v if n == "orig_input_shape" else tf.constant(v)) for n, v in zip(NAMES[op], values)}
        fn = getattr(tf.raw_ops, op)
        out[name] = median_seconds(lambda fn=fn, kwargs=kwargs, attrs=attrs: fn(**kwargs, **attrs).numpy(),
                                   repeats)
    return out


def time_opgen(repeats: int) -> dict:
    import opgen
    out = {}
    for name, op, shape, k, s, extra in CASES:
        values, attrs = inputs(op, shape, k, s, extra)
        tensors = [opgen.convert_to_tensor(v) for v in values]
        out[name] = median_seconds(
            lambda op=op, tensors=tensors, attrs=attrs: opgen.execute_op(op, tensors, attrs)[0].numpy(), repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"),
                        help="an interpreter with tensorflow (default: $OPGEN_TF_PYTHON)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(time_tensorflow(args.repeats)))
        return
    mine = time_opgen(args.repeats)
    tf_times = None
    if args.tf_python and os.path.exists(args.tf_python):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        env.pop("PYTHONPATH", None)
        result = subprocess.run([args.tf_python, __file__, "--worker", "--repeats", str(args.repeats)],
                                capture_output=True, text=True, env=env)
        if result.returncode == 0:
            tf_times = json.loads(result.stdout.strip().splitlines()[-1])
        else:
            print(f"TensorFlow worker failed:\n{result.stderr[-2000:]}", file=sys.stderr)
    print(f"{'case':<40}{'opgen ms':>10}{'TF ms':>10}{'TF/opgen':>10}")
    ratios = []
    for name in mine:
        t = tf_times.get(name) if tf_times else None
        ratio = t / mine[name] if t else None
        if ratio:
            ratios.append(ratio)
        print(f"{name:<40}{mine[name] * 1e3:>10.3f}{(t or float('nan')) * 1e3:>10.3f}"
              f"{(ratio or float('nan')):>10.2f}")
    if ratios:
        print(f"geometric mean TF/opgen: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
