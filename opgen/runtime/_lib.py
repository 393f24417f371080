"""ctypes declarations of the runtime's C ABI, loaded on first use.

Importing :mod:`opgen.runtime` never loads the shared library: generated op modules
must import on machines where only the generator is used. :func:`lib` loads it once.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import types

from opgen import _paths
from opgen.runtime import errors

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
    "TF_StringCopy": (None, [c_void_p, c_char_p, c_size_t]),
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
    "TFE_OpSetDevice": (None, [c_void_p, c_char_p, c_void_p]),
    # opgen's extensions (runtime/include/opgen/c_api_ext.h)
    "OPGEN_NewEagerKernel": (c_void_p, [c_void_p, c_void_p]),
    "OPGEN_DeleteEagerKernel": (None, [c_void_p]),
    "OPGEN_EagerKernelNumOutputs": (c_int, [c_void_p]),
    "OPGEN_EagerKernelExecute": (None, [c_void_p, P(c_void_p), c_int, P(c_void_p), c_int,
                                        c_void_p]),
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


CUDA_PLUGIN_NAME = "libopgen_cuda.so"


def _nvidia_library_dirs() -> list[str]:
    """The lib folders of NVIDIA's CUDA wheels (the ``nvidia`` namespace package):
    ``nvidia/cu13/lib`` for CUDA 13's (``pip install "opgen[cuda]"``), then the
    per-library folders of older releases (``nvidia/cublas/lib``)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    found = []
    for root in spec.submodule_search_locations:
        for sub in ("cu13", "cublas", "cuda_runtime"):
            candidate = os.path.join(root, sub, "lib")
            if os.path.isdir(candidate):
                found.append(candidate)
    return found


def _preload_cuda_libraries(runtime_path: str) -> None:
    """Where the CUDA plugin sits next to the runtime library (which loads it when it
    initialises), makes cuBLAS from NVIDIA's wheels findable first: libcublasLt and
    libcublas (and the CUDA runtime, if there) are loaded with RTLD_GLOBAL, so the
    plugin's dlopen("libcublas.so.13") finds them. $OPGEN_CUBLAS_LIBRARY, the path of a
    libcublas.so, wins. Whatever is missing is skipped: the plugin then looks for cuBLAS
    itself and says what it found through opgen.device_unavailable_reason."""
    if not os.path.exists(os.path.join(os.path.dirname(runtime_path), CUDA_PLUGIN_NAME)):
        return
    if os.environ.get("OPGEN_DISABLE_DEVICE_PLUGINS"):
        return
    override = os.environ.get("OPGEN_CUBLAS_LIBRARY")
    candidates = []
    if override:
        folder, name = os.path.split(override)  # libcublasLt first: libcublas needs it
        if name.startswith("libcublas."):
            candidates.append(os.path.join(folder, "libcublasLt." + name[len("libcublas."):]))
        candidates.append(override)
    else:
        for folder in _nvidia_library_dirs():
            candidates += [os.path.join(folder, name) for name in
                           ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13")]
    for candidate in candidates:
        if os.path.isfile(candidate):
            try:
                ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                pass  # a broken install: the plugin reports what it cannot load


def lib() -> ctypes.CDLL:
    """The runtime library with every function declared; loaded once per process."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _preload_openblas()
                path = str(_paths.runtime_library_path())
                _preload_cuda_libraries(path)
                loaded = ctypes.CDLL(path)
                for name, (restype, argtypes) in _SIGNATURES.items():
                    fn = getattr(loaded, name)
                    fn.restype, fn.argtypes = restype, argtypes
                errors.set_raw_status_reader(_raw_status_reader(loaded))
                logging.getLogger("opgen").debug("loaded the opgen runtime library %s", path)
                _lib = loaded
    return _lib


def _raw_status_reader(loaded):
    def read(status) -> tuple[int, str]:
        code = loaded.TF_GetCode(status)
        return code, loaded.TF_Message(status).decode("utf-8", "replace") if code else ""
    return read


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


# ---- graphs and sessions (TensorFlow's c_api.h) ------------------------------------------
#
# Declared apart from the table above and only when a graph is first used, so the eager
# path does not depend on them.

class TF_Output(ctypes.Structure):
    """An operation's output: TensorFlow's ``{TF_Operation* oper; int index;}``."""
    _fields_ = [("oper", c_void_p), ("index", c_int)]


class TF_Input(ctypes.Structure):
    """An operation's input: same layout as TF_Output."""
    _fields_ = [("oper", c_void_p), ("index", c_int)]


_GRAPH_SIGNATURES = {
    "TF_NewBuffer": (P(TF_Buffer), []),
    "TF_NewBufferFromString": (P(TF_Buffer), [c_void_p, c_size_t]),
    "TF_NewTensor": (c_void_p, [c_int, P(c_int64), c_int, c_void_p, c_size_t, c_void_p, c_void_p]),
    "TF_TensorType": (c_int, [c_void_p]),
    "TF_NumDims": (c_int, [c_void_p]),
    "TF_Dim": (c_int64, [c_void_p, c_int]),
    "TF_NewGraph": (c_void_p, []),
    "TF_DeleteGraph": (None, [c_void_p]),
    "TF_GraphGetTensorNumDims": (c_int, [c_void_p, TF_Output, c_void_p]),
    "TF_GraphGetTensorShape": (None, [c_void_p, TF_Output, P(c_int64), c_int, c_void_p]),
    "TF_GraphSetTensorShape": (None, [c_void_p, TF_Output, P(c_int64), c_int, c_void_p]),
    "TF_NewOperation": (c_void_p, [c_void_p, c_char_p, c_char_p]),
    "TF_SetDevice": (None, [c_void_p, c_char_p]),
    "TF_AddInput": (None, [c_void_p, TF_Output]),
    "TF_AddInputList": (None, [c_void_p, P(TF_Output), c_int]),
    "TF_AddControlInput": (None, [c_void_p, c_void_p]),
    "TF_SetAttrString": (None, [c_void_p, c_char_p, c_void_p, c_size_t]),
    "TF_SetAttrStringList": (None, [c_void_p, c_char_p, P(c_void_p), P(c_size_t), c_int]),
    "TF_SetAttrInt": (None, [c_void_p, c_char_p, c_int64]),
    "TF_SetAttrIntList": (None, [c_void_p, c_char_p, P(c_int64), c_int]),
    "TF_SetAttrFloat": (None, [c_void_p, c_char_p, c_float]),
    "TF_SetAttrFloatList": (None, [c_void_p, c_char_p, P(c_float), c_int]),
    "TF_SetAttrBool": (None, [c_void_p, c_char_p, c_ubyte]),
    "TF_SetAttrBoolList": (None, [c_void_p, c_char_p, P(c_ubyte), c_int]),
    "TF_SetAttrType": (None, [c_void_p, c_char_p, c_int]),
    "TF_SetAttrTypeList": (None, [c_void_p, c_char_p, P(c_int), c_int]),
    "TF_SetAttrShape": (None, [c_void_p, c_char_p, P(c_int64), c_int]),
    "TF_SetAttrShapeList": (None, [c_void_p, c_char_p, P(P(c_int64)), P(c_int), c_int]),
    "TF_SetAttrTensor": (None, [c_void_p, c_char_p, c_void_p, c_void_p]),
    "TF_SetAttrValueProto": (None, [c_void_p, c_char_p, c_void_p, c_size_t, c_void_p]),
    "TF_FinishOperation": (c_void_p, [c_void_p, c_void_p]),
    "TF_OperationName": (c_char_p, [c_void_p]),
    "TF_OperationOpType": (c_char_p, [c_void_p]),
    "TF_OperationDevice": (c_char_p, [c_void_p]),
    "TF_OperationNumOutputs": (c_int, [c_void_p]),
    "TF_OperationOutputType": (c_int, [TF_Output]),
    "TF_OperationNumInputs": (c_int, [c_void_p]),
    "TF_OperationAllInputs": (None, [c_void_p, P(TF_Output), c_int]),
    "TF_OperationOutputNumConsumers": (c_int, [TF_Output]),
    "TF_OperationOutputConsumers": (c_int, [TF_Output, P(TF_Input), c_int]),
    "TF_OperationNumControlInputs": (c_int, [c_void_p]),
    "TF_OperationGetControlInputs": (c_int, [c_void_p, P(c_void_p), c_int]),
    "TF_OperationGetAttrValueProto": (None, [c_void_p, c_char_p, P(TF_Buffer), c_void_p]),
    "TF_GraphOperationByName": (c_void_p, [c_void_p, c_char_p]),
    "TF_GraphNextOperation": (c_void_p, [c_void_p, P(c_size_t)]),
    "TF_GraphToGraphDef": (None, [c_void_p, P(TF_Buffer), c_void_p]),
    "TF_NewImportGraphDefOptions": (c_void_p, []),
    "TF_DeleteImportGraphDefOptions": (None, [c_void_p]),
    "TF_ImportGraphDefOptionsSetPrefix": (None, [c_void_p, c_char_p]),
    "TF_ImportGraphDefOptionsAddInputMapping": (None, [c_void_p, c_char_p, c_int, TF_Output]),
    "TF_ImportGraphDefOptionsAddReturnOutput": (None, [c_void_p, c_char_p, c_int]),
    "TF_ImportGraphDefOptionsAddReturnOperation": (None, [c_void_p, c_char_p]),
    "TF_GraphImportGraphDefWithResults": (c_void_p, [c_void_p, P(TF_Buffer), c_void_p, c_void_p]),
    "TF_ImportGraphDefResultsReturnOutputs": (None, [c_void_p, P(c_int), P(P(TF_Output))]),
    "TF_ImportGraphDefResultsReturnOperations": (None, [c_void_p, P(c_int), P(P(c_void_p))]),
    "TF_ImportGraphDefResultsMissingUnusedInputMappings": (
        None, [c_void_p, P(c_int), P(P(c_char_p)), P(P(c_int))]),
    "TF_DeleteImportGraphDefResults": (None, [c_void_p]),
    "OPGEN_ImportGraphDefOptionsSetCheckDevices": (None, [c_void_p, c_ubyte]),
    "TF_NewSessionOptions": (c_void_p, []),
    "TF_SetConfig": (None, [c_void_p, c_void_p, c_size_t, c_void_p]),
    "OPGEN_SetGraphOptimizer": (None, [c_void_p, c_int]),
    "OPGEN_SessionOptimizedGraphDef": (None, [c_void_p, P(TF_Output), c_int, P(TF_Output), c_int,
                                              P(c_void_p), c_int, P(TF_Buffer), c_void_p]),
    "TF_DeleteSessionOptions": (None, [c_void_p]),
    "TF_NewSession": (c_void_p, [c_void_p, c_void_p, c_void_p]),
    "TF_LoadSessionFromSavedModel": (c_void_p, [c_void_p, P(TF_Buffer), c_char_p, P(c_char_p),
                                                c_int, c_void_p, P(TF_Buffer), c_void_p]),
    "TF_CloseSession": (None, [c_void_p, c_void_p]),
    "TF_DeleteSession": (None, [c_void_p, c_void_p]),
    "TF_SessionRun": (None, [c_void_p, c_void_p, P(TF_Output), P(c_void_p), c_int,
                             P(TF_Output), P(c_void_p), c_int, P(c_void_p), c_int,
                             c_void_p, c_void_p]),
}

_graph_lib = None


def _unimplemented(name: str):
    def call(*args):
        raise errors.UnimplementedError(f"this opgen runtime does not implement {name}")
    return call


def graph_lib():
    """A namespace of the runtime's functions (those of :func:`lib` plus the graph and
    session ones), declared once. A graph function the runtime lacks raises
    UnimplementedError when called, so the rest stays usable."""
    global _graph_lib
    if _graph_lib is None:
        loaded = lib()
        graph = declared(_GRAPH_SIGNATURES)  # takes the lock itself
        with _lock:
            if _graph_lib is None:
                functions = {name: getattr(loaded, name) for name in _SIGNATURES}
                _graph_lib = types.SimpleNamespace(**functions, **vars(graph))
    return _graph_lib


# ---- devices, device tensors, DLPack, host memory (opgen/c_api_ext.h, eager/c_api.h) ---
#
# Declared on first use like the graph functions; a runtime built before devices existed
# lacks them, and then the CPU is the only device (and no host buffers are kept).

_DEVICE_SIGNATURES = {
    "TF_NewTensor": (c_void_p, [c_int, P(c_int64), c_int, c_void_p, c_size_t, c_void_p, c_void_p]),
    "TF_TensorType": (c_int, [c_void_p]),
    "TF_NumDims": (c_int, [c_void_p]),
    "TF_Dim": (c_int64, [c_void_p, c_int]),
    "TFE_ContextListDevices": (c_void_p, [c_void_p, c_void_p]),
    "TF_DeleteDeviceList": (None, [c_void_p]),
    "TF_DeviceListCount": (c_int, [c_void_p]),
    "TF_DeviceListName": (c_char_p, [c_void_p, c_int, c_void_p]),
    "TF_DeviceListType": (c_char_p, [c_void_p, c_int, c_void_p]),
    "TF_DeviceListMemoryBytes": (c_int64, [c_void_p, c_int, c_void_p]),
    "OPGEN_DeviceListDescription": (c_char_p, [c_void_p, c_int, c_void_p]),
    "OPGEN_DeviceUnavailableReason": (c_char_p, [c_char_p]),
    "TF_GetAllRegisteredKernels": (P(TF_Buffer), [c_void_p]),
    "TF_GetRegisteredKernelsForOp": (P(TF_Buffer), [c_char_p, c_void_p]),
    "OPGEN_GetInstantiatedKernels": (P(TF_Buffer), [c_void_p]),
    "OPGEN_TensorDeviceName": (c_char_p, [c_void_p]),
    "OPGEN_TensorHandleTensor": (c_void_p, [c_void_p, c_void_p]),
    "OPGEN_TensorCopyToDevice": (c_void_p, [c_void_p, c_char_p, c_void_p]),
    "OPGEN_NewDeviceTensor": (c_void_p, [c_char_p, c_int, P(c_int64), c_int, c_void_p, c_size_t,
                                         c_void_p, c_void_p, c_void_p]),
    "OPGEN_SynchronizeDevice": (None, [c_char_p, c_void_p]),
    "OPGEN_ReleaseCachedHostMemory": (c_size_t, []),
    "OPGEN_CachedHostMemoryBytes": (c_size_t, []),
}

_device_lib = None


def device_lib():
    """A namespace of the device functions above (None for each one the runtime lacks)."""
    global _device_lib
    if _device_lib is None:
        loaded = lib()
        with _lock:
            if _device_lib is None:
                functions = {}
                for name, (restype, argtypes) in _DEVICE_SIGNATURES.items():
                    fn = getattr(loaded, name, None)
                    if fn is not None:
                        fn.restype, fn.argtypes = restype, argtypes
                    functions[name] = fn
                _device_lib = types.SimpleNamespace(**functions)
    return _device_lib


# ---- where a tensor's data lives (used by the layers above: tensor, devices, DLPack) ----

CPU_DEVICE_NAME = "/job:localhost/replica:0/task:0/device:CPU:0"


def tensor_device_name(tf_tensor: int) -> str:
    """The full name of the device holding the data of the ``TF_Tensor*`` `tf_tensor`."""
    fn = device_lib().OPGEN_TensorDeviceName
    if fn is None or not tf_tensor:
        return CPU_DEVICE_NAME
    name = fn(tf_tensor)
    return name.decode() if name else CPU_DEVICE_NAME


def copy_tf_tensor(tf_tensor: int, device_name: bytes) -> int:
    """A new ``TF_Tensor*`` with the data of `tf_tensor` on the device named (in full)
    by `device_name`; the caller owns it."""
    d = device_lib()
    if d.OPGEN_TensorCopyToDevice is None:
        raise errors.InvalidArgumentError("this opgen runtime has no devices besides the CPU")
    status = thread_status()
    copied = d.OPGEN_TensorCopyToDevice(tf_tensor, device_name, status.ptr)
    errors.raise_for_status(status)
    return copied


def synchronize_device(full_name: str) -> None:
    """Waits until the work queued on the device `full_name` names is done."""
    fn = device_lib().OPGEN_SynchronizeDevice
    if fn is None or full_name == CPU_DEVICE_NAME:
        return
    status = thread_status()
    fn(full_name.encode(), status.ptr)
    errors.raise_for_status(status)


def declared(signatures: dict) -> types.SimpleNamespace:
    """The runtime's functions named in `signatures` (name: (restype, argtypes)), declared
    on the loaded library; for a module's own slice of the C API, declared on first use.
    A function this runtime lacks raises UnimplementedError when called."""
    loaded = lib()
    functions = {}
    with _lock:
        for name, (restype, argtypes) in signatures.items():
            fn = getattr(loaded, name, None)
            if fn is None:
                functions[name] = _unimplemented(name)
                continue
            fn.restype, fn.argtypes = restype, argtypes
            functions[name] = fn
    return types.SimpleNamespace(**functions)
