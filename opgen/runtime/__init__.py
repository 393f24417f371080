"""Python binding of opgen's C runtime: tensors, dtypes, errors, eager execution,
graphs run by sessions, devices (``list_devices``, ``device``, ``copy_to_device``),
the kernels registered for them (``registered_kernels``) and DLPack (``from_dlpack``;
see docs/gpu.md).

The shared library is loaded on first use, not at import, so generated op modules
import anywhere.
"""

from opgen.runtime import debugging, dtypes, errors, summary
from opgen.runtime.backprop import GradientTape
from opgen.runtime.constant_op import constant
from opgen.runtime.control_flow_v2 import cond, while_loop
from opgen.runtime.debugging import set_log_device_placement
from opgen.runtime.devices import (
    DeviceInfo,
    copy_to_device,
    device_unavailable_reason,
    list_devices,
)
from opgen.runtime.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from opgen.runtime.eager import execute_op
from opgen.runtime.functions import TensorSpec, function
from opgen.runtime.graph import (
    Graph,
    Operation,
    Output,
    get_default_graph,
    reset_default_graph,
)
from opgen.runtime.gradients_impl import NotDifferentiable, RegisterGradient, gradients
from opgen.runtime.graph_import import import_graph_def
from opgen.runtime.graph_mode import control_dependencies, device, name_scope
from opgen.runtime.indexed_slices import IndexedSlices
from opgen.runtime.kernels import registered_kernels
from opgen.runtime.memory import cached_host_memory_bytes, release_cached_host_memory
from opgen.runtime.module import Module
from opgen.runtime.op_library import load_op_library
from opgen.runtime.session import Session, SessionOptions
from opgen.runtime.tensor import Tensor, convert_to_tensor
from opgen.runtime.variables import (
    Variable,
    global_variables_initializer,
    variables_initializer,
)

__all__ = [
    "DType",
    "DeviceInfo",
    "GradientTape",
    "Graph",
    "IndexedSlices",
    "Module",
    "NotDifferentiable",
    "Operation",
    "Output",
    "RegisterGradient",
    "Session",
    "SessionOptions",
    "Tensor",
    "TensorSpec",
    "Variable",
    "as_dtype",
    "bfloat16",
    "bool",
    "cached_host_memory_bytes",
    "complex64",
    "complex128",
    "cond",
    "constant",
    "control_dependencies",
    "convert_to_tensor",
    "copy_to_device",
    "debugging",
    "device",
    "device_unavailable_reason",
    "double",
    "dtypes",
    "errors",
    "execute_op",
    "float16",
    "float32",
    "float64",
    "from_dlpack",
    "function",
    "get_default_graph",
    "global_variables_initializer",
    "gradients",
    "half",
    "import_graph_def",
    "int8",
    "int16",
    "int32",
    "int64",
    "list_devices",
    "load_op_library",
    "name_scope",
    "newaxis",
    "registered_kernels",
    "release_cached_host_memory",
    "reset_default_graph",
    "set_log_device_placement",
    "string",
    "summary",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "variables_initializer",
    "while_loop",
]

#: ``t[opgen.newaxis]`` adds a dimension of size 1 (it is None, as ``tf.newaxis``).
newaxis = None


def from_dlpack(obj: object) -> Tensor:
    """A Tensor sharing the memory of `obj` (anything with ``__dlpack__``: a numpy
    array, a PyTorch, CuPy or JAX tensor, on the CPU or a CUDA GPU; or a DLPack
    capsule). See :func:`opgen.runtime.dlpack.from_dlpack`."""
    from opgen.runtime import dlpack  # ctypes declarations made on first use
    return dlpack.from_dlpack(obj)
