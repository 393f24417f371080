"""``execute_op``: the one entry point generated Python code calls.

Per op, a plan is computed once from the runtime's OpDef (which inputs are lists,
which attrs they fix, how to set each attr); a call then only converts its inputs,
sets attrs and runs ``TFE_Execute``. The C side checks attrs against the OpDef too;
Python checks what only it can see (a value of the wrong Python type) and names the
op and attr in every error.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field

import numpy as np

from opgen.protos import op_def_pb2
from opgen.runtime import _lib, dtypes
from opgen.runtime.errors import InvalidArgumentError, NotFoundError, OpError, exception_class
from opgen.runtime.tensor import (Tensor, carries_dtype, convert_to_tensor, default_numpy_value,
                                  dtype_of)

_c_int64, _c_float, _c_ubyte, _c_int = ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte, ctypes.c_int


# ---- attr setters, one per OpDef attr type ----------------------------------------------

def _shape_dims(value):
    """(dims array, rank) for a shape given as None (unknown rank) or a sequence with
    None / -1 for unknown dims."""
    if value is None:
        return None, -1
    dims = [-1 if d is None else int(d) for d in value]
    return (_c_int64 * len(dims))(*dims), len(dims)


def _set_type(lib, op, name, value, status):
    lib.TFE_OpSetAttrType(op, name, dtypes.as_dtype(value).as_datatype_enum)


def _set_int(lib, op, name, value, status):
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"expected an int, got {value!r}")
    lib.TFE_OpSetAttrInt(op, name, int(value))


def _set_float(lib, op, name, value, status):
    lib.TFE_OpSetAttrFloat(op, name, float(value))


def _set_bool(lib, op, name, value, status):
    if not isinstance(value, (bool, int)):
        raise TypeError(f"expected a bool, got {value!r}")
    lib.TFE_OpSetAttrBool(op, name, 1 if value else 0)


def _set_string(lib, op, name, value, status):
    data = value.encode() if isinstance(value, str) else bytes(value)
    lib.TFE_OpSetAttrString(op, name, data, len(data))


def _set_shape(lib, op, name, value, status):
    dims, rank = _shape_dims(value)
    lib.TFE_OpSetAttrShape(op, name, dims, rank, status.ptr)


def _set_tensor(lib, op, name, value, status):
    """`value` is a Tensor already converted with the op's `dtype` attr, if it has one."""
    lib.TFE_OpSetAttrTensor(op, name, value._tensor, status.ptr)


def _set_type_list(lib, op, name, value, status):
    values = [dtypes.as_dtype(v).as_datatype_enum for v in value]
    lib.TFE_OpSetAttrTypeList(op, name, (_c_int * len(values))(*values), len(values))


def _set_int_list(lib, op, name, value, status):
    values = [int(v) for v in value]
    lib.TFE_OpSetAttrIntList(op, name, (_c_int64 * len(values))(*values), len(values))


def _set_float_list(lib, op, name, value, status):
    values = [float(v) for v in value]
    lib.TFE_OpSetAttrFloatList(op, name, (_c_float * len(values))(*values), len(values))


def _set_bool_list(lib, op, name, value, status):
    values = [1 if v else 0 for v in value]
    lib.TFE_OpSetAttrBoolList(op, name, (_c_ubyte * len(values))(*values), len(values))


def _set_string_list(lib, op, name, value, status):
    data = [v.encode() if isinstance(v, str) else bytes(v) for v in value]
    lib.TFE_OpSetAttrStringList(op, name, (ctypes.c_char_p * len(data))(*data),
                                (ctypes.c_size_t * len(data))(*map(len, data)), len(data))


def _set_shape_list(lib, op, name, value, status):
    shapes = [_shape_dims(v) for v in value]
    dims = (ctypes.POINTER(_c_int64) * len(shapes))(
        *[ctypes.cast(d, ctypes.POINTER(_c_int64)) if d is not None else None for d, _ in shapes])
    ranks = (_c_int * len(shapes))(*[r for _, r in shapes])
    lib.TFE_OpSetAttrShapeList(op, name, dims, ranks, len(shapes), status.ptr)


_SETTERS = {
    "type": _set_type, "int": _set_int, "float": _set_float, "bool": _set_bool,
    "string": _set_string, "shape": _set_shape, "tensor": _set_tensor,
    "list(type)": _set_type_list,
    "list(int)": _set_int_list, "list(float)": _set_float_list, "list(bool)": _set_bool_list,
    "list(string)": _set_string_list, "list(shape)": _set_shape_list,
}


# ---- per-op plans ---------------------------------------------------------------------------

@dataclass
class _OpPlan:
    op_def: op_def_pb2.OpDef
    name_bytes: bytes
    attr_types: dict[str, str]
    attr_defaults: dict[str, object]
    # For each input: (arg name, "single" | "number" | "typelist", type attr or None,
    # fixed dtype, number attr or None)
    inputs: list[tuple[str, str, str | None, int, str | None]] = field(default_factory=list)
    # Defaults of the type attrs that inputs use: the dtype Python values take when
    # no input carries one.
    input_type_defaults: dict[str, dtypes.DType] = field(default_factory=dict)


def _default_value(attr: op_def_pb2.OpDef.AttrDef):
    if not attr.HasField("default_value"):
        return None
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(v.type)
    if kind == "i":
        return v.i
    if kind == "list":
        return list(v.list.type) or list(v.list.i) or list(v.list.s) or []
    return None


class _Registry:
    """OpDefs of the runtime's registry, parsed once and refreshed on a miss (a library
    loaded later may have added ops)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._op_defs: dict[str, op_def_pb2.OpDef] = {}
        self._plans: dict[str, _OpPlan] = {}

    def _refresh(self):
        oplist = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
        self._op_defs = {op.name: op for op in oplist.op}

    def plan(self, op_type: str) -> _OpPlan:
        plan = self._plans.get(op_type)
        if plan is not None:
            return plan
        with self._lock:
            if op_type not in self._op_defs:
                self._refresh()
            op_def = self._op_defs.get(op_type)
            if op_def is None:
                raise NotFoundError(f"Op type not registered '{op_type}' in the opgen runtime",
                                    op_type)
            plan = _OpPlan(op_def, op_type.encode(),
                           {a.name: a.type for a in op_def.attr},
                           {a.name: _default_value(a) for a in op_def.attr})
            for arg in op_def.input_arg:
                if arg.type_list_attr:
                    plan.inputs.append((arg.name, "typelist", arg.type_list_attr, 0, None))
                elif arg.number_attr:
                    plan.inputs.append((arg.name, "number", arg.type_attr or None, arg.type,
                                        arg.number_attr))
                else:
                    plan.inputs.append((arg.name, "single", arg.type_attr or None, arg.type, None))
                if arg.type_attr and plan.attr_defaults.get(arg.type_attr) is not None:
                    plan.input_type_defaults[arg.type_attr] = plan.attr_defaults[arg.type_attr]
            self._plans[op_type] = plan
            return plan

    def op_def(self, op_type: str) -> op_def_pb2.OpDef:
        return self.plan(op_type).op_def


registry = _Registry()


class _Context:
    """The process-wide eager context, created on first use."""

    _ctx = None
    _lock = threading.Lock()

    @classmethod
    def get(cls):
        if cls._ctx is None:
            with cls._lock:
                if cls._ctx is None:
                    lib = _lib.lib()
                    status = _lib.thread_status()
                    options = lib.TFE_NewContextOptions()
                    ctx = lib.TFE_NewContext(options, status.ptr)
                    lib.TFE_DeleteContextOptions(options)
                    if status.code != 0:
                        raise exception_class(status.code)(status.message)
                    cls._ctx = ctx
        return cls._ctx


# ---- execution ----------------------------------------------------------------------------

def _resolve_dtypes(plan: _OpPlan, inputs, attrs) -> dict[str, dtypes.DType]:
    """The dtype of each type attr that inputs use: given in attrs, else from the first
    input that carries a dtype, else the attr's default; Python values take what this
    yields (or TensorFlow's defaults when nothing does)."""
    resolved: dict[str, dtypes.DType] = {}
    for (arg, kind, type_attr, _, _), value in zip(plan.inputs, inputs):
        if type_attr is None or kind == "typelist" or type_attr in resolved:
            continue
        if type_attr in attrs:
            resolved[type_attr] = dtypes.as_dtype(attrs[type_attr])
            continue
        values = value if kind == "number" else [value]
        for v in values:
            if carries_dtype(v):
                resolved[type_attr] = dtype_of(v)
                break
    # An attr default is only a preference for Python values, as in TensorFlow: Range's
    # Tidx defaults to int32, yet Range(0.5, 2.0, 0.25) is float32.
    for name, default in plan.input_type_defaults.items():
        if name in resolved:
            continue
        python_values = [v for (_, kind, type_attr, _, _), value in zip(plan.inputs, inputs)
                         if type_attr == name for v in (value if kind == "number" else [value])]
        if default.is_integer and any(np.asarray(v).dtype.kind in "fc" for v in python_values):
            resolved[name] = dtype_of(default_numpy_value(python_values[0]))
        else:
            resolved[name] = default
    return resolved


def _convert_inputs(plan: _OpPlan, inputs, attrs, op_type):
    resolved = _resolve_dtypes(plan, inputs, attrs)
    converted = []
    for (arg, kind, type_attr, fixed, _), value in zip(plan.inputs, inputs):
        if kind == "single":
            want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
            converted.append(convert_to_tensor(value, want))
            continue
        if not isinstance(value, (list, tuple)):  # as TensorFlow: an array is not a list
            raise InvalidArgumentError(
                f"{op_type}: input '{arg}' takes a list of tensors, got {type(value).__name__}",
                op_type)
        if kind == "number":
            want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
            converted.append([convert_to_tensor(v, want) for v in value])
        else:
            types = attrs.get(type_attr)
            if types is not None and len(types) == len(value):
                converted.append([convert_to_tensor(v, t) for v, t in zip(value, types)])
            else:
                converted.append([convert_to_tensor(v) for v in value])
    return converted


def _output_counts(plan: _OpPlan, inputs, attrs) -> list[int]:
    """How many tensors each output arg yields, from attrs given or inferred."""
    inferred = {}
    for (_, kind, type_attr, _, number_attr), value in zip(plan.inputs, inputs):
        if kind == "number":
            inferred[number_attr] = len(value)
        elif kind == "typelist":
            inferred[type_attr] = value
    counts = []
    for arg in plan.op_def.output_arg:
        if arg.number_attr:
            n = attrs.get(arg.number_attr, inferred.get(arg.number_attr,
                                                        plan.attr_defaults.get(arg.number_attr)))
            counts.append(int(n or 0))
        elif arg.type_list_attr:
            types = attrs.get(arg.type_list_attr, inferred.get(arg.type_list_attr,
                                                                plan.attr_defaults.get(arg.type_list_attr)))
            counts.append(len(types or []))
        else:
            counts.append(1)
    return counts


def execute_op(op_type: str, inputs, attrs, name=None):
    """Runs `op_type` eagerly on the CPU.

    `inputs` has one entry per OpDef input arg (a sequence for list args); `attrs`
    holds the attrs that are not inferred from inputs. Returns one entry per output
    arg: a Tensor, or a list of Tensors for list outputs.
    """
    plan = registry.plan(op_type)
    if len(inputs) != len(plan.inputs):
        raise InvalidArgumentError(
            f"{op_type} takes {len(plan.inputs)} inputs, got {len(inputs)}", op_type)
    for attr_name in attrs:
        if attr_name not in plan.attr_types:
            raise InvalidArgumentError(f"{op_type} has no attr named '{attr_name}'", op_type)
    try:
        converted = _convert_inputs(plan, inputs, attrs, op_type)
    except OpError as e:
        raise type(e)(f"{op_type}: {e.message}", op_type) from None
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"{op_type}: cannot convert an input to a tensor: {e}",
                                   op_type) from None
    lib = _lib.lib()
    status = _lib.thread_status()
    op = lib.TFE_NewOp(_Context.get(), plan.name_bytes, status.ptr)
    if status.code != 0:
        raise exception_class(status.code)(status.message, op_type)
    try:
        for value in converted:
            if isinstance(value, list):
                handles = (ctypes.c_void_p * len(value))(*[t._handle for t in value])
                lib.TFE_OpAddInputList(op, handles, len(value), status.ptr)
            else:
                lib.TFE_OpAddInput(op, value._handle, status.ptr)
            if status.code != 0:
                raise exception_class(status.code)(status.message, op_type)
        for attr_name, value in attrs.items():
            attr_type = plan.attr_types[attr_name]
            setter = _SETTERS.get(attr_type)
            if setter is None:
                raise InvalidArgumentError(
                    f"{op_type}: attrs of type {attr_type} ('{attr_name}') are not supported "
                    "in eager mode yet", op_type)
            try:
                if attr_type == "tensor":  # e.g. Const: the value takes the op's `dtype`
                    pinned = attrs.get("dtype") if plan.attr_types.get("dtype") == "type" else None
                    value = convert_to_tensor(value, pinned)
                setter(lib, op, attr_name.encode(), value, status)
                if status.code != 0:
                    raise exception_class(status.code)(f"{op_type}: {status.message}", op_type)
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(
                    f"{op_type}: attr '{attr_name}' must be a {attr_type}: {e}", op_type) from None
        counts = _output_counts(plan, converted, attrs)
        capacity = sum(counts)
        retvals = (ctypes.c_void_p * max(capacity, 1))()
        num = ctypes.c_int(capacity)
        lib.TFE_Execute(op, retvals, ctypes.byref(num), status.ptr)
        if status.code != 0:
            message = status.message
            if not message.startswith(op_type):
                message = f"{op_type}: {message}"
            raise exception_class(status.code)(message, op_type)
    finally:
        lib.TFE_DeleteOp(op)
    tensors = [Tensor(retvals[i]) for i in range(num.value)]
    outputs, position = [], 0
    for arg, count in zip(plan.op_def.output_arg, counts):
        if arg.number_attr or arg.type_list_attr:
            outputs.append(tensors[position:position + count])
        else:
            outputs.append(tensors[position])
        position += count
    return outputs
