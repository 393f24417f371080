"""The 1x1 (pointwise) convolutions of the frozen Keras CNNs as the models run them.

Each layer is Placeholder -> Conv2D with a Const filter -> BiasAdd -> activation in a
Session with the graph optimizer on, so it runs as the fused `_OpgenFusedConv2D` with
its filter packed once, as in the models; batch 1, the shapes and activations of
ResNet50 (Relu), MobileNetV2 (Relu6, linear projections), EfficientNetB0 (Swish, written
x * sigmoid(x) as Keras does) and NASNetMobile (channel counts that are not multiples of
the vector width). The reference in the same process is numpy: the same GEMM through
its BLAS, then the bias and the activation. Figures are medians of --repeats samples
taken in turn; GFLOP/s counts 2*MACs; np/opgen above 1 means opgen is faster. The
first run of each layer is checked against numpy.

    python benchmarks/bench_pointwise.py [--repeats 15] [--stat median|min]

OPGEN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 compares one core each (steadier on a
shared machine). Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for the run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics

import numpy as np
from _timing import median_seconds_each

import opgen

# (model, H = W, input channels, output channels, stride, activation)
LAYERS = [
    ("resnet50", 56, 64, 256, 1, "relu"),
    ("resnet50", 28, 512, 128, 1, "relu"),
    ("resnet50", 14, 1024, 256, 1, "relu"),
    ("resnet50", 7, 512, 2048, 1, "relu"),
    ("resnet50", 56, 256, 512, 2, "none"),
    ("mobilenetv2", 112, 32, 16, 1, "none"),
    ("mobilenetv2", 112, 16, 96, 1, "relu6"),
    ("mobilenetv2", 56, 24, 144, 1, "relu6"),
    ("mobilenetv2", 56, 144, 24, 1, "none"),
    ("mobilenetv2", 14, 64, 384, 1, "relu6"),
    ("mobilenetv2", 7, 960, 320, 1, "none"),
    ("efficientnetb0", 112, 16, 96, 1, "swish"),
    ("efficientnetb0", 56, 24, 144, 1, "swish"),
    ("efficientnetb0", 28, 40, 240, 1, "swish"),
    ("efficientnetb0", 28, 240, 40, 1, "none"),
    ("efficientnetb0", 14, 112, 672, 1, "swish"),
    ("efficientnetb0", 7, 192, 1152, 1, "swish"),
    ("nasnetmobile", 28, 44, 44, 1, "none"),
    ("nasnetmobile", 14, 88, 88, 1, "none"),
    ("nasnetmobile", 7, 176, 176, 1, "none"),
]


def numpy_activation(y, name):
    if name == "relu":
        return np.maximum(y, 0)
    if name == "relu6":
        return np.clip(y, 0, 6)
    if name == "swish":
        return y / (1 + np.exp(-y))
    return y


def build(h, ic, oc, stride, activation, rng):
    """The layer's graph, its input tensor and output, and the numpy operands."""
    w = (rng.standard_normal((1, 1, ic, oc)) / np.sqrt(ic)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    g = opgen.Graph()

    def op(op_type, inputs, attrs=None):
        return g.create_op(op_type, inputs, attrs).outputs[0]

    def const(value):
        return op("Const", [], {"dtype": opgen.float32, "value": value})

    x = op("Placeholder", [], {"dtype": opgen.float32, "shape": [1, h, h, ic]})
    y = op("Conv2D", [x, const(w)], {"strides": [1, stride, stride, 1], "padding": "VALID"})
    y = op("BiasAdd", [y, const(b)])
    if activation == "relu":
        y = op("Relu", [y])
    elif activation == "relu6":
        y = op("Relu6", [y])
    elif activation == "swish":
        y = op("Mul", [y, op("Sigmoid", [y])])
    return g, x, y, w.reshape(ic, oc), b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--stat", choices=["median", "min"], default="median")
    args = parser.parse_args()
    stat = min if args.stat == "min" else statistics.median
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"OPGEN_NUM_THREADS={os.environ.get('OPGEN_NUM_THREADS')}, {args.stat} of "
          f"{args.repeats}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':15s} {'layer':24s} {'opgen ms':>9s} {'GFLOP/s':>8s} {'numpy ms':>9s} "
          f"{'GFLOP/s':>8s} {'np/opgen':>8s}")
    rng = np.random.default_rng(0)
    totals = [0.0, 0.0]
    for model, h, ic, oc, stride, activation in LAYERS:
        g, x, y, w, b = build(h, ic, oc, stride, activation, rng)
        xv = rng.standard_normal((1, h, h, ic)).astype(np.float32)
        rows = np.ascontiguousarray(xv[:, ::stride, ::stride, :]).reshape(-1, ic)
        with opgen.Session(g, options=opgen.SessionOptions(optimize=True)) as session:
            got = np.asarray(session.run(y, {x: xv}))
            want = numpy_activation(rows @ w + b, activation)
            np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-4)
            feeds = {x: xv}
            t_opgen, t_numpy = median_seconds_each(
                [lambda s=session, y=y, f=feeds: s.run(y, f),
                 lambda r=rows, w=w, b=b, a=activation: numpy_activation(r @ w + b, a)],
                args.repeats, warmup=2, stat=stat)
        flops = 2.0 * rows.shape[0] * ic * oc
        totals[0] += t_opgen
        totals[1] += t_numpy
        layer = f"{h}x{h} {ic}->{oc}{f' /{stride}' if stride > 1 else ''} {activation}"
        print(f"{model:15s} {layer:24s} {t_opgen * 1e3:9.3f} {flops / t_opgen / 1e9:8.1f} "
              f"{t_numpy * 1e3:9.3f} {flops / t_numpy / 1e9:8.1f} {t_numpy / t_opgen:8.2f}",
              flush=True)
    print(f"{'all':15s} {len(LAYERS):<24d} {totals[0] * 1e3:9.3f} {'':8s} "
          f"{totals[1] * 1e3:9.3f} {'':8s} {totals[1] / totals[0]:8.2f}")


if __name__ == "__main__":
    main()
