"""The older image ops detection and augmentation graphs hold: AdjustContrast (v1),
DrawBoundingBoxes(V2), ExtractGlimpse(V2), RandomCrop and the bounding-box samplers
(SampleDistortedBoundingBox v1/V2, StatelessSampleDistortedBoundingBox), against TensorFlow
2.21 (a child process, $OPGEN_TF_PYTHON). The ops TensorFlow 2.21 refuses to run in its
own GraphDef version (AdjustContrast, removed at 2; RandomCrop, at 8) run there in a
GraphDef of producer version 1. The samplers are bit for bit TensorFlow's: the stateless
one for any seed, the stateful ones on a kernel's first run with fixed seeds; random noise
(ExtractGlimpse's uniform and gaussian) is checked for its properties."""

from __future__ import annotations

import numpy as np
import pytest
from tf_reference import run_tf_script

import opgen
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(88)
F16, F32, I32, I64 = np.float16, np.float32, np.int32, np.int64

# Each call: (op, [inputs], {attrs}); the child runs it eagerly, or for the removed ops in
# a producer-1 GraphDef, and returns its outputs or ("error", message).
_TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.load(open(sys.argv[1]))
arrays = np.load(sys.argv[2])
out = {}

def graph_v1(op, inputs, attrs):
    from tensorflow.core.framework import attr_value_pb2
    g = tf.Graph()
    with g.as_default():
        phs = [tf.compat.v1.placeholder(tf.as_dtype(x.dtype), x.shape) for x in inputs]
    gd = g.as_graph_def()
    node = gd.node.add()
    node.name, node.op = "node", op
    node.input.extend([p.op.name for p in phs])
    node.attr["T"].type = tf.as_dtype(inputs[0].dtype).as_datatype_enum
    for k, v in attrs.items():
        node.attr[k].i = v
    gd.versions.producer = 1
    g2 = tf.Graph()
    with g2.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    with tf.compat.v1.Session(graph=g2) as s:
        return [s.run("node:0", {p.op.name + ":0": x for p, x in zip(phs, inputs)})]

for i, call in enumerate(spec):
    inputs = [arrays[f"c{i}_{k}"] for k in range(call["n"])]
    try:
        if call["graph_v1"]:
            r = graph_v1(call["op"], inputs, call["attrs"])
        else:
            names = call["names"]
            # tensors, not arrays: TensorFlow's eager fast path reuses the first call's
            # dtype for an array of another dtype (float16 images ran as float32)
            tensors = [tf.constant(x) for x in inputs]
            r = getattr(tf.raw_ops, call["op"])(**dict(zip(names, tensors)), **call["attrs"])
            r = [x.numpy() for x in (r if isinstance(r, (list, tuple)) else [r])]
        for k, x in enumerate(r):
            out[f"r{i}_{k}"] = np.asarray(x)
    except Exception as e:
        out[f"e{i}"] = np.array(getattr(e, "message", str(e)))
np.savez(sys.argv[3], **out)
"""

NAMES = {
    "AdjustContrast": ["images", "contrast_factor", "min_value", "max_value"],
    "DrawBoundingBoxes": ["images", "boxes"],
    "DrawBoundingBoxesV2": ["images", "boxes", "colors"],
    "ExtractGlimpse": ["input", "size", "offsets"],
    "ExtractGlimpseV2": ["input", "size", "offsets"],
    "RandomCrop": ["image", "size"],
    "SampleDistortedBoundingBox": ["image_size", "bounding_boxes"],
    "SampleDistortedBoundingBoxV2": ["image_size", "bounding_boxes", "min_object_covered"],
    "StatelessSampleDistortedBoundingBox": ["image_size", "bounding_boxes",
                                            "min_object_covered", "seed"],
}
GRAPH_V1 = {"AdjustContrast", "RandomCrop"}


def tf_run(calls):
    arrays, spec = {}, []
    for i, (op, inputs, attrs) in enumerate(calls):
        for k, x in enumerate(inputs):
            arrays[f"c{i}_{k}"] = np.asarray(x)
        spec.append({"op": op, "n": len(inputs), "names": NAMES[op], "attrs": attrs,
                     "graph_v1": op in GRAPH_V1})
    out = run_tf_script(_TF_SCRIPT, arrays, spec)
    results = []
    for i, (op, inputs, attrs) in enumerate(calls):
        if f"e{i}" in out:
            results.append(("error", str(out[f"e{i}"])))
        else:
            results.append([out[f"r{i}_{k}"] for k in range(3) if f"r{i}_{k}" in out])
    return results


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


# ---- the calls compared with TensorFlow ------------------------------------------------

def _boxes(batch, n):
    b = rng.uniform(-0.2, 1.2, (batch, n, 4)).astype(F32)
    b[0, 0] = [0.5, 0.6, 0.2, 0.9]  # inverted rows: skipped
    b[0, 1] = [1.5, 0.1, 1.9, 0.5]  # wholly below: skipped
    return b


def _cases():
    cases = []
    for dt in (np.uint8, np.int8, np.int16, I32, F32, np.float64):  # TF: no int64 kernel
        x = rng.integers(0, 100, (2, 3, 4, 2)).astype(dt)
        for f, lo, hi in ((1.7, 10.0, 60.0), (0.3, -1e9, 1e9), (-2.0, 0.0, 255.0)):
            cases.append(("AdjustContrast", [x, F32(f), F32(lo), F32(hi)], {}))
    cases.append(("AdjustContrast", [rng.random((4, 5, 3)).astype(F32), F32(2), F32(0.2),
                                     F32(0.9)], {}))
    for dt in (F32, F16):
        for depth in (1, 3, 4):
            images = rng.random((2, 7, 9, depth)).astype(dt)
            boxes = _boxes(2, 13)
            cases.append(("DrawBoundingBoxes", [images, boxes], {}))
            colors = rng.random((3, 5)).astype(F32)
            cases.append(("DrawBoundingBoxesV2", [images, boxes, colors], {}))
            cases.append(("DrawBoundingBoxesV2", [images, boxes, np.zeros((0, 4), F32)], {}))
    image = rng.normal(size=(3, 8, 10, 2)).astype(F32)
    offsets = np.array([[0.1, -0.3], [-1.2, 0.9], [0.5, 0.5]], F32)
    for op in ("ExtractGlimpse", "ExtractGlimpseV2"):
        for centered in (True, False):
            for normalized in (True, False):
                off = offsets if normalized else offsets * 6
                for size in ((3, 4), (12, 5), (8, 10)):
                    cases.append((op, [image, I32(size), off],
                                  {"centered": centered, "normalized": normalized,
                                   "uniform_noise": False, "noise": "zero"}))
    for dt in (np.uint8, I32, I64, F32, np.float64, np.int8, np.int16):
        img = rng.integers(0, 100, (9, 7, 3)).astype(dt)
        for size, seeds in (((4, 5), (3, 9)), ((9, 2), (11, 0)), ((1, 7), (0, 5)),
                            ((9, 7), (4, 4))):
            cases.append(("RandomCrop", [img, I64(size)], {"seed": seeds[0], "seed2": seeds[1]}))
    boxes = np.array([[[0.1, 0.2, 0.5, 0.7], [0.3, 0.3, 0.9, 0.8]]], F32)
    for dt in (np.uint8, np.int8, np.int16, I32, I64):
        size = np.array([100 if dt != np.int8 else 90, 120 if dt != np.int8 else 77, 3], dt)
        for k, (covered, aspect, area, attempts) in enumerate(
                ((0.1, [0.75, 1.33], [0.05, 1.0], 100), (0.8, [0.5, 2.0], [0.3, 0.6], 20),
                 (0.99, [1.0, 1.0], [0.9, 1.0], 3))):
            attrs = {"aspect_ratio_range": aspect, "area_range": area, "max_attempts": attempts}
            for seed in ((1, 2), (-7, 12345), (2**40, 3)):
                cases.append(("StatelessSampleDistortedBoundingBox",
                              [size, boxes, F32(covered), I64(seed) if k % 2 else
                               I32([s % 2**31 for s in seed])], attrs))
            cases.append(("SampleDistortedBoundingBoxV2", [size, boxes, F32(covered)],
                          {**attrs, "seed": 5 + k, "seed2": 9}))
            cases.append(("SampleDistortedBoundingBox", [size, boxes],
                          {**attrs, "seed": 3, "seed2": 1 + k, "min_object_covered": covered}))
    # no boxes: the whole image may be used
    cases.append(("StatelessSampleDistortedBoundingBox",
                  [I32([50, 40, 1]), np.zeros((1, 0, 4), F32), F32(0.5), I32([4, 2])],
                  {"use_image_if_no_bounding_boxes": True}))
    return cases


CASES = _cases()

_E = np.zeros((1, 4, 4, 3), F32)
ERROR_CASES = [
    ("AdjustContrast", [np.zeros((4, 4), F32), F32(1), F32(0), F32(1)], {}),
    ("AdjustContrast", [_E, F32([1]), F32(0), F32(1)], {}),
    ("AdjustContrast", [_E, F32(1), F32([0]), F32(1)], {}),
    ("AdjustContrast", [_E, F32(1), F32(0), F32([1])], {}),
    ("DrawBoundingBoxes", [_E[0], np.zeros((1, 1, 4), F32)], {}),
    ("DrawBoundingBoxes", [_E, np.zeros((1, 4), F32)], {}),
    ("DrawBoundingBoxes", [_E, np.zeros((2, 1, 4), F32)], {}),
    ("DrawBoundingBoxes", [np.zeros((1, 4, 4, 2), F32), np.zeros((1, 1, 4), F32)], {}),
    ("DrawBoundingBoxes", [_E, np.zeros((1, 1, 3), F32)], {}),
    ("DrawBoundingBoxesV2", [_E, np.zeros((1, 1, 4), F32), np.zeros((3,), F32)], {}),
    ("DrawBoundingBoxesV2", [_E, np.zeros((1, 1, 4), F32), np.zeros((3, 2), F32)], {}),
    ("ExtractGlimpseV2", [_E[0], I32([2, 2]), np.zeros((1, 2), F32)], {}),
    ("ExtractGlimpseV2", [_E, I32([2, 2, 1]), np.zeros((1, 2), F32)], {}),
    ("ExtractGlimpseV2", [_E, I32([2, 2]), np.zeros((2,), F32)], {}),
    ("ExtractGlimpseV2", [_E, I32([2, 2]), np.zeros((2, 2), F32)], {}),
    ("ExtractGlimpseV2", [_E, I32([2, 2]), np.zeros((1, 3), F32)], {}),
    ("ExtractGlimpseV2", [_E, I32([2, 2]), np.zeros((1, 2), F32)], {"noise": "pink"}),
    ("RandomCrop", [_E[0], I64([2])], {}),
    ("RandomCrop", [_E, I64([2, 2])], {}),
    ("RandomCrop", [_E[0], I64([5, 2])], {}),
    ("RandomCrop", [_E[0], I64([2, 5])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 4), F32), F32(0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.full((1, 1, 4), 1.5, F32), F32(0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 1, 4), F32), F32(-0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 0, 4), F32), F32(0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([-10, 10, 3]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2, 3])], {}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2])],
     {"area_range": [0.0, 1.0]}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2])],
     {"aspect_ratio_range": [1.0]}),
    ("StatelessSampleDistortedBoundingBox",
     [I32([10, 10, 3]), np.zeros((1, 1, 4), F32), F32(0.1), I32([1, 2])], {"max_attempts": 0}),
]


@pytest.fixture(scope="module")
def tf_results():
    return tf_run(CASES)


@pytest.fixture(scope="module")
def tf_errors():
    return tf_run(ERROR_CASES)


def test_ops_match_tensorflow(tf_results):
    """Bit for bit, except AdjustContrast's means (a sum in another order: 1 ulp)."""
    counts = {}
    for (op, inputs, attrs), want in zip(CASES, tf_results):
        assert not (isinstance(want, tuple) and want[0] == "error"), (op, attrs, want)
        got = _run(op, inputs, attrs)
        assert len(got) == len(want), op
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (op, g.shape, w.shape)
            if op == "AdjustContrast":
                np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-5, err_msg=op)
            else:
                np.testing.assert_array_equal(g, w, err_msg=f"{op} {attrs}")
        counts[op] = counts.get(op, 0) + 1
    assert len(counts) == 9


def test_errors_match_tensorflow(tf_errors):
    for (op, inputs, attrs), want in zip(ERROR_CASES, tf_errors):
        assert isinstance(want, tuple), (op, inputs, attrs)
        with pytest.raises((errors.InvalidArgumentError, errors.FailedPreconditionError)) as info:
            _run(op, inputs, attrs)
        message = str(info.value).split(": ", 1)[1]
        if "with input shapes" in want[1]:  # a producer-1 graph: TF's shape function spoke
            continue
        assert message in want[1], (op, message, want[1])


def test_glimpse_noise_fills_outside_with_the_image_range():
    image = rng.normal(size=(2, 6, 7, 3)).astype(F32)
    offsets = np.array([[0.9, -0.9], [0.0, 0.0]], F32)
    zero = _run("ExtractGlimpseV2", [image, I32([5, 6]), offsets],
                {"noise": "zero", "uniform_noise": False})[0]
    inside = np.zeros_like(zero, bool)
    for noise in ("uniform", "gaussian"):
        (got,) = _run("ExtractGlimpseV2", [image, I32([5, 6]), offsets],
                      {"noise": noise, "uniform_noise": noise == "uniform"})
        # where the window lies inside the image the pixels are the image's
        inside = zero != 0
        np.testing.assert_array_equal(got[inside], zero[inside])
        outside = got[0][~inside[0]]
        assert outside.size > 0 and np.unique(outside).size > 1
        if noise == "uniform":
            assert image[0].min() <= outside.min() and outside.max() <= image[0].max()
        else:
            for k in range(3):
                o = got[0][..., k][~inside[0][..., k]]
                assert image[0, ..., k].min() <= o.min() and o.max() <= image[0, ..., k].max()


def test_random_crop_is_a_window_of_the_image_and_moves():
    image = np.arange(9 * 7 * 2).reshape(9, 7, 2).astype(I32)
    g = opgen.Graph()
    with g.as_default():
        crop = opgen.ops.random_crop(opgen.constant(image), opgen.constant(I64([4, 3])))
        assert tuple(crop.shape) == (4, 3, 2)
    seen = set()
    with opgen.Session(graph=g) as session:
        for _ in range(40):
            got = session.run(crop)
            y, x = divmod(int(got[0, 0, 0]) // 2, 7)
            np.testing.assert_array_equal(got, image[y:y + 4, x:x + 3])
            seen.add((y, x))
    assert len(seen) > 5


def test_stateless_sampler_is_a_function_of_its_seed():
    size, boxes = I32([64, 48, 3]), np.array([[[0.2, 0.2, 0.6, 0.7]]], F32)
    a = _run("StatelessSampleDistortedBoundingBox", [size, boxes, F32(0.3), I32([1, 2])])
    b = _run("StatelessSampleDistortedBoundingBox", [size, boxes, F32(0.3), I32([1, 2])])
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    begin, extent, bbox = a
    assert begin[2] == 0 and extent[2] == -1
    assert 0 <= begin[0] and begin[0] + extent[0] <= 64 and begin[1] + extent[1] <= 48
    np.testing.assert_allclose(bbox.ravel(), [begin[0] / 64, begin[1] / 48,
                                              (begin[0] + extent[0]) / 64,
                                              (begin[1] + extent[1]) / 48], rtol=1e-6)
