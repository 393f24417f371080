"""opgen: language bindings generated from TensorFlow OpDefs, and the runtime behind them.

``import opgen`` stays cheap: the generator (``opgen.cli``, ``opgen.generate``) never
loads the runtime library. Runtime names (``opgen.Tensor``, ``opgen.errors``,
``opgen.float32`` ...) are resolved from :mod:`opgen.runtime` on first use, and the
generated op wrappers live in :mod:`opgen.ops`::

    import numpy as np
    from opgen import ops
    ops.add_v2(np.ones(3), np.ones(3))
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# Names re-exported from opgen.runtime, loaded lazily (PEP 562).
_RUNTIME_EXPORTS = frozenset({
    "Tensor", "convert_to_tensor", "execute_op", "dtypes", "errors", "DType", "as_dtype",
    "float16", "half", "bfloat16", "float32", "float64", "double", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string",
    "complex64", "complex128",
    "Graph", "Operation", "Output", "Session", "SessionOptions", "get_default_graph",
    "import_graph_def",
    "reset_default_graph", "name_scope", "device", "control_dependencies", "load_op_library",
    "DeviceInfo", "list_devices", "device_unavailable_reason", "copy_to_device", "from_dlpack",
    "registered_kernels",
})


def __getattr__(name: str) -> Any:
    if name in _RUNTIME_EXPORTS:
        from opgen import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module 'opgen' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RUNTIME_EXPORTS | {"ops"})
