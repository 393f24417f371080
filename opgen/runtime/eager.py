"""``execute_op``: the one entry point generated Python code calls.

Per op, a plan is computed once from the runtime's OpDef (which inputs are lists,
which attrs they fix, how to set each attr); a call then only converts its inputs,
sets attrs and runs ``TFE_Execute``. The C side checks attrs against the OpDef too;
Python checks what only it can see (a value of the wrong Python type) and names the
op and attr in every error.

Where the compiled fast path (``opgen.runtime._eager_fastpath``) is built,
``execute_op`` is its C function: calls it has seen before (same op, attr values,
input kinds and dtypes) run their resolved kernel directly; everything else comes
back here, so results and errors are this module's either way.
"""

from __future__ import annotations

import ctypes
import numbers
import threading
from dataclasses import dataclass, field

import numpy as np

from opgen.protos import op_def_pb2
from opgen.runtime import _lib, devices, dtypes
from opgen.runtime.errors import InvalidArgumentError, NotFoundError, OpError, exception_class
from opgen.runtime.tensor import (Tensor, _convert, _fast_path, carries_dtype,
                                  convert_to_tensor, default_numpy_value, dtype_of)

_c_int64, _c_float, _c_ubyte, _c_int = ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte, ctypes.c_int


# ---- attrs: normalise, check, set; one entry per OpDef attr type --------------------------
#
# ``prep`` turns what Python code passes into a canonical value (TypeError / ValueError
# when the Python type is wrong), ``check`` applies the OpDef's allowed_values and
# minimum, ``set`` hands the value to the C API.

def _shape_dims(value):
    """(dims array, rank) for a shape given as None (unknown rank) or a sequence with
    None / -1 for unknown dims."""
    if value is None:
        return None, -1
    dims = [-1 if d is None else int(d) for d in value]
    return (_c_int64 * len(dims))(*dims), len(dims)


def _prep_type(value):
    return dtypes.as_dtype(value)


def _prep_int(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"expected an int, got {value!r}")
    return int(value)


def _prep_float(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"expected a float, got {value!r}")
    return float(value)


def _prep_bool(value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"expected a bool, got {value!r}")
    return bool(value)


def _prep_string(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise TypeError(f"expected a string, got {value!r}")


def _prep_shape(value):
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"expected a shape (a sequence of ints / None, or None), got {value!r}")
    return tuple(None if d is None or d == -1 else _prep_int(d) for d in value)


def _list_of(prep):
    def prep_list(value):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {value!r}")
        return [prep(v) for v in value]
    return prep_list


def _set_type(lib, op, name, value, status):
    lib.TFE_OpSetAttrType(op, name, value.as_datatype_enum)


def _set_int(lib, op, name, value, status):
    lib.TFE_OpSetAttrInt(op, name, value)


def _set_float(lib, op, name, value, status):
    lib.TFE_OpSetAttrFloat(op, name, value)


def _set_bool(lib, op, name, value, status):
    lib.TFE_OpSetAttrBool(op, name, 1 if value else 0)


def _set_string(lib, op, name, value, status):
    lib.TFE_OpSetAttrString(op, name, value, len(value))


def _set_shape(lib, op, name, value, status):
    dims, rank = _shape_dims(value)
    lib.TFE_OpSetAttrShape(op, name, dims, rank, status.ptr)


def _set_tensor(lib, op, name, value, status):
    """`value` is a Tensor already converted with the op's `dtype` attr, if it has one."""
    lib.TFE_OpSetAttrTensor(op, name, value._tensor, status.ptr)


def _set_type_list(lib, op, name, value, status):
    values = [v.as_datatype_enum for v in value]
    lib.TFE_OpSetAttrTypeList(op, name, (_c_int * len(values))(*values), len(values))


def _set_int_list(lib, op, name, value, status):
    lib.TFE_OpSetAttrIntList(op, name, (_c_int64 * len(value))(*value), len(value))


def _set_float_list(lib, op, name, value, status):
    lib.TFE_OpSetAttrFloatList(op, name, (_c_float * len(value))(*value), len(value))


def _set_bool_list(lib, op, name, value, status):
    values = [1 if v else 0 for v in value]
    lib.TFE_OpSetAttrBoolList(op, name, (_c_ubyte * len(values))(*values), len(values))


def _set_string_list(lib, op, name, value, status):
    lib.TFE_OpSetAttrStringList(op, name, (ctypes.c_char_p * len(value))(*value),
                                (ctypes.c_size_t * len(value))(*map(len, value)), len(value))


def _set_shape_list(lib, op, name, value, status):
    shapes = [_shape_dims(v) for v in value]
    dims = (ctypes.POINTER(_c_int64) * len(shapes))(
        *[ctypes.cast(d, ctypes.POINTER(_c_int64)) if d is not None else None for d, _ in shapes])
    ranks = (_c_int * len(shapes))(*[r for _, r in shapes])
    lib.TFE_OpSetAttrShapeList(op, name, dims, ranks, len(shapes), status.ptr)


# attr type -> (prep, set)
_KINDS = {
    "type": (_prep_type, _set_type),
    "int": (_prep_int, _set_int),
    "float": (_prep_float, _set_float),
    "bool": (_prep_bool, _set_bool),
    "string": (_prep_string, _set_string),
    "shape": (_prep_shape, _set_shape),
    "tensor": (None, _set_tensor),
    "list(type)": (_list_of(_prep_type), _set_type_list),
    "list(int)": (_list_of(_prep_int), _set_int_list),
    "list(float)": (_list_of(_prep_float), _set_float_list),
    "list(bool)": (_list_of(_prep_bool), _set_bool_list),
    "list(string)": (_list_of(_prep_string), _set_string_list),
    "list(shape)": (_list_of(_prep_shape), _set_shape_list),
}


class _AttrSpec:
    """One OpDef attr, precomputed for the per-call path."""

    __slots__ = ("name", "bname", "type", "prep", "set", "allowed", "allowed_text",
                 "minimum", "has_default", "default")

    def __init__(self, attr: op_def_pb2.OpDef.AttrDef):
        self.name, self.bname, self.type = attr.name, attr.name.encode(), attr.type
        self.prep, self.set = _KINDS.get(attr.type, (None, None))
        self.allowed = self.allowed_text = None
        if attr.HasField("allowed_values"):
            allowed = attr.allowed_values.list
            if attr.type in ("type", "list(type)") and allowed.type:
                known = [dtypes.as_dtype(t) for t in allowed.type if t in dtypes._BY_ENUM]
                self.allowed = frozenset(d.as_datatype_enum for d in known)
                self.allowed_text = ", ".join(d.name for d in known)
            elif attr.type in ("string", "list(string)") and allowed.s:
                self.allowed = frozenset(allowed.s)
                self.allowed_text = ", ".join(repr(v.decode()) for v in allowed.s)
        self.minimum = attr.minimum if attr.has_minimum else None
        self.has_default = attr.HasField("default_value")
        self.default = _default_value(attr) if self.has_default else None

    def check(self, op_type: str, value) -> None:
        """InvalidArgumentError naming the op and attr when `value` (prepared) breaks
        the OpDef's allowed_values or minimum."""
        kind = self.type
        if self.allowed is not None:
            items = value if kind.startswith("list(") else (value,)
            for item in items:
                key = item.as_datatype_enum if isinstance(item, dtypes.DType) else item
                if key not in self.allowed:
                    shown = item.name if isinstance(item, dtypes.DType) else repr(
                        item.decode() if isinstance(item, bytes) else item)
                    raise InvalidArgumentError(
                        f"{op_type}: value for attr '{self.name}' of {shown} is not in the "
                        f"list of allowed values: {self.allowed_text}", op_type)
        if self.minimum is not None:
            if kind == "int" and value < self.minimum:
                raise InvalidArgumentError(
                    f"{op_type}: value for attr '{self.name}' of {value} must be at least "
                    f"minimum {self.minimum}", op_type)
            if kind.startswith("list(") and len(value) < self.minimum:
                raise InvalidArgumentError(
                    f"{op_type}: attr '{self.name}' has {len(value)} values, fewer than the "
                    f"minimum {self.minimum}", op_type)

    def prepare(self, op_type: str, value):
        """`value` in the form the runtime takes (DType, int, bytes ...), checked."""
        try:
            value = self.prep(value)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgumentError(
                f"{op_type}: attr '{self.name}' must be a {self.type}{self._allowed()}: {e}",
                op_type) from None
        self.check(op_type, value)
        return value

    def _allowed(self) -> str:
        return f" (allowed: {self.allowed_text})" if self.allowed_text else ""


def _no_such_attr(op_type: str, attr_name: str, specs) -> InvalidArgumentError:
    return InvalidArgumentError(f"{op_type} has no attr named '{attr_name}'; its attrs are: "
                                f"{', '.join(specs) or '(none)'}", op_type)


def _check_required_attrs(plan, prepared: dict, op_type: str) -> None:
    """InvalidArgumentError naming the first required attr that `prepared` lacks."""
    for attr_name in plan.required:
        if attr_name not in prepared:
            spec = plan.attrs[attr_name]
            raise InvalidArgumentError(
                f"{op_type}: missing required attr '{attr_name}' of type {spec.type}"
                f"{spec._allowed()}", op_type)


# ---- per-op plans ---------------------------------------------------------------------------

@dataclass
class _OpPlan:
    op_def: op_def_pb2.OpDef
    name_bytes: bytes
    attrs: dict[str, _AttrSpec]
    attr_types: dict[str, str]
    attr_defaults: dict[str, object]
    # For each input: (arg name, "single" | "number" | "typelist", type attr or None,
    # fixed dtype, number attr or None)
    inputs: list[tuple[str, str, str | None, int, str | None]] = field(default_factory=list)
    # Defaults of the type attrs that inputs use: the dtype Python values take when
    # no input carries one.
    input_type_defaults: dict[str, dtypes.DType] = field(default_factory=dict)
    # Attrs computed from the inputs (type attrs of inputs, number attrs, type lists).
    inferred: frozenset = frozenset()
    # Attrs without a default that are not inferred: the caller must pass them.
    required: tuple = ()


def _default_value(attr: op_def_pb2.OpDef.AttrDef):
    if not attr.HasField("default_value"):
        return None
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(v.type) if v.type in dtypes._BY_ENUM else None
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
            specs = {a.name: _AttrSpec(a) for a in op_def.attr}
            plan = _OpPlan(op_def, op_type.encode(), specs,
                           {a.name: a.type for a in op_def.attr},
                           {a.name: specs[a.name].default for a in op_def.attr})
            inferred = set()
            for arg in op_def.input_arg:
                if arg.type_list_attr:
                    plan.inputs.append((arg.name, "typelist", arg.type_list_attr, 0, None))
                    inferred.add(arg.type_list_attr)
                elif arg.number_attr:
                    plan.inputs.append((arg.name, "number", arg.type_attr or None, arg.type,
                                        arg.number_attr))
                    inferred.add(arg.number_attr)
                else:
                    plan.inputs.append((arg.name, "single", arg.type_attr or None, arg.type, None))
                if arg.type_attr:
                    inferred.add(arg.type_attr)
                    if plan.attr_defaults.get(arg.type_attr) is not None:
                        plan.input_type_defaults[arg.type_attr] = plan.attr_defaults[arg.type_attr]
            plan.inferred = frozenset(inferred)
            plan.required = tuple(a.name for a in op_def.attr
                                  if a.name not in inferred and not specs[a.name].has_default)
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

def _resolve_dtypes(plan: _OpPlan, inputs, attrs, carries_dtype=carries_dtype,
                    dtype_of=dtype_of) -> dict[str, dtypes.DType]:
    """The dtype of each type attr that inputs use: given in attrs (prepared DTypes),
    else from the first input that carries a dtype, else the attr's default; Python
    values take what this yields (or TensorFlow's defaults when nothing does)."""
    resolved: dict[str, dtypes.DType] = {}
    for (arg, kind, type_attr, _, _), value in zip(plan.inputs, inputs):
        if type_attr is None or kind == "typelist" or type_attr in resolved:
            continue
        if type_attr in attrs:
            resolved[type_attr] = attrs[type_attr]
            continue
        values = value if kind == "number" else (value,)
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
    resolved = _resolve_dtypes(plan, inputs, attrs) if plan.inferred else {}
    converted = []
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
        except (TypeError, ValueError) as e:
            _check_not_graph_output(op_type, arg, value)
            raise InvalidArgumentError(
                f"{op_type}: cannot convert input '{arg}' to a tensor: {e}", op_type) from None
    return converted


def _check_not_graph_output(op_type: str, arg: str, value) -> None:
    """A clear error for a graph Output passed to an op run eagerly (outside any
    ``Graph.as_default()`` block)."""
    from opgen.runtime.graph import Output

    values = value if isinstance(value, (list, tuple)) else (value,)
    found = next((v for v in values if isinstance(v, Output)), None)
    if found is not None:
        raise InvalidArgumentError(
            f"{op_type}: input '{arg}' is the graph output {found.name!r}, but no graph is "
            "the default here: build the op inside `with graph.as_default():`", op_type)


def _infer_attrs(plan: _OpPlan, converted, attrs, op_type) -> dict:
    """The inferred attrs not given in `attrs`, computed from the converted inputs (eager
    Tensors, or graph Outputs: anything with a `dtype`) and checked against the OpDef
    (e.g. Relu on bool names 'T' and the allowed types)."""
    inferred = {}
    for (_, kind, type_attr, _, number_attr), value in zip(plan.inputs, converted):
        if kind == "number":
            if number_attr not in attrs:
                inferred[number_attr] = len(value)
            if type_attr and type_attr not in attrs and type_attr not in inferred and value:
                inferred[type_attr] = value[0].dtype
        elif kind == "typelist":
            if type_attr not in attrs:
                inferred[type_attr] = [t.dtype for t in value]
        elif type_attr and type_attr not in attrs and type_attr not in inferred:
            inferred[type_attr] = value.dtype
    specs = plan.attrs
    for attr_name, value in inferred.items():
        specs[attr_name].check(op_type, value)
    for attr_name in plan.inferred:
        if attr_name not in attrs and attr_name not in inferred and not specs[attr_name].has_default:
            raise InvalidArgumentError(
                f"{op_type}: cannot infer attr '{attr_name}' from empty list inputs; pass it",
                op_type)
    return inferred


def _output_counts(plan: _OpPlan, attrs, inferred) -> list[int]:
    """How many tensors each output arg yields, from attrs given or inferred."""
    counts = []
    for arg in plan.op_def.output_arg:
        if arg.number_attr:
            n = attrs.get(arg.number_attr, inferred.get(arg.number_attr,
                                                        plan.attr_defaults.get(arg.number_attr)))
            counts.append(int(n or 0))
        elif arg.type_list_attr:
            types = attrs.get(arg.type_list_attr, inferred.get(arg.type_list_attr,
                                                                plan.attr_defaults.get(arg.type_list_attr)))
            counts.append(len(types or ()))
        else:
            counts.append(1)
    return counts


def _prepare_attrs(plan: _OpPlan, attrs, op_type) -> dict:
    """`attrs` normalised (DTypes, ints, bytes ...) and checked against the OpDef."""
    specs = plan.attrs
    prepared = {}
    for attr_name, value in attrs.items():
        spec = specs.get(attr_name)
        if spec is None:
            raise _no_such_attr(op_type, attr_name, specs)
        if spec.set is None:
            raise InvalidArgumentError(
                f"{op_type}: attrs of type {spec.type} ('{attr_name}') are not supported in "
                "eager mode yet", op_type)
        if spec.prep is None:  # a tensor attr: converted once the dtype attr is known
            prepared[attr_name] = value
            continue
        prepared[attr_name] = spec.prepare(op_type, value)
    _check_required_attrs(plan, prepared, op_type)
    return prepared


def _raise_status(op_type: str, code: int, message) -> None:
    """Raises the exception for a failed status of `op_type`, its message prefixed
    with the op's name."""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    if not message.startswith(op_type):
        message = f"{op_type}: {message}"
    raise exception_class(code)(message, op_type)


def _new_op(plan: _OpPlan, op_type: str, inputs, attrs):
    """A TFE_Op with `inputs` converted and added and `attrs` checked and set, as
    TFE_Execute takes it; with the converted inputs and the number of tensors each
    output arg yields. The caller deletes the op."""
    if len(inputs) != len(plan.inputs):
        raise InvalidArgumentError(
            f"{op_type} takes {len(plan.inputs)} inputs, got {len(inputs)}", op_type)
    prepared = _prepare_attrs(plan, attrs, op_type) if attrs or plan.required else {}
    converted = _convert_inputs(plan, inputs, prepared, op_type)
    inferred = _infer_attrs(plan, converted, prepared, op_type) if plan.inferred else {}
    specs = plan.attrs
    lib = _lib.lib()
    status = _lib.thread_status()
    op = lib.TFE_NewOp(_Context.get(), plan.name_bytes, status.ptr)
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
            if spec.prep is None:  # e.g. Const: the value takes the op's `dtype`
                pinned = prepared.get("dtype") if plan.attr_types.get("dtype") == "type" else None
                try:
                    value = convert_to_tensor(value, pinned)
                except (TypeError, ValueError) as e:
                    raise InvalidArgumentError(
                        f"{op_type}: attr '{attr_name}' must be a tensor: {e}", op_type) from None
                except OpError as e:
                    raise type(e)(f"{op_type}: attr '{attr_name}': {e.message}", op_type) from None
            spec.set(lib, op, spec.bname, value, status)
            if status.code != 0:
                _raise_status(op_type, status.code, status.message)
    except BaseException:
        lib.TFE_DeleteOp(op)
        raise
    return op, converted, _output_counts(plan, prepared, inferred)


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
    if len(plan.op_def.output_arg) == 1 and len(tensors) == 1 and counts == [1]:
        return tensors
    outputs, position = [], 0
    for arg, count in zip(plan.op_def.output_arg, counts):
        if arg.number_attr or arg.type_list_attr:
            outputs.append(tensors[position:position + count])
        else:
            outputs.append(tensors[position])
        position += count
    return outputs


# ---- the compiled fast path's side -------------------------------------------------------
#
# opgen.runtime._eager_fastpath matches each call against signatures (op, attr values,
# input kinds and dtypes) it has seen, and runs a matching one's kernel directly. A new
# signature is resolved here, with the same checks and errors as the Python path.

# Dtypes the fast path converts Python scalars to in C (as numpy's astype would).
_FAST_SCALAR_DTYPES = frozenset(d.as_datatype_enum for d in (
    dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bool))


def _scalar_dtypes_fixed(plan: _OpPlan, inputs, attrs) -> bool:
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
