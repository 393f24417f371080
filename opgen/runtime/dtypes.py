"""Element types, named as TensorFlow names them, with TensorFlow's enum numbers.

``as_dtype`` accepts a DType, a numpy dtype or scalar type, a name ("float32",
"float", "DT_FLOAT") or the enum number, so generated code and users can pass
whichever they have.
"""

from __future__ import annotations

import builtins

import numpy as np


def _numpy_bfloat16():
    """numpy has no bfloat16; ml_dtypes (the one JAX and TensorFlow use) adds it. Imported
    on first use: registering its ufunc loops costs about a second, which a program that
    never meets a bfloat16 should not pay at ``import opgen``."""
    try:
        from ml_dtypes import bfloat16
    except ImportError:  # pragma: no cover - ml_dtypes is a dependency
        return None
    return bfloat16


class DType:
    """One element type: ``name`` ("float32"), ``as_datatype_enum`` (TF_FLOAT = 1) and
    the numpy dtype when numpy has one (bfloat16's comes from ml_dtypes; the quantized
    types have none)."""

    __slots__ = ("name", "as_datatype_enum", "_numpy_value", "_numpy_loader")

    def __init__(self, name: str, enum: int, numpy_dtype, loader=None):
        self.name = name
        self.as_datatype_enum = enum
        self._numpy_value = np.dtype(numpy_dtype) if numpy_dtype is not None else None
        self._numpy_loader = loader  # a function giving the numpy type, called once

    @property
    def _numpy(self) -> np.dtype | None:
        if self._numpy_loader is not None:
            found = self._numpy_loader()
            self._numpy_value = np.dtype(found) if found is not None else None
            self._numpy_loader = None
        return self._numpy_value

    @property
    def as_numpy_dtype(self):
        if self._numpy is None:
            raise TypeError(f"{self.name} has no numpy equivalent")
        return self._numpy.type

    @property
    def numpy_dtype(self) -> np.dtype | None:
        return self._numpy

    @property
    def is_floating(self) -> builtins.bool:
        return self.name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_integer(self) -> builtins.bool:
        return self._numpy is not None and np.issubdtype(self._numpy, np.integer)

    @property
    def is_complex(self) -> builtins.bool:
        return self.name in ("complex64", "complex128")

    @property
    def is_unsigned(self) -> builtins.bool:
        return self.name in ("uint8", "uint16", "uint32", "uint64", "quint8", "quint16")

    @property
    def is_bool(self) -> builtins.bool:
        return self.name == "bool"

    @property
    def is_quantized(self) -> builtins.bool:
        return self.name in ("qint8", "quint8", "qint16", "quint16", "qint32")

    @property
    def is_numpy_compatible(self) -> builtins.bool:
        return self._numpy is not None

    @property
    def size(self) -> int:
        return self._numpy.itemsize if self._numpy is not None else 0

    def __repr__(self) -> str:
        return f"opgen.{self.name}"

    def __eq__(self, other) -> builtins.bool:
        if isinstance(other, DType):
            return other.as_datatype_enum == self.as_datatype_enum
        try:
            return as_dtype(other).as_datatype_enum == self.as_datatype_enum
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.as_datatype_enum)

    def __reduce__(self):
        return as_dtype, (self.name,)


float32 = DType("float32", 1, np.float32)
float64 = DType("float64", 2, np.float64)
int32 = DType("int32", 3, np.int32)
uint8 = DType("uint8", 4, np.uint8)
int16 = DType("int16", 5, np.int16)
int8 = DType("int8", 6, np.int8)
string = DType("string", 7, None)
complex64 = DType("complex64", 8, np.complex64)
int64 = DType("int64", 9, np.int64)
bool = DType("bool", 10, np.bool_)
qint8 = DType("qint8", 11, None)
quint8 = DType("quint8", 12, None)
qint32 = DType("qint32", 13, None)
bfloat16 = DType("bfloat16", 14, None, loader=_numpy_bfloat16)
qint16 = DType("qint16", 15, None)
quint16 = DType("quint16", 16, None)
uint16 = DType("uint16", 17, np.uint16)
complex128 = DType("complex128", 18, np.complex128)
float16 = DType("float16", 19, np.float16)
resource = DType("resource", 20, None)
variant = DType("variant", 21, None)
uint32 = DType("uint32", 22, np.uint32)
uint64 = DType("uint64", 23, np.uint64)
half = float16
double = float64

_ALL = (float32, float64, int32, uint8, int16, int8, string, complex64, int64, bool, qint8,
        quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, float16, resource,
        variant, uint32, uint64)
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
# The spellings of OpDefs and specs ("float", "half", "DT_FLOAT") as aliases.
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
# bfloat16 is looked up by name (its numpy type loads lazily).
_BY_NUMPY = {d.numpy_dtype: d for d in _ALL if d is not bfloat16 and d.numpy_dtype is not None}


# Python types as TensorFlow reads them (tf.as_dtype(float) is float32).
_BY_PYTHON_TYPE = {builtins.float: float32, builtins.bool: bool, builtins.int: int64,
                   builtins.complex: complex128, builtins.str: string, builtins.bytes: string}


def as_dtype(value) -> DType:
    """The DType for `value`; TypeError when there is none."""
    if isinstance(value, DType):
        return value
    if value is None or isinstance(value, builtins.bool):
        raise TypeError(f"cannot interpret {value!r} as a dtype")
    if isinstance(value, type) and value in _BY_PYTHON_TYPE:
        return _BY_PYTHON_TYPE[value]
    if isinstance(value, str):
        key = value[3:].lower() if value.startswith("DT_") else value
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise TypeError(f"unknown dtype name {value!r}")
    if isinstance(value, int):
        if value in _BY_ENUM:
            return _BY_ENUM[value]
        raise TypeError(f"{value} is not a TensorFlow DataType number")
    if isinstance(value, np.integer):
        if int(value) in _BY_ENUM:
            return _BY_ENUM[int(value)]
        raise TypeError(f"{value} is not a TensorFlow DataType number")
    try:
        np_dtype = np.dtype(value)
    except (TypeError, ValueError):
        raise TypeError(f"cannot interpret {value!r} as a dtype") from None
    if not np_dtype.isnative:  # the same type in the other byte order; data converts on copy
        np_dtype = np_dtype.newbyteorder("=")
    if np_dtype in _BY_NUMPY:
        return _BY_NUMPY[np_dtype]
    if np_dtype.name == "bfloat16" and np_dtype == bfloat16.numpy_dtype:
        return bfloat16
    if np_dtype.kind in "SUO":  # bytes, str and object arrays hold strings, as in TensorFlow
        return string
    raise TypeError(f"numpy dtype {np_dtype} has no opgen equivalent")


def all_dtypes() -> tuple[DType, ...]:
    return _ALL
