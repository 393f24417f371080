"""CropAndResize and its gradients (CropAndResizeGradImage, CropAndResizeGradBoxes)
against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) for every registered dtype,
both methods, boxes inside, across and outside the image (flipped too), one-pixel crops
and extrapolation values; against a numpy bilinear reference; the registered gradient in
a graph; and TensorFlow's errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
import tf_raw_ops_child as tfc
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(11)
F16, F32, F64, I32 = np.float16, np.float32, np.float64, np.int32
IMAGE_DTYPES = [np.uint8, np.uint16, np.int8, np.int16, np.int32, np.int64, F16, F32, F64]
BOXES = np.array([[0.1, 0.2, 0.8, 0.9],      # inside
                  [0.9, 0.8, 0.1, 0.3],      # flipped
                  [-0.3, -0.2, 0.5, 1.4],    # across the edges: extrapolated samples
                  [1.2, 1.1, 1.6, 1.9],      # wholly outside
                  [0.0, 0.0, 1.0, 1.0],      # the whole image
                  [0.37, 0.61, 0.37, 0.61]], F32)  # a point
BOX_IND = np.array([0, 1, 1, 0, 1, 0], I32)
CROPS = [(1, 1), (3, 5), (7, 4), (1, 6)]


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _image(dtype, shape=(2, 5, 7, 3)):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 200), shape).astype(dtype)
    return rng.normal(0, 1, shape).astype(dtype)


def _cases():
    forward, grad_image, grad_boxes = [], [], []
    for dt in IMAGE_DTYPES:
        image = _image(dt)
        for crop in CROPS:
            for method in ("bilinear", "nearest"):
                extra = -1.5 if crop == (3, 5) else 0.0
                forward.append({"image": image, "boxes": BOXES, "box_ind": BOX_IND,
                                "crop_size": np.array(crop, I32)},)
                forward[-1] = (forward[-1], {"method": method, "extrapolation_value": extra})
            grads = rng.normal(0, 1, (len(BOXES), *crop, 3)).astype(F32)
            grad_boxes.append(({"grads": grads, "image": image, "boxes": BOXES,
                                "box_ind": BOX_IND}, {}))
            if dt in (F16, F32, F64):
                for method in ("bilinear", "nearest"):
                    grad_image.append(({"grads": grads, "boxes": BOXES, "box_ind": BOX_IND,
                                        "image_size": np.array(image.shape, I32)},
                                       {"T": np.dtype(dt).name, "method": method}))
    return forward, grad_image, grad_boxes


FORWARD, GRAD_IMAGE, GRAD_BOXES = _cases()


def _error_cases():
    image, boxes, ind, size = _image(F32), BOXES[:2], BOX_IND[:2], np.array([3, 3], I32)
    fwd = "CropAndResize"
    c = lambda **kw: {"image": image, "boxes": boxes, "box_ind": ind, "crop_size": size, **kw}  # noqa: E731
    grads = np.zeros((2, 3, 3, 3), F32)
    return [
        (fwd, c(image=image[0]), {}),
        (fwd, c(image=np.zeros((2, 0, 4, 3), F32)), {}),
        (fwd, c(boxes=boxes[:, :3]), {}),
        (fwd, c(boxes=boxes.ravel()), {}),
        (fwd, c(box_ind=ind[:1]), {}),
        (fwd, c(box_ind=ind[None]), {}),
        (fwd, c(box_ind=np.array([0, 2], I32)), {}),
        (fwd, c(box_ind=np.array([-1, 0], I32)), {}),
        (fwd, c(crop_size=np.array([3, 0], I32)), {}),
        (fwd, c(crop_size=np.array([3, 3, 3], I32)), {}),
        (fwd, c(boxes=np.array([[0, 0, np.inf, 1], [0, 0, 1, 1]], F32)), {}),
        (fwd, c(boxes=np.array([[0, 0, np.nan, 1], [0, 0, 1, 1]], F32)), {}),
        ("CropAndResizeGradImage", {"grads": grads, "boxes": boxes, "box_ind": ind,
                                    "image_size": np.array([2, 5, 7, 4], I32)}, {"T": "float32"}),
        ("CropAndResizeGradImage", {"grads": grads, "boxes": boxes, "box_ind": ind,
                                    "image_size": np.array([2, 5, 7], I32)}, {"T": "float32"}),
        ("CropAndResizeGradImage", {"grads": grads[:1], "boxes": boxes, "box_ind": ind,
                                    "image_size": np.array([2, 5, 7, 3], I32)}, {"T": "float32"}),
        ("CropAndResizeGradImage", {"grads": grads, "boxes": boxes, "box_ind": np.array([0, 5], I32),
                                    "image_size": np.array([2, 5, 7, 3], I32)}, {"T": "float32"}),
        ("CropAndResizeGradBoxes", {"grads": grads, "image": image[..., :2], "boxes": boxes,
                                    "box_ind": ind}, {}),
        ("CropAndResizeGradBoxes", {"grads": grads, "image": image, "boxes": boxes,
                                    "box_ind": np.array([3, 0], I32)}, {}),
    ]


ERROR_CASES = _error_cases()




@pytest.fixture(scope="module")
def tf_results():
    calls = [tfc.call("CropAndResize", i, a) for i, a in FORWARD]
    calls += [tfc.call("CropAndResizeGradImage", i, a) for i, a in GRAD_IMAGE]
    calls += [tfc.call("CropAndResizeGradBoxes", i, a) for i, a in GRAD_BOXES]
    calls += [tfc.call(op, i, a) for op, i, a in ERROR_CASES]
    return tfc.run(calls)


def _opgen_attrs(attrs):
    return {k: (opgen.as_dtype(v) if k == "T" else v) for k, v in attrs.items()}


def test_crop_and_resize_matches_tensorflow(tf_results):
    for (inputs, attrs), want in zip(FORWARD, tf_results):
        assert not isinstance(want, tuple), want
        (got,) = _run("CropAndResize", list(inputs.values()), attrs)
        assert got.dtype == F32 and got.shape == want[0].shape
        np.testing.assert_allclose(got, want[0], rtol=1e-6, atol=1e-5,
                                   err_msg=f"{inputs['image'].dtype} {attrs}")


def test_crop_and_resize_gradients_match_tensorflow(tf_results):
    results = tf_results[len(FORWARD):]
    for (inputs, attrs), want in zip(GRAD_IMAGE, results):
        assert not isinstance(want, tuple), want
        (got,) = _run("CropAndResizeGradImage", list(inputs.values()), _opgen_attrs(attrs))
        assert got.dtype == want[0].dtype
        tol = 2e-2 if got.dtype == F16 else 1e-5
        np.testing.assert_allclose(got.astype(F64), want[0].astype(F64), rtol=tol, atol=tol,
                                   err_msg=str(attrs))
    for (inputs, attrs), want in zip(GRAD_BOXES, results[len(GRAD_IMAGE):]):
        assert not isinstance(want, tuple), want
        (got,) = _run("CropAndResizeGradBoxes", list(inputs.values()), attrs)
        scale = max(1.0, float(np.abs(want[0]).max()))
        np.testing.assert_allclose(got, want[0], rtol=1e-5, atol=1e-5 * scale,
                                   err_msg=str(inputs["image"].dtype))


def test_crop_and_resize_errors_match_tensorflow(tf_results):
    results = tf_results[len(FORWARD) + len(GRAD_IMAGE) + len(GRAD_BOXES):]
    for (op, inputs, attrs), want in zip(ERROR_CASES, results):
        assert isinstance(want, tuple), (op, want)
        with pytest.raises(errors.OpError) as info:
            _run(op, list(inputs.values()), _opgen_attrs(attrs))
        assert type(info.value).__name__ == want[0], (op, str(info.value), want)
        message = str(info.value).split(": ", 1)[1]
        assert message in want[1], (message, want[1])


def _numpy_crop(image, boxes, ind, crop, extrapolation=0.0):
    """Bilinear crops in float64, from the op's documented sampling positions."""
    _, h, w, d = image.shape
    out = np.empty((len(boxes), *crop, d))
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        ys = (np.full(1, 0.5 * (y1 + y2) * (h - 1)) if crop[0] == 1
              else y1 * (h - 1) + np.arange(crop[0]) * (y2 - y1) * (h - 1) / (crop[0] - 1))
        xs = (np.full(1, 0.5 * (x1 + x2) * (w - 1)) if crop[1] == 1
              else x1 * (w - 1) + np.arange(crop[1]) * (x2 - x1) * (w - 1) / (crop[1] - 1))
        img = image[ind[b]].astype(np.float64)
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[b, i, j] = extrapolation
                    continue
                y0, x0 = int(np.floor(y)), int(np.floor(x))
                y1_, x1_ = int(np.ceil(y)), int(np.ceil(x))
                fy, fx = y - y0, x - x0
                top = img[y0, x0] * (1 - fx) + img[y0, x1_] * fx
                bottom = img[y1_, x0] * (1 - fx) + img[y1_, x1_] * fx
                out[b, i, j] = top * (1 - fy) + bottom * fy
    return out


@pytest.mark.parametrize("crop", CROPS)
def test_crop_and_resize_matches_numpy(crop):
    image = _image(F64, (2, 6, 9, 2))
    (got,) = _run("CropAndResize", [image, BOXES, BOX_IND, np.array(crop, I32)],
                  {"extrapolation_value": 7.0})
    np.testing.assert_allclose(got, _numpy_crop(image, BOXES, BOX_IND, crop, 7.0), rtol=1e-5,
                               atol=1e-5)


def test_no_boxes_give_empty_crops():
    image = _image(F32)
    (got,) = _run("CropAndResize", [image, np.zeros((0, 4), F32), np.zeros(0, I32),
                                    np.array([3, 2], I32)])
    assert got.shape == (0, 3, 2, 3)
    (got,) = _run("CropAndResizeGradBoxes", [np.zeros((0, 3, 2, 3), F32), image,
                                             np.zeros((0, 4), F32), np.zeros(0, I32)])
    assert got.shape == (0, 4)


def test_crop_and_resize_gradient_in_a_graph():
    """opgen.gradients of the image and the boxes equal the gradient ops run directly
    (which the tests above compare with TensorFlow), and the graph's static shapes."""
    image, grads = _image(F32), rng.normal(0, 1, (len(BOXES), 3, 5, 3)).astype(F32)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=image.shape)
        bx = opgen.ops.placeholder(opgen.float32, shape=BOXES.shape)
        y = opgen.ops.crop_and_resize(x, bx, opgen.constant(BOX_IND),
                                      opgen.constant(np.array([3, 5], I32)))
        assert y.shape == (len(BOXES), 3, 5, 3)
        dx, db = opgen.gradients(y, [x, bx], grad_ys=[opgen.constant(grads)])
    with opgen.Session(graph=g) as session:
        got_dx, got_db = session.run([dx, db], {x: image, bx: BOXES})
    (want_dx,) = _run("CropAndResizeGradImage", [grads, BOXES, BOX_IND,
                                                 np.array(image.shape, I32)],
                      {"T": opgen.float32})
    (want_db,) = _run("CropAndResizeGradBoxes", [grads, image, BOXES, BOX_IND])
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got_db, want_db, rtol=1e-6, atol=1e-6)
