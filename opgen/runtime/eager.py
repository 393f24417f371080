"""``execute_op``: the one entry point generated Python code calls.

Per op, a plan is computed once from the runtime's OpDef (opgen.runtime._opplan: which
inputs are lists, which attrs they fix, how each attr converts, the same for graph
mode); a call then only converts its inputs, sets attrs and runs the op's kernel. The
C side checks attrs against the OpDef too; Python checks what only it can see (a value
of the wrong Python type) and names the op and attr in every error.

Where the compiled fast path (``opgen.runtime._eager_fastpath``) is built,
``execute_op`` is its C function: calls it has seen before (same op, attr values,
input kinds and dtypes) run their resolved kernel directly; everything else comes
back here, so results and errors are this module's either way.
"""

from __future__ import annotations

import ctypes
from typing import Any

from opgen.runtime import _context, _lib, devices, dtypes
from opgen.runtime._opplan import OpPlan, registry
from opgen.runtime.errors import InvalidArgumentError, OpError, exception_class
from opgen.runtime.graph import Output
from opgen.runtime.tensor import Tensor, _convert, carries_dtype, dtype_of

_fast_path = _context.fast_path


# ---- execution ----------------------------------------------------------------------------

def _convert_inputs(plan: OpPlan, inputs, attrs, op_type):
    resolved = plan.resolve_dtypes(inputs, attrs, carries_dtype, dtype_of) if plan.inferred else {}
    converted: list[Any] = []  # a Tensor per single input, a list of them per list input
    for (arg, kind, type_attr, fixed, _), value in zip(plan.inputs, inputs):
        try:
            if kind == "single":
                want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
                converted.append(_convert(value, want, True))
                continue
            if not isinstance(value, (list, tuple)):  # as TensorFlow: an array is not a list
                raise InvalidArgumentError(
                    f"input '{arg}' takes a list of tensors, got {type(value).__name__}")
            if kind == "number":
                want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
                converted.append([_convert(v, want, True) for v in value])
            else:
                types = attrs.get(type_attr)
                if types is not None:
                    if len(types) != len(value):
                        raise InvalidArgumentError(
                            f"input '{arg}' has {len(value)} tensors but attr '{type_attr}' "
                            f"lists {len(types)} types")
                    converted.append([_convert(v, t, True) for v, t in zip(value, types)])
                else:
                    converted.append([_convert(v, None, True) for v in value])
        except OpError as e:
            _check_not_graph_output(op_type, arg, value)
            raise type(e)(f"{op_type}: input '{arg}': {e.message}"
                          if not e.message.startswith("input '") else f"{op_type}: {e.message}",
                          op_type) from None
        except (TypeError, ValueError, NotImplementedError) as e:
            # (NotImplementedError: numpy was asked for a graph Output's values)
            _check_not_graph_output(op_type, arg, value)
            raise InvalidArgumentError(
                f"{op_type}: cannot convert input '{arg}' to a tensor: {e}", op_type) from None
    return converted


def _check_not_graph_output(op_type: str, arg: str, value) -> None:
    """A clear error for a graph Output passed to an op run eagerly (outside any
    ``Graph.as_default()`` block)."""
    values = value if isinstance(value, (list, tuple)) else (value,)
    found = next((v for v in values if isinstance(v, Output)), None)
    if found is not None:
        raise InvalidArgumentError(
            f"{op_type}: input '{arg}' is the graph output {found.name!r}, but no graph is "
            "the default here: build the op inside `with graph.as_default():`", op_type)


def _raise_status(op_type: str, code: int, message) -> None:
    """Raises the exception for a failed status of `op_type`, its message prefixed
    with the op's name."""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    if not message.startswith(op_type):
        message = f"{op_type}: {message}"
    raise exception_class(code)(message, op_type)


def _new_op(plan: OpPlan, op_type: str, inputs, attrs):
    """A TFE_Op with `inputs` converted and added and `attrs` checked and set, as
    TFE_Execute takes it; with the converted inputs and the number of tensors each
    output arg yields. The caller deletes the op."""
    plan.check_input_count(op_type, inputs)
    prepared = plan.prepare_attrs(op_type, attrs) if attrs or plan.required else {}
    converted = _convert_inputs(plan, inputs, prepared, op_type)
    inferred = plan.infer_attrs(op_type, converted, prepared)
    specs = plan.attrs
    lib = _lib.lib()
    status = _lib.thread_status()
    op = lib.TFE_NewOp(_context.eager_context(), plan.name_bytes, status.ptr)
    if status.code != 0:
        raise exception_class(status.code)(status.message, op_type)
    try:
        device = devices.eager_device_bytes()
        if device is not None:  # inside an opgen.device(...) scope
            lib.TFE_OpSetDevice(op, device, status.ptr)
            if status.code != 0:
                _raise_status(op_type, status.code, status.message)
        for value in converted:
            if isinstance(value, list):
                handles = (ctypes.c_void_p * len(value))(*[t._handle for t in value])
                lib.TFE_OpAddInputList(op, handles, len(value), status.ptr)
            else:
                lib.TFE_OpAddInput(op, value._handle, status.ptr)
            if status.code != 0:
                raise exception_class(status.code)(f"{op_type}: {status.message}", op_type)
        for attr_name, value in prepared.items():
            spec = specs[attr_name]
            spec.kind.set_eager(lib, op, spec.bname, value, status)  # type: ignore[union-attr]  # prepare_attrs refused kindless attrs
            if status.code != 0:
                _raise_status(op_type, status.code, status.message)
    except BaseException:
        lib.TFE_DeleteOp(op)
        raise
    return op, converted, plan.output_counts(prepared, inferred)


def _execute_op_python(op_type: str, inputs, attrs, name=None):
    """Runs `op_type` eagerly, on the device of this thread's ``opgen.device`` scope
    (the runtime's default placement outside one).

    `inputs` has one entry per OpDef input arg (a sequence for list args); `attrs`
    holds the attrs that are not inferred from inputs (dtype attrs may be DTypes,
    numpy dtypes or names). Returns one entry per output arg: a Tensor, or a list of
    Tensors for list outputs.

    This is the path through ctypes, which checks, converts and resolves every call
    from scratch (what TFE_Execute does, with the kernel's TF_Tensor outputs kept as
    they are, on whichever device holds them); ``execute_op`` is the compiled fast path
    where it is built, which sends here what it does not handle itself.
    """
    plan = registry._plans.get(op_type) or registry.plan(op_type)
    op, converted, counts = _new_op(plan, op_type, inputs, attrs)
    lib = _lib.lib()
    status = _lib.thread_status()
    try:
        kernel = lib.OPGEN_NewEagerKernel(op, status.ptr)
        if status.code != 0:
            _raise_status(op_type, status.code, status.message)
    finally:
        lib.TFE_DeleteOp(op)
    try:
        flat = [t._tensor for value in converted
                for t in (value if isinstance(value, list) else (value,))]
        num_outputs = lib.OPGEN_EagerKernelNumOutputs(kernel)
        if num_outputs > sum(counts):  # as TFE_Execute reports it
            raise InvalidArgumentError(
                f"{op_type} has {num_outputs} outputs, but room for only {sum(counts)}",
                op_type)
        outputs = (ctypes.c_void_p * max(num_outputs, 1))()
        lib.OPGEN_EagerKernelExecute(kernel, (ctypes.c_void_p * max(len(flat), 1))(*flat),
                                     len(flat), outputs, num_outputs, status.ptr)
        if status.code != 0:
            _raise_status(op_type, status.code, status.message)
    finally:
        lib.OPGEN_DeleteEagerKernel(kernel)
    tensors = [Tensor._from_tf_tensor(outputs[i]) for i in range(num_outputs)]
    if len(plan.op_def.output_arg) == 1 and len(tensors) == 1 and counts == [1] and not (
            plan.op_def.output_arg[0].number_attr or plan.op_def.output_arg[0].type_list_attr):
        return tensors  # (a list arg of one tensor is still a list: IdentityN([x]))
    return plan.group_outputs(tensors, counts)


# ---- the compiled fast path's side -------------------------------------------------------
#
# opgen.runtime._eager_fastpath matches each call against signatures (op, attr values,
# input kinds and dtypes) it has seen, and runs a matching one's kernel directly. A new
# signature is resolved here, with the same checks and errors as the Python path.

# Dtypes the fast path converts Python scalars to in C (as numpy's astype would).
_FAST_SCALAR_DTYPES = frozenset(d.as_datatype_enum for d in (
    dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bool))


def _scalar_dtypes_fixed(plan: OpPlan, inputs, attrs) -> bool:
    """Whether every Python scalar among `inputs` takes a dtype that does not depend on
    the scalar values (fixed by the OpDef, by attrs, or by an input carrying a dtype):
    only then can the resolution of this call serve later calls."""
    if any(kind != "single" and not isinstance(value, (list, tuple))
           for (_, kind, _, _, _), value in zip(plan.inputs, inputs)):
        return True  # not a valid call: _new_op raises the Python path's error
    carried = set()
    for (_, kind, type_attr, _, _), value in zip(plan.inputs, inputs):
        if type_attr and kind != "typelist":
            values = value if kind == "number" else (value,)
            if any(carries_dtype(v) for v in values):
                carried.add(type_attr)
    for (_, kind, type_attr, _, _), value in zip(plan.inputs, inputs):
        values = value if kind != "single" else (value,)
        if all(carries_dtype(v) for v in values):
            continue
        if type_attr is None or type_attr in attrs:
            continue
        if kind == "typelist" or type_attr not in carried:
            return False
    return True


def _resolve_fast_kernel(op_type: str, inputs, attrs):
    """For the fast path: (kernel address, dtype of each input tensor, output layout:
    -1 for a single tensor or the length of a list, per output arg), or None when this
    call cannot stand for later ones. Raises what the Python path raises."""
    plan = registry._plans.get(op_type) or registry.plan(op_type)
    if len(inputs) != len(plan.inputs) or any(
            plan.attr_types.get(a) == "tensor" for a in attrs):
        return None
    if not _scalar_dtypes_fixed(plan, inputs, attrs):
        return None
    op, converted, counts = _new_op(plan, op_type, inputs, attrs)
    lib = _lib.lib()
    status = _lib.thread_status()
    try:
        kernel = lib.OPGEN_NewEagerKernel(op, status.ptr)
        if status.code != 0:
            _raise_status(op_type, status.code, status.message)
    finally:
        lib.TFE_DeleteOp(op)
    flat = [t for value in converted for t in (value if isinstance(value, list) else (value,))]
    flat_values = [v for (_, kind, _, _, _), value in zip(plan.inputs, inputs)
                   for v in (value if kind != "single" else (value,))]
    if any(not carries_dtype(v) and t._dtype.as_datatype_enum not in _FAST_SCALAR_DTYPES
           for v, t in zip(flat_values, flat)):
        lib.OPGEN_DeleteEagerKernel(kernel)
        return None
    layout = tuple(count if arg.number_attr or arg.type_list_attr else -1
                   for arg, count in zip(plan.op_def.output_arg, counts))
    return kernel, tuple(t._dtype.as_datatype_enum for t in flat), layout


def _bind_fast_path():
    """The runtime's function addresses and dtypes, for the fast path (loads the library)."""
    runtime = _lib.lib()
    names = ("TF_NewStatus", "TF_DeleteStatus", "TF_GetCode", "TF_Message", "TF_NewTensor",
             "TF_AllocateTensor", "TF_DeleteTensor", "TF_TensorData", "TF_TensorByteSize",
             "TF_TensorType", "TF_NumDims", "TF_Dim", "TF_DataTypeSize", "TFE_NewTensorHandle",
             "TFE_DeleteTensorHandle", "TFE_TensorHandleResolve", "OPGEN_EagerKernelExecute",
             "OPGEN_EagerKernelNumInputs", "OPGEN_EagerKernelNumOutputs",
             "OPGEN_DeleteEagerKernel")
    addresses = {n: ctypes.cast(getattr(runtime, n), ctypes.c_void_p).value for n in names}
    for n in ("OPGEN_TensorDeviceName", "OPGEN_TensorHandleTensor"):  # absent from older runtimes
        fn = getattr(runtime, n, None)
        addresses[n] = ctypes.cast(fn, ctypes.c_void_p).value if fn is not None else None
    return addresses, dict(dtypes._BY_ENUM)


# ---- graph mode ---------------------------------------------------------------------------
#
# While some thread has a default graph (``Graph.as_default()``), opgen.runtime.graph_mode
# installs a dispatcher that every ``execute_op`` call goes to: it builds a node on that
# thread, and runs the op eagerly (``execute_eager``) on the others. Unset, the check is
# one pointer test in C (or one global read in the Python path).

_graph_dispatch = None


def set_graph_dispatch(dispatch) -> None:
    """Sends every execute_op call to `dispatch` (or, for None, nowhere but eager)."""
    global _graph_dispatch
    _graph_dispatch = dispatch
    if _fast_path is not None:
        _fast_path.set_graph_dispatch(dispatch)


def _execute_op_checked(op_type: str, inputs, attrs, name=None):
    if _graph_dispatch is not None:
        return _graph_dispatch(op_type, inputs, attrs, name)
    return _execute_op_python(op_type, inputs, attrs, name)


if _fast_path is not None:
    _fast_path.configure(binder=_bind_fast_path, python_execute=_execute_op_python,
                         resolver=_resolve_fast_kernel, raise_status=_raise_status,
                         tensor_class=Tensor)
    execute_op = _fast_path.execute_op
    execute_eager = _fast_path.execute_eager
else:
    execute_op = _execute_op_checked
    execute_eager = _execute_op_python
