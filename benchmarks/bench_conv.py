"""Float32 NHWC Conv2D speed per layer: opgen's core against TensorFlow (and PyTorch).

Batch-1 layer shapes of ResNet50 (224x224 input; the count column is how often the
shape occurs among its 53 convolutions, so the total is the whole network's
convolution time) and a few MobileNet/EfficientNet 1x1 layers. Each figure is the
median of --repeats runs after a warm-up; GFLOP/s counts 2*MACs. Ratios are the
reference's time over opgen's (above 1: opgen is faster).

TensorFlow runs tf.nn.conv2d inside a tf.function, PyTorch torch.nn.functional.conv2d
on channels-last tensors, when importable (run with TensorFlow's python,
$OPGEN_TF_PYTHON, and opgen installed there, or --no-tf). Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for the run:
users do not have them and they slow this OpenBLAS.

    python benchmarks/bench_conv.py [--repeats 9] [--only resnet|mobile] [--no-tf] [--torch]
                                    [--stat median|min]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics

import numpy as np
from _timing import median_seconds as _median_seconds

import opgen
from opgen import ops

# (name, count in ResNet50, H, W, IC, KH, KW, OC, stride, padding); count 0 = not ResNet50.
LAYERS = [
    ("conv1 7x7/2 3->64", 1, 224, 224, 3, 7, 7, 64, 2, "SAME"),
    ("56 1x1 64->64", 1, 56, 56, 64, 1, 1, 64, 1, "VALID"),
    ("56 3x3 64->64", 3, 56, 56, 64, 3, 3, 64, 1, "SAME"),
    ("56 1x1 64->256", 4, 56, 56, 64, 1, 1, 256, 1, "VALID"),
    ("56 1x1 256->64", 2, 56, 56, 256, 1, 1, 64, 1, "VALID"),
    ("56 1x1/2 256->128", 1, 56, 56, 256, 1, 1, 128, 2, "VALID"),
    ("56 1x1/2 256->512", 1, 56, 56, 256, 1, 1, 512, 2, "VALID"),
    ("28 3x3 128->128", 4, 28, 28, 128, 3, 3, 128, 1, "SAME"),
    ("28 1x1 128->512", 4, 28, 28, 128, 1, 1, 512, 1, "VALID"),
    ("28 1x1 512->128", 3, 28, 28, 512, 1, 1, 128, 1, "VALID"),
    ("28 1x1/2 512->256", 1, 28, 28, 512, 1, 1, 256, 2, "VALID"),
    ("28 1x1/2 512->1024", 1, 28, 28, 512, 1, 1, 1024, 2, "VALID"),
    ("14 3x3 256->256", 6, 14, 14, 256, 3, 3, 256, 1, "SAME"),
    ("14 1x1 256->1024", 6, 14, 14, 256, 1, 1, 1024, 1, "VALID"),
    ("14 1x1 1024->256", 5, 14, 14, 1024, 1, 1, 256, 1, "VALID"),
    ("14 1x1/2 1024->512", 1, 14, 14, 1024, 1, 1, 512, 2, "VALID"),
    ("14 1x1/2 1024->2048", 1, 14, 14, 1024, 1, 1, 2048, 2, "VALID"),
    ("7 3x3 512->512", 3, 7, 7, 512, 3, 3, 512, 1, "SAME"),
    ("7 1x1 512->2048", 3, 7, 7, 512, 1, 1, 2048, 1, "VALID"),
    ("7 1x1 2048->512", 2, 7, 7, 2048, 1, 1, 512, 1, "VALID"),
    ("mobile 112 1x1 32->16", 0, 112, 112, 32, 1, 1, 16, 1, "VALID"),
    ("mobile 56 1x1 24->144", 0, 56, 56, 24, 1, 1, 144, 1, "VALID"),
    ("mobile 14 1x1 80->480", 0, 14, 14, 80, 1, 1, 480, 1, "VALID"),
    ("mobile 112 3x3 3->32 /2", 0, 224, 224, 3, 3, 3, 32, 2, "SAME"),
]


STAT = statistics.median


def median_seconds(fn, repeats: int) -> float:
    """The median (or, with --stat min, the fastest) of `repeats` timed runs."""
    return _median_seconds(fn, repeats, warmup=2, stat=STAT)


def flops(h, w, ic, kh, kw, oc, stride):
    oh, ow = -(-h // stride), -(-w // stride)
    return 2.0 * oh * ow * oc * kh * kw * ic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only", choices=["resnet", "mobile"], default=None)
    parser.add_argument("--no-tf", action="store_true")
    parser.add_argument("--torch", action="store_true", help="also time PyTorch")
    parser.add_argument("--stat", choices=["median", "min"], default="median",
                        help="min: the fastest run, steadier on a machine others load")
    args = parser.parse_args()
    global STAT
    STAT = min if args.stat == "min" else statistics.median

    tf = torch = None
    if not args.no_tf:
        try:
            import tensorflow as tf
        except ImportError:
            tf = None
    if args.torch:
        try:
            import torch
            torch.set_num_threads(os.cpu_count() or 1)
        except ImportError:
            torch = None

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, opgen "
          f"{opgen.__file__}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')}, "
          f"{args.stat} of {args.repeats}, load average {os.getloadavg()[0]:.1f}")
    header = f"{'layer':26s} {'n':>2s} {'opgen ms':>9s} {'GFLOP/s':>8s}"
    if tf is not None:
        header += f" {'TF ms':>8s} {'GFLOP/s':>8s} {'TF/opgen':>8s}"
    if torch is not None:
        header += f" {'torch ms':>8s} {'GFLOP/s':>8s} {'pt/opgen':>8s}"
    print(header)
    rng = np.random.default_rng(0)
    totals = {"opgen": 0.0, "tf": 0.0, "torch": 0.0}
    total_flops = 0.0
    for name, count, h, w, ic, kh, kw, oc, stride, padding in LAYERS:
        if (args.only == "resnet" and count == 0) or (args.only == "mobile" and count > 0):
            continue
        x = rng.standard_normal((1, h, w, ic), dtype=np.float32)
        f = (rng.standard_normal((kh, kw, ic, oc)) / np.sqrt(kh * kw * ic)).astype(np.float32)
        fl = flops(h, w, ic, kh, kw, oc, stride)
        tx, tfl = opgen.convert_to_tensor(x), opgen.convert_to_tensor(f)
        strides = [1, stride, stride, 1]
        t_opgen = median_seconds(lambda: ops.conv2d(tx, tfl, strides=strides, padding=padding),  # noqa: B023 (timed in its own iteration)
                                 args.repeats)
        line = f"{name:26s} {count:2d} {t_opgen * 1e3:9.3f} {fl / t_opgen / 1e9:8.1f}"
        totals["opgen"] += count * t_opgen
        total_flops += count * fl
        if tf is not None:
            gx, gf = tf.constant(x), tf.constant(f)
            conv = tf.function(lambda a, b: tf.nn.conv2d(a, b, strides, padding))  # noqa: B023 (timed in its own iteration)
            t_tf = median_seconds(lambda: conv(gx, gf).numpy(), args.repeats)  # noqa: B023 (timed in its own iteration)
            totals["tf"] += count * t_tf
            line += f" {t_tf * 1e3:8.3f} {fl / t_tf / 1e9:8.1f} {t_tf / t_opgen:8.2f}"
        if torch is not None:
            px = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(
                memory_format=torch.channels_last)
            pf = torch.from_numpy(f).permute(3, 2, 0, 1).contiguous()
            pad = "same" if padding == "SAME" and stride == 1 else (
                (kh // 2, kw // 2) if padding == "SAME" else 0)
            with torch.no_grad():
                t_pt = median_seconds(
                    lambda: torch.nn.functional.conv2d(px, pf, stride=stride, padding=pad),  # noqa: B023 (timed in its own iteration)
                    args.repeats)
            totals["torch"] += count * t_pt
            line += f" {t_pt * 1e3:8.3f} {fl / t_pt / 1e9:8.1f} {t_pt / t_opgen:8.2f}"
        print(line, flush=True)
    if total_flops:
        line = (f"{'ResNet50 53 convs total':26s} {53:2d} {totals['opgen'] * 1e3:9.3f} "
                f"{total_flops / totals['opgen'] / 1e9:8.1f}")
        if tf is not None:
            line += (f" {totals['tf'] * 1e3:8.3f} {total_flops / totals['tf'] / 1e9:8.1f} "
                     f"{totals['tf'] / totals['opgen']:8.2f}")
        if torch is not None:
            line += (f" {totals['torch'] * 1e3:8.3f} {total_flops / totals['torch'] / 1e9:8.1f} "
                     f"{totals['torch'] / totals['opgen']:8.2f}")
        print(line)
        print(f"# ResNet50 convolutions: {total_flops / 1e9:.2f} GFLOP")


if __name__ == "__main__":
    main()
