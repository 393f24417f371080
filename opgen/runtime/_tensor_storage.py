"""The storage of ``opgen.Tensor`` kept through ctypes: the twin of the compiled fast
path's ``TensorBase`` (the same attributes, held in C there), used where that is not
built or is disabled ($OPGEN_DISABLE_FAST_PATH)."""

from __future__ import annotations

from opgen.runtime import _lib, dtypes
from opgen.runtime.errors import raise_for_status


class TensorStorage:
    """What a Tensor holds, kept through ctypes: used when the compiled fast path is
    not available (its ``TensorBase`` holds the same in C)."""

    __slots__ = ("_handle_ptr_value", "_tensor", "_lib", "_dtype", "_shape", "_host",
                 "__weakref__")
    _handle_ptr_value: int | None  # a TFE_TensorHandle*, made on first use
    _tensor: int | None            # the TF_Tensor* (None once deleted)
    _host: bool | None             # whether the data is in host memory (found on first use)

    def __init__(self, handle: int):
        runtime = _lib.lib()
        self._lib = runtime
        self._handle_ptr_value = handle
        self._host = None
        status = _lib.thread_status()
        handle_tensor = _lib.device_lib().OPGEN_TensorHandleTensor  # the data where it lives
        self._tensor = (handle_tensor or runtime.TFE_TensorHandleResolve)(handle, status.ptr)
        raise_for_status(status)
        self._dtype = dtypes.as_dtype(runtime.TFE_TensorHandleDataType(handle))
        ndims = runtime.TFE_TensorHandleNumDims(handle, status.ptr)
        self._shape = tuple(runtime.TFE_TensorHandleDim(handle, i, status.ptr) for i in range(ndims))

    @classmethod
    def _from_tf_tensor(cls, tf_tensor: int):
        """A Tensor owning the ``TF_Tensor*`` `tf_tensor` (on any device)."""
        self = cls.__new__(cls)
        runtime = _lib.lib()
        d = _lib.device_lib()
        self._lib = runtime
        self._handle_ptr_value = None
        self._host = None
        self._tensor = tf_tensor
        self._dtype = dtypes.as_dtype(d.TF_TensorType(tf_tensor))
        self._shape = tuple(d.TF_Dim(tf_tensor, i) for i in range(d.TF_NumDims(tf_tensor)))
        return self

    def __del__(self):
        runtime = getattr(self, "_lib", None)
        if runtime is None:
            return
        try:
            if self._tensor:
                runtime.TF_DeleteTensor(self._tensor)
            if self._handle_ptr_value:
                runtime.TFE_DeleteTensorHandle(self._handle_ptr_value)
        except Exception:  # noqa: BLE001, S110  (__del__ at interpreter shutdown, when ctypes may be torn down)
            pass
        self._tensor = self._handle_ptr_value = None

    @property
    def _handle(self) -> int:
        """A TFE_TensorHandle* sharing the tensor (made on first use)."""
        if self._handle_ptr_value is None:
            status = _lib.thread_status()
            handle = self._lib.TFE_NewTensorHandle(self._tensor, status.ptr)
            raise_for_status(status)
            self._handle_ptr_value = handle
        return self._handle_ptr_value

    @property
    def _data(self) -> int:
        return self._lib.TF_TensorData(self._tensor) or 0

    @property
    def _on_host(self) -> bool:
        if self._host is None:
            self._host = "CPU:" in _lib.tensor_device_name(self._tensor)  # type: ignore[arg-type]  # live while self is
        return self._host
