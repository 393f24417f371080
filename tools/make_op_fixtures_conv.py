"""Writes TensorFlow's outputs of the convolution-family and image ops for odd shapes, as
the reference tests/python_runtime/test_conv_image_ops.py compares opgen with: resizes in
every align_corners / half_pixel_centers mode, up and down, depthwise and transposed
convolutions with odd sizes, strides, dilations and paddings.

    $OPGEN_TF_PYTHON tools/make_op_fixtures_conv.py [--out tests/fixtures/conv_image_ops.npz]

The file holds, per case, `<name>.in<i>` (the inputs), `<name>.out` (TensorFlow's
output) and one `cases` entry: a JSON list of [name, op, attrs]. Small on purpose."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "conv_image_ops.npz"

RESIZE_SIZES = [((5, 7), (3, 4)), ((4, 4), (9, 11)), ((1, 1), (4, 3)), ((6, 5), (2, 10)),
                ((8, 8), (1, 1)), ((3, 9), (7, 2)), ((2, 3), (5, 5))]
RESIZE_MODES = [(False, False), (True, False), (False, True)]

# (input shape, filter shape, strides, padding, dilations, explicit_paddings)
DEPTHWISE = [
    ((2, 7, 9, 5), (3, 2, 5, 2), (1, 1), "SAME", (1, 1), None),
    ((1, 8, 7, 3), (3, 3, 3, 1), (2, 2), "SAME", (1, 1), None),
    ((1, 9, 6, 17), (3, 3, 17, 1), (2, 1), "VALID", (1, 1), None),
    ((1, 6, 6, 4), (2, 3, 4, 3), (1, 1), "EXPLICIT", (1, 1), [0, 0, 1, 2, 0, 1, 0, 0]),
    ((1, 11, 10, 33), (5, 5, 33, 1), (1, 1), "SAME", (1, 1), None),
]
# (input_sizes, filter shape, strides, padding)
TRANSPOSED = [
    ((2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "SAME"),
    ((1, 9, 5, 2), (3, 2, 2, 5), (2, 1), "VALID"),
    ((1, 6, 6, 4), (4, 4, 4, 2), (2, 2), "SAME"),
    ((1, 5, 7, 1), (1, 1, 1, 3), (1, 1), "VALID"),
]


def main() -> None:
    import tensorflow as tf

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    rng = np.random.default_rng(17)
    arrays: dict[str, np.ndarray] = {}
    cases: list = []

    def add(name, op, inputs, attrs, output):
        for i, x in enumerate(inputs):
            arrays[f"{name}.in{i}"] = np.asarray(x)
        arrays[f"{name}.out"] = np.asarray(output)
        cases.append([name, op, attrs])

    raw = tf.raw_ops
    for (ih, iw), (oh, ow) in RESIZE_SIZES:
        x = rng.standard_normal((2, ih, iw, 3)).astype(np.float32)
        size = np.array([oh, ow], np.int32)
        for align, half in RESIZE_MODES:
            attrs = {"align_corners": align, "half_pixel_centers": half}
            tag = f"{ih}x{iw}_{oh}x{ow}_a{int(align)}h{int(half)}"
            add(f"bilinear_{tag}", "ResizeBilinear", [x, size], attrs,
                raw.ResizeBilinear(images=x, size=size, **attrs).numpy())
            add(f"nearest_{tag}", "ResizeNearestNeighbor", [x, size], attrs,
                raw.ResizeNearestNeighbor(images=x, size=size, **attrs).numpy())
    for k, (xs, fs, strides, padding, dil, explicit) in enumerate(DEPTHWISE):
        x = rng.standard_normal(xs).astype(np.float32)
        f = rng.standard_normal(fs).astype(np.float32)
        attrs = {"strides": [1, *strides, 1], "padding": padding, "dilations": [1, *dil, 1]}
        if explicit:
            attrs["explicit_paddings"] = explicit
        add(f"depthwise_{k}", "DepthwiseConv2dNative", [x, f], attrs,
            raw.DepthwiseConv2dNative(input=x, filter=f, **attrs).numpy())
    for k, (sizes, fs, strides, padding) in enumerate(TRANSPOSED):
        f = rng.standard_normal(fs).astype(np.float32)
        # out_backprop has the shape the forward convolution of input_sizes gives
        probe = tf.nn.conv2d(np.zeros(sizes, np.float32), f, [1, *strides, 1], padding)
        dy = rng.standard_normal(probe.shape).astype(np.float32)
        attrs = {"strides": [1, *strides, 1], "padding": padding}
        sizes_t = np.array(sizes, np.int32)
        add(f"transposed_{k}", "Conv2DBackpropInput", [sizes_t, f, dy], attrs,
            raw.Conv2DBackpropInput(input_sizes=sizes_t, filter=f, out_backprop=dy, **attrs).numpy())
    arrays["cases"] = np.array(json.dumps(cases))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {len(cases)} cases to {args.out}")


if __name__ == "__main__":
    main()
