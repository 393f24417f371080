"""opgen: language bindings generated from TensorFlow OpDefs, and the runtime behind them.

``import opgen`` stays cheap: the generator (``opgen.cli``, ``opgen.generate``) never
loads the runtime library. Runtime names (``opgen.Tensor``, ``opgen.constant``,
``opgen.errors``, ``opgen.float32`` ...) are resolved from :mod:`opgen.runtime` on first
use, and the generated op wrappers, :mod:`opgen.ops`, on first use of ``opgen.ops``::

    import numpy as np
    import opgen
    t = opgen.constant([1.0, 2.0])
    opgen.ops.add_v2(t, np.ones(2, np.float32)) * 2
"""

from __future__ import annotations

# `typing` is not imported: it would double the cost of `import opgen` (type checkers
# read this name as typing.TYPE_CHECKING; annotations here are never evaluated).
TYPE_CHECKING = False

__version__ = "0.1.0"

# Names re-exported from opgen.runtime, loaded lazily (PEP 562).
_RUNTIME_EXPORTS = frozenset({
    "Tensor", "constant", "convert_to_tensor", "execute_op", "dtypes", "errors", "DType",
    "as_dtype", "newaxis",
    "float16", "half", "bfloat16", "float32", "float64", "double", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string",
    "complex64", "complex128",
    "Graph", "Operation", "Output", "Session", "SessionOptions", "get_default_graph",
    "import_graph_def",
    "reset_default_graph", "name_scope", "device", "control_dependencies", "load_op_library",
    "DeviceInfo", "list_devices", "device_unavailable_reason", "copy_to_device", "from_dlpack",
    "registered_kernels",
})

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ loads these on first use
    from typing import Any

    from opgen.runtime import (  # noqa: F401
        DeviceInfo,
        DType,
        Graph,
        Operation,
        Output,
        Session,
        SessionOptions,
        Tensor,
        as_dtype,
        bfloat16,
        bool,
        complex64,
        complex128,
        constant,
        control_dependencies,
        convert_to_tensor,
        copy_to_device,
        device,
        device_unavailable_reason,
        double,
        dtypes,
        errors,
        execute_op,
        float16,
        float32,
        float64,
        from_dlpack,
        get_default_graph,
        half,
        import_graph_def,
        int8,
        int16,
        int32,
        int64,
        list_devices,
        load_op_library,
        name_scope,
        newaxis,
        registered_kernels,
        reset_default_graph,
        string,
        uint8,
        uint16,
        uint32,
        uint64,
    )


def __getattr__(name: str) -> Any:
    if name in _RUNTIME_EXPORTS:
        from opgen import runtime
        return getattr(runtime, name)
    if name == "ops":  # the generated wrappers (importing them loads the runtime's Python side)
        import importlib
        return importlib.import_module("opgen.ops")
    raise AttributeError(f"module 'opgen' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RUNTIME_EXPORTS | {"ops"})
