"""What C and C++ spell alike: identifiers free of both languages' reserved words, C
literals (``float``, ``int64_t``, ``TF_DataType``, string literals that always compile),
comment text that cannot close early, and the attr and arg phrases of doc comments.

The C (:mod:`opgen.langs.c`) and C++ (:mod:`opgen.langs.cpp`) language modules both
build on it; neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from opgen.langs import numbers
from opgen.langs.naming import unique, words
from opgen.model import ArgKind, ArgSpec, AttrSpec, DType, OpSpec

# C11 and C23 keywords, and the macros of the standard headers the generated files
# include (stdint.h, stddef.h, math.h, stdbool.h) that an identifier would clash with.
C_RESERVED = words("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex
    _Generic _Imaginary _Noreturn _Static_assert _Thread_local alignas alignof bool
    constexpr false nullptr static_assert thread_local true typeof typeof_unqual
    NULL INFINITY NAN HUGE_VAL errno assert offsetof complex imaginary I
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t
    intptr_t uintptr_t
""")

# C++ keywords and alternative tokens: the header is also included from C++.
CPP_RESERVED = words("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
    public register reinterpret_cast requires return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq final override import module
""")

#: names no generated C identifier may take
RESERVED = C_RESERVED | CPP_RESERVED

# --------------------------------------------------------------------------- naming


def core_name(op_name: str) -> str:
    """The op name as a C/C++ identifier core: ``Namespace>Op`` -> ``Namespace_Op``;
    leading underscores move to the end (``_Arg`` -> ``Arg_``), so no name starts with
    ``_`` or holds ``__`` (both reserved in C++)."""
    stripped = op_name.lstrip("_")
    core = re.sub(r"[^A-Za-z0-9_]", "_", stripped) + "_" * (len(op_name) - len(stripped))
    core = re.sub(r"_{2,}", "_", core)
    if not core or core[0].isdigit():
        core = "Op" + core
    return core


def op_cores(specs: Iterable[OpSpec], reserved: Collection[str] = ()) -> dict[str, str]:
    """Op name -> identifier core, unique; when two ops map to one core, the op name that
    sorts first keeps it (the same result for any input order)."""
    taken = set(reserved)
    return {name: unique(core_name(name), taken)
            for name in sorted(s.name for s in specs)}


def local_name(name: str, taken: set[str], reserved: Collection[str] = RESERVED) -> str:
    """An OpDef arg/attr name as a parameter or field name: a valid identifier without
    ``__`` or a leading ``_``, not reserved, not in ``taken`` (then added to it)."""
    base = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9_]", "_", name)).strip("_") or "arg"
    if base[0].isdigit():
        base = "arg_" + base
    if base in reserved or base in taken:
        base += "_"
    candidate, n = base, 1
    while candidate in taken or candidate in reserved:
        n += 1
        candidate = f"{base.rstrip('_')}_{n}"
    taken.add(candidate)
    return candidate


# ------------------------------------------------------------------------- literals

# TF_DataType enumerators of TensorFlow 2.21's tf_datatype.h, by DataType value.
DATATYPE_ENUMERATORS = {
    1: "TF_FLOAT", 2: "TF_DOUBLE", 3: "TF_INT32", 4: "TF_UINT8", 5: "TF_INT16", 6: "TF_INT8",
    7: "TF_STRING", 8: "TF_COMPLEX64", 9: "TF_INT64", 10: "TF_BOOL", 11: "TF_QINT8",
    12: "TF_QUINT8", 13: "TF_QINT32", 14: "TF_BFLOAT16", 15: "TF_QINT16", 16: "TF_QUINT16",
    17: "TF_UINT16", 18: "TF_COMPLEX128", 19: "TF_HALF", 20: "TF_RESOURCE", 21: "TF_VARIANT",
    22: "TF_UINT32", 23: "TF_UINT64", 24: "TF_FLOAT8_E5M2", 25: "TF_FLOAT8_E4M3FN",
    26: "TF_FLOAT8_E4M3FNUZ", 27: "TF_FLOAT8_E4M3B11FNUZ", 28: "TF_FLOAT8_E5M2FNUZ",
    29: "TF_INT4", 30: "TF_UINT4", 31: "TF_INT2", 32: "TF_UINT2",
}


def dtype_literal(dtype: DType) -> str:
    """``TF_FLOAT``; a value the header does not name becomes a cast of its number."""
    return DATATYPE_ENUMERATORS.get(dtype.enum, f"(TF_DataType){dtype.enum}")


def int_literal(value: int) -> str:
    """An ``int64_t`` value: plain when it fits in ``int``, else through ``INT64_C``."""
    value = int(value)
    if -2**31 < value < 2**31:
        return str(value)
    if value == -2**63:
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"-INT64_C({-value})" if value < 0 else f"INT64_C({value})"



_SPECIAL_FLOATS = {"nan": "NAN", "inf": "INFINITY", "-inf": "-INFINITY"}   # math.h


def float_literal(value: float) -> str:
    """A ``float`` literal with the shortest digits that round-trip through float32."""
    value = numbers.to_float32(float(value))
    special = numbers.special_float(value)
    if special:
        return _SPECIAL_FLOATS[special]
    text = numbers.shortest_float32_digits(value)
    if not re.search(r"[.eE]", text):
        text += ".0"
    if text.startswith("-") and float(text) == 0:
        return "-0.0f"
    return text + "f"


def string_literal(text: str | bytes) -> str:
    """A C (and C++) string literal of the UTF-8 bytes of ``text``: printable ASCII as
    is, everything else as 3-digit octal escapes (which never swallow a following
    digit), ``?`` escaped so no trigraph can form."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    out = []
    for byte in data:
        c = chr(byte)
        if c in '"\\?':
            out.append("\\" + c)
        elif 0x20 <= byte < 0x7F:
            out.append(c)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def comment_text(text: str) -> str:
    """``text`` safe inside a ``/* */`` comment: cannot close or open one, no trigraphs,
    no control characters."""
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", text)
    text = text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?")
    return text


def comment_lines(text: str, indent: str = "") -> list[str]:
    """Comment body lines (without the leading `` * ``), right-stripped."""
    return [(indent + line).rstrip() if line.strip() else ""
            for line in comment_text(text.strip()).split("\n")]

# Optional attrs of these types are left unset when their field is NULL / empty: the
# runtime then applies the OpDef default (which C cannot spell as an initialiser).
UNSET_WHEN_EMPTY = frozenset({"tensor", "func", "list(shape)", "list(tensor)", "list(func)"})


def attr_doc(attr: AttrSpec, c_default_doc: str = "") -> str:
    kind = attr.type
    if attr.allowed_values:
        kind += " from {" + ", ".join(
            v.name if isinstance(v, DType) else str(v) for v in attr.allowed_values) + "}"
    if attr.minimum is not None:
        kind += f", at least {attr.minimum}" + (" elements" if attr.is_list else "")
    if attr.has_default:
        kind += f"; default {c_default_doc}" if c_default_doc else "; default: the OpDef's"
    return kind


def default_doc(value: Any, attr_type: str) -> str:
    """A default as a reader of the header wants it (``[1, 2]``, ``float32``)."""
    if attr_type.startswith("list("):
        element = attr_type[5:-1]
        return "[" + ", ".join(default_doc(v, element) for v in value) + "]"
    if attr_type == "type":
        return str(value.name)
    if attr_type == "shape":
        return "unknown rank" if value.dims is None else \
            "[" + ", ".join("?" if d is None else str(d) for d in value.dims) + "]"
    if attr_type == "bool":
        return "true" if value else "false"
    if attr_type == "string":
        return string_literal(value)
    if attr_type == "float":
        return float_literal(value)[:-1].replace("INFINITY", "inf")
    return str(value)


def input_type_doc(arg: ArgSpec, spec: OpSpec) -> str:
    """``float32``, ``T in {float32, int32}``, ``N x T``, ``list Tout``."""
    if arg.fixed_type is not None:
        kind = arg.fixed_type.name
    elif arg.type_attr:
        attr = spec.attr(arg.type_attr)
        kind = arg.type_attr
        if attr.allowed_values:
            kind += " in {" + ", ".join(t.name for t in attr.allowed_values) + "}"
    else:
        kind = ""
    if arg.kind is ArgKind.NUMBER_LIST:
        kind = f"{arg.number_attr} x {kind}"
    elif arg.kind is ArgKind.TYPE_LIST:
        kind = f"list of types {arg.type_list_attr}"
    return ("ref " if arg.is_ref else "") + kind
