"""ImageProjectiveTransformV2/V3 (Keras' RandomRotation, RandomZoom, RandomTranslation,
RandomShear) against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) bit for bit: every
interpolation x fill mode, transforms that reach far outside the image on every side,
one transform for the batch and one per image, non-square output shapes, every dtype
TensorFlow registers; the gradient (through the inverse transforms) against
tf.GradientTape; a RandomRotation-like graph built in TensorFlow from the raw op; and
TensorFlow's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tf_reference import run_tf_script

import opgen
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

try:
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover
    bfloat16 = None

rng = np.random.default_rng(2021)
F32, I32 = np.float32, np.int32
MODES = ["REFLECT", "WRAP", "CONSTANT", "NEAREST"]
INTERPOLATIONS = ["NEAREST", "BILINEAR"]
DTYPES = ["uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _np_dtype(name):
    return bfloat16 if name == "bfloat16" else np.dtype(name)


def _rotation(angle, h, w):
    """Keras' rotation about the image centre, as an output -> input map."""
    c, s = math.cos(angle), math.sin(angle)
    x_off = ((w - 1) - (c * (w - 1) - s * (h - 1))) / 2.0
    y_off = ((h - 1) - (s * (w - 1) + c * (h - 1))) / 2.0
    return [c, -s, x_off, s, c, y_off, 0.0, 0.0]


def _transforms(h, w):
    """Rotations, zooms, shifts far outside on each side, shear, a projective one."""
    return np.array([
        _rotation(0.7, h, w),
        _rotation(-2.2, h, w),
        [1.6, 0, -0.3 * w, 0, 0.45, 0.2 * h, 0, 0],      # zoom out in x, in in y
        [1, 0, 2.7 * w, 0, 1, -1.8 * h, 0, 0],           # far right, far up
        [1, 0, -3.4 * w, 0, 1, 2.3 * h, 0, 0],           # far left, far down
        [1, 0.35, -1.5, -0.2, 1, 0.5, 0, 0],             # shear
        [0.9, 0.1, 0.5, 0.05, 1.1, -0.7, 0.02, -0.015],  # projective
        [1, 0, 0.5, 0, 1, -0.5, 0, 0],                   # half-pixel shifts (ties)
    ], F32)


def _images(dtype, shape):
    if dtype in ("uint8", "int32", "int64", "bfloat16"):
        return rng.integers(0, 256, shape).astype(np.float64)  # exact in every type
    return rng.normal(0, 10, shape).astype(_np_dtype(dtype)).astype(np.float64)


def _cases():
    cases = []
    for dtype in DTYPES:
        for interpolation in INTERPOLATIONS:
            for mode in MODES:
                for version in (2, 3):
                    t = _transforms(5, 7)
                    per_image = version == 3
                    n = len(t) if per_image else 3
                    cases.append({
                        "dtype": dtype, "interpolation": interpolation, "fill_mode": mode,
                        "version": version, "images": _images(dtype, (n, 5, 7, 2)),
                        "transforms": t if per_image else t[[1]],
                        "output_shape": np.array([4, 9] if per_image else [6, 3], I32),
                        "fill_value": F32(-1.0 if dtype != "uint8" else 7.0)})
    # one-pixel rows and columns (reflect and wrap with len 1), and a 1x1 image
    for mode in MODES:
        for h, w in ((1, 6), (5, 1), (1, 1)):
            cases.append({"dtype": "float32", "interpolation": "BILINEAR", "fill_mode": mode,
                          "version": 3, "images": _images("float32", (8, h, w, 1)),
                          "transforms": _transforms(h, w), "output_shape": np.array([3, 4], I32),
                          "fill_value": F32(2.5)})
    return cases


CASES = _cases()

_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
arrays = np.load(sys.argv[2])
out = {}
for i, case in enumerate(spec):
    images = tf.cast(tf.constant(arrays[f"images{i}"]), case["dtype"])
    args = dict(images=images, transforms=arrays[f"transforms{i}"],
                output_shape=arrays[f"output_shape{i}"], interpolation=case["interpolation"],
                fill_mode=case["fill_mode"])
    if case["version"] == 3:
        r = tf.raw_ops.ImageProjectiveTransformV3(fill_value=arrays[f"fill_value{i}"], **args)
    else:
        r = tf.raw_ops.ImageProjectiveTransformV2(**args)
    out[f"out{i}"] = tf.cast(r, tf.float64).numpy()
np.savez(sys.argv[3], **out)
"""


def _arrays(cases):
    arrays = {}
    for i, c in enumerate(cases):
        for key in ("images", "transforms", "output_shape", "fill_value"):
            arrays[f"{key}{i}"] = c[key]
    return arrays


def _spec(cases):
    return [{k: c[k] for k in ("dtype", "interpolation", "fill_mode", "version")} for c in cases]


def _run(op, inputs, attrs):
    return [t.numpy() for t in execute_op(op, inputs, attrs)]


def _opgen(case):
    images = case["images"].astype(_np_dtype(case["dtype"]))
    inputs = [images, case["transforms"], case["output_shape"]]
    if case["version"] == 3:
        inputs.append(case["fill_value"])
    (out,) = _run(f"ImageProjectiveTransformV{case['version']}", inputs,
                  {"interpolation": case["interpolation"], "fill_mode": case["fill_mode"]})
    assert out.dtype == images.dtype
    return out.astype(np.float64)


@pytest.fixture(scope="module")
def tf_outputs():
    if bfloat16 is None:
        pytest.skip("ml_dtypes is needed for bfloat16")
    return run_tf_script(_TF_SCRIPT, _arrays(CASES), _spec(CASES))


def test_transforms_match_tensorflow_bit_for_bit(tf_outputs):
    assert len(CASES) == len(DTYPES) * 16 + 12
    filled = 0
    for i, case in enumerate(CASES):
        want = tf_outputs[f"out{i}"]
        got = _opgen(case)
        where = {k: case[k] for k in ("dtype", "interpolation", "fill_mode", "version")}
        assert got.shape == want.shape, where
        np.testing.assert_array_equal(got, want, err_msg=str(where))
        if case["fill_mode"] == "CONSTANT" and case["version"] == 3:
            filled += np.sum(want == float(np.asarray(case["fill_value"]).astype(
                _np_dtype(case["dtype"])))) > 0
    assert filled > 10  # the cases do reach outside the images


def test_fill_modes_map_borders_as_documented():
    """A 1 x 4 row [a b c d] shifted left by 4 and by 6 (x + 4, x + 6 sampled): REFLECT
    reads dcba, WRAP abcd, NEAREST the edge, CONSTANT the fill value."""
    row = np.array([10, 20, 30, 40], F32).reshape(1, 1, 4, 1)
    want = {"REFLECT": [40, 30, 20, 10], "WRAP": [10, 20, 30, 40], "NEAREST": [40] * 4,
            "CONSTANT": [-5] * 4}
    for mode, values in want.items():
        t = np.array([[1, 0, 4, 0, 1, 0, 0, 0]], F32)
        (got,) = _run("ImageProjectiveTransformV3", [row, t, np.array([1, 4], I32), F32(-5)],
                      {"interpolation": "NEAREST", "fill_mode": mode})
        if mode != "WRAP":  # TensorFlow's wrap divides by len - 1: checked against TF above
            np.testing.assert_array_equal(got.ravel(), values, err_msg=mode)


def test_identity_and_integer_shift_copy_pixels():
    images = rng.integers(0, 1000, (2, 6, 5, 3)).astype(np.int64) * 10**12  # beyond float
    ident = np.array([[1, 0, 0, 0, 1, 0, 0, 0]], F32)
    for interpolation in INTERPOLATIONS:
        (got,) = _run("ImageProjectiveTransformV2", [images, ident, np.array([6, 5], I32)],
                      {"interpolation": interpolation, "fill_mode": "CONSTANT"})
        if interpolation == "NEAREST":
            np.testing.assert_array_equal(got, images)  # int64 copied, not through float
    shift = np.array([[1, 0, 1, 0, 1, 2, 0, 0]], F32)  # out(y, x) = in(y + 2, x + 1)
    (got,) = _run("ImageProjectiveTransformV3", [images, shift, np.array([6, 5], I32),
                                                 F32(0)],
                  {"interpolation": "NEAREST", "fill_mode": "CONSTANT"})
    np.testing.assert_array_equal(got[:, :4, :4], images[:, 2:, 1:])
    assert not got[:, 4:].any() and not got[:, :, 4:].any()


_GRAD_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
arrays = np.load(sys.argv[2])
out = {}
for i, case in enumerate(spec):
    x = tf.constant(arrays[f"x{i}"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        args = dict(images=x, transforms=arrays[f"t{i}"], output_shape=arrays[f"s{i}"],
                    interpolation=case["interpolation"], fill_mode=case["fill_mode"])
        if case["version"] == 3:
            y = tf.raw_ops.ImageProjectiveTransformV3(fill_value=np.float32(3), **args)
        else:
            y = tf.raw_ops.ImageProjectiveTransformV2(**args)
    out[f"g{i}"] = tape.gradient(y, x, output_gradients=tf.constant(arrays[f"dy{i}"])).numpy()
np.savez(sys.argv[3], **out)
"""


def _grad_cases():
    cases = []
    for k, (interpolation, mode) in enumerate([(i, m) for i in INTERPOLATIONS for m in MODES]):
        x = rng.normal(size=(2, 6, 5, 2)).astype(F32)
        t = _transforms(6, 5)[[0, 2]] if k % 2 else _transforms(6, 5)[[5]]
        s = np.array([4, 7], I32)
        cases.append({"interpolation": interpolation, "fill_mode": mode, "version": 2 + k % 2,
                      "x": x, "t": t, "s": s, "dy": rng.normal(size=(2, 4, 7, 2)).astype(F32)})
    return cases


GRAD_CASES = _grad_cases()


def _opgen_grad(case):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=case["x"].shape)
        inputs = [x, opgen.constant(case["t"]), opgen.constant(case["s"])]
        attrs = {"interpolation": case["interpolation"], "fill_mode": case["fill_mode"]}
        if case["version"] == 3:
            y = opgen.ops.image_projective_transform_v3(*inputs, opgen.constant(F32(3)), **attrs)
        else:
            y = opgen.ops.image_projective_transform_v2(*inputs, **attrs)
        assert tuple(y.shape) == (2, 4, 7, 2)
        (dx,) = opgen.gradients(y, [x], grad_ys=[opgen.constant(case["dy"])])
    with opgen.Session(graph=g) as session:
        return session.run(dx, {x: case["x"]})


def test_gradient_matches_tensorflow():
    want = run_tf_script(_GRAD_SCRIPT, {f"{k}{i}": c[k] for i, c in enumerate(GRAD_CASES)
                                        for k in ("x", "t", "s", "dy")},
                         [{k: c[k] for k in ("interpolation", "fill_mode", "version")}
                          for c in GRAD_CASES])
    for i, case in enumerate(GRAD_CASES):
        got = _opgen_grad(case)
        # the inverse matrices may differ from TensorFlow's in the last bit
        np.testing.assert_allclose(got, want[f"g{i}"], rtol=1e-4, atol=1e-4,
                                   err_msg=str({k: case[k] for k in ("interpolation",
                                                                     "fill_mode")}))
        assert np.abs(got).sum() > 0


_ROTATION_SCRIPT = r"""
import json, math, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
images = tf.constant(np.load(sys.argv[2])["images"])

@tf.function
def rotate(images, angles):
    # Keras' RandomRotation inference with a fixed factor: the rotation about the
    # centre as an output -> input map, then ImageProjectiveTransformV3.
    shape = tf.shape(images)
    h = tf.cast(shape[1], tf.float32)
    w = tf.cast(shape[2], tf.float32)
    cos, sin = tf.cos(angles), tf.sin(angles)
    x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
    y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
    zeros = tf.zeros_like(angles)
    t = tf.stack([cos, -sin, x_off, sin, cos, y_off, zeros, zeros], axis=1)
    return tf.raw_ops.ImageProjectiveTransformV3(
        images=images, transforms=t, output_shape=shape[1:3], fill_value=0.0,
        interpolation="BILINEAR", fill_mode=spec["fill_mode"])

angles = tf.constant(np.array(spec["angles"], np.float32))
np.savez(sys.argv[3], out=rotate(images, angles).numpy())
"""


@pytest.mark.parametrize("fill_mode", ["REFLECT", "CONSTANT"])
def test_random_rotation_graph_matches_tensorflow(fill_mode):
    """RandomRotation's inference path with fixed angles, built from the raw op in both."""
    images = rng.random((3, 9, 12, 3)).astype(F32)
    angles = [0.3 * math.pi, -0.1 * math.pi, 1.0]
    want = run_tf_script(_ROTATION_SCRIPT, {"images": images},
                         {"angles": angles, "fill_mode": fill_mode})["out"]
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=(None, None, None, 3))
        a = opgen.constant(np.array(angles, F32))
        shape = opgen.ops.shape(x)
        hw = opgen.ops.cast(opgen.ops.strided_slice(shape, opgen.constant(I32([1])),
                                                    opgen.constant(I32([3])),
                                                    opgen.constant(I32([1]))), DstT=opgen.float32)
        h = opgen.ops.gather_v2(hw, opgen.constant(I32(0)), opgen.constant(I32(0)))
        w = opgen.ops.gather_v2(hw, opgen.constant(I32(1)), opgen.constant(I32(0)))
        one, two = opgen.constant(F32(1)), opgen.constant(F32(2))
        cos, sin = opgen.ops.cos(a), opgen.ops.sin(a)
        wm, hm = opgen.ops.sub(w, one), opgen.ops.sub(h, one)
        x_off = opgen.ops.real_div(opgen.ops.sub(wm, opgen.ops.sub(opgen.ops.mul(cos, wm),
                                                                   opgen.ops.mul(sin, hm))), two)
        y_off = opgen.ops.real_div(opgen.ops.sub(hm, opgen.ops.add_v2(opgen.ops.mul(sin, wm),
                                                                      opgen.ops.mul(cos, hm))), two)
        zeros = opgen.ops.zeros_like(a)
        t = opgen.ops.pack([cos, opgen.ops.neg(sin), x_off, sin, cos, y_off, zeros, zeros], axis=1)
        size = opgen.ops.strided_slice(shape, opgen.constant(I32([1])), opgen.constant(I32([3])),
                                       opgen.constant(I32([1])))
        y = opgen.ops.image_projective_transform_v3(x, t, size, opgen.constant(F32(0)),
                                                    interpolation="BILINEAR", fill_mode=fill_mode)
    with opgen.Session(graph=g) as session:
        got = session.run(y, {x: images})
    # cos/sin of the angles may differ from TensorFlow's in the last bit
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.abs(got - images).max() > 0.1


_ERRORS_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
arrays = np.load(sys.argv[2])
out = {}
for i, case in enumerate(spec):
    try:
        tf.raw_ops.ImageProjectiveTransformV3(
            images=arrays[f"x{i}"], transforms=arrays[f"t{i}"], output_shape=arrays[f"s{i}"],
            fill_value=arrays[f"f{i}"], interpolation="NEAREST", fill_mode="CONSTANT")
        out[f"e{i}"] = np.array("")
    except tf.errors.InvalidArgumentError as e:
        out[f"e{i}"] = np.array(e.message)
np.savez(sys.argv[3], **out)
"""

_X = np.zeros((2, 3, 4, 1), F32)
_T = np.zeros((2, 8), F32)
ERROR_CASES = [
    (_X[0], _T, I32([3, 4]), F32(0)),                        # rank 3 images
    (_X, np.zeros((3, 8), F32), I32([3, 4]), F32(0)),        # 3 transforms for 2 images
    (_X, np.zeros((2, 6), F32), I32([3, 4]), F32(0)),        # 6 columns
    (_X, np.zeros(8, F32), I32([3, 4]), F32(0)),             # rank 1 transforms
    (_X, _T, I32([[3, 4]]), F32(0)),                         # rank 2 output_shape
    (_X, _T, I32([3, 4, 1]), F32(0)),                        # three elements
    (_X, _T, I32([0, 4]), F32(0)),                           # not positive
    (_X, _T, I32([3, -4]), F32(0)),
    (_X, _T, I32([3, 4]), F32([0])),                         # fill_value not a scalar
]


def test_errors_match_tensorflow():
    arrays = {}
    for i, (x, t, s, f) in enumerate(ERROR_CASES):
        arrays.update({f"x{i}": x, f"t{i}": t, f"s{i}": s, f"f{i}": f})
    want = run_tf_script(_ERRORS_SCRIPT, arrays, [{}] * len(ERROR_CASES))
    for i, (x, t, s, f) in enumerate(ERROR_CASES):
        message = str(want[f"e{i}"])
        assert message, i
        with pytest.raises(errors.InvalidArgumentError) as info:
            _run("ImageProjectiveTransformV3", [x, t, s, f],
                 {"interpolation": "NEAREST", "fill_mode": "CONSTANT"})
        assert str(info.value).split(": ", 1)[1] in message, (i, str(info.value), message)


def test_unknown_modes_are_refused():
    for attrs in ({"interpolation": "CUBIC", "fill_mode": "CONSTANT"},
                  {"interpolation": "NEAREST", "fill_mode": "MIRROR"}):
        with pytest.raises(errors.InvalidArgumentError, match="Supported types"):
            _run("ImageProjectiveTransformV2", [_X, _T, I32([3, 4])], attrs)


def test_static_shapes():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.uint8, shape=(None, 10, 10, 3))
        t = opgen.ops.placeholder(opgen.float32, shape=(None, 8))
        y = opgen.ops.image_projective_transform_v2(x, t, opgen.constant(I32([4, 6])),
                                                    interpolation="NEAREST")
        assert tuple(y.shape) == (None, 4, 6, 3)
        s = opgen.ops.placeholder(opgen.int32, shape=(2,))
        y = opgen.ops.image_projective_transform_v3(x, t, s, opgen.constant(F32(0)),
                                                    interpolation="NEAREST")
        assert tuple(y.shape) == (None, None, None, 3)
        with pytest.raises(errors.InvalidArgumentError):
            opgen.ops.image_projective_transform_v2(
                x, t, opgen.constant(I32([4, 6, 1])), interpolation="NEAREST")
