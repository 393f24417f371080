"""Const: a tensor-valued attr travels as TensorProto bytes through the C API (written
by TFE_OpSetAttrTensor, read by the kernel) and comes back equal.

The reader's typed-value encodings (float_val etc., as the protobuf library and
TensorFlow write them) get their round-trip tests with GraphDef import (issue 3)."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import dtypes, errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")


@pytest.mark.parametrize("value", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.array(3.5), np.array([True, False]),
    np.arange(-4, 4, dtype=np.int64), np.zeros((0, 3), np.int32), np.array([1, 2], np.uint8),
    np.array([1 + 2j], np.complex64),
])
def test_const_returns_its_value(value):
    out = execute_op("Const", [], {"value": value, "dtype": dtypes.as_dtype(value.dtype)})[0]
    got = np.asarray(out)
    assert got.dtype == value.dtype and got.shape == value.shape
    np.testing.assert_array_equal(got, value)


def test_python_values_take_the_dtype_attr():
    out = execute_op("Const", [], {"value": [[1, 2], [3, 4]], "dtype": "float32"})[0]
    np.testing.assert_array_equal(np.asarray(out), np.array([[1, 2], [3, 4]], np.float32))


def test_value_and_dtype_must_agree():
    with pytest.raises(errors.InvalidArgumentError, match="Const"):
        execute_op("Const", [], {"value": np.ones(2, np.float64), "dtype": "int32"})
