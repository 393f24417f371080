"""C: one function per op that adds it to a ``TF_Graph`` through TensorFlow's C API.

Everything ``templates/c`` prints is computed here: identifiers (C reserved words and
names reserved by the C and C++ standards avoided), the C type of each attr, the
default of each optional attr as a C initialiser, string literals that always compile,
and doc comments that cannot close early. The C++ language module reuses the names and
literals (``opgen.langs.cpp``).

Generated API, for op ``MatMul``::

    typedef struct opgen_MatMulAttrs { unsigned char transpose_a; ... } opgen_MatMulAttrs;
    void opgen_MatMulAttrsInit(opgen_MatMulAttrs* attrs);        // the OpDef defaults
    TF_Operation* opgen_MatMul(TF_Graph* graph, const char* name, TF_Output a, TF_Output b,
                               const opgen_MatMulAttrs* attrs, TF_Output* product,
                               TF_Status* status);
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, replace
from typing import Any, Collection, Iterable, Sequence

from opgen.model import ArgKind, ArgSpec, AttrSpec, DType, OpSpec
from opgen.langs.endpoints import EndpointAlias, deprecation_message, endpoint_aliases
from opgen.langs.naming import unique

NAME = "c"

#: the prefix of every generated C identifier (the runtime's own extensions use OPGEN_)
PREFIX = "opgen_"

# C11 and C23 keywords, and the macros of the standard headers the generated files
# include (stdint.h, stddef.h, math.h, stdbool.h) that an identifier would clash with.
C_RESERVED = frozenset("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex
    _Generic _Imaginary _Noreturn _Static_assert _Thread_local alignas alignof bool
    constexpr false nullptr static_assert thread_local true typeof typeof_unqual
    NULL INFINITY NAN HUGE_VAL errno assert offsetof complex imaginary I
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t
    intptr_t uintptr_t
""".split())

# C++ keywords and alternative tokens: the header is also included from C++.
CPP_RESERVED = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
    public register reinterpret_cast requires return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq final override import module
""".split())

#: names no generated C identifier may take
RESERVED = C_RESERVED | CPP_RESERVED

# The parameters and locals every generated function has.
FUNCTION_NAMES = frozenset({"graph", "name", "attrs", "status", "desc", "op", "index",
                            "defaults", "unique_name"})


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


def _to_float32(value: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:   # beyond float32's range: it rounds to infinity there
        return math.copysign(math.inf, value)


def float_literal(value: float) -> str:
    """A ``float`` literal with the shortest digits that round-trip through float32."""
    value = _to_float32(float(value))
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if _to_float32(float(text)) == value:
            break
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


# ------------------------------------------------------------------ attr types in C

# attr type -> (C type of one value, setter), for the types with a plain C value.
_SCALAR = {
    "int": ("int64_t", "TF_SetAttrInt"),
    "float": ("float", "TF_SetAttrFloat"),
    "bool": ("unsigned char", "TF_SetAttrBool"),
    "type": ("TF_DataType", "TF_SetAttrType"),
    "string": ("const char*", None),
    "shape": (None, None),
    "tensor": ("TF_Tensor*", None),
    "func": ("const char*", None),
}

# Optional attrs of these types are left unset when their field is NULL / empty: the
# runtime then applies the OpDef default (which C cannot spell as an initialiser).
UNSET_WHEN_EMPTY = frozenset({"tensor", "func", "list(shape)", "list(tensor)", "list(func)"})


@dataclass(frozen=True)
class CField:
    """One C declaration (a parameter or struct field) and its default initialiser."""

    decl: str
    default: str = ""


@dataclass(frozen=True)
class CAttr:
    name: str                     # the OpDef attr name
    fields: tuple[CField, ...]    # its parameters / struct fields
    setter: str                   # C statement(s) that set it; ACCESS is replaced
    doc: str
    statics: tuple[str, ...] = ()  # static arrays holding a list default
    needs_status: bool = False    # the setter reports through status


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
        return value.name
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


def _scalar_literal(value: Any, element: str) -> str:
    if element == "int":
        return int_literal(value)
    if element == "float":
        return float_literal(value)
    if element == "bool":
        return "1" if value else "0"
    if element == "type":
        return dtype_literal(value)
    if element == "string":
        return string_literal(value)
    raise ValueError(element)


def c_attr(attr: AttrSpec, field: str, taken: set[str], static_prefix: str) -> CAttr:
    """The C fields and setter of ``attr``. ``field`` is its identifier; extra fields
    (counts, dims) take names from ``taken``. In the setter, ``ACCESS`` stands for how
    the value is reached (``attrs->`` for a struct field, nothing for a parameter)."""
    name = string_literal(attr.name)
    optional = attr.has_default
    default = attr.default if optional else None
    element = attr.element_type
    doc_default = default_doc(default, attr.type) if optional and attr.type not in UNSET_WHEN_EMPTY else ""
    doc = attr_doc(attr, doc_default)
    if not attr.is_list:
        if element in ("int", "float", "bool", "type"):
            ctype, setter = _SCALAR[element]
            return CAttr(attr.name, (CField(f"{ctype} {field}",
                                            _scalar_literal(default, element) if optional else ""),),
                         f"{setter}(desc, {name}, ACCESS{field});", doc)
        if element == "string":
            return CAttr(attr.name, (CField(f"const char* {field}",
                                            string_literal(default) if optional else ""),),
                         f"TF_SetAttrString(desc, {name}, ACCESS{field}, strlen(ACCESS{field}));",
                         doc + " (NUL-terminated)")
        if element == "shape":
            dims = local_name(f"{field}_num_dims", taken)
            statics, values, count = (), "NULL", "-1"
            if optional and default.dims is not None:
                count = str(len(default.dims))
                if default.dims:
                    array = f"{static_prefix}{field}_default"
                    statics = (f"static const int64_t {array}[] = {{"
                               + ", ".join(int_literal(-1 if d is None else d) for d in default.dims)
                               + "};",)
                    values = array
            return CAttr(attr.name,
                         (CField(f"const int64_t* {field}", values if optional else ""),
                          CField(f"int {dims}", count if optional else "")),
                         f"TF_SetAttrShape(desc, {name}, ACCESS{field}, ACCESS{dims});",
                         doc + f" ({dims} dims, -1 for an unknown rank; -1 dims unknown)",
                         statics)
        if element == "tensor":
            setter = f"TF_SetAttrTensor(desc, {name}, ACCESS{field}, status);"
            if optional:
                setter = f"if (ACCESS{field} != NULL) {setter}"
            return CAttr(attr.name, (CField(f"TF_Tensor* {field}", "NULL" if optional else ""),),
                         setter, doc + " (copied; NULL leaves the OpDef default)" * optional,
                         needs_status=True)
        if element == "func":
            setter = f"TF_SetAttrFuncName(desc, {name}, ACCESS{field}, strlen(ACCESS{field}));"
            if optional:
                setter = f"if (ACCESS{field} != NULL) {setter}"
            return CAttr(attr.name, (CField(f"const char* {field}", "NULL" if optional else ""),),
                         setter, doc + " (a function name" + "; NULL leaves the OpDef default" * optional + ")")
        raise ValueError(f"attr {attr.name}: no C type for {attr.type!r}")

    count = local_name(f"num_{field}", taken)
    count_field = CField(f"int {count}", "0" if optional else "")
    unset_guard = f"if (ACCESS{count} > 0) " if optional and attr.type in UNSET_WHEN_EMPTY else ""
    if element in ("int", "float", "bool", "type", "string"):
        ctype, setter = _SCALAR[element]
        const_ctype = "const char* const*" if element == "string" else f"const {ctype}*"
        statics, values = (), "NULL"
        if optional and default:
            array = f"{static_prefix}{field}_default"
            decl_type = "const char* const" if element == "string" else f"const {ctype}"
            statics = (f"static {decl_type} {array}[] = {{"
                       + ", ".join(_scalar_literal(v, element) for v in default) + "};",)
            values = array
            count_field = CField(f"int {count}", str(len(default)))
        if element == "string":
            call = f"opgen_internal_set_string_list(desc, {name}, ACCESS{field}, ACCESS{count});"
        else:
            call = f"{setter}List(desc, {name}, ACCESS{field}, ACCESS{count});"
        return CAttr(attr.name, (CField(f"{const_ctype} {field}", values if optional else ""),
                                 count_field), call,
                     doc + f" ({count} values)", statics)
    if element == "shape":
        dims = local_name(f"{field}_num_dims", taken)
        return CAttr(attr.name,
                     (CField(f"const int64_t* const* {field}", "NULL" if optional else ""),
                      CField(f"const int* {dims}", "NULL" if optional else ""), count_field),
                     unset_guard + f"TF_SetAttrShapeList(desc, {name}, ACCESS{field}, ACCESS{dims}, ACCESS{count});",
                     doc + f" ({count} shapes; {dims}[i] -1 for an unknown rank"
                     + "; none leaves the OpDef default" * optional + ")")
    if element == "tensor":
        return CAttr(attr.name, (CField(f"TF_Tensor* const* {field}", "NULL" if optional else ""),
                                 count_field),
                     unset_guard + f"TF_SetAttrTensorList(desc, {name}, ACCESS{field}, ACCESS{count}, status);",
                     doc + f" ({count} tensors, copied" + "; none leaves the OpDef default" * optional + ")",
                     needs_status=True)
    if element == "func":
        return CAttr(attr.name, (CField(f"const char* const* {field}", "NULL" if optional else ""),
                                 count_field),
                     unset_guard + f"opgen_internal_set_func_list(desc, {name}, ACCESS{field}, ACCESS{count}, status);",
                     doc + f" ({count} function names" + "; none leaves the OpDef default" * optional + ")",
                     needs_status=True)
    raise ValueError(f"attr {attr.name}: no C type for {attr.type!r}")


# ---------------------------------------------------------------------- docs per op


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


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class COp:
    """What the C templates print for one op."""

    op_type: str                  # string literal of the OpDef name
    function: str                 # opgen_MatMul
    attrs_type: str               # opgen_MatMulAttrs, "" without optional attrs
    attrs_init: str               # opgen_MatMulAttrsInit
    parameters: tuple[str, ...]   # declarations, in order
    optional_fields: tuple[CField, ...]
    input_statements: tuple[str, ...]
    attr_statements: tuple[tuple[str, bool], ...]  # (statement, reports through status)
    output_statements: tuple[str, ...]
    statics: tuple[str, ...]
    doc: tuple[str, ...]          # comment lines
    aliases: tuple[CAlias, ...] = ()   # the function under its ApiDef endpoint names


@dataclass(frozen=True)
class CAlias:
    """A ``static inline`` function in the header that calls the op's function."""

    function: str                 # opgen_Dot
    attribute: str                # "" or 'OPGEN_DEPRECATED("...") '
    arguments: str                # the parameters' names, to pass on
    doc: str


def c_op(spec: OpSpec, core: str) -> COp:
    function = PREFIX + core
    attrs_type = f"{function}Attrs" if spec.optional_attrs else ""
    taken = set(FUNCTION_NAMES)
    params: dict[str, str] = {}
    for arg in spec.signature_inputs:
        params[arg.name] = local_name(arg.public_name, taken)
    required = []
    for attr in spec.required_attrs:
        field = local_name(attr.public_name, taken)
        required.append(c_attr(attr, field, taken, f"{PREFIX}internal_{core}_"))
    outputs = {arg.name: local_name(arg.name, taken) for arg in spec.outputs}
    output_counts = {}
    for arg in spec.outputs:
        if arg.kind is not ArgKind.SINGLE:
            output_counts[arg.name] = (local_name(f"{outputs[arg.name]}_capacity", taken),
                                       local_name(f"num_{outputs[arg.name]}", taken))
    field_taken: set[str] = set()
    optional = [c_attr(attr, local_name(attr.public_name, field_taken), field_taken,
                       f"{PREFIX}internal_{core}_") for attr in spec.optional_attrs]

    parameters = ["TF_Graph* graph", "const char* name"]
    input_statements = []
    doc_inputs = []
    for arg in spec.signature_inputs:
        p = params[arg.name]
        if arg.kind is ArgKind.SINGLE:
            parameters.append(f"TF_Output {p}")
        else:
            count = local_name(f"num_{p}", taken)
            parameters += [f"const TF_Output* {p}", f"int {count}"]
            params[arg.name] = (p, count)  # type: ignore[assignment]
        doc_inputs.append((p, input_type_doc(arg, spec), arg.kind is not ArgKind.SINGLE,
                           arg.description))
    for arg in spec.inputs:     # the runtime receives OpDef order
        p = params[arg.name]
        if arg.kind is ArgKind.SINGLE:
            input_statements.append(f"TF_AddInput(desc, {p});")
        else:
            input_statements.append(f"TF_AddInputList(desc, {p[0]}, {p[1]});")
    for attr in required:
        parameters += [f.decl for f in attr.fields]
    if attrs_type:
        parameters.append(f"const {attrs_type}* attrs")
    output_statements = []
    for arg in spec.outputs:
        out = outputs[arg.name]
        if arg.kind is ArgKind.SINGLE:
            parameters.append(f"TF_Output* {out}")
            output_statements.append(f"if ({out} != NULL) *{out} = opgen_internal_output(op, index);")
            output_statements.append("index += 1;")
        else:
            capacity, count = output_counts[arg.name]
            parameters += [f"TF_Output* {out}", f"int {capacity}", f"int* {count}"]
            output_statements.append(
                f"index = opgen_internal_list_output(op, {string_literal(arg.name)}, index, "
                f"{out}, {capacity}, {count}, status);")
            output_statements.append("if (index < 0) return NULL;")
    parameters.append("TF_Status* status")

    attr_statements = [(a.setter.replace("ACCESS", ""), a.needs_status) for a in required]
    attr_statements += [(a.setter.replace("ACCESS", "attrs->"), a.needs_status) for a in optional]

    doc = [f"{spec.name}: " + (comment_lines(spec.summary)[0] if spec.summary.strip()
                                  else f"adds a {spec.name} operation.")]
    summary_rest = comment_lines(spec.summary)[1:] if spec.summary.strip() else []
    doc += summary_rest
    if spec.description.strip():
        doc += [""] + comment_lines(spec.description)
    if spec.deprecation:
        doc += ["", f"Deprecated at GraphDef version {spec.deprecation.version}: "
                    + comment_text(spec.deprecation.explanation)]
    if doc_inputs:
        doc += ["", "Inputs:"]
        for p, kind, is_list, description in doc_inputs:
            doc.append(f"  {p}: {kind}" + (" (an array and its length)" if is_list else ""))
            if description.strip():
                doc += comment_lines(description, "    ")
    if required:
        doc += ["", "Required attrs:"]
        for attr_spec, attr in zip(spec.required_attrs, required):
            doc.append(f"  {attr.fields[0].decl.split()[-1]}: {attr.doc}")
            if attr_spec.description.strip():
                doc += comment_lines(attr_spec.description, "    ")
    if optional:
        doc += ["", f"Optional attrs (fields of {attrs_type}; NULL `attrs` means every default):"]
        for attr_spec, attr in zip(spec.optional_attrs, optional):
            doc.append(f"  {attr.fields[0].decl.split()[-1]}: {attr.doc}")
            if attr_spec.description.strip():
                doc += comment_lines(attr_spec.description, "    ")
    if spec.outputs:
        doc += ["", "Outputs (each out-parameter may be NULL):"]
        for arg in spec.outputs:
            kind = input_type_doc(arg, spec)
            if arg.kind is not ArgKind.SINGLE:
                capacity, count = output_counts[arg.name]
                kind += (f"; up to {capacity} written to {outputs[arg.name]}, "
                         f"the list's length to *{count}")
            doc.append(f"  {outputs[arg.name]}: {kind}")
            if arg.description.strip():
                doc += comment_lines(arg.description, "    ")
    doc += ["", "`name` NULL or \"\" picks a unique name from the op type. Returns the new",
            "operation, or NULL with `status` set."]
    return COp(
        op_type=string_literal(spec.name),
        function=function,
        attrs_type=attrs_type,
        attrs_init=f"{attrs_type}Init" if attrs_type else "",
        parameters=tuple(parameters),
        optional_fields=tuple(f for a in optional for f in a.fields),
        input_statements=tuple(input_statements),
        attr_statements=tuple(attr_statements),
        output_statements=tuple(output_statements),
        statics=tuple(s for a in required + optional for s in a.statics),
        doc=tuple(doc),
    )


def alias_core(endpoint: str) -> str:
    """An endpoint name as an identifier core; "" where it would reach the helpers'
    ``opgen_internal_`` names."""
    core = core_name(endpoint)
    return "" if core.startswith("internal") else core


def c_alias(alias: EndpointAlias, op: COp) -> CAlias:
    function = PREFIX + alias.name
    arguments = ", ".join(p.split()[-1].lstrip("*") for p in op.parameters)
    if alias.deprecation is None:
        return CAlias(function, "", arguments,
                      f"{function}: {op.function} under the name of an ApiDef endpoint.")
    message = deprecation_message(function, op.function, alias.deprecation)
    return CAlias(function, f"OPGEN_DEPRECATED({string_literal(message)}) ", arguments,
                  f"{function}: {op.function} under a deprecated ApiDef endpoint name.")


def c_ops(specs: Sequence[OpSpec]) -> list[COp]:
    """Every generated op, sorted by op name; SKIP ops are left out."""
    specs = [s for s in specs if s.visibility != "SKIP"]
    cores = op_cores(specs)
    # An alias takes no op's core, nor the Attrs / AttrsInit names beside it.
    taken = {c + suffix for c in cores.values() for suffix in ("Attrs", "AttrsInit")}
    aliases = endpoint_aliases(specs, cores, alias_core, taken)
    ops = []
    for spec in sorted(specs, key=lambda s: s.name):
        op = c_op(spec, cores[spec.name])
        if spec.name in aliases:
            op = replace(op, aliases=tuple(c_alias(a, op) for a in aliases[spec.name]))
        ops.append(op)
    return ops


def files(specs: Sequence[OpSpec], source: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The header (declarations, attrs structs, docs) and the source defining them."""
    ops = c_ops(specs)
    statements = " ".join(s for op in ops for s, _ in op.attr_statements)
    context = {"source": source.replace("\n", " "), "ops": ops,
               # helpers the .c file defines only when some op calls them
               "uses_string_list": "opgen_internal_set_string_list" in statements,
               "uses_func_list": "opgen_internal_set_func_list" in statements,
               "uses_status_setters": any(r for op in ops for _, r in op.attr_statements),
               "uses_list_output": any("list_output" in s for op in ops
                                       for s in op.output_statements),
               "uses_output": any("internal_output(" in s for op in ops
                                  for s in op.output_statements),
               "uses_deprecated_aliases": any(a.attribute for op in ops for a in op.aliases)}
    return [("opgen_ops.h.j2", "c/opgen_ops.h", context),
            ("opgen_ops.c.j2", "c/opgen_ops.c", context)]


OWNED_GLOBS = ()
