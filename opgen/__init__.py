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
    "registered_kernels", "debugging", "set_log_device_placement",
    "Variable", "global_variables_initializer", "variables_initializer", "summary",
    "gradients", "RegisterGradient", "NotDifferentiable", "GradientTape", "IndexedSlices",
    "function", "TensorSpec", "cond", "while_loop", "Module",
})

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ loads these on first use
    from typing import Any

    from opgen.runtime import (  # `X as X`: an explicit re-export
        DeviceInfo as DeviceInfo,
        DType as DType,
        GradientTape as GradientTape,
        Graph as Graph,
        IndexedSlices as IndexedSlices,
        Module as Module,
        NotDifferentiable as NotDifferentiable,
        Operation as Operation,
        Output as Output,
        RegisterGradient as RegisterGradient,
        Session as Session,
        SessionOptions as SessionOptions,
        Tensor as Tensor,
        TensorSpec as TensorSpec,
        Variable as Variable,
        as_dtype as as_dtype,
        bfloat16 as bfloat16,
        bool as bool,
        complex64 as complex64,
        complex128 as complex128,
        cond as cond,
        constant as constant,
        control_dependencies as control_dependencies,
        convert_to_tensor as convert_to_tensor,
        copy_to_device as copy_to_device,
        debugging as debugging,
        device as device,
        device_unavailable_reason as device_unavailable_reason,
        double as double,
        dtypes as dtypes,
        errors as errors,
        execute_op as execute_op,
        float16 as float16,
        float32 as float32,
        float64 as float64,
        from_dlpack as from_dlpack,
        function as function,
        get_default_graph as get_default_graph,
        gradients as gradients,
        half as half,
        import_graph_def as import_graph_def,
        int8 as int8,
        int16 as int16,
        int32 as int32,
        int64 as int64,
        list_devices as list_devices,
        load_op_library as load_op_library,
        name_scope as name_scope,
        newaxis as newaxis,
        registered_kernels as registered_kernels,
        reset_default_graph as reset_default_graph,
        set_log_device_placement as set_log_device_placement,
        string as string,
        summary as summary,
        uint8 as uint8,
        uint16 as uint16,
        uint32 as uint32,
        uint64 as uint64,
        while_loop as while_loop,
    )


def __getattr__(name: str) -> Any:
    if name in _RUNTIME_EXPORTS:
        from opgen import runtime
        return getattr(runtime, name)
    # The generated wrappers and the optimizers (both load the runtime's Python side).
    if name in ("ops", "train", "saved_model", "random"):
        import importlib
        return importlib.import_module(f"opgen.{name}")
    raise AttributeError(f"module 'opgen' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RUNTIME_EXPORTS | {"ops", "train", "saved_model", "random"})
