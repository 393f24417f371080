"""The colour ops (RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation, AdjustContrastv2)
against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) for every dtype TensorFlow's
CPU kernels take, with greys, black, saturated colours and ties between channels; against
numpy (colorsys) and round trips; in a graph; and TensorFlow's errors."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

import opgen
import tf_raw_ops_child as tfc
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(3)
F16, F32, F64 = np.float16, np.float32, np.float64


def _pixels(n=200):
    """Random colours, plus greys, black, white, pure and tied channels."""
    special = [[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1],
               [1, 1, 0], [0, 1, 1], [1, 0, 1], [0.2, 0.7, 0.7], [0.7, 0.2, 0.7],
               [0.7, 0.7, 0.2], [0.3, 0.3, 0.9], [0.9, 0.3, 0.3], [0.3, 0.9, 0.3]]
    x = np.concatenate([np.array(special), rng.random((n, 3))])
    return x.reshape(1, -1, 5, 3)  # [batch, height, width, 3]


def _hsv_pixels():
    h = _pixels()
    h[..., 0] = rng.random(h.shape[:-1])  # hue in [0, 1)
    return h


def _cases():
    cases = []
    for dt in (F16, F32, F64):
        cases.append(("RGBToHSV", {"images": _pixels().astype(dt)}))
        cases.append(("HSVToRGB", {"images": _hsv_pixels().astype(dt)}))
    images = _pixels().astype(F32)
    for delta in (0.0, 0.13, -0.4, 0.999, -1.5):
        cases.append(("AdjustHue", {"images": images, "delta": F32(delta)}))
    for scale in (0.0, 0.5, 1.0, 1.7, 5.0):
        cases.append(("AdjustSaturation", {"images": images, "scale": F32(scale)}))
    batch = rng.random((3, 4, 6, 2)).astype(F32)
    for factor in (0.0, 0.5, 1.0, 2.5, -1.0):
        cases.append(("AdjustContrastv2", {"images": batch, "contrast_factor": F32(factor)}))
        cases.append(("AdjustContrastv2", {"images": batch[0], "contrast_factor": F32(factor)}))
    return cases


CASES = _cases()
_X = rng.random((2, 3, 3)).astype(F32)
ERROR_CASES = [
    ("RGBToHSV", {"images": F32(1)}),
    ("RGBToHSV", {"images": _X[..., :2]}),
    ("HSVToRGB", {"images": _X[..., :2]}),
    ("AdjustContrastv2", {"images": _X[0], "contrast_factor": F32(2)}),
    ("AdjustContrastv2", {"images": _X, "contrast_factor": F32([2])}),
    ("AdjustHue", {"images": _X[0], "delta": F32(0.2)}),
    ("AdjustHue", {"images": _X[..., :2], "delta": F32(0.2)}),
    ("AdjustHue", {"images": _X, "delta": F32([0.2])}),
    ("AdjustSaturation", {"images": _X[..., :2], "scale": F32(0.2)}),
    ("AdjustSaturation", {"images": _X, "scale": F32([0.2])}),
]


@pytest.fixture(scope="module")
def tf_results():
    return tfc.run([tfc.call(op, inputs) for op, inputs in CASES + ERROR_CASES])


def _run(op, inputs):
    return execute_op(op, list(inputs.values()), {})[0].numpy()


def test_color_ops_match_tensorflow(tf_results):
    for (op, inputs), want in zip(CASES, tf_results):
        assert not isinstance(want, tuple), (op, want)
        got = _run(op, inputs)
        assert got.dtype == want[0].dtype and got.shape == want[0].shape
        tol = {F16: 2e-3, F32: 2e-6, F64: 1e-12}[got.dtype.type]
        np.testing.assert_allclose(got, want[0], rtol=tol, atol=tol,
                                   err_msg=f"{op} {[v.shape for v in inputs.values()]}")


def test_color_errors_match_tensorflow(tf_results):
    for (op, inputs), want in zip(ERROR_CASES, tf_results[len(CASES):]):
        assert isinstance(want, tuple), op
        with pytest.raises(errors.OpError) as info:
            _run(op, inputs)
        assert type(info.value).__name__ == want[0], (str(info.value), want)
        message = str(info.value).split(": ", 1)[1]
        assert message in want[1], (message, want[1])


def test_hsv_matches_colorsys_and_round_trips():
    rgb = _pixels()
    hsv = _run("RGBToHSV", {"images": rgb})
    want = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    np.testing.assert_allclose(hsv, want, atol=1e-12)
    np.testing.assert_allclose(_run("HSVToRGB", {"images": hsv}), rgb, atol=1e-12)


def test_adjustments_match_numpy():
    rgb = _pixels().astype(F32)
    flat = rgb.reshape(-1, 3).astype(F64)
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in flat])
    for delta in (0.25, -0.6):
        turned = np.array([colorsys.hsv_to_rgb((h + delta) % 1.0, s, v) for h, s, v in hsv])
        np.testing.assert_allclose(_run("AdjustHue", {"images": rgb, "delta": F32(delta)}),
                                   turned.reshape(rgb.shape), atol=1e-5)
    for scale in (0.3, 2.0):
        sat = np.array([colorsys.hsv_to_rgb(h, min(1.0, s * scale), v) for h, s, v in hsv])
        np.testing.assert_allclose(_run("AdjustSaturation", {"images": rgb, "scale": F32(scale)}),
                                   sat.reshape(rgb.shape), atol=1e-5)
    x = rng.random((2, 4, 5, 3)).astype(F32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(_run("AdjustContrastv2", {"images": x, "contrast_factor": F32(1.8)}),
                               (x - mean) * 1.8 + mean, rtol=1e-5, atol=1e-6)


def test_color_ops_in_a_graph():
    rgb = _pixels().astype(F32)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=(None, None, None, 3))
        y = opgen.ops.hsv_to_rgb(opgen.ops.rgb_to_hsv(x))
        z = opgen.ops.adjust_saturation(opgen.ops.adjust_hue(x, opgen.constant(F32(0.1))),
                                        opgen.constant(F32(0.5)))
        w = opgen.ops.adjust_contrastv2(x, opgen.constant(F32(1.5)))
        assert y.shape == (None, None, None, 3)
    with opgen.Session(graph=g) as session:
        got_y, got_z, got_w = session.run([y, z, w], {x: rgb})
    np.testing.assert_allclose(got_y, rgb, atol=1e-6)
    want_z = _run("AdjustSaturation", {"images": _run("AdjustHue", {"images": rgb, "delta": F32(0.1)}),
                                       "scale": F32(0.5)})
    np.testing.assert_array_equal(got_z, want_z)
    np.testing.assert_array_equal(got_w, _run("AdjustContrastv2", {"images": rgb,
                                                                  "contrast_factor": F32(1.5)}))
