"""Which kernels the runtime has: every op implementation on every device type, as
TensorFlow's ``TF_GetAllRegisteredKernels`` lists them.

The list covers the built-in CPU kernels, the CUDA plugin's GPU kernels wherever the
plugin was built (a machine without a GPU lists them too; nothing runs there until a GPU
exists) and the kernels of libraries loaded with :func:`opgen.load_op_library`.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from opgen.runtime import _lib
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
    from opgen.protos import kernel_def_pb2
    from opgen.runtime.eager import _Context
    _Context.get()  # the runtime initialises, loading its device plugins
    d = _lib.device_lib()
    status = _lib.thread_status()
    if op_name is None:
        buf = d.TF_GetAllRegisteredKernels(status.ptr)
    else:
        if not isinstance(op_name, str):
            raise TypeError(f"op_name is a string, got {op_name!r}")
        buf = d.TF_GetRegisteredKernelsForOp(op_name.encode(), status.ptr)
    raise_for_status(status)
    try:
        return kernel_def_pb2.KernelList.FromString(
            ctypes.string_at(buf.contents.data, buf.contents.length))
    finally:
        _lib.lib().TF_DeleteBuffer(buf)
