"""DLPack: tensors shared with numpy, PyTorch, CuPy, JAX ... without copies.

:func:`from_dlpack` consumes any producer (the Python array API's protocol), on the
CPU and on CUDA GPUs. The producer side (``Tensor.__dlpack__``, :func:`to_dlpack`) and
DLPack's structs are in opgen.runtime._dlpack, below the Tensor class.

Streams: importing a GPU tensor asks the producer for CUDA's legacy default stream
(``stream=1``); the runtime's CUDA streams are blocking streams, which wait for it.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from opgen.runtime import _lib
from opgen.runtime._dlpack import (  # noqa: F401  (to_dlpack, dlpack_device: this module's API too)
    _CAPSULE_NAME, _FROM_DL, _USED_CAPSULE_NAME, _USED_VERSIONED_CAPSULE_NAME,
    _TO_DL, _VERSIONED_CAPSULE_NAME, _DELETER, DLPACK_VERSION, _exports, DLManagedTensor,
    DLManagedTensorVersioned, _gpu_device_name, _py, dlpack_device, kDLCPU, kDLCUDA,
    kDLCUDAHost, to_dlpack,
)
from opgen.runtime.errors import raise_for_status
from opgen.runtime.tensor import Tensor, _from_numpy

c_void_p, c_int64 = ctypes.c_void_p, ctypes.c_int64
_DEALLOCATOR = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_size_t, c_void_p)

_lock = threading.Lock()

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
    except Exception:  # noqa: BLE001, S110  (a C callback must not raise: the runtime frees the tensor anyway)
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
    managed: DLManagedTensor | DLManagedTensorVersioned
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
