"""``Tensor``: a runtime tensor handle seen from Python, and conversion of Python and
numpy values into tensors (the rules themselves live in opgen.runtime._convert)."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from opgen.runtime import _context, _dlpack, _lib, _strings, dtypes
from opgen.runtime._convert import (
    castable_on_conversion,
    default_numpy_value,
    python_value_as,
    short_repr,
)
from opgen.runtime._operators import TensorOperators
from opgen.runtime._tensor_storage import TensorStorage
from opgen.runtime.errors import InvalidArgumentError, raise_for_status

# The compiled fast path or None (decided once, in opgen.runtime._context).
_fast_path = _context.fast_path


def _storage_base() -> type:
    """What holds a Tensor's data: the fast path's TensorBase (in C) where it is
    built, else its ctypes twin. Both offer the same attributes (_tensor, _handle,
    _dtype, _shape, _data, _on_host, _from_tf_tensor)."""
    if _fast_path is not None:
        base: type = _fast_path.TensorBase
        return base
    return TensorStorage


if TYPE_CHECKING:  # (both bases offer the same attributes; checkers see the ctypes one)
    _StorageBase = TensorStorage
else:
    _StorageBase = _storage_base()


class Tensor(TensorOperators, _StorageBase):
    """An eager tensor owned by the runtime, on the CPU or on a GPU (``device``).

    Python's operators work as on TensorFlow's eager tensors (``t + 1``, ``t @ u``,
    ``t > 0``, ``t[1:, ::-1]``, ``t == u`` elementwise), with TensorFlow's dtype rules
    (opgen.runtime._promotion: no implicit promotion between tensors; Python and
    numpy operands take the tensor's dtype). As there, a Tensor is not hashable
    (``==`` is elementwise): use ``t.ref()`` as a dict key or set member.

    ``np.asarray(t)`` shares the runtime's buffer (no copy) for a CPU tensor; the
    array keeps the Tensor alive. ``numpy()`` returns such a view too. A GPU tensor's
    data is copied to the host for numpy (``numpy()``, ``np.asarray``, ``float(t)``,
    ``repr``), each time. DLPack (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``,
    :func:`opgen.from_dlpack`) shares memory on either device.

    ``Tensor(handle)`` takes ownership of a ``TFE_TensorHandle*``; use
    :func:`convert_to_tensor` or the generated ops to make tensors.

    A Tensor never shares memory with a numpy array the caller passed in: ops read
    C-contiguous numpy inputs in place while they run (kernels never write their
    inputs), and an output that would be that memory (Identity, Reshape) is copied;
    :func:`convert_to_tensor` copies. Later writes to the array do not show through.
    """

    __slots__ = ()

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def device(self) -> str:
        """TensorFlow's full name of the device holding the data:
        ``"/job:localhost/replica:0/task:0/device:CPU:0"`` or ``...device:GPU:0``."""
        return _lib.tensor_device_name(self._tensor)  # type: ignore[arg-type]  # live while self is

    @property
    def _handle_ptr(self) -> int:
        return self._handle

    @property
    def __array_interface__(self) -> dict[str, Any]:
        np_dtype = self._dtype.numpy_dtype
        if self._dtype == dtypes.string:  # numpy then asks __array__
            raise AttributeError("string tensors have no __array_interface__; use numpy()")
        if np_dtype is None:
            raise TypeError(f"a {self._dtype.name} tensor has no numpy equivalent")
        if np.dtype(np_dtype.str) != np_dtype:
            # bfloat16: the interface's type string cannot say it (numpy would see raw
            # 2-byte voids); numpy then asks __array__, which gives the right dtype.
            raise AttributeError(f"{self._dtype.name} tensors have no __array_interface__; "
                                 "use numpy() or np.asarray")
        return self._interface()

    def _interface(self) -> dict[str, Any]:
        """The array interface of the data, on the host (a copy for a GPU tensor)."""
        np_dtype = self._dtype.numpy_dtype
        if np_dtype is None:
            raise TypeError(f"a {self._dtype.name} tensor has no numpy equivalent")
        if not self._on_host:
            # A GPU tensor: numpy gets a host copy; numpy keeps `data` (an array over
            # the copy) alive as the base of what it builds. Never a device pointer.
            host = Tensor._from_tf_tensor(
                _lib.copy_tf_tensor(self._tensor, _lib.CPU_DEVICE_NAME.encode()))  # type: ignore[arg-type]
            return {"shape": self._shape, "typestr": np_dtype.str, "version": 3,
                    "data": np.asarray(_ArrayView(host))}
        return {"shape": self._shape, "typestr": np_dtype.str, "version": 3,
                "data": (self._data, False)}

    def numpy(self) -> np.ndarray:
        """The tensor's data as numpy: a view (no copy) of a CPU tensor, a host copy
        of a GPU tensor."""
        return np.asarray(self)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: bool | None = None) -> Any:
        """A DLPack capsule sharing the tensor's memory (the Python array API's
        protocol); for a GPU tensor, the work producing it is finished first."""
        # (_dlpack is untyped ctypes code)
        return _dlpack.to_dlpack(
            self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(1, 0) (kDLCPU) for a CPU tensor, (2, n) (kDLCUDA) for one on GPU:n."""
        return _dlpack.dlpack_device(self)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self._dtype == dtypes.string:  # an object array of bytes, always a copy
            strings = _strings.string_tensor_to_numpy(self._tensor, self._shape)  # type: ignore[arg-type]
            return strings if dtype is None else strings.astype(dtype)
        on_host = self._on_host
        if copy is False and not on_host:
            raise ValueError(f"the data of a tensor on {self.device} reaches numpy only as a "
                             "copy (copy=False was asked)")
        view = np.asarray(_ArrayView(self))
        if view.dtype != self._dtype.numpy_dtype:  # bfloat16 comes as 2-byte voids
            view = view.view(np.dtype(self._dtype.numpy_dtype))
        if dtype is not None and np.dtype(dtype) != view.dtype:
            return view.astype(dtype)
        return view.copy() if copy and on_host else view  # (a device tensor's is a copy)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape)."""
        size = 1
        for dim in self._shape:
            size *= dim
        return size

    def item(self) -> Any:
        """The value of a one-element tensor as a Python scalar (numpy's ``item``)."""
        return self.numpy().item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists of Python scalars (numpy's ``tolist``)."""
        return self.numpy().tolist()

    def ref(self) -> TensorRef:
        """A hashable reference to this tensor (compared by identity), for dict keys and
        sets; ``ref.deref()`` gives the tensor back (TensorFlow's ``Tensor.ref``)."""
        return TensorRef(self)

    def __eq__(self, other: object) -> Any:
        """Elementwise Equal (TensorFlow 2.x); operands that do not broadcast give False."""
        if other is None:
            return False
        return self._equal("Equal", other)

    def __ne__(self, other: object) -> Any:
        if other is None:
            return True
        return self._equal("NotEqual", other)

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable (== is elementwise). Instead, use tensor.ref() "
                        "as the key.")

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("Scalar tensor has no `len()`")
        return int(self._shape[0])

    def __iter__(self) -> Iterator[Tensor]:
        """The slices along dimension 0 (``t[0]``, ``t[1]`` ...)."""
        if not self._shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._shape[0]))

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __index__(self) -> int:
        if not self._dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, not {self._dtype.name}")
        return int(self.numpy())

    def __bool__(self) -> bool:
        return bool(self.numpy())

    def __repr__(self) -> str:
        try:
            values = np.array2string(self.numpy(), separator=", ", threshold=20)
        except TypeError:
            values = "<no numpy view>"
        return f"<opgen.Tensor: shape={self._shape}, dtype={self._dtype.name}, numpy={values}>"


class TensorRef:
    """A hashable reference to a Tensor, equal only to references to the same one."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor):
        self._tensor = tensor

    def deref(self) -> Tensor:
        return self._tensor

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorRef) and other._tensor is self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._tensor!r}>"


class _ArrayView:
    """Exposes a Tensor's buffer to numpy while keeping the Tensor alive (as base)."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, tensor: Tensor):
        self.tensor = tensor
        self.__array_interface__ = tensor._interface()


def carries_dtype(value: object) -> bool:
    """Whether `value` fixes its own dtype (a Tensor, numpy data, or what stands for a
    tensor: a Variable, a variable's slice, IndexedSlices) rather than taking one from
    context (Python scalars and lists)."""
    return (isinstance(value, (Tensor, np.ndarray, np.generic))
            or hasattr(value, "_opgen_value"))


def dtype_of(value: Any) -> dtypes.DType:
    if isinstance(value, Tensor) or hasattr(value, "_opgen_value"):
        return value.dtype
    return dtypes.as_dtype(np.asarray(value).dtype)


def _from_numpy(array: np.ndarray, dtype: dtypes.DType) -> Tensor:
    runtime = _lib.lib()
    if dtype == dtypes.string:
        raw = _strings.new_string_tensor(_strings.string_array(array))
        status = _lib.thread_status()
        handle = runtime.TFE_NewTensorHandle(raw, status.ptr)
        runtime.TF_DeleteTensor(raw)
        raise_for_status(status)
        return Tensor(handle)
    if not array.dtype.isnative:  # byte-swapped data: tensors hold the machine's order
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:  # (np.ascontiguousarray would make scalars 1-d)
        array = array.copy(order="C")
    dims = (ctypes.c_int64 * array.ndim)(*array.shape)
    raw = runtime.TF_AllocateTensor(dtype.as_datatype_enum, dims, array.ndim, array.nbytes)
    if not raw:
        raise InvalidArgumentError(f"cannot allocate a {dtype.name} tensor of shape {array.shape}")
    if array.nbytes:
        ctypes.memmove(runtime.TF_TensorData(raw), array.ctypes.data, array.nbytes)
    status = _lib.thread_status()
    handle = runtime.TFE_NewTensorHandle(raw, status.ptr)
    runtime.TF_DeleteTensor(raw)  # the handle holds its own reference to the buffer
    raise_for_status(status)
    return Tensor(handle)


def convert_to_tensor(value: Any, dtype: Any = None) -> Tensor:
    """`value` as a Tensor.

    A Tensor passes through (InvalidArgumentError when `dtype` names another type).
    numpy data keeps its dtype unless `dtype` pins one, which it is cast to where
    TensorFlow allows (int -> int, int/float -> float, number -> complex). Python
    scalars and (nested) lists take `dtype`, or TensorFlow's defaults without one:
    float -> float32, int -> int32 (int64 when it does not fit), bool -> bool.
    """
    return _convert(value, dtypes.as_dtype(dtype) if dtype is not None else None, False)


def _convert(value: Any, want: dtypes.DType | None, strict: bool) -> Tensor:
    """As convert_to_tensor; with `strict`, numpy data must already have `want`'s dtype
    (how op inputs behave: TensorFlow does not cast an op's numpy inputs)."""
    if isinstance(value, Tensor):
        if want is not None and value._dtype != want:
            raise InvalidArgumentError(
                f"expected a {want.name} tensor, got a {value._dtype.name} tensor")
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        have = dtypes.as_dtype(array.dtype)
        if want is None or have == want:
            return _from_numpy(array, have)
        if strict or want.numpy_dtype is None or not castable_on_conversion(want, have):
            raise InvalidArgumentError(
                f"expected {want.name} data, got a numpy {array.dtype} value; cast it first")
        return _from_numpy(array.astype(want.numpy_dtype), want)
    as_value = getattr(value, "_opgen_value", None)
    if as_value is not None:  # an opgen.Variable: its current value
        return _convert(as_value(), want, strict)
    if want == dtypes.string:
        return _from_numpy(_strings.string_array(value), dtypes.string)
    if want is None:
        array = default_numpy_value(value)
        if array.dtype.kind in "SU":  # bytes / str (and lists of them)
            return _from_numpy(_strings.string_array(value), dtypes.string)
        if array.dtype == object:
            raise InvalidArgumentError(f"cannot convert {short_repr(value)} to a tensor")
        return _from_numpy(array, dtypes.as_dtype(array.dtype))
    if want.numpy_dtype is None:
        raise InvalidArgumentError(f"cannot make a {want.name} tensor from Python values")
    return _from_numpy(python_value_as(value, want), want)
