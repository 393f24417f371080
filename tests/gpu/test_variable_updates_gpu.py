"""TensorStridedSliceUpdate and ResourceStridedSliceAssign (``v[key].assign(x)``) on the
GPU equal the CPU kernels (compared with numpy and TensorFlow in
tests/python_runtime/test_variable_updates.py), bit for bit: every mask, the value
broadcast, every element size; bad values raise on both."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from opgen.runtime._operators import strided_slice_operands

S = slice
# (shape, key, value shape): masks of every kind, broadcast values included
CASES = [
    ((10,), (S(2, 8, 3),), (2,)), ((10,), (S(None, None, -1),), ()),
    ((4, 6), (1,), (6,)), ((4, 6), (-1, S(None, None, 2)), (1,)),
    ((4, 6), (Ellipsis, 3), (4,)), ((4, 6), (None, S(1, 3), None), (1, 2, 1, 6)),
    ((2, 3, 4), (0, Ellipsis, -1), (3,)), ((2, 3, 4), (S(None, None, -1), S(1, None), S(None, None, 3)), (1, 2, 1)),
    ((2, 3, 4, 5), (S(None), 1, S(None, None, 2), S(1, 4)), (2, 1, 3)), ((0, 4), (S(None), S(1, 3)), (7,)),
]
DTYPES = [np.float32, np.float16, np.int8, np.int64, np.bool_, np.complex128]


def _values(rng, shape, dtype):
    v = rng.integers(-50, 50, shape)
    return (v > 0) if dtype == np.bool_ else v.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape, key, vshape", CASES)
def test_slice_updates_on_the_gpu_match_the_cpu(rng, dtype, shape, key, vshape):
    x, value = _values(rng, shape, dtype), _values(rng, vshape, dtype)
    packed, attrs = strided_slice_operands(key)
    out = {}
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            t = ops.tensor_strided_slice_update(x, *packed, value, **attrs)
            v = opgen.Variable(x)
            v[key].assign(value)
            assert device[1:4] in v.read_value().device
            out[device] = (t.numpy(), v.numpy())
    for got, want in zip(out["/GPU:0"], out["/CPU:0"]):
        np.testing.assert_array_equal(got, want)


def test_bad_values_raise_on_both():
    x = np.zeros((4, 3), np.float32)
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device):
            v = opgen.Variable(x)
            with pytest.raises(errors.InvalidArgumentError, match="Cannot broadcast input shape"):
                v[1:3].assign(np.ones((3, 3), np.float32))
            np.testing.assert_array_equal(v.numpy(), x)
