"""The operand checks the CPU kernels share with the CUDA plugin (runtime/kernels/*_spec.h)
report these exact messages; the GPU kernels run the same code, so the messages are the
same on both devices."""

from __future__ import annotations

import re

import numpy as np
import pytest

from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

f32, f64 = np.float32, np.float64
i32, i64 = np.int32, np.int64
I64_MAX = np.iinfo(np.int64).max
BAD = errors.InvalidArgumentError
UNIMPLEMENTED = errors.UnimplementedError
WINDOW = {"strides": [1, 1, 1, 1], "padding": "VALID"}

CASES = [
    ("Transpose", [np.ones((2, 3), f32), np.array([0, 0], i32)], {}, BAD,
     "Transpose: [0,0] is not a permutation of the 2 dimensions"),
    ("Slice", [np.ones((2, 3), f32), np.array([0], i32), np.array([1], i32)], {}, BAD,
     "Slice: begin and size must have one entry per dimension of [2,3]"),
    ("Slice", [np.ones((2, 3), f32), np.array([1, 1], i32), np.array([-1, 3], i32)], {}, BAD,
     "Slice: begin [1,1] and size [-1,3] exceed shape [2,3]"),
    ("Pad", [np.ones((2, 3), f32), np.array([[0, 1]], i32)], {}, BAD,
     "Pad: paddings must have shape [2, 2] for input of shape [2,3]"),
    ("Pad", [np.ones((2, 3), f32), np.array([[0, 1], [-1, 0]], i32)], {}, BAD,
     "Pad: paddings must be non-negative"),
    ("Tile", [np.ones((2, 3), f32), np.array([1], i32)], {}, BAD,
     "Tile: multiples must have one entry per dimension of [2,3], got [1]"),
    ("Tile", [np.ones((2, 3), f32), np.array([1, -2], i32)], {}, BAD,
     "Tile: multiples must be non-negative, got [1,-2]"),
    ("GatherV2", [np.ones((2, 3), f32), np.array([0, 5], i32), i32(1)], {}, BAD,
     "GatherV2: index 5 is not in [0, 3)"),
    ("GatherV2", [np.ones((2, 3), f32), np.array([0], i32), i32(2)], {}, BAD,
     "GatherV2: axis must be a scalar in [-2, 2)"),
    ("GatherV2", [np.ones((2, 3), f32), np.array([0], i32), i32(0)], {"batch_dims": 1}, UNIMPLEMENTED,
     "GatherV2 with batch_dims != 0 is not implemented yet"),
    ("Unpack", [np.ones((2, 3), f32)], {"num": 3, "axis": 0}, BAD,
     "Unpack: input has 2 entries along axis 0, but num is 3"),
    ("Unpack", [np.ones((2, 3), f32)], {"num": 2, "axis": 2}, BAD,
     "Unpack: axis 2 out of range for rank 2"),
    ("MatMul", [np.ones((2, 3), f32), np.ones((3,), f32)], {}, BAD,
     "In[0] and In[1] must be matrices, got shapes [2,3] and [3]"),
    ("MatMul", [np.ones((2, 3), f32), np.ones((2, 3), f32)], {"transpose_a": True, "transpose_b": True}, BAD,
     "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] (transpose_a=true, transpose_b=true)"),
    ("BatchMatMulV2", [np.ones((3,), f32), np.ones((2, 3, 4), f32)], {}, BAD,
     "BatchMatMulV2 needs inputs of rank >= 2, got [3] and [2,3,4]"),
    ("BatchMatMulV2", [np.ones((2, 2, 3), f32), np.ones((3, 3, 4), f32)], {}, BAD,
     "BatchMatMulV2: incompatible shapes [2,2,3] and [3,3,4]"),
    ("BatchMatMulV2", [np.ones((2, 2, 3), f32), np.ones((2, 4, 4), f32)], {}, BAD,
     "BatchMatMulV2: incompatible shapes [2,2,3] and [2,4,4]"),
    ("Conv2D", [np.ones((1, 4, 4, 2), f32), np.ones((2, 2, 3, 1), f32)], WINDOW, BAD,
     "Conv2D: input [1,4,4,2] (NHWC) and filter [2,2,3,1] (HWIO) do not fit"),
    ("MaxPool", [np.ones((4, 4, 2), f32)], {"ksize": [1, 2, 2, 1], **WINDOW}, BAD,
     "pooling needs a 4-D NHWC input, got [4,4,2]"),
    ("BiasAdd", [np.ones((2, 3, 4), f32), np.ones((4,), f32)], {"data_format": "NCHW"}, BAD,
     "Must provide as many biases as the channel dimension of the input: value [2,3,4], bias [4]"),
    ("FusedBatchNormV3", [np.ones((2, 3), f32), np.ones((2,), f32)] + [np.ones((3,), f32)] * 3,
     {"is_training": False}, BAD,
     "FusedBatchNormV3: scale, offset, mean and variance need one value per channel of x [2,3]"),
    ("FusedBatchNormV3", [np.ones((2, 3), f32)] + [np.ones((2,), f32)] * 4, {"data_format": "NCHW"}, BAD,
     "FusedBatchNormV3: scale, offset, mean and variance need one value per channel of x [2,3]"),
    ("Softmax", [f32(1)], {}, BAD, "logits must have rank >= 1, got a scalar"),
    ("Sum", [np.ones((2, 2), f32), i32(5)], {}, BAD, "Invalid reduction dimension for input of rank 2: [5]"),
    ("ArgMax", [np.ones((2, 2), f32), i32(3)], {}, BAD, "Expected a dimension in [-2, 2)"),
    ("ArgMax", [np.ones((2, 0), f32), i32(1)], {}, BAD, "Reduction axis 1 is empty in shape [2,0]"),
    ("Fill", [np.array([2, -1], i32), f32(1)], {}, BAD, "Fill: dims must be non-negative, got [2,-1]"),
    ("Fill", [np.array([2], i32), np.ones((2,), f32)], {}, BAD, "Fill: value must be a scalar, got shape [2]"),
    ("AddV2", [np.ones((2, 3), f32), np.ones((2,), f32)], {}, BAD, "Incompatible shapes: [2,3] vs. [2]"),
    # Found by the adversarial sweep (test_kernel_adversarial.py): each crashed, hung or
    # returned garbage before its check.
    ("Fill", [np.array([I64_MAX, 3], i64), f32(1)], {}, BAD,
     "Fill: shape [9223372036854775807,3] has a negative dimension or more elements than int64 counts"),
    ("Fill", [np.array([[2, 2]], i32), f32(1)], {}, BAD, "Fill: dims must be a vector, got shape [1,2]"),
    ("Slice", [np.ones((2, 3), f32), np.array([1, 1], i64), np.array([I64_MAX, 1], i64)], {}, BAD,
     "Slice: begin [1,1] and size [9223372036854775807,1] exceed shape [2,3]"),
    ("Slice", [np.ones((2, 3), f32), np.array([I64_MAX, 0], i64), np.array([1, 1], i64)], {}, BAD,
     "Slice: begin [9223372036854775807,0] and size [1,1] exceed shape [2,3]"),
    ("Pad", [np.ones((2, 3), f32), np.zeros(4, i32)], {}, BAD,
     "Pad: paddings must have shape [2, 2] for input of shape [2,3]"),
    ("Pad", [np.ones((2, 3), f32), np.array([[I64_MAX, 0], [0, 0]], i64)], {}, BAD,
     "Pad: paddings [9223372036854775807,0,0,0] overflow int64 for shape [2,3]"),
    # Found by the CI fuzzer: the count fits int64, its bytes do not.
    ("Pad", [np.ones((1,), f32), np.array([[2 ** 62, 0]], i64)], {}, BAD,
     "output shape [4611686018427387905] needs more bytes than int64 counts"),
    ("Tile", [np.ones((1,), f32), np.array([2 ** 62], i64)], {}, BAD,
     "output shape [4611686018427387904] needs more bytes than int64 counts"),
    ("Tile", [np.ones((2, 3), f32), np.array([[1, 2]], i32)], {}, BAD,
     "Tile: multiples must be a vector, got shape [1,2]"),
    ("Tile", [np.ones((2, 3), f32), np.array([I64_MAX, 1], i64)], {}, BAD,
     "Tile: multiples [9223372036854775807,1] overflow int64 for shape [2,3]"),
    ("Range", [i64(0), i64(I64_MAX), i64(1)], {}, BAD,
     "output shape [9223372036854775807] needs more bytes than int64 counts"),
    ("Range", [f32(0), f32(np.nan), f32(1)], {}, BAD, "Range: start, limit and delta must be finite"),
    ("Range", [f64(0), f64(1e300), f64(1e-300)], {}, BAD, "Range: more values than int64 counts"),
    ("Conv2D", [np.ones((1, 4, 4, 2), f32), np.ones((2, 2, 2, 3), f32)],
     {"strides": [1, 0, 1, 1], "padding": "VALID"}, BAD,
     "strides, ksize and dilations must be positive, got strides [1,0,1,1], dilations [1,1,1,1]"),
    ("Conv2D", [np.ones((1, 4, 4, 2), f32), np.ones((2, 2, 2, 3), f32)],
     {"strides": [1, 1, 1, 1], "padding": "VALID", "dilations": [1, -2, 1, 1]}, BAD,
     "strides, ksize and dilations must be positive, got strides [1,1,1,1], dilations [1,-2,1,1]"),
    ("Conv2D", [np.ones((1, 4, 4, 2), f32), np.ones((2, 2, 2, 3), f32)],
     {"strides": [1, 1, 1, 1], "padding": "VALID", "dilations": [1, I64_MAX, 1, 1]}, BAD,
     "a 2x2 Conv2D window (strides [1,1,1,1], dilations [1,9223372036854775807,1,1], padding "
     "VALID) is larger than the (padded) input 4x4 of shape [1,4,4,2], or its size overflows"),
    ("Conv2D", [np.ones((1, 4, 4, 2), f32), np.ones((2, 2, 2, 3), f32)],
     {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, -1, 0, 0, 0, 0, 0]},
     BAD, "explicit_paddings must not be negative, got [0,0,-1,0,0,0,0,0]"),
    ("MaxPool", [np.ones((1, 4, 4, 2), f32)], {**WINDOW, "ksize": [1, 0, 2, 1]}, BAD,
     "strides, ksize and dilations must be positive, got strides [1,1,1,1], ksize [1,0,2,1]"),
    ("AvgPool", [np.ones((1, 4, 4, 2), f32)], {"ksize": [1, 2, 2, 1], "strides": [1, 1, 0, 1],
                                               "padding": "VALID"}, BAD,
     "strides, ksize and dilations must be positive, got strides [1,1,0,1], ksize [1,2,2,1]"),
    ("Unpack", [np.ones((2, 3), f32)], {"num": 2 ** 31 - 1}, BAD,
     "Unpack: attr 'num' is 2147483647; list arg 'output' holds 0 to 16777216 tensors"),
    ("FusedBatchNormV3", [np.ones((1, 2, 2, 2), f32), np.ones((2, 1), f32)] + [np.ones((2,), f32)] * 3,
     {"is_training": False}, BAD,
     "FusedBatchNormV3: scale, offset, mean and variance need one value per channel of x [1,2,2,2]"),
    ("SelectV2", [np.ones((2, 3), bool), np.ones((2,), f32), np.ones((3,), f32)], {}, BAD,
     "Incompatible shapes: [2,3], [2] and [3]"),
]


@pytest.mark.parametrize("op, inputs, attrs, error, message", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_shared_check_reports_its_message(op, inputs, attrs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        execute_op(op, inputs, attrs)


def test_concat_of_empty_pieces_longer_than_int64_counts_is_refused():
    """Empty tensors can have any other dims (numpy cannot make them; Fill can)."""
    empty = execute_op("Fill", [np.array([2 ** 62, 0], i64), f32(1)], {})[0]
    with pytest.raises(BAD, match="ConcatV2: the sizes along axis 0 pass int64"):
        execute_op("ConcatV2", [[empty, empty], i32(0)], {})
    # Along the other axis the output is empty, and fine.
    got = execute_op("ConcatV2", [[empty, empty], i32(1)], {})[0]
    assert tuple(got.shape) == (2 ** 62, 0)


def test_equal_without_incompatible_shape_error_is_one_false():
    got = execute_op("Equal", [np.ones((2, 3), f32), np.ones((2,), f32)], {"incompatible_shape_error": False})
    assert np.asarray(got[0]).shape == () and not np.asarray(got[0])
    got = execute_op("NotEqual", [np.ones((2, 3), f32), np.ones((2,), f32)],
                     {"incompatible_shape_error": False})
    assert np.asarray(got[0])


@pytest.mark.parametrize("start, limit, delta, dtype", [
    (np.iinfo(np.int32).min, np.iinfo(np.int32).max, np.iinfo(np.int32).max, np.int32),
    (np.iinfo(np.int64).min, np.iinfo(np.int64).max, np.iinfo(np.int64).max, np.int64),
    (np.iinfo(np.int64).max, np.iinfo(np.int64).min, -3 * 2 ** 61, np.int64),
])
def test_range_spanning_more_than_its_type_counts_exactly(start, limit, delta, dtype):
    """limit - start passes the type's range; the length and values must not wrap (the
    shape function, which graphs use, agrees with the kernel)."""
    want = np.array([start + i * delta for i in range(-(-(limit - start) // delta))], dtype)
    args = [dtype(start), dtype(limit), dtype(delta)]
    got = np.asarray(execute_op("Range", args, {})[0])
    np.testing.assert_array_equal(got, want)
    import opgen
    graph = opgen.Graph()
    with graph.as_default():
        node = execute_op("Range", args, {})[0]
    assert node.shape == want.shape
    with opgen.Session(graph) as session:
        np.testing.assert_array_equal(session.run(node), want)


def test_byte_swapped_numpy_input_is_read_in_its_byte_order():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    swapped = x.astype(x.dtype.newbyteorder())
    got = np.asarray(execute_op("AddV2", [x, swapped], {})[0])
    np.testing.assert_array_equal(got, 2 * x)
    assert got.dtype == np.float32 and got.dtype.isnative
