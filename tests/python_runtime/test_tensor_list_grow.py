"""The TensorList ops that grow, shrink, gather, split and concatenate lists
(TensorListPushBack, PopBack, Gather, Resize, Split, ConcatV2), eagerly, against numpy and
Python lists, for every registered dtype, with their errors; graphs TensorFlow writes with
them run in test_tensor_array_v3.py (a tf.function's TensorArray program)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

DTYPES = [opgen.float32, opgen.float64, opgen.float16, opgen.int32, opgen.int64, opgen.uint8,
          opgen.bool]
UNKNOWN = np.int32(-1)


def values_of(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.as_numpy_dtype == np.bool_:
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 10).astype(dtype.as_numpy_dtype)


def stack(handle, dtype):
    return ops.tensor_list_stack(handle, UNKNOWN, element_dtype=dtype).numpy()


def length(handle):
    return int(ops.tensor_list_length(handle).numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_push_back_and_pop_back_act_as_a_python_list(dtype):
    x = values_of(dtype, (4, 2))
    handle = ops.tensor_list_reserve(np.int32([2]), np.int32(0), element_dtype=dtype)
    for row in x:
        handle = ops.tensor_list_push_back(handle, row)
    assert length(handle) == 4
    np.testing.assert_array_equal(stack(handle, dtype), x)
    shorter, last = ops.tensor_list_pop_back(handle, np.int32([2]), element_dtype=dtype)
    np.testing.assert_array_equal(last.numpy(), x[3])
    np.testing.assert_array_equal(stack(shorter, dtype), x[:3])
    np.testing.assert_array_equal(stack(handle, dtype), x)  # the input list is unchanged


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_gather_matches_numpy_indexing(dtype):
    x = values_of(dtype, (5, 3), seed=1)
    handle = ops.tensor_list_from_tensor(x, np.int32([3]))
    idx = np.int32([4, 0, 0, 2])
    got = ops.tensor_list_gather(handle, idx, UNKNOWN, element_dtype=dtype).numpy()
    np.testing.assert_array_equal(got, x[idx])
    empty = ops.tensor_list_gather(handle, np.zeros([0], np.int32), UNKNOWN, element_dtype=dtype)
    assert empty.numpy().shape == (0, 3)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape_type", [np.int32, np.int64])
def test_split_then_concat_round_trips(dtype, shape_type):
    x = values_of(dtype, (7, 2), seed=2)
    lengths = np.int64([3, 0, 4])
    handle = ops.tensor_list_split(x, np.array([-1, 2], shape_type), lengths)
    assert length(handle) == 3
    got = [ops.tensor_list_get_item(handle, np.int32(i), np.int32([-1, 2]), element_dtype=dtype).numpy()
           for i in range(3)]
    for g, want in zip(got, np.split(x, [3, 3])):
        np.testing.assert_array_equal(g, want)
    tensor, out_lengths = ops.tensor_list_concat_v2(handle, np.array([-1, 2], shape_type),
                                                    np.zeros([0], np.int64), element_dtype=dtype)
    np.testing.assert_array_equal(tensor.numpy(), x)
    np.testing.assert_array_equal(out_lengths.numpy(), lengths)


def test_concat_fills_unset_elements_with_leading_dims_rows_of_zeros():
    handle = ops.tensor_list_reserve(np.int32([-1, 2]), np.int32(3), element_dtype=opgen.float32)
    handle = ops.tensor_list_set_item(handle, np.int32(1), np.float32([[1, 2]]))
    tensor, lengths = ops.tensor_list_concat_v2(handle, np.int32([-1, 2]), np.int64([2, 9, 1]),
                                                element_dtype=opgen.float32)
    np.testing.assert_array_equal(tensor.numpy(), [[0, 0], [0, 0], [1, 2], [0, 0]])
    np.testing.assert_array_equal(lengths.numpy(), [2, 1, 1])


def test_resize_cuts_and_grows_with_unset_elements():
    x = np.float32([[1, 2], [3, 4], [5, 6]])
    handle = ops.tensor_list_from_tensor(x, np.int32([2]))
    assert length(ops.tensor_list_resize(handle, np.int32(1))) == 1
    grown = ops.tensor_list_resize(handle, np.int32(5))
    np.testing.assert_array_equal(stack(grown, opgen.float32), np.concatenate([x, np.zeros((2, 2))]))
    np.testing.assert_array_equal(stack(handle, opgen.float32), x)


ERRORS = {
    "pop from empty": (
        lambda: ops.tensor_list_pop_back(
            ops.tensor_list_reserve(np.int32([2]), np.int32(0), element_dtype=opgen.float32),
            np.int32([2]), element_dtype=opgen.float32),
        "Trying to pop from an empty list."),
    "gather out of range": (
        lambda: ops.tensor_list_gather(ops.tensor_list_from_tensor(np.float32([1, 2]), np.int32([])),
                                       np.int32([2]), UNKNOWN, element_dtype=opgen.float32),
        "Trying to access element 2 in a list with 2 elements."),
    "push another shape": (
        lambda: ops.tensor_list_push_back(ops.tensor_list_from_tensor(np.float32([[1, 2]]), np.int32([2])),
                                          np.float32([1, 2, 3])),
        "Tried to push item with shape [3] to a list with element shape [2]"),
    "split lengths": (
        lambda: ops.tensor_list_split(np.float32([1, 2, 3]), UNKNOWN, np.int64([1, 1])),
        "Unable to split tensor of shape [3]"),
    "concat scalars": (
        lambda: ops.tensor_list_concat_v2(ops.tensor_list_from_tensor(np.float32([1, 2]), np.int32([])),
                                          UNKNOWN, np.zeros([0], np.int64), element_dtype=opgen.float32),
        "Concat requires elements to be at least vectors"),
    "negative resize": (
        lambda: ops.tensor_list_resize(ops.tensor_list_from_tensor(np.float32([1, 2]), np.int32([])),
                                       np.int32(-1)),
        "non-negative"),
    "wrong dtype": (
        lambda: ops.tensor_list_gather(ops.tensor_list_from_tensor(np.float32([1, 2]), np.int32([])),
                                       np.int32([0]), UNKNOWN, element_dtype=opgen.int32),
        "Invalid data types; op elements int32 but list elements float"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    fn, message = ERRORS[case]
    with pytest.raises(errors.InvalidArgumentError) as info:
        fn()
    assert message in str(info.value)


def test_shape_functions_in_a_graph():
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[6, 2], name="x")
        handle = ops.tensor_list_split(x, np.int32([-1, 2]), np.int64([2, 4]))
        gathered = ops.tensor_list_gather(handle, np.int32([0, 1, 0]), np.int32([5, 2]),
                                          element_dtype=opgen.float32)
        tensor, lengths = ops.tensor_list_concat_v2(handle, np.int32([-1, 2]), np.zeros([0], np.int64),
                                                    element_dtype=opgen.float32)
        _, last = ops.tensor_list_pop_back(handle, np.int32([4, 2]), element_dtype=opgen.float32)
    assert tuple(gathered.shape) == (3, 5, 2)
    assert tuple(tensor.shape) == (None, 2) and tuple(lengths.shape) == (None,)
    assert tuple(last.shape) == (4, 2)
    with opgen.Session(graph=graph) as session:
        value = np.arange(12, dtype=np.float32).reshape(6, 2)
        got_tensor, got_last = session.run([tensor, last], {x: value})
    np.testing.assert_array_equal(got_tensor, value)
    np.testing.assert_array_equal(got_last, value[2:])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_scatter_places_rows_as_numpy_indexing(dtype):
    x = values_of(dtype, (3, 2), seed=3)
    idx = np.int32([4, 0, 2])
    want = np.zeros((5, 2), dtype.as_numpy_dtype)
    want[idx] = x
    v1 = ops.tensor_list_scatter(x, idx, np.int32([2]))
    np.testing.assert_array_equal(stack(v1, dtype), want)
    v2 = ops.tensor_list_scatter_v2(x, idx, np.int32([2]), np.int32(7))
    assert length(v2) == 7
    np.testing.assert_array_equal(stack(v2, dtype)[:5], want)
    base = ops.tensor_list_from_tensor(values_of(dtype, (2, 2), seed=4), np.int32([2]))
    merged = ops.tensor_list_scatter_into_existing_list(base, x, idx)
    expected = np.zeros((5, 2), dtype.as_numpy_dtype)
    expected[:2] = values_of(dtype, (2, 2), seed=4)
    expected[idx] = x
    np.testing.assert_array_equal(stack(merged, dtype), expected)
    assert length(base) == 2  # the input list is unchanged


def test_scatter_errors():
    with pytest.raises(errors.InvalidArgumentError, match="Trying to scatter at index 5 in list with size 3"):
        ops.tensor_list_scatter_v2(np.float32([[1]]), np.int32([5]), np.int32([1]), np.int32(3))
    with pytest.raises(errors.InvalidArgumentError, match="one row per index"):
        ops.tensor_list_scatter(np.float32([[1], [2]]), np.int32([0]), np.int32([1]))
