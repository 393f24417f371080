"""Issue 22's gradient kernels on the GPU equal the CPU kernels: the activation grads,
BiasAddGrad in both layouts, the softmax cross-entropy losses, UnsortedSegmentSum
(the same bits: both add up in id order), ConcatOffset and InvertPermutation (host
memory), StridedSliceGrad and MirrorPadGrad, every registered dtype, and the same
errors for bad shapes. Where the GPU differs by design (labels and segment ids out of
range: NaN rows and dropped ids, as TensorFlow's GPU kernels) that is checked too."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

try:
    from ml_dtypes import bfloat16
except ImportError:  # a dependency of opgen; without it the bfloat16 cases are left out
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REALS = FLOATS + INTS


def name(dtype) -> str:
    return np.dtype(dtype).name


def random(rng, shape, dtype):
    if np.issubdtype(np.dtype(dtype), np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -20), 21, shape, dtype=dtype)
    return (3 * rng.standard_normal(shape)).astype(dtype)


ACTIVATION_GRADS = [("relu_grad", REALS), ("relu6_grad", REALS), ("elu_grad", FLOATS),
                    ("selu_grad", FLOATS), ("softplus_grad", FLOATS),
                    ("softsign_grad", FLOATS), ("leaky_relu_grad", FLOATS)]
CASES = [(op, d) for op, types in ACTIVATION_GRADS for d in types]


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op}-{name(d)}" for op, d in CASES])
def test_activation_grads(gpu_matches_cpu, rng, op, dtype):
    g, saved = random(rng, (3, 50), dtype), random(rng, (3, 50), dtype)
    gpu_matches_cpu(getattr(ops, op), g, saved)


def test_leaky_relu_grad_alpha_and_shape_errors(gpu_matches_cpu, rng):
    g, f = random(rng, (4, 5), np.float32), random(rng, (4, 5), np.float32)
    gpu_matches_cpu(ops.leaky_relu_grad, g, f, alpha=0.75)
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(errors.InvalidArgumentError, match="same shape"):
            ops.relu_grad(g, f[:2]).numpy()


@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("data_format, shape", [("NHWC", (2, 3, 4, 5)), ("NCHW", (2, 3, 4, 5)),
                                                ("NHWC", (7, 3)), ("NCHW", (0, 3, 2))])
def test_bias_add_grad(gpu_matches_cpu, rng, dtype, data_format, shape):
    gpu_matches_cpu(ops.bias_add_grad, random(rng, shape, dtype), data_format=data_format)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_softmax_cross_entropy(gpu_matches_cpu, rng, dtype):
    f = random(rng, (6, 10), dtype)
    labels = rng.dirichlet(np.ones(10), size=6).astype(dtype)
    gpu_matches_cpu(ops.softmax_cross_entropy_with_logits, f, labels)
    gpu_matches_cpu(ops.softmax_cross_entropy_with_logits, f, labels[:1])  # broadcast rows


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_sparse_softmax_cross_entropy(gpu_matches_cpu, rng, dtype, label_dtype):
    f = random(rng, (6, 10), dtype)
    gpu_matches_cpu(ops.sparse_softmax_cross_entropy_with_logits, f,
                    rng.integers(0, 10, 6).astype(label_dtype))


def test_sparse_softmax_cross_entropy_out_of_range_label_is_nan_on_the_gpu(rng):
    f, labels = random(rng, (2, 3), np.float32), np.array([0, 7], np.int64)
    with opgen.device("/CPU:0"), pytest.raises(errors.InvalidArgumentError,
                                               match="label value of 7"):
        ops.sparse_softmax_cross_entropy_with_logits(f, labels)[0].numpy()
    with opgen.device("/GPU:0"):
        loss, back = ops.sparse_softmax_cross_entropy_with_logits(f, labels)
        loss, back = np.asarray(loss), np.asarray(back)
    assert np.isfinite(loss[0]) and np.isnan(loss[1]) and np.isnan(back[1]).all()


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=name)
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_unsorted_segment_sum(gpu_matches_cpu, rng, dtype, index_dtype):
    data = random(rng, (40, 3), dtype)
    ids = rng.integers(-2, 7, 40).astype(index_dtype)
    gpu_matches_cpu(ops.unsorted_segment_sum, data, ids, np.int32(7), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=name)
def test_concat_offset_and_invert_permutation(gpu_matches_cpu, rng, dtype):
    shapes = [np.array(s, dtype) for s in ([2, 3, 5], [2, 7, 5])]
    gpu_matches_cpu(ops.concat_offset, np.int32(1), shapes, on_host=(0, 1))
    gpu_matches_cpu(ops.invert_permutation, rng.permutation(11).astype(dtype), on_host=(0,))


@pytest.mark.parametrize("dtype", REALS + [np.bool_, np.complex64, np.complex128], ids=name)
def test_strided_slice_grad(gpu_matches_cpu, rng, dtype):
    i32 = np.int32
    dy = random(rng, (1, 2, 3), np.float64).astype(dtype)
    gpu_matches_cpu(ops.strided_slice_grad, np.array([5, 5], i32), np.array([0, 1, 4], i32),
                    np.array([0, 5, 0], i32), np.array([1, 2, -2], i32), dy, new_axis_mask=1,
                    end_mask=4)


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", REALS, ids=name)
def test_mirror_pad_grad(gpu_matches_cpu, rng, dtype, mode):
    g = random(rng, (6, 5, 3), dtype)
    gpu_matches_cpu(ops.mirror_pad_grad, g, np.array([[1, 2], [2, 0], [0, 1]], np.int64), mode=mode)
