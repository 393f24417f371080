"""Devices: which ones the runtime has, where a tensor's data lives, copies between
devices, and the eager device scope behind ``opgen.device(...)``.

Device names are TensorFlow's: ``"/job:localhost/replica:0/task:0/device:GPU:0"`` in
full. Wherever a device is named, TensorFlow's shorter spellings work too:
``"/device:GPU:0"``, ``"/GPU:0"``, ``"GPU:0"``, ``"gpu:0"``, ``"/gpu:0"`` and ``"GPU"``
(ordinal 0). The CPU is always the first device.

Eagerly, ``with opgen.device("/GPU:0"):`` makes the ops called inside the block run on
that device (this thread only). The runtime places each op: on the named device where
it has that device and a kernel there for the op, on the CPU otherwise (TensorFlow's
soft placement: a GPU scope on a machine without one runs on the CPU). Outside any
scope ops run on the CPU. The compiled fast path keys its cached kernels on the
thread's device, so a scope costs nothing where none is open.
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from opgen.runtime import _context, _lib
from opgen.runtime._lib import CPU_DEVICE_NAME, tensor_device_name
from opgen.runtime.errors import raise_for_status
from opgen.runtime.tensor import Tensor, convert_to_tensor

_fast_path = _context.fast_path
_CPU_DEVICE_NAME_BYTES = CPU_DEVICE_NAME.encode()


@dataclass(frozen=True)
class DeviceInfo:
    """One device of the runtime, as :func:`list_devices` reports it."""

    name: str
    """TensorFlow's full name: ``"/job:localhost/replica:0/task:0/device:GPU:0"``."""
    device_type: str
    """``"CPU"`` or ``"GPU"``."""
    description: str
    """What the device says of itself: ``"host"`` for the CPU, the model and compute
    capability for a GPU (``"NVIDIA H100 80GB HBM3, compute capability 9.0"``)."""
    memory_bytes: int
    """The device's memory in bytes; 0 where unknown (the CPU)."""

    @property
    def ordinal(self) -> int:
        """The device's number among those of its type (the ``0`` of ``GPU:0``)."""
        return int(self.name.rsplit(":", 1)[1])


def list_devices() -> list[DeviceInfo]:
    """The runtime's devices: the CPU first, then each GPU the CUDA plugin added.

    Loads the runtime (and with it the CUDA plugin, where one was built) on first use.
    Where a GPU is missing, :func:`device_unavailable_reason` says why."""
    ctx = _context.eager_context()
    d = _lib.device_lib()
    if d.TFE_ContextListDevices is None:  # a runtime without devices: the CPU only
        return [DeviceInfo(CPU_DEVICE_NAME, "CPU", "host", 0)]
    status = _lib.thread_status()
    devices = d.TFE_ContextListDevices(ctx, status.ptr)
    raise_for_status(status)
    try:
        found = []
        for i in range(d.TF_DeviceListCount(devices)):
            name = d.TF_DeviceListName(devices, i, status.ptr)
            raise_for_status(status)
            device_type = d.TF_DeviceListType(devices, i, status.ptr)
            raise_for_status(status)
            memory = d.TF_DeviceListMemoryBytes(devices, i, status.ptr)
            raise_for_status(status)
            description = b""
            if d.OPGEN_DeviceListDescription is not None:
                description = d.OPGEN_DeviceListDescription(devices, i, status.ptr) or b""
                raise_for_status(status)
            found.append(DeviceInfo(name.decode(), device_type.decode(),
                                    description.decode("utf-8", "replace"), int(memory)))
        return found
    finally:
        d.TF_DeleteDeviceList(devices)


def device_unavailable_reason(device_type: str = "GPU") -> str | None:
    """Why the runtime has no device of `device_type` (``"GPU"``): no CUDA driver, no
    GPU, a driver too old ...; None when it has one, or when this build of opgen has no
    plugin for that type (it was built without nvcc) and so nothing tried."""
    _context.eager_context()  # plugins load, and fail, while the runtime initialises
    d = _lib.device_lib()
    if d.OPGEN_DeviceUnavailableReason is None:
        return None
    reason = d.OPGEN_DeviceUnavailableReason(str(device_type).upper().encode())
    return reason.decode("utf-8", "replace") if reason else None


# ---- device names --------------------------------------------------------------------------

def parse_device_name(spec) -> tuple[str, int] | None:
    """(device type, ordinal) of a device name in any of TensorFlow's spellings (or of
    a DeviceInfo); None for one that names no device ("" or only a job/task);
    ValueError when malformed."""
    if isinstance(spec, DeviceInfo):
        spec = spec.name
    if not isinstance(spec, str):
        raise TypeError(f"a device name is a string, got {spec!r}")
    device = None
    for part in spec.strip().split("/"):
        if not part:
            continue
        key = part.split(":", 1)[0].lower()
        if key in ("job", "replica", "task"):
            continue
        if key == "device":
            part = part[len("device:"):]
        fields = part.split(":")
        kind = fields[0]
        if len(fields) > 2 or not kind or not kind.replace("_", "").isalnum() or kind[0].isdigit():
            raise ValueError(f"malformed device name {spec!r}: expected e.g. '/GPU:0', "
                             "'/device:CPU:0' or '/job:localhost/replica:0/task:0/device:GPU:0'")
        ordinal = 0
        if len(fields) == 2 and fields[1] != "*":
            if not fields[1].isdigit():
                raise ValueError(f"malformed device name {spec!r}: the device number "
                                 f"{fields[1]!r} is not a non-negative integer")
            ordinal = int(fields[1])
        device = (kind.upper(), ordinal)
    return device


@functools.lru_cache(maxsize=256)
def canonical_device_name(spec) -> str | None:
    """TensorFlow's full name of the device `spec` names ("/gpu:0" ->
    "/job:localhost/replica:0/task:0/device:GPU:0"); None when it names none."""
    parsed = parse_device_name(spec)
    if parsed is None:
        return None
    return f"/job:localhost/replica:0/task:0/device:{parsed[0]}:{parsed[1]}"


# ---- the eager device of each thread --------------------------------------------------------
#
# Each device name gets a small index (0: no device, the runtime's default placement).
# The compiled fast path keeps this thread's index in C, where its per-call check is
# one thread-local load; without it, a threading.local holds it.

_names_lock = threading.Lock()
_device_names: list[str | None] = [None]      # index -> full name
_name_bytes: list[bytes | None] = [None]      # index -> the same, encoded for the C API
_index_of: dict[str, int] = {}

if _fast_path is not None:
    _get_index = _fast_path.eager_device
    _set_index = _fast_path.set_eager_device
else:
    _thread_state = threading.local()

    def _get_index() -> int:
        return getattr(_thread_state, "index", 0)

    def _set_index(index: int) -> None:
        _thread_state.index = index


def _device_index(name: str | None) -> int:
    if name is None:
        return 0
    index = _index_of.get(name)
    if index is None:
        with _names_lock:
            index = _index_of.get(name)
            if index is None:
                _device_names.append(name)
                _name_bytes.append(name.encode())
                index = _index_of[name] = len(_device_names) - 1
    return index


def eager_device() -> str | None:
    """The full name of the device the innermost ``opgen.device`` scope of this thread
    names (the runtime runs an op there where it can, else on the CPU), or None
    outside any scope (ops run on the CPU)."""
    return _device_names[_get_index()]


def eager_device_bytes() -> bytes | None:
    """eager_device() encoded for TFE_OpSetDevice (the per-call path's view)."""
    return _name_bytes[_get_index()]


def set_eager_device(spec) -> int:
    """Makes `spec` (None: no device) this thread's eager device; returns the previous
    one's index, for :func:`restore_eager_device`."""
    index = _device_index(None if spec is None else canonical_device_name(spec))
    previous = _get_index()
    _set_index(index)
    return previous


def restore_eager_device(previous: int) -> None:
    _set_index(previous)


@contextmanager
def eager_device_scope(spec):
    """Runs the eager ops of this thread inside the block on device `spec` (None: the
    runtime's default placement, the CPU). Where the runtime lacks that device, or a
    kernel there for an op, the op runs on the CPU (the runtime decides, per op)."""
    previous = set_eager_device(spec)
    try:
        yield
    finally:
        _set_index(previous)


# ---- where tensors live, copies --------------------------------------------------------------

def _copy_tf_tensor(tf_tensor: int, device_name: bytes) -> Tensor:
    return Tensor._from_tf_tensor(_lib.copy_tf_tensor(tf_tensor, device_name))


def host_copy(tensor: Tensor) -> Tensor:
    """`tensor` with its data in host memory (itself when it is there already)."""
    if tensor._on_host:
        return tensor
    return _copy_tf_tensor(tensor._tensor, _CPU_DEVICE_NAME_BYTES)  # type: ignore[arg-type]


def copy_to_device(value, device: str) -> Tensor:
    """`value` (a Tensor, or anything convert_to_tensor takes) as a Tensor on `device`
    ("/GPU:0", "/CPU:0", ...): a copy, or `value` itself where its data is there
    already. A copy to the CPU waits for the device; one to a GPU is queued. Unlike
    a device scope, an unknown device is an error (InvalidArgumentError)."""
    tensor = value if isinstance(value, Tensor) else convert_to_tensor(value)
    name = canonical_device_name(device)
    if name is None:
        raise ValueError(f"{device!r} names no device")
    if name == CPU_DEVICE_NAME and tensor._on_host:
        return tensor
    return _copy_tf_tensor(tensor._tensor, name.encode())  # type: ignore[arg-type]


def synchronize(device: str) -> None:
    """Waits until the work queued on `device` is done (nothing to wait for on the CPU)."""
    name = canonical_device_name(device)
    if name is not None:
        _lib.synchronize_device(name)


__all__ = ["CPU_DEVICE_NAME", "DeviceInfo", "canonical_device_name", "copy_to_device",
           "device_unavailable_reason", "eager_device", "eager_device_scope", "host_copy",
           "list_devices", "parse_device_name", "restore_eager_device", "set_eager_device",
           "synchronize", "tensor_device_name"]
