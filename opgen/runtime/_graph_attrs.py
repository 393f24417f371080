"""Attr values of graph operations: Python values checked and converted for the
``TF_SetAttr*`` setters (by the attr's type in the runtime's OpDef), and AttrValue
messages read back as the Python values TensorFlow's ``Operation.get_attr`` gives."""

from __future__ import annotations

import ctypes

from opgen.protos import attr_value_pb2, op_def_pb2
from opgen.runtime import _lib, _tf_tensors, dtypes
from opgen.runtime.errors import InvalidArgumentError, NotFoundError

_c_int, _c_int64, _c_float, _c_ubyte = ctypes.c_int, ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte
_c_size_t, _c_void_p = ctypes.c_size_t, ctypes.c_void_p

_op_defs: dict[str, op_def_pb2.OpDef] = {}


def op_def(op_type: str) -> op_def_pb2.OpDef:
    """The runtime's OpDef for `op_type` (the registry is read again on a miss: a
    library loaded later may have added ops)."""
    found = _op_defs.get(op_type)
    if found is None:
        oplist = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
        _op_defs.update((op.name, op) for op in oplist.op)
        found = _op_defs.get(op_type)
        if found is None:
            raise NotFoundError(f"Op type not registered '{op_type}' in the opgen runtime",
                                op_type)
    return found


def _python_attr_type(value) -> str:
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
    raise TypeError(f"cannot tell the attr type of {value!r}; pass an AttrValue")


def prepare_attr(op_type: str, name: str, attr_def, value, attrs):
    """Checks and converts one attr value; returns ``apply(runtime, desc, status)``,
    which hands it to the C API and returns (code, message) when that failed. Checking everything before ``TF_NewOperation`` means a
    bad attr never leaves a half-built operation in the graph."""
    bname = name.encode()
    if hasattr(value, "SerializeToString") and type(value).__name__ == "AttrValue":
        proto = value.SerializeToString()

        def apply(r, desc, status):
            r.TF_SetAttrValueProto(desc, bname, proto, len(proto), status.ptr)
            return _failure(status)
        return apply
    kind = attr_def.type if attr_def is not None else "an attr value"
    try:
        if attr_def is None:
            if not name.startswith("_"):
                known = ", ".join(a.name for a in op_def(op_type).attr) or "(none)"
                raise InvalidArgumentError(
                    f"{op_type} has no attr named '{name}'; its attrs are: {known}", op_type)
            kind = _python_attr_type(value)
        prepare = _ATTR_PREPARERS.get(kind)
        if prepare is None:
            raise InvalidArgumentError(
                f"{op_type}: attr '{name}' of type {kind} needs an AttrValue message", op_type)
        return prepare(bname, value, attrs)
    except InvalidArgumentError as e:
        if e.message.startswith(op_type):
            raise
        raise InvalidArgumentError(f"{op_type}: attr '{name}': {e.message}", op_type) from None
    except (TypeError, ValueError, OverflowError) as e:
        raise InvalidArgumentError(f"{op_type}: attr '{name}' must be {_article(kind)}: {e}",
                                   op_type) from None


def _article(kind: str) -> str:
    return kind if kind.startswith("an ") else f"a {kind}"


def _failure(status):
    """(code, message) of a failed call that reported through `status`, else None."""
    return (status.code, status.message) if status.code != 0 else None


def _check_int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"expected an int, got {value!r}")
    return int(value)


def _check_float(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TypeError(f"expected a float, got {value!r}")
    return float(value)


def _check_bool(value) -> bool:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise TypeError(f"expected a bool, got {value!r}")
    return bool(value)


def _check_string(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise TypeError(f"expected a string, got {value!r}")


def _check_type(value) -> int:
    return dtypes.as_dtype(value).as_datatype_enum


def _check_list(value) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"expected a list, got {value!r}")
    return list(value)


def _shape_dims(value):
    """(int64 array or None, rank) for a shape: None means unknown rank; dims may be
    None or -1 when unknown."""
    if value is None:
        return None, -1
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"expected a shape (a sequence of ints / None, or None), got {value!r}")
    dims = [-1 if d is None else _check_int(d) for d in value]
    return (_c_int64 * max(len(dims), 1))(*dims), len(dims)


def _scalar_preparer(setter_name, check):
    def prepare(bname, value, attrs):
        checked = check(value)
        return lambda r, desc, status: getattr(r, setter_name)(desc, bname, checked)
    return prepare


def _list_preparer(setter_name, ctype, check):
    def prepare(bname, value, attrs):
        items = [check(v) for v in _check_list(value)]
        array = (ctype * max(len(items), 1))(*items)
        return lambda r, desc, status: getattr(r, setter_name)(desc, bname, array, len(items))
    return prepare


def _prepare_string(bname, value, attrs):
    data = _check_string(value)
    return lambda r, desc, status: r.TF_SetAttrString(desc, bname, data, len(data))


def _prepare_shape(bname, value, attrs):
    dims, rank = _shape_dims(value)
    return lambda r, desc, status: r.TF_SetAttrShape(desc, bname, dims, rank)


def _prepare_tensor(bname, value, attrs):
    """The value takes the op's `dtype` attr when it has one (as Const's does)."""
    want = attrs.get("dtype")
    dtype = dtypes.as_dtype(want) if want is not None else None
    array = _tf_tensors.as_array(value, dtype, "tensor value")
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)

    def apply(r, desc, status):
        tensor = _tf_tensors.new_tf_tensor(array, dtype.as_datatype_enum)
        try:
            r.TF_SetAttrTensor(desc, bname, tensor, status.ptr)
            return _failure(status)
        finally:
            r.TF_DeleteTensor(tensor)
    return apply


def _prepare_string_list(bname, value, attrs):
    items = [_check_string(v) for v in _check_list(value)]
    pointers = (_c_void_p * max(len(items), 1))(
        *[ctypes.cast(ctypes.c_char_p(v), _c_void_p) for v in items])
    lengths = (_c_size_t * max(len(items), 1))(*map(len, items))

    def apply(r, desc, status):
        r.TF_SetAttrStringList(desc, bname, pointers, lengths, len(items))
        del items[:0]  # keeps the bytes the pointers point into alive until here
    return apply


_ATTR_PREPARERS = {
    "type": _scalar_preparer("TF_SetAttrType", _check_type),
    "int": _scalar_preparer("TF_SetAttrInt", _check_int),
    "float": _scalar_preparer("TF_SetAttrFloat", _check_float),
    "bool": _scalar_preparer("TF_SetAttrBool", lambda v: 1 if _check_bool(v) else 0),
    "string": _prepare_string,
    "shape": _prepare_shape,
    "tensor": _prepare_tensor,
    "list(type)": _list_preparer("TF_SetAttrTypeList", _c_int, _check_type),
    "list(int)": _list_preparer("TF_SetAttrIntList", _c_int64, _check_int),
    "list(float)": _list_preparer("TF_SetAttrFloatList", _c_float, _check_float),
    "list(bool)": _list_preparer("TF_SetAttrBoolList", _c_ubyte, lambda v: 1 if _check_bool(v) else 0),
    "list(string)": _prepare_string_list,
}


def attr_value_to_python(value: attr_value_pb2.AttrValue):
    kind = value.WhichOneof("value")
    if kind is None:
        return []
    if kind == "list":
        lst = value.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(lst, field)
            if items:
                if field == "type":
                    return [_as_dtype_or_enum(t) for t in items]
                return list(items)
        return []
    if kind == "type":
        return _as_dtype_or_enum(value.type)
    return getattr(value, kind)


def _as_dtype_or_enum(enum: int):
    try:
        return dtypes.as_dtype(enum)
    except TypeError:
        return enum
