"""DLPack: tensors shared with numpy, PyTorch, CuPy, JAX ... without copies.

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

from opgen.runtime import _lib, dtypes
from opgen.runtime.errors import raise_for_status
from opgen.runtime.tensor import Tensor, _from_numpy

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
_DEALLOCATOR = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_size_t, c_void_p)

_lock = threading.Lock()


def _gpu_device_name(ordinal: int) -> str:
    return f"/job:localhost/replica:0/task:0/device:GPU:{ordinal}"


def dlpack_device(tensor: Tensor) -> tuple[int, int]:
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
    except Exception:  # interpreter shutdown: nothing left to keep alive
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
    except Exception:
        pass


_DELETER_ADDRESS = ctypes.cast(_export_deleter, c_void_p).value
_DESTRUCTOR_ADDRESS = ctypes.cast(_capsule_destructor, c_void_p).value


def _copied(tensor: Tensor, dl_device) -> Tensor:
    """A copy of `tensor` on `dl_device` (a DLPack (type, id); None: where it is)."""
    from opgen.runtime import devices

    if dl_device is None:
        dl_device = dlpack_device(tensor)
    kind, ordinal = int(dl_device[0]), int(dl_device[1])
    if kind in (kDLCPU, kDLCUDAHost):
        if tensor._on_host:  # a fresh buffer (_from_numpy copies)
            return _from_numpy(np.asarray(tensor), tensor.dtype)
        return devices.host_copy(tensor)
    if kind == kDLCUDA:
        # From the host, so that the buffer is new (a copy to the device the data is on
        # already would share it).
        return devices.copy_to_device(devices.host_copy(tensor), _gpu_device_name(ordinal))
    raise BufferError(f"opgen cannot copy a tensor to DLPack device type {kind}")


def to_dlpack(tensor: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
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
    if here[0] == kDLCUDA:
        if stream is not None and stream != -1 and not isinstance(stream, int):
            raise TypeError(f"stream must be an int or None, got {stream!r}")
        if stream != -1:  # -1: the consumer asks for no synchronisation
            from opgen.runtime import devices
            devices.synchronize(tensor.device)

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


# ---- import ---------------------------------------------------------------------------------
#
# The tensor made over a producer's memory calls `_import_deallocator` once the runtime
# drops it, which calls the producer's deleter. `_imports` maps the managed struct's
# address to that deleter's address and, for GPU memory, the device: work the runtime
# queued on its stream may still read the memory, so the deallocator waits for the
# device before the producer may reuse it.

_imports: dict[int, tuple[int, bytes | None]] = {}


def _call_deleter(address, wait: bool = False) -> None:
    with _lock:
        deleter, device = _imports.pop(address, (0, None))
    if device is not None and wait:
        d = _lib.device_lib()
        status = _lib.lib().TF_NewStatus()
        try:  # its own status: this may run inside another runtime call on this thread
            d.OPGEN_SynchronizeDevice(device, status)
        finally:
            _lib.lib().TF_DeleteStatus(status)
    if deleter:
        _DELETER(deleter)(address)


@_DEALLOCATOR
def _import_deallocator(data, length, arg):
    try:
        _call_deleter(arg, wait=True)
    except Exception:
        pass


_DEALLOCATOR_ADDRESS = ctypes.cast(_import_deallocator, c_void_p).value


def _capsule_of(obj):
    """A DLPack capsule from `obj` (a producer, or a capsule)."""
    if type(obj).__name__ == "PyCapsule":
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__ (or a DLPack capsule), "
                        f"got {type(obj).__name__}")
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (kDLCPU, 0)
    kwargs = {"stream": 1} if int(device[0]) == kDLCUDA else {}  # CUDA's legacy default stream
    try:
        return obj.__dlpack__(max_version=DLPACK_VERSION, **kwargs)
    except TypeError:  # a producer older than DLPack 1.0's keywords
        return obj.__dlpack__(**kwargs)


def _is_compact(shape, strides) -> bool:
    if not strides or 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def from_dlpack(obj) -> Tensor:
    """A Tensor sharing the memory of `obj`: anything with ``__dlpack__`` (a numpy
    array, a PyTorch, CuPy or JAX tensor, on the CPU or a CUDA GPU) or a DLPack capsule.

    No copy is made, except of a CPU tensor with strides other than compact row-major
    (copied into a fresh CPU tensor); such a GPU tensor is an error (make it contiguous
    first). The producer's memory stays alive as long as the Tensor (and whatever
    shares its buffer) does. opgen's kernels never write their inputs; writes by the
    producer show through."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, np.generic):  # numpy scalars have no __dlpack__; 0-d arrays do
        obj = np.asarray(obj)
    capsule = _capsule_of(obj)
    capsule_ptr = id(capsule)  # a PyObject* for the capsule API
    if _py.PyCapsule_IsValid(capsule_ptr, _VERSIONED_CAPSULE_NAME):
        versioned, name, used = True, _VERSIONED_CAPSULE_NAME, _USED_VERSIONED_CAPSULE_NAME
    elif _py.PyCapsule_IsValid(capsule_ptr, _CAPSULE_NAME):
        versioned, name, used = False, _CAPSULE_NAME, _USED_CAPSULE_NAME
    else:
        raise ValueError("not a DLPack capsule, or one already consumed "
                         "(a capsule can be used once)")
    address = _py.PyCapsule_GetPointer(capsule_ptr, name)
    if versioned:
        managed = DLManagedTensorVersioned.from_address(address)
        if managed.version.major != DLPACK_VERSION[0]:
            raise BufferError(f"DLPack version {managed.version.major}.{managed.version.minor} "
                              f"is not supported (opgen reads {DLPACK_VERSION[0]}.x)")
    else:
        managed = DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    ndim = t.ndim
    shape = tuple(t.shape[i] for i in range(ndim))
    strides = tuple(t.strides[i] for i in range(ndim)) if t.strides and ndim else None
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    dtype = _FROM_DL.get((code, bits)) if lanes == 1 else None
    if dtype is None:
        raise BufferError(f"opgen has no dtype for DLPack data type code={code} bits={bits} "
                          f"lanes={lanes}")
    kind, ordinal = t.device.device_type, t.device.device_id
    if kind not in (kDLCPU, kDLCUDAHost, kDLCUDA):
        raise BufferError(f"opgen cannot use memory of DLPack device type {kind} "
                          "(it takes CPU and CUDA memory)")
    compact = _is_compact(shape, strides)
    if kind == kDLCUDA and not compact:
        raise BufferError(f"the CUDA tensor has strides {strides} (shape {shape}): opgen takes "
                          "compact row-major GPU tensors only; make it contiguous first")
    data = (t.data or 0) + t.byte_offset
    count = int(np.prod(shape, dtype=np.int64)) if ndim else 1
    nbytes = count * dtype.size
    deleter = managed.deleter

    # From here on the capsule's memory is ours to release (by calling its deleter).
    if _py.PyCapsule_SetName(capsule, used) != 0:
        raise ValueError("cannot mark the DLPack capsule as used")
    gpu_name = _gpu_device_name(ordinal).encode() if kind == kDLCUDA else None
    with _lock:
        _imports[address] = (deleter or 0, gpu_name)

    if kind != kDLCUDA and (not compact or count == 0 or not data):
        try:  # a fresh CPU tensor with the elements, in row-major order
            array = _strided_array(data, shape, strides, dtype) if count else \
                np.empty(shape, dtype.numpy_dtype)
            return _from_numpy(array.copy(order="C"), dtype)
        finally:
            _call_deleter(address)

    dims = (c_int64 * max(ndim, 1))(*shape)
    status = _lib.thread_status()
    if kind == kDLCUDA:
        new_device_tensor = _lib.device_lib().OPGEN_NewDeviceTensor
        if new_device_tensor is None:
            _call_deleter(address)
            raise BufferError("this opgen runtime has no CUDA devices")
        raw = new_device_tensor(gpu_name, dtype.as_datatype_enum, dims,
                                ndim, data, nbytes, _DEALLOCATOR_ADDRESS, address, status.ptr)
        if not raw:
            _call_deleter(address)  # (not called by the runtime on failure)
            raise_for_status(status)
            raise BufferError("the runtime could not wrap the CUDA tensor")
    else:
        raw = _lib.device_lib().TF_NewTensor(dtype.as_datatype_enum, dims, ndim, data, nbytes,
                                             _DEALLOCATOR_ADDRESS, address)
        if not raw:
            _call_deleter(address)  # a no-op where the runtime called it already
            raise BufferError(f"the runtime could not wrap a {dtype.name} tensor of shape {shape}")
    return Tensor._from_tf_tensor(raw)


def _strided_array(data: int, shape, strides, dtype) -> np.ndarray:
    """A numpy view of `shape` elements at `data` with element `strides` (None: compact)."""
    np_dtype = dtype.numpy_dtype
    itemsize = np_dtype.itemsize
    if strides is None:
        strides = []
        step = 1
        for size in reversed(shape):
            strides.insert(0, step)
            step *= size
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    span = (high - low + 1) * itemsize
    buffer = (ctypes.c_char * span).from_address(data + low * itemsize)
    return np.ndarray(shape, np_dtype, buffer=buffer, offset=-low * itemsize,
                      strides=[s * itemsize for s in strides])


__all__ = ["from_dlpack", "to_dlpack", "dlpack_device"]
