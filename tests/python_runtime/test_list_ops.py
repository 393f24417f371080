"""Ops with list inputs and outputs (ConcatV2, Pack, Unpack) through execute_op:
length attrs are inferred from list lengths, list outputs come back as lists."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import Tensor, errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(5)
TYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def values(shape, dtype):
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(dtype, axis):
    pieces = [values((2, k, 3) if axis == 1 else (2, 4, 3), dtype) for k in (1, 4, 2)]
    if axis != 1:
        pieces = [values((2, 4, 3), dtype) for _ in range(3)]
    got = np.asarray(execute_op("ConcatV2", [pieces, axis], {})[0])
    np.testing.assert_array_equal(got, np.concatenate(pieces, axis))


@pytest.mark.parametrize("axis", [0, 2, 3])
def test_concat_large_enough_to_split_across_threads(axis):
    # DenseNet's concatenation of channels: 56x56 rows of 96 + 32 (+ an empty piece),
    # rows split over the pool's threads.
    shapes = [[1, 56, 56, 96], [1, 56, 56, 32], [1, 56, 56, 0]]
    pieces = []
    for shape in shapes:
        shape = list(shape)
        if axis != 3:
            shape[3] = 40
            shape[axis] = [5, 3, 0][len(pieces)]
        pieces.append(values(shape, np.float32))
    got = np.asarray(execute_op("ConcatV2", [pieces, axis], {})[0])
    np.testing.assert_array_equal(got, np.concatenate(pieces, axis))


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_pack_and_unpack_round_trip(dtype, axis):
    pieces = [values((3, 4), dtype) for _ in range(5)]
    packed = execute_op("Pack", [pieces], {"axis": axis})[0]
    np.testing.assert_array_equal(np.asarray(packed), np.stack(pieces, axis))
    unpacked = execute_op("Unpack", [packed], {"num": 5, "axis": axis})[0]
    assert isinstance(unpacked, list) and all(isinstance(t, Tensor) for t in unpacked)
    for got, want in zip(unpacked, pieces):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_list_misuse_is_reported():
    with pytest.raises(errors.InvalidArgumentError, match="ConcatV2"):
        execute_op("ConcatV2", [[np.ones((2, 2)), np.ones((3, 3))], 0], {})
    with pytest.raises(errors.InvalidArgumentError, match="N"):  # N >= 2
        execute_op("ConcatV2", [[np.ones(2)], 0], {})
    with pytest.raises(errors.InvalidArgumentError, match="num"):
        execute_op("Unpack", [np.ones((3, 2))], {"num": 2})
    with pytest.raises(errors.InvalidArgumentError, match="list of tensors"):
        execute_op("Pack", [np.ones(3)], {})
    with pytest.raises(errors.InvalidArgumentError, match="Pack: input .values.: expected float32 data, got a numpy int32"):
        execute_op("Pack", [[np.ones(2, np.float32), np.ones(2, np.int32)]], {})
