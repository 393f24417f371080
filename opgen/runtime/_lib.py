"""ctypes declarations of the runtime's C ABI, loaded on first use.

Importing :mod:`opgen.runtime` never loads the shared library: generated op modules
must import on machines where only the generator is used. :func:`lib` loads it once.
"""

from __future__ import annotations

import ctypes
import os
import threading

from opgen import _paths

c_void_p, c_int, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
c_int64, c_float, c_ubyte = ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte
P = ctypes.POINTER


class TF_Buffer(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t), ("data_deallocator", c_void_p)]


# name: (restype, argtypes)
_SIGNATURES = {
    "TF_Version": (c_char_p, []),
    "TF_NewStatus": (c_void_p, []),
    "TF_DeleteStatus": (None, [c_void_p]),
    "TF_GetCode": (c_int, [c_void_p]),
    "TF_Message": (c_char_p, [c_void_p]),
    "TF_GetAllOpList": (P(TF_Buffer), []),
    "TF_DeleteBuffer": (None, [P(TF_Buffer)]),
    "TF_AllocateTensor": (c_void_p, [c_int, P(c_int64), c_int, c_size_t]),
    "TF_DeleteTensor": (None, [c_void_p]),
    "TF_TensorData": (c_void_p, [c_void_p]),
    "TF_TensorByteSize": (c_size_t, [c_void_p]),
    "TFE_NewContextOptions": (c_void_p, []),
    "TFE_DeleteContextOptions": (None, [c_void_p]),
    "TFE_NewContext": (c_void_p, [c_void_p, c_void_p]),
    "TFE_NewTensorHandle": (c_void_p, [c_void_p, c_void_p]),
    "TFE_DeleteTensorHandle": (None, [c_void_p]),
    "TFE_TensorHandleDataType": (c_int, [c_void_p]),
    "TFE_TensorHandleNumDims": (c_int, [c_void_p, c_void_p]),
    "TFE_TensorHandleDim": (c_int64, [c_void_p, c_int, c_void_p]),
    "TFE_TensorHandleDeviceName": (c_char_p, [c_void_p, c_void_p]),
    "TFE_TensorHandleResolve": (c_void_p, [c_void_p, c_void_p]),
    "TFE_NewOp": (c_void_p, [c_void_p, c_char_p, c_void_p]),
    "TFE_DeleteOp": (None, [c_void_p]),
    "TFE_OpAddInput": (None, [c_void_p, c_void_p, c_void_p]),
    "TFE_OpAddInputList": (None, [c_void_p, P(c_void_p), c_int, c_void_p]),
    "TFE_OpSetAttrString": (None, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "TFE_OpSetAttrInt": (None, [c_void_p, c_char_p, c_int64]),
    "TFE_OpSetAttrFloat": (None, [c_void_p, c_char_p, c_float]),
    "TFE_OpSetAttrBool": (None, [c_void_p, c_char_p, c_ubyte]),
    "TFE_OpSetAttrType": (None, [c_void_p, c_char_p, c_int]),
    "TFE_OpSetAttrShape": (None, [c_void_p, c_char_p, P(c_int64), c_int, c_void_p]),
    "TFE_OpSetAttrTensor": (None, [c_void_p, c_char_p, c_void_p, c_void_p]),
    "TFE_OpSetAttrStringList": (None, [c_void_p, c_char_p, P(c_char_p), P(c_size_t), c_int]),
    "TFE_OpSetAttrIntList": (None, [c_void_p, c_char_p, P(c_int64), c_int]),
    "TFE_OpSetAttrFloatList": (None, [c_void_p, c_char_p, P(c_float), c_int]),
    "TFE_OpSetAttrBoolList": (None, [c_void_p, c_char_p, P(c_ubyte), c_int]),
    "TFE_OpSetAttrTypeList": (None, [c_void_p, c_char_p, P(c_int), c_int]),
    "TFE_OpSetAttrShapeList": (None, [c_void_p, c_char_p, P(P(c_int64)), P(c_int), c_int, c_void_p]),
    "TFE_Execute": (None, [c_void_p, P(c_void_p), P(c_int), c_void_p]),
    # opgen's extensions (runtime/include/opgen/c_api_ext.h)
    "OPGEN_NewEagerKernel": (c_void_p, [c_void_p, c_void_p]),
    "OPGEN_DeleteEagerKernel": (None, [c_void_p]),
}

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None


def _preload_openblas() -> None:
    """The runtime links OpenBLAS from the scipy-openblas32 wheel; load it globally
    first so the dependency resolves wherever pip put the wheel."""
    try:
        import scipy_openblas32
    except ImportError:
        return  # the RPATH set at build time may still find it
    candidate = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(candidate):
        ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)


def lib() -> ctypes.CDLL:
    """The runtime library with every function declared; loaded once per process."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _preload_openblas()
                loaded = ctypes.CDLL(str(_paths.runtime_library_path()))
                for name, (restype, argtypes) in _SIGNATURES.items():
                    fn = getattr(loaded, name)
                    fn.restype, fn.argtypes = restype, argtypes
                _lib = loaded
    return _lib


class Status:
    """A TF_Status owned by Python, reusable across calls."""

    __slots__ = ("ptr", "_lib")

    def __init__(self):
        self._lib = lib()
        self.ptr = self._lib.TF_NewStatus()

    @property
    def code(self) -> int:
        return self._lib.TF_GetCode(self.ptr)

    @property
    def message(self) -> str:
        return self._lib.TF_Message(self.ptr).decode("utf-8", "replace")

    def __del__(self):
        if getattr(self, "ptr", None) and self._lib is not None:
            self._lib.TF_DeleteStatus(self.ptr)
            self.ptr = None


_thread_local = threading.local()


def thread_status() -> Status:
    """A TF_Status reused by every call on this thread (each call overwrites it), so the
    eager hot path does not allocate one per call."""
    status = getattr(_thread_local, "status", None)
    if status is None:
        status = _thread_local.status = Status()
    return status


def all_op_list_bytes() -> bytes:
    """The serialized OpList of every op the runtime has registered."""
    runtime = lib()
    buf = runtime.TF_GetAllOpList()
    try:
        return ctypes.string_at(buf.contents.data, buf.contents.length)
    finally:
        runtime.TF_DeleteBuffer(buf)
