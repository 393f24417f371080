"""Shared by the test_kernels_* files: the dtypes TensorFlow registers CPU kernels for,
random inputs of each, references computed as TensorFlow computes (half and bfloat16 in
float32, rounded once), and tolerances by dtype."""

from __future__ import annotations

import numpy as np

from opgen.runtime import execute_op

try:
    from ml_dtypes import bfloat16
except ImportError:  # ml_dtypes is a dependency; without it bfloat16 cases are left out
    bfloat16 = None

FLOAT16S = [np.float16] + ([bfloat16] if bfloat16 is not None else [])
FLOATS = [np.float32, np.float64] + FLOAT16S
SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED_INTS = [np.uint8, np.uint16, np.uint32, np.uint64]
INTS = SIGNED_INTS + UNSIGNED_INTS
REALS = FLOATS + INTS
SIGNED = FLOATS + SIGNED_INTS
# Byte-moving ops take every fixed-size type.
ALL = REALS + [np.bool_, np.complex64, np.complex128]


def name(dtype) -> str:
    return np.dtype(dtype).name


def is_float16(dtype) -> bool:
    return np.dtype(dtype) in [np.dtype(d) for d in FLOAT16S]


def is_int(dtype) -> bool:
    return np.issubdtype(np.dtype(dtype), np.integer)


def tolerance(dtype) -> dict:
    """assert_allclose arguments a result of `dtype` deserves (one rounding of the
    result, plus what rounding the inputs can move it)."""
    if np.dtype(dtype) == np.float16:
        return {"rtol": 2e-3, "atol": 1e-3}
    if bfloat16 is not None and np.dtype(dtype) == np.dtype(bfloat16):
        return {"rtol": 1.6e-2, "atol": 1e-2}
    if np.dtype(dtype) == np.float32:
        return {"rtol": 2e-6, "atol": 1e-6}
    if np.dtype(dtype) == np.float64:
        return {"rtol": 1e-12, "atol": 1e-12}
    return {"rtol": 0, "atol": 0}


def values(rng, shape, dtype, low=-3.0, high=3.0, nonzero=False):
    """Random values of `dtype`: floats in [low, high), integers in a range every
    integer type holds (unsigned ones from 0)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        x = rng.random(shape) < 0.5
    elif np.issubdtype(dtype, np.complexfloating):
        x = (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    elif is_int(dtype):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else int(low * 10)
        x = rng.integers(lo, int(high * 10) + 1, size=shape).astype(dtype)
    else:
        x = rng.uniform(low, high, size=shape).astype(dtype)
    if nonzero and x.size:
        x[x == 0] = 1
    return np.asarray(x, dtype=dtype)


def as_numpy(tensor, dtype=None) -> np.ndarray:
    array = np.asarray(tensor)
    if array.dtype.kind == "V" and bfloat16 is not None:  # a bfloat16 tensor's raw bytes
        array = array.view(bfloat16)
    return array


def run(op, inputs, attrs=None, output=0) -> np.ndarray:
    return as_numpy(execute_op(op, list(inputs), attrs or {})[output])


def in_float(fn, *arrays, out_dtype=None):
    """fn on the arrays as TensorFlow computes it: half and bfloat16 widened to
    float32, the result rounded back once."""
    dtype = np.dtype(arrays[0].dtype)
    if is_float16(dtype):
        result = fn(*[a.astype(np.float32) for a in arrays])
        return np.asarray(result).astype(out_dtype or dtype)
    result = np.asarray(fn(*arrays))
    return result.astype(out_dtype) if out_dtype is not None else result


def assert_close(got, want, dtype=None):
    dtype = np.dtype(dtype or want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   **tolerance(dtype))
