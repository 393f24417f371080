"""DLPack's C ABI and the producer side: ``Tensor.__dlpack__`` / ``__dlpack_device__``.

This module sits below opgen.runtime.tensor: it works on anything with a Tensor's
storage (``_tensor``, ``_data``, ``_on_host``, ``dtype``, ``shape``, ``device``) and
makes copies with the tensor's own class. The consumer side, ``from_dlpack``, is in
opgen.runtime.dlpack.

DLPack: tensors shared with numpy, PyTorch, CuPy, JAX ... without copies.

``Tensor.__dlpack__`` / ``__dlpack_device__`` make opgen tensors a DLPack producer (the
Python array API's protocol: ``np.from_dlpack(t)``, ``torch.from_dlpack(t)``), and
:func:`from_dlpack` consumes any producer. Both directions work on the CPU and on CUDA
GPUs. The structs are DLPack's C ABI (dlpack.h, version 1.0), declared here with ctypes
so that this works with or without the compiled fast path.

Streams: the runtime's CUDA streams are blocking streams (they wait for CUDA's legacy
default stream, and it for them). Exporting a GPU tensor waits for the device
(``OPGEN_SynchronizeDevice``), which makes the data safe on any consumer stream;
importing one asks the producer for the legacy default stream (``stream=1``).
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from opgen.runtime import _convert, _lib, dtypes

c_void_p, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64 = (
    ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint8, ctypes.c_uint16,
    ctypes.c_uint32, ctypes.c_uint64)

# DLDeviceType
kDLCPU, kDLCUDA, kDLCUDAHost = 1, 2, 3
# DLDataTypeCode
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6
# DLManagedTensorVersioned.flags
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1
DLPACK_VERSION = (1, 0)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(c_int64)),
                ("strides", ctypes.POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p), ("deleter", c_void_p),
                ("flags", c_uint64), ("dl_tensor", DLTensor)]


# opgen dtype <-> DLPack (code, bits); lanes are always 1.
_TO_DL = {
    dtypes.float16: (kDLFloat, 16), dtypes.float32: (kDLFloat, 32),
    dtypes.float64: (kDLFloat, 64), dtypes.bfloat16: (kDLBfloat, 16),
    dtypes.int8: (kDLInt, 8), dtypes.int16: (kDLInt, 16), dtypes.int32: (kDLInt, 32),
    dtypes.int64: (kDLInt, 64), dtypes.uint8: (kDLUInt, 8), dtypes.uint16: (kDLUInt, 16),
    dtypes.uint32: (kDLUInt, 32), dtypes.uint64: (kDLUInt, 64), dtypes.bool: (kDLBool, 8),
    dtypes.complex64: (kDLComplex, 64), dtypes.complex128: (kDLComplex, 128),
}
_FROM_DL = {code_bits: dtype for dtype, code_bits in _TO_DL.items()}

_CAPSULE_NAME = b"dltensor"
_USED_CAPSULE_NAME = b"used_dltensor"
_VERSIONED_CAPSULE_NAME = b"dltensor_versioned"
_USED_VERSIONED_CAPSULE_NAME = b"used_dltensor_versioned"

# Python's capsule API, through a handle of our own (declaring argtypes on the shared
# ctypes.pythonapi would change them for everyone else).
_py = ctypes.PyDLL(None)
_py.PyCapsule_New.restype = ctypes.py_object
_py.PyCapsule_New.argtypes = [c_void_p, ctypes.c_char_p, c_void_p]
_py.PyCapsule_IsValid.restype = ctypes.c_int
_py.PyCapsule_IsValid.argtypes = [c_void_p, ctypes.c_char_p]
_py.PyCapsule_GetPointer.restype = c_void_p
_py.PyCapsule_GetPointer.argtypes = [c_void_p, ctypes.c_char_p]
_py.PyCapsule_SetName.restype = ctypes.c_int
_py.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_DELETER = ctypes.CFUNCTYPE(None, c_void_p)
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)

_lock = threading.Lock()


def _gpu_device_name(ordinal: int) -> str:
    return f"/job:localhost/replica:0/task:0/device:GPU:{ordinal}"


def dlpack_device(tensor) -> tuple[int, int]:
    """(kDLCPU, 0) for a CPU tensor, (kDLCUDA, n) for one on GPU:n."""
    if tensor._on_host:
        return (kDLCPU, 0)
    name = tensor.device
    kind, _, ordinal = name.rpartition("device:")[2].partition(":")
    if kind.upper() != "GPU":
        raise BufferError(f"DLPack has no device type for {name}")
    return (kDLCUDA, int(ordinal or 0))


# ---- export ---------------------------------------------------------------------------------
#
# Every capsule handed out has its struct, shape and strides arrays and the Tensor it
# shares kept in `_exports`, keyed by the struct's address, until the consumer calls
# the deleter (or the capsule dies unconsumed).

_exports: dict[int, tuple] = {}


def _release_export(address) -> None:
    with _lock:
        released = _exports.pop(address, None)
    # Dropped outside the lock: freeing the tensor may free an imported buffer, whose
    # deallocator takes the lock again.
    del released


@_DELETER
def _export_deleter(address):
    try:
        _release_export(address)
    except Exception:  # noqa: BLE001, S110  (a C callback must not raise; at interpreter shutdown nothing is left to keep alive)
        pass


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule a consumer took is renamed "used_..."; one never consumed still owns
    # its tensor.
    try:
        for name in (_CAPSULE_NAME, _VERSIONED_CAPSULE_NAME):
            if _py.PyCapsule_IsValid(capsule, name):
                _release_export(_py.PyCapsule_GetPointer(capsule, name))
                return
    except Exception:  # noqa: BLE001, S110  (a C callback must not raise: a capsule destructor at shutdown)
        pass


_DELETER_ADDRESS = ctypes.cast(_export_deleter, c_void_p).value
_DESTRUCTOR_ADDRESS = ctypes.cast(_capsule_destructor, c_void_p).value


def _copied(tensor, dl_device):
    """A copy of `tensor` on `dl_device` (a DLPack (type, id); None: where it is), of
    the tensor's own class."""
    if dl_device is None:
        dl_device = dlpack_device(tensor)
    kind, ordinal = int(dl_device[0]), int(dl_device[1])
    wrap = type(tensor)._from_tf_tensor
    if kind in (kDLCPU, kDLCUDAHost):
        if tensor._on_host:  # a fresh buffer
            return wrap(_convert.new_tf_tensor(np.asarray(tensor), tensor.dtype.as_datatype_enum))
        return wrap(_lib.copy_tf_tensor(tensor._tensor, _lib.CPU_DEVICE_NAME.encode()))
    if kind == kDLCUDA:
        # From the host, so that the buffer is new (a copy to the device the data is on
        # already would share it).
        host = _copied(tensor, (kDLCPU, 0))
        return wrap(_lib.copy_tf_tensor(host._tensor, _gpu_device_name(ordinal).encode()))
    raise BufferError(f"opgen cannot copy a tensor to DLPack device type {kind}")


def to_dlpack(tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule for ``tensor.__dlpack__`` (see the array API standard)."""
    dl = _TO_DL.get(tensor.dtype)
    if dl is None:
        raise BufferError(f"DLPack has no data type for {tensor.dtype.name} tensors")
    is_copy = False
    try:
        here = dlpack_device(tensor)
    except BufferError:  # a device DLPack has no type for: only a copy can leave it
        if dl_device is None:
            raise
        here = None
    if dl_device is not None and tuple(int(x) for x in dl_device) != here:
        if copy is False:
            raise BufferError(f"the tensor is on DLPack device {here}, not {tuple(dl_device)}, "
                              "and copy=False forbids a copy")
        tensor, is_copy = _copied(tensor, dl_device), True
        here = dlpack_device(tensor)
    elif copy:
        tensor, is_copy = _copied(tensor, None), True
    assert here is not None  # a tensor on a device DLPack cannot name was copied above
    if here[0] == kDLCUDA:
        if stream is not None and stream != -1 and not isinstance(stream, int):
            raise TypeError(f"stream must be an int or None, got {stream!r}")
        if stream != -1:  # -1: the consumer asks for no synchronisation
            _lib.synchronize_device(tensor.device)

    versioned = max_version is not None and int(max_version[0]) >= 1
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    shape = tensor.shape
    ndim = len(shape)
    dims = (c_int64 * max(ndim, 1))(*shape)
    strides = (c_int64 * max(ndim, 1))()
    step = 1
    for i in range(ndim - 1, -1, -1):
        strides[i] = step
        step *= max(shape[i], 1)
    t = managed.dl_tensor
    t.data = tensor._data or None
    t.device.device_type, t.device.device_id = here
    t.ndim = ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = dl[0], dl[1], 1
    t.shape = ctypes.cast(dims, ctypes.POINTER(c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(c_int64))
    t.byte_offset = 0
    managed.deleter = _DELETER_ADDRESS
    if versioned:
        managed.version.major, managed.version.minor = DLPACK_VERSION
        managed.flags = DLPACK_FLAG_BITMASK_IS_COPIED if is_copy else 0
    address = ctypes.addressof(managed)
    managed.manager_ctx = address
    with _lock:
        _exports[address] = (managed, dims, strides, tensor)
    try:
        return _py.PyCapsule_New(address, _VERSIONED_CAPSULE_NAME if versioned else _CAPSULE_NAME,
                                 _DESTRUCTOR_ADDRESS)
    except BaseException:
        _release_export(address)
        raise
