"""Naming helpers every language module shares: unique names, TensorFlow's snake_case
of an op name, and the CamelCase names of TensorFlow's DataType values."""

from __future__ import annotations

import re
from typing import Any

from opgen.model import DType
from opgen.protos import types_pb2

#: TensorFlow's DataType enum (types.proto); protoc's Python code has no type stubs.
_DATA_TYPE: Any = types_pb2.DataType


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``: a list of reserved words, as written
    in a language's reference."""
    return frozenset(text.split())


def unique(base: str, taken: set[str], separator: str = "_") -> str:
    """``base``, else ``base_2``, ``base_3``... (``separator`` before the number): the first
    name not in ``taken``, which it then joins.

    Callers visit ops in sorted order, so the same registry always gives the same names."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}{separator}{n}"
    taken.add(candidate)
    return candidate


# Before an upper-case letter that follows a lower-case one, or that is followed by one
# (and is not first, nor right after a '>' separator). Asking for the upper-case letter
# first makes most positions fail at once (1.6x faster than the two lookbehinds first).
_JOINER = re.compile(r"(?=[A-Z])(?:(?<=[a-z])|(?<=[^>])(?=[A-Z][a-z]))")
_NOT_IDENTIFIER = re.compile(r"[^a-z0-9_]")


def snake_case(op_name: str) -> str:
    """TensorFlow's op-name -> Python function-name rule (Rust uses it too).

    A ``_`` goes before an upper-case letter (not the first character) that follows a
    lower-case one or is followed by one, so acronyms stay together (``FFT2D`` ->
    ``fft2d``, ``Conv3DBackpropInputV2`` -> ``conv3d_backprop_input_v2``). A ``>``
    namespace separator becomes ``_`` and is not doubled. The rule looks only at
    letter case, so an internal op keeps its leading ``_`` and gains one more before a
    capitalised word (``_Arg`` -> ``__arg``, ``_TPUReplicate`` -> ``_tpu_replicate``),
    exactly as TensorFlow's generator names them.
    """
    name = _JOINER.sub("_", op_name).replace(">", "_").lower()
    if name.isascii() and name.isidentifier():   # op names are: nothing to replace
        return name
    return _NOT_IDENTIFIER.sub("_", name)


#: DataType enum names whose CamelCase TensorFlow's Go and Rust APIs spell differently
#: from the plain rule.
_DTYPE_SPELLING = {"DT_BFLOAT16": "BFloat16", "DT_QINT8": "QInt8", "DT_QUINT8": "QUInt8",
                   "DT_QINT16": "QInt16", "DT_QUINT16": "QUInt16", "DT_QINT32": "QInt32"}


def dtype_camel_name(enum_name: str) -> str:
    """``DT_FLOAT`` -> ``Float``, ``DT_FLOAT8_E5M2`` -> ``Float8E5m2``: a DataType's name
    in Rust's ``DataType`` enum and Go's ``DataType`` constants."""
    if enum_name in _DTYPE_SPELLING:
        return _DTYPE_SPELLING[enum_name]
    return "".join(part.capitalize() for part in enum_name[3:].split("_"))


def dtype_camel(dtype: DType) -> str:
    """The CamelCase name of the model's ``dtype``: ``Float`` for float32."""
    return dtype_camel_name(_DATA_TYPE.Name(dtype.enum))


def named_dtypes() -> list[tuple[str, str]]:
    """(CamelCase name, the name users write: ``float32``) of every dtype of camel_dtypes(),
    for messages of the Rust and Go bindings."""
    from opgen.model import dtype_name
    return [(camel, dtype_name(value)) for camel, value in camel_dtypes()]


def camel_dtypes() -> list[tuple[str, int]]:
    """(CamelCase name, enum value) of every non-reference DataType but DT_INVALID, by value."""
    return sorted(((dtype_camel_name(name), value) for name, value in _DATA_TYPE.items()
                   if value and not name.endswith("_REF")), key=lambda item: item[1])
