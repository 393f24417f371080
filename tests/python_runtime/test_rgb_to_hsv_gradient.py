"""RGBToHSV's gradient where the conversion is not smooth: pixels quantized to a few
levels (grey and black pixels, ties for the max and the min, channels at exactly 0,
negative values), against TensorFlow 2.21's gradient (a child process,
$OPGEN_TF_PYTHON), eagerly and in a graph, in float64, float32, half and bfloat16.
The smooth case (central differences, TensorFlow) is in test_gradient_coverage.py."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from tf_reference import run_tf

import opgen

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(31)
LEVELS = [-0.25, 0.0, 0.25, 0.5, 1.0]
IMAGES = rng.choice(LEVELS, (2, 150, 3))  # a batch of rows of pixels
WEIGHTS = rng.uniform(0.5, 1.5, IMAGES.shape)

SCRIPT = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    data = np.load(sys.argv[1])
    out = {}
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        x = tf.cast(tf.constant(data["x"]), dtype)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.image.rgb_to_hsv(x)
        g = tape.gradient(y, x, output_gradients=tf.cast(tf.constant(data["w"]), dtype))
        out[dtype] = tf.cast(g, tf.float64).numpy()
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def tf_grads(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hsv_tf")
    np.savez(folder / "in.npz", x=IMAGES, w=WEIGHTS)
    run_tf(["-c", SCRIPT, str(folder / "in.npz"), str(folder / "out.npz")], cwd=folder)
    return dict(np.load(folder / "out.npz"))


def _eager(dtype):
    x = opgen.ops.cast(opgen.constant(IMAGES), dtype)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = opgen.ops.rgb_to_hsv(x)
    g = tape.gradient(y, x, output_gradients=opgen.ops.cast(opgen.constant(WEIGHTS), dtype))
    return opgen.ops.cast(g, opgen.float64).numpy()


def _graph(dtype):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=list(IMAGES.shape))
        xc = opgen.ops.cast(x, dtype)
        y = opgen.ops.rgb_to_hsv(xc)
        (dx,) = opgen.gradients(y, [xc], grad_ys=[opgen.ops.cast(opgen.constant(WEIGHTS), dtype)])
        out = opgen.ops.cast(dx, opgen.float64)
    return opgen.Session(g).run(out, {x: IMAGES})


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_rgb_to_hsv_gradient_at_ties_and_zeros_matches_tensorflow(dtype, tf_grads):
    want = tf_grads[dtype]
    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 2e-2, "bfloat16": 1e-1}[dtype]
    kind = getattr(opgen, dtype)
    for got in (_eager(kind), _graph(kind)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # the cases are all there: greys, ties for the max and for the min, zero channels
    pixels = IMAGES.reshape(-1, 3)
    grey = pixels.max(1) == pixels.min(1)
    assert grey.any() and (pixels == 0).any()
    assert any((p == p.max()).sum() == 2 for p in pixels)
    assert any((p == p.min()).sum() == 2 for p in pixels)
