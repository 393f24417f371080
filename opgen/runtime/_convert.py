"""Python and numpy values as tensor data, with TensorFlow's conversion rules, below
any Tensor class: the rules eager tensors, graph Const attrs and Session feeds share,
and numpy data to and from ``TF_Tensor*``.

numpy data keeps its dtype unless one is asked for, and is then cast only where
TensorFlow casts (integers to integers, integers and floats to floats, numbers to
complex); Python scalars and lists take the dtype asked for when no data is lost, else
TensorFlow's defaults (float -> float32, int -> int32, or int64 when it does not fit).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from opgen.runtime import _lib, _strings, dtypes
from opgen.runtime.errors import InvalidArgumentError, UnimplementedError

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def default_numpy_value(value) -> np.ndarray:
    """A Python value as numpy with TensorFlow's default dtypes: float -> float32,
    int -> int32 (int64 when it does not fit), bool -> bool, complex -> complex128."""
    array = np.asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return array
    if array.dtype == np.float64:
        return array.astype(np.float32)
    if array.dtype == np.int64 and (array.size == 0 or (array.min() >= _INT32_MIN and array.max() <= _INT32_MAX)):
        return array.astype(np.int32)
    return array


def castable_on_conversion(want: dtypes.DType, have: dtypes.DType) -> bool:
    """Whether numpy data of dtype `have` may be cast to `want` on conversion
    (TensorFlow's rule: integers to any integer, integers and floats to floats,
    any number to complex)."""
    if want.is_integer or want.is_quantized:
        return have.is_integer
    if want.is_floating:
        return have.is_floating or have.is_integer
    if want.is_complex:
        return have.is_floating or have.is_integer or have.is_complex
    return False


def python_value_as(value, want: dtypes.DType, context: str = "") -> np.ndarray:
    """A Python scalar or (nested) list as numpy data of `want` (which has a numpy
    dtype), where TensorFlow converts it without losing data; InvalidArgumentError
    otherwise, its message led by `context` ("what: ") when given."""
    try:
        array = np.asarray(value)
    except (ValueError, OverflowError) as e:
        raise InvalidArgumentError(f"{context}cannot convert {short_repr(value)} to {want.name}: {e}") from None
    kind = array.dtype.kind
    if kind == "O" or kind in "US":
        raise InvalidArgumentError(f"{context}cannot convert {short_repr(value)} to {want.name}")
    if ((kind == "c" and not want.is_complex) or (kind == "f" and (want.is_integer or want.is_bool))
            or (kind == "b" and not want.is_bool) or (kind in "iuf" and want.is_bool)):
        raise InvalidArgumentError(
            f"{context}cannot convert {short_repr(value)} to {want.name} without losing data")
    if kind in "iu" and want.is_integer and array.size:
        info = np.iinfo(want.numpy_dtype)
        if array.min() < info.min or array.max() > info.max:
            raise InvalidArgumentError(f"{context}{short_repr(value)} does not fit in {want.name}")
    return array.astype(want.numpy_dtype)


def short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_c_int64 = ctypes.c_int64
_memmove = ctypes.memmove


def as_array(value, dtype: dtypes.DType | None, what: str = "value") -> np.ndarray:
    """`value` as a C-contiguous numpy array of `dtype` (or of its own / the default
    dtype when `dtype` is None). InvalidArgumentError, naming `what`, when TensorFlow
    would not convert it. Strings come as an object array of bytes (_strings.py)."""
    if dtype == dtypes.string:
        return _strings.string_array(value, what)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if dtype is None and array.dtype.kind in "SUO":
            return _strings.string_array(array, what)
        if dtype is not None and array.dtype != dtype.numpy_dtype:
            if dtype.numpy_dtype is None or not castable_on_conversion(dtype, dtypes.as_dtype(array.dtype)):
                raise InvalidArgumentError(
                    f"{what}: cannot use numpy {array.dtype} data as {dtype.name}")
            array = array.astype(dtype.numpy_dtype)
    elif dtype is None:
        array = default_numpy_value(value)
        if array.dtype.kind in "SU":  # bytes / str (and lists of them)
            return _strings.string_array(value, what)
        if array.dtype.kind in "OUS":
            raise InvalidArgumentError(f"cannot convert {short_repr(value)} to a tensor")
    else:
        array = _python_as(value, dtype, what)
    if not array.dtype.isnative:  # byte-swapped data: tensors hold the machine's order
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    return array


def _python_as(value, dtype: dtypes.DType, what: str) -> np.ndarray:
    if dtype.numpy_dtype is None:
        raise UnimplementedError(f"{what}: {dtype.name} values are not supported in graph mode")
    return python_value_as(value, dtype, f"{what}: ")


# C types of the scalars ctypes reads and writes directly (the rank-0 fast path).
# (ctypes scalar types: their .value is typed per class, so Any here)
SCALAR_CTYPES: dict[np.dtype[Any], Any] = {
    np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.int8): ctypes.c_int8, np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int32): ctypes.c_int32, np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.uint8): ctypes.c_uint8, np.dtype(np.uint16): ctypes.c_uint16,
    np.dtype(np.uint32): ctypes.c_uint32, np.dtype(np.uint64): ctypes.c_uint64,
    np.dtype(np.bool_): ctypes.c_bool,
}

# Below this size, copying through bytes is cheaper than asking numpy for its pointer.
_SMALL_BYTES = 4096


def new_tf_tensor(array: np.ndarray, dtype_enum: int) -> int:
    """A fresh ``TF_Tensor*`` holding a copy of the C-contiguous `array`; the caller
    frees it with TF_DeleteTensor."""
    if dtype_enum == _strings.STRING_ENUM:
        return _strings.new_string_tensor(_strings.string_array(array))
    runtime = _lib.lib()
    ndim = array.ndim
    dims = (_c_int64 * ndim)(*array.shape) if ndim else None
    nbytes = array.nbytes
    raw = runtime.TF_AllocateTensor(dtype_enum, dims, ndim, nbytes)
    if not raw:
        raise InvalidArgumentError(f"cannot allocate a tensor of shape {array.shape}")
    if nbytes:
        source = array.tobytes() if nbytes < _SMALL_BYTES else array.ctypes.data
        _memmove(runtime.TF_TensorData(raw), source, nbytes)
    return raw


def to_numpy(tensor: int) -> np.ndarray:
    """A numpy copy of a ``TF_Tensor*`` (which stays the caller's to free)."""
    runtime = _lib.graph_lib()
    dtype = dtypes.as_dtype(runtime.TF_TensorType(tensor))
    shape = tuple(runtime.TF_Dim(tensor, i) for i in range(runtime.TF_NumDims(tensor)))
    if dtype == dtypes.string:
        return _strings.string_tensor_to_numpy(tensor, shape)
    if dtype.numpy_dtype is None:
        raise UnimplementedError(f"{dtype.name} tensors cannot be read into numpy yet")
    array = np.empty(shape, dtype.numpy_dtype)
    if array.nbytes:
        _memmove(array.ctypes.data, runtime.TF_TensorData(tensor), array.nbytes)
    return array

