"""TF_TensorBitcastFrom: a tensor re-seen with another dtype and shape over the same
buffer (what Reshape, ExpandDims and Squeeze use on every device)."""

from __future__ import annotations

import ctypes

import numpy as np

c_void_p, c_int, c_int64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
TF_FLOAT, TF_INT32 = 1, 3
OK, INVALID_ARGUMENT = 0, 3


def _api(lib):
    for name, restype, argtypes in [
        ("TF_NewStatus", c_void_p, []), ("TF_DeleteStatus", None, [c_void_p]),
        ("TF_GetCode", c_int, [c_void_p]), ("TF_Message", ctypes.c_char_p, [c_void_p]),
        ("TF_AllocateTensor", c_void_p, [c_int, ctypes.POINTER(c_int64), c_int, ctypes.c_size_t]),
        ("TF_DeleteTensor", None, [c_void_p]), ("TF_TensorData", c_void_p, [c_void_p]),
        ("TF_TensorType", c_int, [c_void_p]), ("TF_NumDims", c_int, [c_void_p]),
        ("TF_Dim", c_int64, [c_void_p, c_int]),
        ("TF_TensorBitcastFrom", None, [c_void_p, c_int, c_void_p, ctypes.POINTER(c_int64), c_int, c_void_p]),
    ]:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def _tensor(lib, dtype, dims, itemsize=4):
    n = int(np.prod(dims)) if dims else 1
    return lib.TF_AllocateTensor(dtype, (c_int64 * len(dims))(*dims), len(dims), n * itemsize)


def test_bitcast_shares_the_buffer_with_a_new_dtype_and_shape(runtime_cdll):
    lib = _api(runtime_cdll)
    status = lib.TF_NewStatus()
    src = _tensor(lib, TF_FLOAT, [2, 3])
    ctypes.memmove(lib.TF_TensorData(src), np.arange(6, dtype=np.float32).ctypes.data, 24)
    dst = _tensor(lib, TF_FLOAT, [1])
    lib.TF_TensorBitcastFrom(src, TF_INT32, dst, (c_int64 * 2)(3, 2), 2, status)
    assert lib.TF_GetCode(status) == OK
    assert lib.TF_TensorData(dst) == lib.TF_TensorData(src)  # the same bytes
    assert lib.TF_TensorType(dst) == TF_INT32
    assert [lib.TF_Dim(dst, i) for i in range(lib.TF_NumDims(dst))] == [3, 2]
    lib.TF_DeleteTensor(src)  # dst keeps the buffer alive
    view = np.ctypeslib.as_array(ctypes.cast(lib.TF_TensorData(dst), ctypes.POINTER(ctypes.c_int32)), (6,))
    np.testing.assert_array_equal(view, np.arange(6, dtype=np.float32).view(np.int32))
    lib.TF_DeleteTensor(dst)
    lib.TF_DeleteStatus(status)


def test_bitcast_of_another_size_is_refused_and_leaves_the_target(runtime_cdll):
    lib = _api(runtime_cdll)
    status = lib.TF_NewStatus()
    src, dst = _tensor(lib, TF_FLOAT, [2, 3]), _tensor(lib, TF_FLOAT, [4])
    before = lib.TF_TensorData(dst)
    lib.TF_TensorBitcastFrom(src, TF_FLOAT, dst, (c_int64 * 1)(5), 1, status)
    assert lib.TF_GetCode(status) == INVALID_ARGUMENT
    assert b"24 bytes" in lib.TF_Message(status)
    assert lib.TF_TensorData(dst) == before and lib.TF_Dim(dst, 0) == 4
    for t in (src, dst):
        lib.TF_DeleteTensor(t)
    lib.TF_DeleteStatus(status)
