"""Conv2DBackpropFilter / Conv2DBackpropInput on shapes big enough for the CPU kernels'
tiles (many row tiles, per-thread partial sums, a last tile shorter than the rest), against
a numpy reference of the gradient sums, with one thread and with more threads than cores
(OPGEN_NUM_THREADS, fixed per process: each count runs in a child process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("runtime_lib")

# name, input NHWC, filter HWIO, strides, padding, explicit_paddings, dilations, dtype
CASES = [
    ("k3 s1 same odd", (3, 37, 29, 5), (3, 3, 5, 7), (1, 1), "SAME", None, (1, 1), "float32"),
    ("k3 s2 same odd", (2, 39, 41, 32), (3, 3, 32, 4), (2, 2), "SAME", None, (1, 1), "float32"),
    ("k3 s2 valid", (3, 41, 31, 16), (3, 3, 16, 5), (2, 2), "VALID", None, (1, 1), "float32"),
    ("k2x3 s(2,1) explicit", (4, 16, 18, 40), (2, 3, 40, 6), (2, 1), "EXPLICIT",
     [0, 0, 1, 2, 0, 1, 0, 0], (1, 1), "float32"),
    ("k3 dilated", (2, 18, 16, 24), (3, 3, 24, 4), (1, 1), "SAME", None, (2, 3), "float32"),
    ("k1 s1 direct", (3, 23, 19, 96), (1, 1, 96, 9), (1, 1), "SAME", None, (1, 1), "float32"),
    ("k1 s2", (6, 23, 19, 96), (1, 1, 96, 9), (2, 2), "VALID", None, (1, 1), "float32"),
    ("k2 s1 explicit wide", (3, 19, 17, 24), (2, 2, 24, 4), (1, 1), "EXPLICIT",
     [0, 0, 3, 1, 0, 2, 0, 0], (1, 1), "float32"),
    ("k5 batch 1", (1, 37, 29, 3), (5, 5, 3, 6), (1, 1), "SAME", None, (1, 1), "float32"),
    ("k3 float64", (2, 17, 15, 32), (3, 3, 32, 5), (1, 1), "SAME", None, (1, 1), "float64"),
    ("k3 float16", (4, 33, 31, 32), (3, 3, 32, 5), (2, 2), "SAME", None, (1, 1), "float16"),
    ("k1 float16", (5, 17, 15, 64), (1, 1, 64, 5), (1, 1), "VALID", None, (1, 1), "float16"),
]


def pads(size, k, s, d, padding):
    """Output size and leading pad of one spatial dimension (TensorFlow's SAME / VALID)."""
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + eff - size, 0) // 2


def geometry(x_shape, f_shape, strides, padding, explicit, dilations):
    dims = []
    for a in range(2):
        if padding == "EXPLICIT":
            lo, hi = explicit[2 + 2 * a], explicit[3 + 2 * a]
            eff = (f_shape[a] - 1) * dilations[a] + 1
            dims.append(((x_shape[1 + a] + lo + hi - eff) // strides[a] + 1, lo))
        else:
            dims.append(pads(x_shape[1 + a], f_shape[a], strides[a], dilations[a], padding))
    return dims


def taps(x_shape, f_shape, strides, padding, explicit, dilations):
    """For each tap (i, j): the output pixels whose window reads an input pixel there, as
    (output y slice, output x slice, input y slice, input x slice)."""
    (oh, pt), (ow, pl) = geometry(x_shape, f_shape, strides, padding, explicit, dilations)
    out = []
    for i in range(f_shape[0]):
        for j in range(f_shape[1]):
            ys = [y for y in range(oh) if 0 <= y * strides[0] - pt + i * dilations[0] < x_shape[1]]
            xs = [x for x in range(ow) if 0 <= x * strides[1] - pl + j * dilations[1] < x_shape[2]]
            iy = [y * strides[0] - pt + i * dilations[0] for y in ys]
            ix = [x * strides[1] - pl + j * dilations[1] for x in xs]
            out.append((i, j, ys, xs, iy, ix))
    return (oh, ow), out


def reference(x, f, dy, case):
    """float64 filter and input gradients: one matrix product per tap."""
    _, x_shape, f_shape, strides, padding, explicit, dilations, _ = case
    _, tap_list = taps(x_shape, f_shape, strides, padding, explicit, dilations)
    dw = np.zeros(f_shape)
    dx = np.zeros(x_shape)
    for i, j, ys, xs, iy, ix in tap_list:
        if not ys or not xs:
            continue
        xin = x[:, iy][:, :, ix]
        d = dy[:, ys][:, :, xs]
        dw[i, j] = np.einsum("byxc,byxo->co", xin, d)
        dx[np.ix_(range(x_shape[0]), iy, ix)] += np.einsum("byxo,co->byxc", d, f[i, j])
    return dw, dx


CHILD = """
import json, sys
import numpy as np
from opgen import ops
cases = json.loads(sys.argv[1])
data = np.load(sys.argv[2])
out = {}
for k, (name, xs, fs, st, pad, expl, dil, dtype) in enumerate(cases):
    x, f, dy = data[f"x{k}"], data[f"f{k}"], data[f"dy{k}"]
    attrs = {"strides": [1, *st, 1], "padding": pad, "dilations": [1, *dil, 1]}
    if expl:
        attrs["explicit_paddings"] = expl
    out[f"dw{k}"] = ops.conv2d_backprop_filter(x, np.array(fs, np.int32), dy, **attrs).numpy()
    out[f"dx{k}"] = ops.conv2d_backprop_input(np.array(xs, np.int32), f, dy, **attrs).numpy()
np.savez(sys.argv[3], **out)
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    rng = np.random.default_rng(4242)
    arrays = {}
    for k, case in enumerate(CASES):
        _, x_shape, f_shape, strides, padding, explicit, dilations, dtype = case
        (oh, ow), _ = taps(x_shape, f_shape, strides, padding, explicit, dilations)
        arrays[f"x{k}"] = rng.standard_normal(x_shape).astype(dtype)
        arrays[f"f{k}"] = rng.standard_normal(f_shape).astype(dtype)
        arrays[f"dy{k}"] = rng.standard_normal((x_shape[0], oh, ow, f_shape[3])).astype(dtype)
    path = tmp_path_factory.mktemp("conv_grad") / "inputs.npz"
    np.savez(path, **arrays)
    return path, arrays


@pytest.mark.parametrize("threads", ["1", "5"])
def test_conv_grads_tiled_match_numpy(inputs, threads, tmp_path):
    path, arrays = inputs
    result = tmp_path / "out.npz"
    env = dict(os.environ, OPGEN_NUM_THREADS=threads)
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(CASES), str(path), str(result)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = np.load(result)
    for k, case in enumerate(CASES):
        x, f, dy = (arrays[f"{n}{k}"].astype(np.float64) for n in ("x", "f", "dy"))
        dw, dx = reference(x, f, dy, case)
        tol = 2e-2 if case[-1] == "float16" else 1e-4
        for name, g, want in (("filter", got[f"dw{k}"], dw), ("input", got[f"dx{k}"], dx)):
            assert g.dtype == np.dtype(case[-1]) and g.shape == want.shape, (case[0], name)
            np.testing.assert_allclose(g.astype(np.float64), want, rtol=tol,
                                       atol=tol * max(1.0, float(np.abs(want).max())),
                                       err_msg=f"{case[0]} {name} gradient, {threads} threads")
