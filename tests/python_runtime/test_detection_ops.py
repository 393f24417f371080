"""Non-max suppression (NonMaxSuppression v1 and V2 to V5, NonMaxSuppressionWithOverlaps): the
selected indices against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) bit for
bit, the soft-NMS scores within float tolerance, hard selection against a numpy
reference, in float and half, eagerly and in a graph, and TensorFlow's errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
import tf_raw_ops_child as tfc
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)
F16, F32 = np.float16, np.float32


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _boxes(n, flipped=True):
    """n boxes in [0, 1]^2, clustered so that many overlap; some with swapped corners, one
    empty."""
    centre = rng.uniform(0.2, 0.8, (n, 2)).round(1) + rng.normal(0, 0.03, (n, 2))
    size = rng.uniform(0.1, 0.4, (n, 2))
    b = np.concatenate([centre - size / 2, centre + size / 2], axis=1)
    if flipped:
        swap = rng.random(n) < 0.3
        b[swap] = b[swap][:, [2, 3, 0, 1]]
    if n > 3:
        b[3] = [0.5, 0.5, 0.5, 0.7]  # no area: overlaps nothing
    return b


def _scores(n):
    """Scores with ties (a few distinct values) and a NaN (never selected)."""
    s = rng.integers(0, 6, n) / 5.0
    if n > 5:
        s[5] = np.nan
    return s


def _numpy_nms(boxes, scores, max_out, iou_threshold, score_threshold):
    """Hard NMS in float64: by score, then row; keep a box unless its IoU with one kept
    exceeds the threshold."""
    b = boxes.astype(np.float64)
    lo, hi = np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])
    area = np.prod(hi - lo, axis=1)
    order = sorted((i for i in range(len(b)) if scores[i] > score_threshold),
                   key=lambda i: (-scores[i], i))
    kept = []
    for i in order:
        if len(kept) == max_out:
            break
        ok = True
        for j in kept:
            if area[i] <= 0 or area[j] <= 0:
                continue
            inter = np.prod(np.maximum(np.minimum(hi[i], hi[j]) - np.maximum(lo[i], lo[j]), 0))
            if inter / (area[i] + area[j] - inter) > iou_threshold:
                ok = False
                break
        if ok:
            kept.append(i)
    return np.array(kept, np.int32)


# ---- the calls compared with TensorFlow ------------------------------------------------

def _nms_calls():
    cases = []
    for dt in (F32, F16):
        for n in (0, 1, 12, 60):
            boxes, scores = _boxes(n).astype(dt), _scores(n).astype(dt)
            for iou in (0.0, 0.3, 0.5, 1.0):
                for score_t, max_out in ((-1.0, 100), (0.3, 7), (0.0, 0)):
                    base = {"boxes": boxes, "scores": scores, "max_output_size": np.int32(max_out),
                            "iou_threshold": dt(iou), "score_threshold": dt(score_t)}
                    cases.append(("NonMaxSuppressionV3", base, {}))
                    if score_t == -1.0:  # the older forms: no score threshold
                        v2 = {k: v for k, v in base.items() if k != "score_threshold"}
                        cases.append(("NonMaxSuppressionV2", v2, {}))
                        if dt == F32:
                            v1 = {k: v for k, v in v2.items() if k != "iou_threshold"}
                            cases.append(("NonMaxSuppression", v1, {"iou_threshold": iou}))
                    for pad in (False, True):
                        cases.append(("NonMaxSuppressionV4", base,
                                      {"pad_to_max_output_size": pad}))
                    for sigma in (0.0, 0.5):
                        cases.append(("NonMaxSuppressionV5",
                                      {**base, "soft_nms_sigma": dt(sigma)},
                                      {"pad_to_max_output_size": n % 2 == 0}))
    # thresholds of another float type than the boxes
    boxes, scores = _boxes(30).astype(F32), _scores(30).astype(F32)
    cases.append(("NonMaxSuppressionV3", {"boxes": boxes, "scores": scores,
                                          "max_output_size": np.int32(10),
                                          "iou_threshold": F16(0.4), "score_threshold": F16(0.1)},
                  {}))
    for n in (0, 9, 40):
        overlaps = rng.uniform(0, 1, (n, n)).astype(F32)
        for thr in (0.2, 0.7):
            cases.append(("NonMaxSuppressionWithOverlaps",
                          {"overlaps": overlaps, "scores": _scores(n).astype(F32),
                           "max_output_size": np.int32(n // 2 + 1),
                           "overlap_threshold": F32(thr), "score_threshold": F32(0.1)}, {}))
    return cases


NMS_CASES = _nms_calls()


def _v3(boxes, scores, max_out=10, iou=0.5, score=0.0, dt=F32):
    return {"boxes": np.asarray(boxes, dt), "scores": np.asarray(scores, dt),
            "max_output_size": np.int32(max_out), "iou_threshold": dt(iou),
            "score_threshold": dt(score)}


def _error_cases():
    b, s = _boxes(4).astype(F32), np.array([0.1, 0.5, 0.3, 0.9], F32)
    v3 = "NonMaxSuppressionV3"
    return [
        (v3, _v3(b[:, :3], s), {}),                       # 3 columns
        (v3, _v3(b.ravel(), s), {}),                      # rank 1 boxes
        (v3, _v3(b, s[:3]), {}),                          # scores of another length
        (v3, _v3(b, s[None]), {}),                        # rank 2 scores
        (v3, _v3(b, s, max_out=-1), {}),                  # negative max_output_size
        (v3, _v3(b, s, iou=1.5), {}),                     # iou_threshold out of range
        (v3, _v3(b, s, iou=-0.1), {}),
        (v3, {**_v3(b, s), "max_output_size": np.int32([3])}, {}),
        (v3, {**_v3(b, s), "iou_threshold": np.float32([0.5])}, {}),
        (v3, {**_v3(b, s), "score_threshold": np.float32([0.5])}, {}),
        ("NonMaxSuppressionV4", _v3(b, s, max_out=-2), {"pad_to_max_output_size": True}),
        ("NonMaxSuppressionV2", {k: v for k, v in _v3(b, s).items() if k != "score_threshold"}
         | {"max_output_size": np.int32([3])}, {}),
        ("NonMaxSuppressionV2", {k: v for k, v in _v3(b, s, iou=1.5).items()
                                 if k != "score_threshold"}, {}),
        ("NonMaxSuppressionV2", {"boxes": b, "scores": s, "max_output_size": np.int32(2),
                                 "iou_threshold": F32([0.5])}, {}),
        ("NonMaxSuppression", {"boxes": b, "scores": s, "max_output_size": np.int32([2])}, {}),
        ("NonMaxSuppression", {"boxes": b, "scores": s, "max_output_size": np.int32(2)},
         {"iou_threshold": 1.5}),
        ("NonMaxSuppression", {"boxes": b[:, :3], "scores": s, "max_output_size": np.int32(2)},
         {}),
        ("NonMaxSuppressionV5", {**_v3(b, s), "soft_nms_sigma": F32(-1)}, {}),
        ("NonMaxSuppressionV5", {**_v3(b, s), "soft_nms_sigma": F32([1])}, {}),
        ("NonMaxSuppressionWithOverlaps",
         {"overlaps": np.zeros((4, 3), F32), "scores": s, "max_output_size": np.int32(2),
          "overlap_threshold": F32(0.5), "score_threshold": F32(0)}, {}),
        ("NonMaxSuppressionWithOverlaps",
         {"overlaps": np.zeros((4, 4), F32), "scores": s, "max_output_size": np.int32(-2),
          "overlap_threshold": F32(0.5), "score_threshold": F32(0)}, {}),
    ]


ERROR_CASES = _error_cases()


@pytest.fixture(scope="module")
def tf_nms():
    return tfc.run([tfc.call(op, inputs, attrs) for op, inputs, attrs in NMS_CASES])


@pytest.fixture(scope="module")
def tf_errors():
    return tfc.run([tfc.call(op, inputs, attrs) for op, inputs, attrs in ERROR_CASES])


def test_nms_matches_tensorflow_bit_for_bit(tf_nms):
    assert len(NMS_CASES) > 200
    nonempty = 0
    for (op, inputs, attrs), want in zip(NMS_CASES, tf_nms):
        assert not isinstance(want, tuple), (op, want)
        got = _run(op, list(inputs.values()), attrs)
        assert len(got) == len(want)
        where = f"{op} {attrs} n={len(inputs['scores'])}"
        np.testing.assert_array_equal(got[0], want[0], err_msg=where)  # indices
        nonempty += len(want[0]) > 1
        if op == "NonMaxSuppressionV5":
            assert got[1].dtype == want[1].dtype
            tol = 1e-3 if got[1].dtype == F16 else 1e-6
            np.testing.assert_allclose(got[1].astype(F32), want[1].astype(F32), rtol=tol,
                                       atol=tol, err_msg=where)
        for g, w in zip(got[1:], want[1:]):
            if g.dtype == np.int32:
                np.testing.assert_array_equal(g, w, err_msg=where)  # valid_outputs
    assert nonempty > 50  # the cases select more than one box


def test_nms_errors_match_tensorflow(tf_errors):
    for (op, inputs, attrs), want in zip(ERROR_CASES, tf_errors):
        assert isinstance(want, tuple), (op, inputs, want)
        with pytest.raises(errors.InvalidArgumentError) as info:
            _run(op, list(inputs.values()), attrs)
        assert want[0] == "InvalidArgumentError"
        message = str(info.value).split(": ", 1)[1]
        assert message in want[1], (message, want[1])


@pytest.mark.parametrize("dt", [F32, F16])
def test_hard_nms_matches_numpy(dt):
    for trial in range(20):
        n = int(rng.integers(1, 80))
        boxes, scores = _boxes(n).astype(dt), rng.permutation(n).astype(dt) / max(n, 1)
        iou, score_t, max_out = [0.1, 0.45, 0.7][trial % 3], [-1.0, 0.25][trial % 2], 1 + trial
        want = _numpy_nms(boxes, scores.astype(np.float64), max_out, iou, score_t)
        (got,) = _run("NonMaxSuppressionV3", list(_v3(boxes, scores, max_out, iou, score_t,
                                                       dt).values()))
        np.testing.assert_array_equal(got, want)
        got4, valid = _run("NonMaxSuppressionV4", list(_v3(boxes, scores, max_out, iou, score_t,
                                                             dt).values()),
                           {"pad_to_max_output_size": True})
        assert got4.shape == (max_out,) and valid == len(want)
        np.testing.assert_array_equal(got4[:valid], want)
        assert not got4[valid:].any()


def test_ties_keep_the_lower_row_and_flipped_corners_are_the_same_box():
    boxes = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3]], F32)
    scores = np.array([0.5, 0.5, 0.9, 0.5], F32)
    (got,) = _run("NonMaxSuppressionV3", list(_v3(boxes, scores, 4, 0.5, -1).values()))
    np.testing.assert_array_equal(got, [2, 3])  # 0 and 1 are box 2 (flipped or not)
    (got,) = _run("NonMaxSuppressionV3", list(_v3(boxes, scores, 4, 1.0, -1).values()))
    np.testing.assert_array_equal(got, [2, 0, 1, 3])  # IoU 1 is not above 1


def test_soft_nms_decays_scores_as_the_formula_says():
    boxes = np.array([[0, 0, 1, 1], [0, 0.5, 1, 1.5], [0, 0, 1, 1]], F32)
    scores = np.array([0.9, 0.8, 0.9], F32)
    sigma = 0.5
    idx, sc, valid = _run("NonMaxSuppressionV5",
                          list({**_v3(boxes, scores, 5, 0.2, 0.0), "soft_nms_sigma": F32(sigma)}
                               .values()), {"pad_to_max_output_size": True})
    w = lambda iou: np.exp(-0.5 * iou * iou / sigma)  # noqa: E731
    np.testing.assert_array_equal(idx, [0, 1, 2, 0, 0])
    assert valid == 3
    np.testing.assert_allclose(sc, [0.9, 0.8 * w(1 / 3), 0.9 * w(1.0) * w(1 / 3), 0, 0],
                               rtol=1e-6)


def test_nms_in_a_graph_with_shapes():
    boxes, scores = _boxes(25).astype(F32), _scores(25).astype(F32)
    g = opgen.Graph()
    with g.as_default():
        b = opgen.ops.placeholder(opgen.float32, shape=(None, 4))
        s = opgen.ops.placeholder(opgen.float32, shape=(None,))
        v4 = opgen.ops.non_max_suppression_v4(b, s, opgen.constant(np.int32(6)),
                                              opgen.constant(F32(0.4)), opgen.constant(F32(0.1)),
                                              pad_to_max_output_size=True)
        v3 = opgen.ops.non_max_suppression_v3(b, s, opgen.constant(np.int32(6)),
                                              opgen.constant(F32(0.4)), opgen.constant(F32(0.1)))
        assert v4.selected_indices.shape == (6,) and v4.valid_outputs.shape == ()
        assert v3.shape == (None,)
    with opgen.Session(graph=g) as session:
        idx4, valid, idx3 = session.run([v4.selected_indices, v4.valid_outputs, v3],
                                        {b: boxes, s: scores})
    want = _numpy_nms(boxes, scores, 6, 0.4, 0.1)
    np.testing.assert_array_equal(idx3, want)
    np.testing.assert_array_equal(idx4[:valid], want)
    assert valid == len(want)


# ---- CombinedNonMaxSuppression ---------------------------------------------------------

def _combined_cases():
    cases = []
    for q in (1, 4):
        boxes = np.stack([_boxes(30) for _ in range(2 * q)]).reshape(2, q, 30, 4)
        boxes = boxes.transpose(0, 2, 1, 3).astype(F32)  # [batch, num_boxes, q, 4]
        boxes[0, 0] = [-0.2, 0.5, 1.3, 0.9]  # clipped or not
        scores = rng.permutation(2 * 30 * 4).reshape(2, 30, 4).astype(F32) / 240  # no ties
        for per_class, total, iou, score_t in ((5, 12, 0.5, 0.1), (3, 30, 0.3, 0.0),
                                                (40, 7, 0.7, 0.6)):
            for pad in (False, True):
                for clip in (True, False):
                    cases.append({"boxes": boxes, "scores": scores,
                                  "max_output_size_per_class": np.int32(per_class),
                                  "max_total_size": np.int32(total), "iou_threshold": F32(iou),
                                  "score_threshold": F32(score_t),
                                  "attrs": {"pad_per_class": pad, "clip_boxes": clip}})
    return cases


COMBINED = _combined_cases()
COMBINED_ERRORS = [
    {**COMBINED[0], "boxes": COMBINED[0]["boxes"][0]},
    {**COMBINED[0], "scores": COMBINED[0]["scores"][0]},
    {**COMBINED[0], "boxes": COMBINED[0]["boxes"][:, :, :, :3]},
    {**COMBINED[0], "max_output_size_per_class": np.int32(0)},
    {**COMBINED[0], "max_total_size": np.int32(-1)},
    {**COMBINED[0], "iou_threshold": F32(1.5)},
]


def _combined_call(case):
    return {k: v for k, v in case.items() if k != "attrs"}, case["attrs"]


@pytest.fixture(scope="module")
def tf_combined():
    return tfc.run([tfc.call("CombinedNonMaxSuppression", *_combined_call(c))
                    for c in COMBINED + COMBINED_ERRORS])


def test_combined_nms_matches_tensorflow(tf_combined):
    for case, want in zip(COMBINED, tf_combined):
        assert not isinstance(want, tuple), want
        inputs, attrs = _combined_call(case)
        got = _run("CombinedNonMaxSuppression", list(inputs.values()), attrs)
        for g, w in zip(got, want):
            assert g.shape == w.shape, attrs
            np.testing.assert_array_equal(g, w, err_msg=str(attrs))
    for k, (case, want) in enumerate(zip(COMBINED_ERRORS, tf_combined[len(COMBINED):])):
        assert isinstance(want, tuple) and want[0] == "InvalidArgumentError"
        inputs, attrs = _combined_call(case)
        with pytest.raises(errors.InvalidArgumentError) as info:
            _run("CombinedNonMaxSuppression", list(inputs.values()), attrs)
        # Bad ranks: TensorFlow 2.21 reads the dims without checking the rank first (its
        # message names a later check); opgen says what is wrong.
        if k >= 2:
            message = str(info.value).split(": ", 1)[1]
            assert message in want[1], (message, want[1])
