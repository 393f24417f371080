"""numpy data to and from TF_STRING tensors, whose elements are TensorFlow's 24-byte
``TF_TString`` structs (tensorflow/c/tf_tstring.h).

In: numpy ``bytes`` arrays (dtype 'S'), ``str`` arrays (dtype 'U', encoded as UTF-8),
object arrays of bytes/str, and Python (nested lists of) bytes/str. Out: object arrays
of ``bytes``, as TensorFlow's ``Tensor.numpy()`` gives them. Elements are written with
TF_StringCopy, so the tensor's buffer owns them and frees them with itself.
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np

from opgen.runtime import _lib
from opgen.runtime.errors import InvalidArgumentError

STRING_ENUM = 7
_TSTRING_SIZE = 24
# The kind is in the low two bits of the first byte.
_SMALL, _LARGE, _OFFSET, _VIEW = 0, 1, 2, 3


def _as_bytes(item, what: str) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, np.bytes_):
        return bytes(item)
    raise InvalidArgumentError(f"{what}: cannot convert {type(item).__name__} {item!r:.40} to a string")


def string_array(value, what: str = "value") -> np.ndarray:
    """`value` as a C-contiguous object array of bytes; InvalidArgumentError naming
    `what` for an element that is not bytes or str."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    elif isinstance(value, (bytes, str)):
        array = np.empty((), object)
        array[()] = value
    else:
        try:
            array = np.asarray(value, dtype=object)
        except ValueError as e:
            raise InvalidArgumentError(f"{what}: cannot convert to a string tensor: {e}") from None
    if array.dtype.kind not in "SUO":
        raise InvalidArgumentError(f"{what}: cannot use numpy {array.dtype} data as string")
    out = np.empty(array.shape, object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = _as_bytes(flat_in[i], what)
    return out


def new_string_tensor(array: np.ndarray) -> int:
    """A fresh TF_STRING ``TF_Tensor*`` holding copies of the bytes in `array` (an
    object array of bytes, see string_array); the caller frees it."""
    runtime = _lib.lib()
    ndim = array.ndim
    dims = (ctypes.c_int64 * ndim)(*array.shape) if ndim else None
    raw = runtime.TF_AllocateTensor(STRING_ENUM, dims, ndim, array.size * _TSTRING_SIZE)
    if not raw:
        raise InvalidArgumentError(f"cannot allocate a string tensor of shape {array.shape}")
    base = runtime.TF_TensorData(raw) or 0
    copy = runtime.TF_StringCopy
    for i, item in enumerate(array.reshape(-1)):
        copy(base + i * _TSTRING_SIZE, item, len(item))
    return raw


def string_tensor_to_numpy(tensor: int, shape: tuple[int, ...]) -> np.ndarray:
    """An object array of bytes copied from the TF_STRING ``TF_Tensor*`` `tensor`."""
    runtime = _lib.lib()
    count = 1
    for d in shape:
        count *= d
    out = np.empty(count, object)
    if count:
        base = runtime.TF_TensorData(tensor) or 0
        raw = ctypes.string_at(base, count * _TSTRING_SIZE)
        for i in range(count):
            out[i] = _element(raw, i * _TSTRING_SIZE, base + i * _TSTRING_SIZE)
    return out.reshape(shape)


def _element(raw: bytes, at: int, address: int) -> bytes:
    kind = raw[at] & 3
    if kind == _SMALL:
        size = raw[at] >> 2
        return raw[at + 1:at + 1 + size]
    if kind == _OFFSET:
        size, offset = struct.unpack_from("<II", raw, at)
        return ctypes.string_at(address + offset, size >> 2)
    size, = struct.unpack_from("<Q", raw, at)
    # LARGE: size, capacity, pointer; VIEW: size, pointer, owner
    pointer, = struct.unpack_from("<Q", raw, at + (16 if kind == _LARGE else 8))
    return ctypes.string_at(pointer, size >> 2) if size >> 2 else b""
