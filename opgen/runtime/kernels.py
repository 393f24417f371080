"""Which kernels the runtime has: every op implementation on every device type, as
TensorFlow's ``TF_GetAllRegisteredKernels`` lists them.

The list covers the built-in CPU kernels, the CUDA plugin's GPU kernels wherever the
plugin was built (a machine without a GPU lists them too; nothing runs there until a GPU
exists) and the kernels of libraries loaded with :func:`opgen.load_op_library`.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from opgen.runtime import _context, _lib
from opgen.runtime.errors import raise_for_status

if TYPE_CHECKING:
    from opgen.protos import kernel_def_pb2


def registered_kernels(op_name: str | None = None) -> kernel_def_pb2.KernelList:
    """The registered kernels, as a ``KernelList`` proto (``opgen.protos.kernel_def_pb2``):
    all of them, or those of `op_name` (an empty list for an op without kernels).

    Each ``KernelDef`` gives the op, the device type (``"CPU"``, ``"GPU"``), one
    constraint per type attr allowing the one dtype the kernel is registered for, the
    host-memory args, the label and the priority::

        >>> gpu = {(k.op, tuple(c.allowed_values.list.type[0] for c in k.constraint))
        ...        for k in opgen.registered_kernels("MatMul").kernel if k.device_type == "GPU"}
    """
    if op_name is not None and not isinstance(op_name, str):
        raise TypeError(f"op_name is a string, got {op_name!r}")
    d = _runtime_kernel_lib()
    if op_name is None:
        return _kernel_list(lambda status: d.TF_GetAllRegisteredKernels(status))
    return _kernel_list(lambda status: d.TF_GetRegisteredKernelsForOp(op_name.encode(), status))


def instantiated_kernels() -> kernel_def_pb2.KernelList:
    """The kernels this process has made an instance of so far (an eager op or a graph
    node ran, or was planned to run, on them), as a ``KernelList``: with
    :func:`registered_kernels`, which kernels a test run never reached. The GPU tests
    report it (tests/gpu/conftest.py)."""
    d = _runtime_kernel_lib()
    return _kernel_list(lambda status: d.OPGEN_GetInstantiatedKernels(status))


def _runtime_kernel_lib():
    _context.eager_context()  # the runtime initialises, loading its device plugins
    return _lib.device_lib()


def _kernel_list(call) -> kernel_def_pb2.KernelList:
    from opgen.protos import kernel_def_pb2
    status = _lib.thread_status()
    buf = call(status.ptr)
    raise_for_status(status)
    try:
        return kernel_def_pb2.KernelList.FromString(
            ctypes.string_at(buf.contents.data, buf.contents.length))
    finally:
        _lib.lib().TF_DeleteBuffer(buf)


def describe_kernel(kernel: kernel_def_pb2.KernelDef) -> str:
    """One kernel as a tab-separated line: op, device type, its dtypes (``attr=dtype``,
    attrs sorted), then host-memory args, label and priority where set. What
    ``opgen kernels`` prints::

        MatMul  GPU  T=bfloat16
        GatherV2  GPU  Taxis=int32 Tindices=int64 Tparams=float32  host_memory=axis
    """
    from opgen.runtime.dtypes import as_dtype

    def dtype(value: int) -> str:  # tf.DType's names, as `opgen show` prints them
        try:
            return as_dtype(value).name
        except TypeError:
            return str(value)

    constraints = sorted(kernel.constraint, key=lambda c: c.name)
    fields = [kernel.op, kernel.device_type,
              " ".join(f"{c.name}={','.join(dtype(t) for t in c.allowed_values.list.type)}"
                       for c in constraints) or "-"]
    if kernel.host_memory_arg:
        fields.append("host_memory=" + ",".join(kernel.host_memory_arg))
    if kernel.label:
        fields.append(f"label={kernel.label}")
    if kernel.priority:
        fields.append(f"priority={kernel.priority}")
    return "\t".join(fields)
