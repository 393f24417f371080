"""What eager and graph mode share about an op: its OpDef (one registry), a per-op
plan computed once from it (which inputs are lists, which attrs they fix, what the
caller must pass), and one attr-conversion table.

Every attr value, eager or graph, goes through the same conversion for its OpDef type
(:data:`ATTR_KINDS`) and the same allowed_values / minimum check (:class:`AttrSpec`),
so both modes accept and refuse the same values with the same messages. The table
then has one setter per mode: ``TFE_OpSetAttr*`` for an eager op, ``TF_SetAttr*`` for
a graph node. Only what differs by mode stays with the mode: turning inputs into
Tensors (eager) or Outputs (graph).

Python types of attr values follow TensorFlow's: an int attr takes anything with
``__index__`` (Python and numpy integers, 0-d integer Tensors, user types), as
TensorFlow's wrappers do (``int(v)``); bools and floats are refused where TensorFlow
would silently truncate them (``True`` as 1, ``2.5`` as 2).
"""

from __future__ import annotations

import ctypes
import numbers
import operator
import threading
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from opgen.protos import attr_value_pb2, op_def_pb2
from opgen.runtime import _convert, _lib, dtypes
from opgen.runtime.errors import InvalidArgumentError, NotFoundError, OpError

_c_int64, _c_float, _c_ubyte, _c_int = ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte, ctypes.c_int
_c_size_t, _c_void_p, _c_char_p = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p

_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


# ---- conversion: a Python value -> the canonical value of an attr type ---------------------
#
# TypeError / ValueError / OverflowError when the value cannot be one; the caller names
# the op and attr.

def convert_type(value) -> dtypes.DType:
    return dtypes.as_dtype(value)


def convert_int(value) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"expected an int, got {value!r}")
    try:
        result = operator.index(value)  # ints, numpy integers, anything with __index__
    except TypeError:
        raise TypeError(f"expected an int, got {_convert.short_repr(value)}") from None
    if not _INT64_MIN <= result <= _INT64_MAX:
        raise OverflowError(f"{result} does not fit in an int64")
    return result


def convert_float(value) -> float:
    if isinstance(value, (bool, np.bool_, str, bytes)) or not (
            isinstance(value, numbers.Real) or hasattr(value, "__float__")):
        raise TypeError(f"expected a float, got {_convert.short_repr(value)}")
    return float(value)


def convert_bool(value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"expected a bool, got {_convert.short_repr(value)}")
    return bool(value)


def convert_string(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise TypeError(f"expected a string, got {_convert.short_repr(value)}")


def convert_shape(value):
    """None (unknown rank) or a tuple of dims, None for an unknown one (given as None
    or -1)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError("expected a shape (a sequence of ints / None, or None), got "
                        f"{_convert.short_repr(value)}")
    dims = tuple(None if d is None else convert_int(d) for d in value)
    return tuple(None if d == -1 else d for d in dims)


def _list_of(convert):
    def convert_list(value):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {_convert.short_repr(value)}")
        return [convert(v) for v in value]
    return convert_list


def convert_tensor(value, dtype: dtypes.DType | None) -> np.ndarray:
    """A tensor attr's value as C-contiguous numpy data of `dtype` (the op's `dtype`
    attr, as Const's value takes it) or of its own dtype."""
    if not isinstance(value, (np.ndarray, np.generic)) and hasattr(value, "numpy") \
            and hasattr(value, "dtype"):
        value = value.numpy()  # an eager Tensor, on any device: its data on the host
    return _convert.as_array(value, dtype, "tensor value")


def shape_dims(shape):
    """(int64 array or None, rank) of a converted shape, as the C API takes it: rank -1
    for an unknown rank, -1 for an unknown dim."""
    if shape is None:
        return None, -1
    dims = [-1 if d is None else d for d in shape]
    return (_c_int64 * max(len(dims), 1))(*dims), len(dims)


# ---- setters: a converted value -> the C API, one per mode ---------------------------------
#
# Eager setters take (lib, TFE_Op*, name, value, status); graph setters take
# (lib, TF_OperationDescription*, name, value, status). A setter reports through
# `status` only where the C function takes one; a graph setter then returns
# failure(status), as the description's status is not reset between setters.

def _int64s(values):
    return (_c_int64 * max(len(values), 1))(*values)


def _floats(values):
    return (_c_float * max(len(values), 1))(*values)


def _bools(values):
    return (_c_ubyte * max(len(values), 1))(*[1 if v else 0 for v in values])


def _types(values):
    return (_c_int * max(len(values), 1))(*[v.as_datatype_enum for v in values])


def _strings(values):
    return ((_c_char_p * max(len(values), 1))(*values),
            (_c_size_t * max(len(values), 1))(*map(len, values)))


def _shape_list(values):
    shapes = [shape_dims(v) for v in values]
    # None is a NULL pointer: an unknown rank
    dims = (ctypes.POINTER(_c_int64) * max(len(shapes), 1))(  # type: ignore[misc]
        *[ctypes.cast(d, ctypes.POINTER(_c_int64)) if d is not None else None for d, _ in shapes])
    ranks = (_c_int * max(len(shapes), 1))(*[r for _, r in shapes])
    return dims, ranks, shapes  # `shapes` keeps the dims arrays alive


def _with_tf_tensor(array: np.ndarray, set_with):
    tensor = _convert.new_tf_tensor(array, dtypes.as_dtype(array.dtype).as_datatype_enum)
    try:
        set_with(tensor)
    finally:
        _lib.lib().TF_DeleteTensor(tensor)


def _eager_tensor(lib, op, name, array, status):
    _with_tf_tensor(array, lambda t: lib.TFE_OpSetAttrTensor(op, name, t, status.ptr))


def _graph_tensor(lib, desc, name, array, status):
    _with_tf_tensor(array, lambda t: lib.TF_SetAttrTensor(desc, name, t, status.ptr))
    return failure(status)


def failure(status):
    """(code, message) of a failed call that reported through `status`, else None."""
    return (status.code, status.message) if status.code != 0 else None


def _eager_shape_list(lib, op, name, v, status):
    dims, ranks, _ = _shape_list(v)
    lib.TFE_OpSetAttrShapeList(op, name, dims, ranks, len(v), status.ptr)


def _graph_shape_list(lib, desc, name, v, status):
    dims, ranks, _ = _shape_list(v)
    lib.TF_SetAttrShapeList(desc, name, dims, ranks, len(v))


def _eager_string_list(lib, op, name, v, status):
    lib.TFE_OpSetAttrStringList(op, name, *_strings(v), len(v))


def _graph_string_list(lib, desc, name, v, status):
    pointers, lengths = _strings(v)
    lib.TF_SetAttrStringList(desc, name, ctypes.cast(pointers, ctypes.POINTER(_c_void_p)),
                             lengths, len(v))


@dataclass(frozen=True)
class AttrKind:
    """One OpDef attr type: how a Python value becomes its canonical value, and how
    that value reaches an eager op and a graph node."""

    convert: Callable[..., Any] | None  # None: a tensor, converted with the op's inputs
    set_eager: Callable[..., None]
    set_graph: Callable[..., None]


ATTR_KINDS: dict[str, AttrKind] = {
    "type": AttrKind(
        convert_type,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrType(op, n, v.as_datatype_enum),
        lambda lib, d, n, v, s: lib.TF_SetAttrType(d, n, v.as_datatype_enum)),
    "int": AttrKind(
        convert_int,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrInt(op, n, v),
        lambda lib, d, n, v, s: lib.TF_SetAttrInt(d, n, v)),
    "float": AttrKind(
        convert_float,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrFloat(op, n, v),
        lambda lib, d, n, v, s: lib.TF_SetAttrFloat(d, n, v)),
    "bool": AttrKind(
        convert_bool,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrBool(op, n, 1 if v else 0),
        lambda lib, d, n, v, s: lib.TF_SetAttrBool(d, n, 1 if v else 0)),
    "string": AttrKind(
        convert_string,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrString(op, n, v, len(v)),
        lambda lib, d, n, v, s: lib.TF_SetAttrString(d, n, v, len(v))),
    "shape": AttrKind(
        convert_shape,
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrShape(op, n, *shape_dims(v), s.ptr),
        lambda lib, d, n, v, s: lib.TF_SetAttrShape(d, n, *shape_dims(v))),
    "tensor": AttrKind(None, _eager_tensor, _graph_tensor),  # converted by prepare_attrs
    "list(type)": AttrKind(
        _list_of(convert_type),
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrTypeList(op, n, _types(v), len(v)),
        lambda lib, d, n, v, s: lib.TF_SetAttrTypeList(d, n, _types(v), len(v))),
    "list(int)": AttrKind(
        _list_of(convert_int),
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrIntList(op, n, _int64s(v), len(v)),
        lambda lib, d, n, v, s: lib.TF_SetAttrIntList(d, n, _int64s(v), len(v))),
    "list(float)": AttrKind(
        _list_of(convert_float),
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrFloatList(op, n, _floats(v), len(v)),
        lambda lib, d, n, v, s: lib.TF_SetAttrFloatList(d, n, _floats(v), len(v))),
    "list(bool)": AttrKind(
        _list_of(convert_bool),
        lambda lib, op, n, v, s: lib.TFE_OpSetAttrBoolList(op, n, _bools(v), len(v)),
        lambda lib, d, n, v, s: lib.TF_SetAttrBoolList(d, n, _bools(v), len(v))),
    "list(string)": AttrKind(_list_of(convert_string), _eager_string_list, _graph_string_list),
    "list(shape)": AttrKind(_list_of(convert_shape), _eager_shape_list, _graph_shape_list),
}


def set_attr_value_proto(lib, desc, name: bytes, value, status) -> None:
    """A graph attr given as an AttrValue message (kinds the table lacks: func ...)."""
    proto = value.SerializeToString()
    lib.TF_SetAttrValueProto(desc, name, proto, len(proto), status.ptr)
    return failure(status)


def python_attr_type(value) -> str:
    """The attr type a Python value implies, for attrs the OpDef does not declare
    (TensorFlow allows extra attrs whose names start with '_')."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (str, bytes)) for v in value):
        return "list(string)"  # e.g. TensorFlow's colocation attr "_class"
    raise TypeError(f"cannot tell the attr type of {_convert.short_repr(value)}; pass an AttrValue")


# ---- one OpDef attr -------------------------------------------------------------------------

class AttrSpec:
    """One OpDef attr, precomputed for the per-call path."""

    __slots__ = ("name", "bname", "type", "kind", "convert", "allowed", "allowed_text",
                 "minimum", "has_default", "default")

    def __init__(self, attr: op_def_pb2.OpDef.AttrDef):
        self.name, self.bname, self.type = attr.name, attr.name.encode(), attr.type
        self.kind = ATTR_KINDS.get(attr.type)
        self.convert = self.kind.convert if self.kind is not None else None
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
        """InvalidArgumentError naming the op and attr when `value` (converted) breaks
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
        """`value` converted (DType, int, bytes ...) and checked against the OpDef."""
        value = convert_attr(op_type, self.name, self.type, self.convert, value,
                             self.allowed_suffix())
        self.check(op_type, value)
        return value

    def allowed_suffix(self) -> str:
        return f" (allowed: {self.allowed_text})" if self.allowed_text else ""


def convert_attr(op_type: str, name: str, kind: str, convert, value, suffix: str = ""):
    """convert(value), its errors as InvalidArgumentError naming the op and attr."""
    try:
        return convert(value)
    except (TypeError, ValueError, OverflowError) as e:
        article = "" if kind.startswith("an ") else "an " if kind[0] in "aeiou" else "a "
        raise InvalidArgumentError(
            f"{op_type}: attr '{name}' must be {article}{kind}{suffix}: {e}", op_type) from None


def _default_value(attr: op_def_pb2.OpDef.AttrDef):
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(v.type) if v.type in dtypes._BY_ENUM else None
    if kind == "i":
        return v.i
    if kind == "list":
        return list(v.list.type) or list(v.list.i) or list(v.list.s) or []
    return None


# ---- per-op plans ---------------------------------------------------------------------------

@dataclass
class OpPlan:
    op_def: op_def_pb2.OpDef
    name_bytes: bytes
    attrs: dict[str, AttrSpec]
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

    # ---- the steps both modes take, in this order ----

    def check_input_count(self, op_type: str, inputs) -> None:
        if len(inputs) != len(self.inputs):
            raise InvalidArgumentError(
                f"{op_type} takes {len(self.inputs)} inputs, got {len(inputs)}", op_type)

    def prepare_attrs(self, op_type: str, attrs, graph: bool = False,
                      require: bool = True) -> dict:
        """`attrs` converted (DTypes, ints, bytes, numpy data for tensors ...) and
        checked against the OpDef, with (`require`) every required attr present. With
        `graph`, AttrValue messages pass as given (the only way to give attrs of types
        such as func), and so do attrs the OpDef lacks whose names start with '_'
        (TensorFlow's extra attrs: their type is the Python value's)."""
        specs = self.attrs
        prepared = {}
        tensors = []
        for attr_name, value in attrs.items():
            spec = specs.get(attr_name)
            if graph and isinstance(value, attr_value_pb2.AttrValue):
                prepared[attr_name] = value
            elif spec is None:
                if not (graph and attr_name.startswith("_")):
                    raise no_such_attr(op_type, attr_name, specs)
                kind = convert_attr(op_type, attr_name, "an attr value", python_attr_type, value)
                prepared[attr_name] = convert_attr(op_type, attr_name, kind,
                                                   ATTR_KINDS[kind].convert, value)
            elif spec.kind is None:
                if graph:
                    raise InvalidArgumentError(
                        f"{op_type}: attr '{attr_name}' of type {spec.type} needs an AttrValue "
                        "message", op_type)
                raise InvalidArgumentError(
                    f"{op_type}: attrs of type {spec.type} ('{attr_name}') are not supported in "
                    "eager mode yet", op_type)
            elif spec.convert is None:  # a tensor: its dtype is the `dtype` attr's
                tensors.append(attr_name)
                prepared[attr_name] = value
            else:
                prepared[attr_name] = spec.prepare(op_type, value)
        for attr_name in self.required if require else ():
            if attr_name not in prepared:
                spec = specs[attr_name]
                raise InvalidArgumentError(
                    f"{op_type}: missing required attr '{attr_name}' of type {spec.type}"
                    f"{spec.allowed_suffix()}", op_type)
        if tensors:
            pinned = prepared.get("dtype") if self.attr_types.get("dtype") == "type" else None
            for attr_name in tensors:
                prepared[attr_name] = prepare_tensor_attr(
                    op_type, attr_name, prepared[attr_name],
                    pinned if isinstance(pinned, dtypes.DType) else None)
        return prepared

    def resolve_dtypes(self, inputs, attrs, carries_dtype, dtype_of) -> dict[str, dtypes.DType]:
        """The dtype of each type attr that inputs use: given in attrs (prepared DTypes),
        else from the first input that carries a dtype (`carries_dtype`, `dtype_of`:
        the mode's view of its values), else the attr's default; Python values take
        what this yields (or TensorFlow's defaults when nothing does)."""
        resolved: dict[str, dtypes.DType] = {}
        for (_, kind, type_attr, _, _), value in zip(self.inputs, inputs):
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
        for name, default in self.input_type_defaults.items():
            if name in resolved:
                continue
            python_values = [v for (_, kind, type_attr, _, _), value in zip(self.inputs, inputs)
                             if type_attr == name for v in (value if kind == "number" else [value])]
            if default.is_integer and any(np.asarray(v).dtype.kind in "fc" for v in python_values):
                resolved[name] = dtypes.as_dtype(
                    _convert.default_numpy_value(python_values[0]).dtype)
            else:
                resolved[name] = default
        return resolved

    def infer_attrs(self, op_type: str, converted, attrs) -> dict:
        """The inferred attrs not given in `attrs`, computed from the converted inputs
        (eager Tensors, or graph Outputs: anything with a `dtype`) and checked against
        the OpDef (e.g. Relu on bool names 'T' and the allowed types)."""
        if not self.inferred:
            return {}
        inferred: dict[Any, Any] = {}  # attr name -> a length, a DType or a list of DTypes
        for (_, kind, type_attr, _, number_attr), value in zip(self.inputs, converted):
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
        specs = self.attrs
        for attr_name, value in inferred.items():
            specs[attr_name].check(op_type, value)
        for attr_name in self.inferred:
            if attr_name not in attrs and attr_name not in inferred \
                    and not specs[attr_name].has_default:
                raise InvalidArgumentError(
                    f"{op_type}: cannot infer attr '{attr_name}' from empty list inputs; pass it",
                    op_type)
        return inferred

    def output_counts(self, attrs, inferred) -> list[int]:
        """How many tensors each output arg yields, from attrs given or inferred."""
        counts = []
        for arg in self.op_def.output_arg:
            if arg.number_attr:
                n = attrs.get(arg.number_attr, inferred.get(
                    arg.number_attr, self.attr_defaults.get(arg.number_attr)))
                counts.append(int(n or 0))
            elif arg.type_list_attr:
                types = attrs.get(arg.type_list_attr, inferred.get(
                    arg.type_list_attr, self.attr_defaults.get(arg.type_list_attr)))
                counts.append(len(types or ()))
            else:
                counts.append(1)
        return counts

    def group_outputs(self, flat, counts) -> list:
        """The flat outputs as one entry per output arg: the value, or a list for a
        list arg."""
        grouped, position = [], 0
        for arg, count in zip(self.op_def.output_arg, counts):
            if arg.number_attr or arg.type_list_attr:
                grouped.append(flat[position:position + count])
            else:
                grouped.append(flat[position])
            position += count
        return grouped


def prepare_tensor_attr(op_type: str, attr_name: str, value, dtype):
    try:
        return convert_tensor(value, dtype)
    except OpError as e:
        message = e.message.removeprefix("tensor value: ")
        raise type(e)(f"{op_type}: attr '{attr_name}': {message}", op_type) from None
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(
            f"{op_type}: attr '{attr_name}' must be a tensor: {e}", op_type) from None


def no_such_attr(op_type: str, attr_name: str, specs) -> InvalidArgumentError:
    return InvalidArgumentError(f"{op_type} has no attr named '{attr_name}'; its attrs are: "
                                f"{', '.join(specs) or '(none)'}", op_type)


class Registry:
    """OpDefs of the runtime's registry, parsed once and refreshed on a miss (a library
    loaded later may have added ops), and the plan of each op asked for."""

    def __init__(self):
        # reentrant: a finalizer run by the garbage collector while a plan is made (a
        # Variable destroying its state) plans its own op on the same thread
        self._lock = threading.RLock()
        self._op_defs: dict[str, op_def_pb2.OpDef] = {}
        self._plans: dict[str, OpPlan] = {}

    def _refresh(self):
        oplist = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
        self._op_defs = {op.name: op for op in oplist.op}

    def plan(self, op_type: str) -> OpPlan:
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
            plan = self._plans[op_type] = _new_plan(op_type, op_def)
            return plan

    def op_def(self, op_type: str) -> op_def_pb2.OpDef:
        return self.plan(op_type).op_def


def _new_plan(op_type: str, op_def: op_def_pb2.OpDef) -> OpPlan:
    specs = {a.name: AttrSpec(a) for a in op_def.attr}
    plan = OpPlan(op_def, op_type.encode(), specs, {a.name: a.type for a in op_def.attr},
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
            default = plan.attr_defaults.get(arg.type_attr)
            if default is not None:
                # a `type` attr's default is a DType (its converter made it one)
                plan.input_type_defaults[arg.type_attr] = cast(dtypes.DType, default)
    plan.inferred = frozenset(inferred)
    plan.required = tuple(a.name for a in op_def.attr
                          if a.name not in inferred and not specs[a.name].has_default)
    return plan


#: The one registry of the process, for eager and graph mode alike.
registry = Registry()
