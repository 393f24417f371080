"""The gradient kernels of issue 22 (part 2) against numpy references, on every dtype
their CPU kernels register: the activation grads (ReluGrad ... LeakyReluGrad),
BiasAddGrad in both layouts, the softmax cross-entropy losses, UnsortedSegmentSum,
ConcatOffset, InvertPermutation, StridedSliceGrad (each mask) and MirrorPadGrad
(both modes); and INVALID_ARGUMENT naming the problem for bad operands (wrong shapes,
labels and segment ids out of range), never a crash. TensorFlow's own kernels are the
reference of tests/conformance (these ops' baselines: adversarial_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_dtypes import FLOATS, REALS, assert_close, in_float, is_int, name, run, values
from opgen import ops
from opgen.runtime import dtypes, errors

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(22)

SCALE, SCALE_ALPHA = 1.0507009873554804934193349852946, 1.7580993408473768599402175208123


def _sigmoid(x):
    return 1 / (np.exp(-x) + 1)


# gradients, saved -> backprops, as TensorFlow writes each formula.
ACTIVATION_GRADS = {
    "ReluGrad": (REALS, lambda g, f: g * (f > 0).astype(g.dtype)),
    "Relu6Grad": (REALS, lambda g, f: g * ((f > 0) & (f < 6)).astype(g.dtype)),
    "EluGrad": (FLOATS, lambda g, y: np.where(y < 0, (y + 1) * g, g)),
    "SeluGrad": (FLOATS, lambda g, y: np.where(y < 0, g * (y + g.dtype.type(SCALE_ALPHA)),
                                               g * g.dtype.type(SCALE))),
    "SoftplusGrad": (FLOATS, lambda g, f: g * _sigmoid(f)),
    "SoftsignGrad": (FLOATS, lambda g, f: g / (np.abs(f) + 1) ** 2),
    "LeakyReluGrad": (FLOATS, lambda g, f: np.where(f > 0, g, g * g.dtype.type(np.float32(0.2)))),
}
CASES = [(op, dtype) for op, (types, _) in sorted(ACTIVATION_GRADS.items()) for dtype in types]


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op}-{name(d)}" for op, d in CASES])
def test_activation_grads_match_numpy(op, dtype):
    g = values(rng, (4, 9), dtype)
    saved = values(rng, (4, 9), dtype, low=-8.0, high=8.0)
    if not is_int(dtype):
        saved.flat[:4] = [0.0, -0.0, 6.0, 5.5]  # the edges of Relu and Relu6
    got = run(op, [g, saved])
    want = in_float(ACTIVATION_GRADS[op][1], g, saved)
    assert_close(got, want.astype(dtype))


def test_leaky_relu_grad_reads_alpha_and_relu_grad_keeps_nan():
    g = np.array([1.0, 2.0, -3.0, np.nan], np.float32)
    f = np.array([1.0, -1.0, -2.0, -1.0], np.float32)
    np.testing.assert_array_equal(run("LeakyReluGrad", [g, f], {"alpha": 0.5}),
                                  [1.0, 1.0, -1.5, np.nan])
    # 0 * NaN is NaN: TensorFlow multiplies by the mask rather than selecting
    np.testing.assert_array_equal(run("ReluGrad", [g, f]), [1.0, 0.0, -0.0, np.nan])
    assert np.signbit(run("ReluGrad", [g, f])[2])


def test_the_generated_ops_call_the_kernels():
    g, f = np.ones((2, 3), np.float32), np.array([[-1, 0, 1], [2, -2, 3]], np.float32)
    np.testing.assert_array_equal(np.asarray(ops.relu_grad(g, f)), (f > 0).astype(np.float32))
    loss, back = ops.sparse_softmax_cross_entropy_with_logits(f, np.array([2, 0], np.int64))
    assert np.asarray(loss).shape == (2,) and np.asarray(back).shape == (2, 3)


# ---- BiasAddGrad --------------------------------------------------------------------------

@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_bias_add_grad_sums_all_but_the_channels(dtype, data_format):
    g = values(rng, (2, 3, 4, 5), dtype, low=-1.0, high=1.0)
    axes = (0, 1, 2) if data_format == "NHWC" else (0, 2, 3)
    got = run("BiasAddGrad", [g], {"data_format": data_format})
    if is_int(dtype):
        want = g.sum(axis=axes, dtype=np.int64).astype(dtype)  # wraps as TensorFlow's does
    else:
        want = in_float(lambda a: a.astype(np.float64).sum(axis=axes), g).astype(dtype)
    assert_close(got, want)


def test_bias_add_grad_of_a_matrix_and_of_nothing():
    g = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run("BiasAddGrad", [g]), [3, 5, 7])
    # a matrix's channels are its second dimension in both layouts
    np.testing.assert_array_equal(run("BiasAddGrad", [g], {"data_format": "NCHW"}), [3, 5, 7])
    g3 = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    np.testing.assert_array_equal(run("BiasAddGrad", [g3], {"data_format": "NCHW"}), [14, 22, 30])
    np.testing.assert_array_equal(run("BiasAddGrad", [np.zeros((0, 4), np.float32)]), np.zeros(4))


# ---- the softmax cross-entropy losses -----------------------------------------------------

def _xent(features, labels):
    f = features.astype(np.float64)
    shifted = f - f.max(axis=1, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = (labels * (log_sum - shifted)).sum(axis=1)
    return loss, np.exp(shifted - log_sum) - labels


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_softmax_cross_entropy_matches_numpy(dtype):
    f = values(rng, (5, 7), dtype)
    labels = rng.dirichlet(np.ones(7), size=5).astype(dtype)
    loss, back = _xent(f.astype(np.float64), labels.astype(np.float64))
    assert_close(run("SoftmaxCrossEntropyWithLogits", [f, labels]), loss.astype(dtype))
    assert_close(run("SoftmaxCrossEntropyWithLogits", [f, labels], output=1), back.astype(dtype))


def test_softmax_cross_entropy_broadcasts_labels_and_logits():
    f = rng.uniform(-2, 2, (4, 3)).astype(np.float32)
    row = np.array([0.2, 0.3, 0.5], np.float32)
    loss, back = _xent(f, np.broadcast_to(row, (4, 3)))
    np.testing.assert_allclose(run("SoftmaxCrossEntropyWithLogits", [f, row]), loss, rtol=1e-5)
    np.testing.assert_allclose(run("SoftmaxCrossEntropyWithLogits", [f, row], output=1), back,
                               rtol=1e-5, atol=1e-6)
    column = f[:, :1]  # one logit per row, broadcast across the classes
    loss, _ = _xent(np.broadcast_to(column, (4, 3)), np.broadcast_to(row, (4, 3)))
    np.testing.assert_allclose(run("SoftmaxCrossEntropyWithLogits", [column, row]), loss, rtol=1e-5)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_sparse_softmax_cross_entropy_matches_numpy(dtype, label_dtype):
    f = values(rng, (6, 4), dtype)
    labels = rng.integers(0, 4, 6).astype(label_dtype)
    loss, back = _xent(f.astype(np.float64), np.eye(4)[labels])
    assert_close(run("SparseSoftmaxCrossEntropyWithLogits", [f, labels]), loss.astype(dtype))
    assert_close(run("SparseSoftmaxCrossEntropyWithLogits", [f, labels], output=1),
                 back.astype(dtype))


# ---- UnsortedSegmentSum ---------------------------------------------------------------------

@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_unsorted_segment_sum_matches_numpy(dtype, index_dtype):
    data = values(rng, (6, 2, 3), dtype, low=-1.0, high=1.0)
    ids = np.array([[3, 0], [-1, 3], [1, -2]], index_dtype)  # negative ids are dropped
    got = run("UnsortedSegmentSum", [data.reshape(3, 2, 2, 3), ids, np.int64(5)],
              {"Tnumsegments": dtypes.int64})
    want = np.zeros((5, 2, 3), np.float64)
    for i, s in enumerate(ids.reshape(-1)):
        if s >= 0:
            want[s] += data[i].astype(np.float64)
    if is_int(dtype):
        want = want.astype(np.int64).astype(dtype)
    assert_close(got, in_float(lambda _: want, data).astype(dtype))


# ---- ConcatOffset, InvertPermutation -------------------------------------------------------

@pytest.mark.parametrize("shape_dtype", [np.int32, np.int64], ids=name)
def test_concat_offset(shape_dtype):
    shapes = [np.array(s, shape_dtype) for s in ([2, 3, 5], [2, 7, 5], [2, 1, 5])]
    got = [np.asarray(o) for o in ops.concat_offset(np.int32(1), shapes)]
    assert [o.tolist() for o in got] == [[0, 0, 0], [0, 3, 0], [0, 10, 0]]
    assert all(o.dtype == shape_dtype for o in got)
    got = [np.asarray(o).tolist() for o in ops.concat_offset(np.int32(-1), shapes[:1] * 2)]
    assert got == [[0, 0, 0], [0, 0, 5]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=name)
def test_invert_permutation(dtype):
    perm = rng.permutation(9).astype(dtype)
    got = run("InvertPermutation", [perm])
    assert got.dtype == dtype and (got[perm] == np.arange(9)).all()
    assert run("InvertPermutation", [np.zeros(0, dtype)]).shape == (0,)


# ---- StridedSliceGrad, MirrorPadGrad ---------------------------------------------------------

def _strided_grad(shape, index, dy):
    out = np.zeros(shape, dy.dtype)
    out[index] = dy
    return out


SLICES = [  # (shape, begin, end, strides, masks, the numpy index)
    ((4, 5), [1, 0], [4, 5], [2, 2], {}, np.s_[1:4:2, 0:5:2]),
    ((4, 5), [3, 4], [0, 0], [-1, -2], {}, np.s_[3:0:-1, 4:0:-2]),
    ((4, 5), [0, 2], [0, 0], [1, 1], {"begin_mask": 1, "end_mask": 3}, np.s_[:, 2:]),
    ((4, 5), [1, 0], [2, 0], [1, 1], {"shrink_axis_mask": 1, "end_mask": 2}, np.s_[1, :]),
    ((2, 3, 4), [0, 1], [0, 3], [1, 1], {"ellipsis_mask": 1}, np.s_[..., 1:3]),
    ((4, 5), [0, 1, 0], [0, 3, 0], [1, 1, 1], {"new_axis_mask": 1, "end_mask": 4},
     np.s_[np.newaxis, 1:3, :]),
    ((4, 5), [-1], [0], [1], {"shrink_axis_mask": 1}, np.s_[-1]),
]


@pytest.mark.parametrize("case", range(len(SLICES)))
def test_strided_slice_grad_places_dy(case):
    shape, begin, end, strides, masks, index = SLICES[case]
    want_shape = np.zeros(shape)[index].shape
    for dtype in (np.float32, np.int64, np.bool_, np.complex64):
        dy = values(rng, want_shape, dtype)
        got = run("StridedSliceGrad", [np.array(shape, np.int32), np.array(begin, np.int32),
                                       np.array(end, np.int32), np.array(strides, np.int32), dy],
                  masks)
        np.testing.assert_array_equal(got, _strided_grad(shape, index, dy))
        assert got.dtype == dy.dtype


def _mirror_pad_grad(g, paddings, mode):
    """The transpose of np.pad(x, paddings, mode): pad an index array, add up by index."""
    out_shape = tuple(d - a - b for d, (a, b) in zip(g.shape, paddings))
    index = np.arange(int(np.prod(out_shape))).reshape(out_shape)
    padded = np.pad(index, paddings, mode="reflect" if mode == "REFLECT" else "symmetric")
    out = np.zeros(index.size, np.float64)
    np.add.at(out, padded.reshape(-1), g.reshape(-1).astype(np.float64))
    return out.reshape(out_shape)


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_mirror_pad_grad_matches_numpy(dtype, mode):
    paddings = np.array([[1, 2], [2, 0], [0, 1]], np.int64)
    g = values(rng, (6, 5, 3), dtype, low=-1.0, high=1.0)
    got = run("MirrorPadGrad", [g, paddings], {"mode": mode})
    want = _mirror_pad_grad(g, paddings, mode)
    if is_int(dtype):
        want = want.astype(np.int64).astype(dtype)
    assert_close(got, in_float(lambda _: want, g).astype(dtype))


def test_mirror_pad_grad_inverts_mirror_pad_on_ones():
    x = np.ones((3, 4), np.float32)
    for mode in ("REFLECT", "SYMMETRIC"):
        pads = np.array([[2, 1], [1, 3]], np.int32)
        padded = run("MirrorPad", [x, pads], {"mode": mode})
        back = run("MirrorPadGrad", [padded, pads], {"mode": mode})
        assert back.sum() == padded.sum() and back.shape == x.shape


# ---- bad operands: an error naming the problem, never a crash ----------------------------

f32, i32, i64 = np.float32, np.int32, np.int64
BAD = [
    ("ReluGrad", [np.ones((2, 3), f32), np.ones((3, 2), f32)], {}, "same shape"),
    ("EluGrad", [np.ones(3, f32), np.ones(4, f32)], {}, "outputs must have the same shape"),
    ("BiasAddGrad", [np.ones(3, f32)], {}, "at least 2D"),
    ("SoftmaxCrossEntropyWithLogits", [np.ones((2, 3), f32), np.ones((2, 4), f32)], {},
     "broadcastable"),
    ("SoftmaxCrossEntropyWithLogits", [np.ones((2, 3, 1), f32), np.ones((2, 3, 1), f32)], {},
     "2-dimensional"),
    ("SparseSoftmaxCrossEntropyWithLogits", [np.ones((2, 3), f32), np.array([0, 3], i64)], {},
     "label value of 3 which is outside the valid range of \\[0, 3\\)"),
    ("SparseSoftmaxCrossEntropyWithLogits", [np.ones((2, 3), f32), np.array([-1, 0], i32)], {},
     "label value of -1"),
    ("SparseSoftmaxCrossEntropyWithLogits", [np.ones((2, 3), f32), np.array([0], i32)], {},
     "same first dimension"),
    ("SparseSoftmaxCrossEntropyWithLogits", [np.ones(3, f32), np.array([0], i32)], {}, "2-D"),
    ("SparseSoftmaxCrossEntropyWithLogits", [np.ones((2, 0), f32), np.array([0, 0], i32)], {},
     "at least one class"),
    ("UnsortedSegmentSum", [np.ones((3, 2), f32), np.array([0, 5, 1], i32), i32(4)], {},
     "segment_ids\\[1\\] = 5 is out of range \\[0, 4\\)"),
    ("UnsortedSegmentSum", [np.ones((3, 2), f32), np.array([0, 1], i32), i32(4)], {},
     "does not start with"),
    ("UnsortedSegmentSum", [np.ones((3, 2), f32), np.array([0, 1, 2], i32), np.array([4], i32)],
     {}, "scalar"),
    ("UnsortedSegmentSum", [np.ones((3, 2), f32), np.array([0, 1, 2], i32), i32(-1)], {},
     "negative"),
    ("ConcatOffset", [i32(1), [np.array([2, 3], i32), np.array([3, 3], i32)]], {},
     "must match"),
    ("ConcatOffset", [i32(2), [np.array([2, 3], i32), np.array([2, 3], i32)]], {},
     "out of range"),
    ("ConcatOffset", [i32(0), [np.array([2, 3], i32), np.array([2, 3, 1], i32)]], {},
     "should contain 2 elements"),
    ("InvertPermutation", [np.array([0, 2], i32)], {}, "not between 0 and 2"),
    ("InvertPermutation", [np.array([1, 1, 0], i32)], {}, "duplicated"),
    ("InvertPermutation", [np.zeros((2, 2), i32)], {}, "1D"),
    ("StridedSliceGrad", [np.array([4, 5], i32), np.array([0, 0], i32), np.array([2, 2], i32),
                          np.array([1, 1], i32), np.ones((2, 3), f32)], {}, "shape of dy"),
    ("StridedSliceGrad", [np.array([4, -5], i32), np.array([0, 0], i32), np.array([2, 2], i32),
                          np.array([1, 1], i32), np.ones((2, 2), f32)], {}, "negative"),
    ("StridedSliceGrad", [np.array([4, 5], i32), np.array([0, 0], i32), np.array([2, 2], i32),
                          np.array([1, 0], i32), np.ones((2, 2), f32)], {}, "non-zero"),
    ("MirrorPadGrad", [np.ones((4, 4), f32), np.array([[1, 1]], i32)], {"mode": "REFLECT"},
     "paddings must be a matrix"),
    ("MirrorPadGrad", [np.ones((4, 4), f32), np.array([[2, 2], [0, 0]], i32)],
     {"mode": "REFLECT"}, "Total paddings"),
    ("MirrorPadGrad", [np.ones((5, 4), f32), np.array([[2, 1], [0, 0]], i32)],
     {"mode": "REFLECT"}, "less than the output dimension"),
    ("MirrorPadGrad", [np.ones((4, 4), f32), np.array([[-1, 1], [0, 0]], i32)],
     {"mode": "SYMMETRIC"}, "non-negative"),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{c[0]}-{c[3][:24]}" for c in BAD])
def test_bad_operands_raise_invalid_argument(case):
    op, inputs, attrs, message = case
    with pytest.raises(errors.InvalidArgumentError, match=message):
        run(op, inputs, attrs)
