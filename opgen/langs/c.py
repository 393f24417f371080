"""C: one function per op that adds it to a ``TF_Graph`` through TensorFlow's C API.

Everything ``templates/c`` prints is computed here: the C type of each attr, the
default of each optional attr as a C initialiser, the statements that set attrs and
read outputs, and doc comments. Identifiers and literals are spelled by
:mod:`opgen.langs.c_family`, which the C++ language module shares.

Declarations and statements are built as values (:class:`CDecl`, :class:`CSetter`,
:class:`COutput`) and turned into text only when printed, so nothing here edits C text.

Generated API, for op ``MatMul``::

    typedef struct opgen_MatMulAttrs { unsigned char transpose_a; ... } opgen_MatMulAttrs;
    void opgen_MatMulAttrsInit(opgen_MatMulAttrs* attrs);        // the OpDef defaults
    TF_Operation* opgen_MatMul(TF_Graph* graph, const char* name, TF_Output a, TF_Output b,
                               const opgen_MatMulAttrs* attrs, TF_Output* product,
                               TF_Status* status);
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from opgen.langs.c_family import (
    UNSET_WHEN_EMPTY,
    attr_doc,
    comment_lines,
    comment_text,
    core_name,
    default_doc,
    dtype_literal,
    float_literal,
    input_type_doc,
    int_literal,
    local_name,
    op_cores,
    string_literal,
)
from opgen.langs.endpoints import EndpointAlias, deprecation_message, endpoint_aliases
from opgen.langs.identity import DEFAULT, Identity, include_guard
from opgen.model import ArgKind, AttrSpec, OpSpec

NAME = "c"

#: the prefix of every generated C identifier (the runtime's own extensions use OPGEN_)
PREFIX = "opgen_"

# The parameters and locals every generated function has.
FUNCTION_NAMES = frozenset({"graph", "name", "attrs", "status", "desc", "op", "index",
                            "defaults", "unique_name"})

# The helpers opgen_ops.c defines (each only when some op calls it).
SET_STRING_LIST = "opgen_internal_set_string_list"
SET_FUNC_LIST = "opgen_internal_set_func_list"


# ------------------------------------------------------------ declarations, statements


@dataclass(frozen=True)
class CDecl:
    """One C declaration (a parameter or struct field) and its default initialiser."""

    type: str                     # "const int64_t*"
    name: str
    default: str = ""

    @property
    def text(self) -> str:
        return f"{self.type} {self.name}"


@dataclass(frozen=True)
class FieldValue:
    """One of an attr's fields as a setter argument: as is, or through a function."""

    field: str
    through: str = ""             # "strlen": pass strlen(field)

    def render(self, access: str) -> str:
        value = access + self.field
        return f"{self.through}({value})" if self.through else value


#: a setter argument: a field's value, or a name written as is (``status``)
Argument = FieldValue | str


@dataclass(frozen=True)
class Guard:
    """The condition an optional attr's setter runs under: ``field`` passes ``test``."""

    field: str
    test: str                     # "!= NULL", "> 0"

    def render(self, access: str) -> str:
        return f"if ({access}{self.field} {self.test}) "


@dataclass(frozen=True)
class CSetter:
    """The statement setting one attr: ``function(desc, "name", arguments...);``."""

    function: str                 # TF_SetAttrInt, opgen_internal_set_string_list
    attr_name: str                # the OpDef attr name
    arguments: tuple[Argument, ...]
    guard: Guard | None = None
    reports_status: bool = False  # the last argument is status: check it afterwards

    def render(self, access: str) -> str:
        """The statement, reaching the fields through ``access`` (``attrs->`` for the
        optional attrs struct, nothing for parameters)."""
        arguments = ["desc", string_literal(self.attr_name)]
        arguments += [a if isinstance(a, str) else a.render(access) for a in self.arguments]
        call = f"{self.function}({', '.join(arguments)});"
        return (self.guard.render(access) if self.guard else "") + call


@dataclass(frozen=True)
class AttrStatement:
    """A setter as the op's function calls it."""

    setter: CSetter
    access: str                   # "" (parameters) or "attrs->"

    @property
    def text(self) -> str:
        return self.setter.render(self.access)

    @property
    def reports_status(self) -> bool:
        return self.setter.reports_status


@dataclass(frozen=True)
class COutput:
    """One output of an op and the out-parameters it is written to."""

    arg_name: str                 # the OpDef arg name
    pointer: str                  # the TF_Output* parameter
    capacity: str = ""            # list outputs: the capacity and the length parameters
    length: str = ""

    @property
    def is_list(self) -> bool:
        return bool(self.capacity)

    def statements(self) -> tuple[str, ...]:
        """What the function runs after TF_FinishOperation, ``index`` the next flat output."""
        if not self.is_list:
            return (f"if ({self.pointer} != NULL) *{self.pointer} = opgen_internal_output(op, index);",
                    "index += 1;")
        return ((f"index = opgen_internal_list_output(op, {string_literal(self.arg_name)}, index, "
                 f"{self.pointer}, {self.capacity}, {self.length}, status);"),
                "if (index < 0) return NULL;")


# ------------------------------------------------------------------ attr types in C

# attr type -> (C type of one value, setter), for the types with a plain C value.
_SCALAR = {
    "int": ("int64_t", "TF_SetAttrInt"),
    "float": ("float", "TF_SetAttrFloat"),
    "bool": ("unsigned char", "TF_SetAttrBool"),
    "type": ("TF_DataType", "TF_SetAttrType"),
}


@dataclass(frozen=True)
class CAttr:
    name: str                     # the OpDef attr name
    fields: tuple[CDecl, ...]     # its parameters / struct fields; the first holds the value
    setter: CSetter
    doc: str
    statics: tuple[str, ...] = ()  # static arrays holding a list default


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
    (counts, dims) take names from ``taken``."""
    optional = attr.has_default
    default: Any = attr.default if optional else None   # its type follows attr.type
    element = attr.element_type
    doc_default = default_doc(default, attr.type) if optional and attr.type not in UNSET_WHEN_EMPTY else ""
    doc = attr_doc(attr, doc_default)
    value = FieldValue(field)

    def setter(function: str, *arguments: Argument, guard: Guard | None = None,
               reports_status: bool = False) -> CSetter:
        return CSetter(function, attr.name, arguments, guard, reports_status)

    def if_optional(initialiser: str) -> str:
        """A field's default: only optional attrs have one."""
        return initialiser if optional else ""

    if not attr.is_list:
        if element in _SCALAR:
            ctype, function = _SCALAR[element]
            return CAttr(attr.name, (CDecl(ctype, field, _scalar_literal(default, element)
                                           if optional else ""),),
                         setter(function, value), doc)
        if element == "string":
            return CAttr(attr.name, (CDecl("const char*", field, string_literal(default)
                                           if optional else ""),),
                         setter("TF_SetAttrString", value, FieldValue(field, "strlen")),
                         doc + " (NUL-terminated)")
        if element == "shape":
            dims = local_name(f"{field}_num_dims", taken)
            statics: tuple[str, ...] = ()
            values, count = "NULL", "-1"
            if optional and default.dims is not None:
                count = str(len(default.dims))
                if default.dims:
                    array = f"{static_prefix}{field}_default"
                    statics = (f"static const int64_t {array}[] = {{"
                               + ", ".join(int_literal(-1 if d is None else d) for d in default.dims)
                               + "};",)
                    values = array
            return CAttr(attr.name,
                         (CDecl("const int64_t*", field, if_optional(values)),
                          CDecl("int", dims, if_optional(count))),
                         setter("TF_SetAttrShape", value, FieldValue(dims)),
                         doc + f" ({dims} dims, -1 for an unknown rank; -1 dims unknown)",
                         statics)
        # Left unset when NULL: the runtime then applies the OpDef default.
        unset_guard = Guard(field, "!= NULL") if optional else None
        if element == "tensor":
            return CAttr(attr.name, (CDecl("TF_Tensor*", field, if_optional("NULL")),),
                         setter("TF_SetAttrTensor", value, "status", guard=unset_guard,
                                reports_status=True),
                         doc + " (copied; NULL leaves the OpDef default)" * optional)
        if element == "func":
            return CAttr(attr.name, (CDecl("const char*", field, if_optional("NULL")),),
                         setter("TF_SetAttrFuncName", value, FieldValue(field, "strlen"),
                                guard=unset_guard),
                         doc + " (a function name" + "; NULL leaves the OpDef default" * optional + ")")
        raise ValueError(f"attr {attr.name}: no C type for {attr.type!r}")

    count = local_name(f"num_{field}", taken)
    count_field = CDecl("int", count, if_optional("0"))
    empty_guard = Guard(count, "> 0") if optional and attr.type in UNSET_WHEN_EMPTY else None
    if element in _SCALAR or element == "string":
        statics, values = (), "NULL"
        # The elements are const (a string's pointer too): the array and its type.
        element_type = "const char* const" if element == "string" else f"const {_SCALAR[element][0]}"
        if optional and default:
            array = f"{static_prefix}{field}_default"
            statics = (f"static {element_type} {array}[] = {{"
                       + ", ".join(_scalar_literal(v, element) for v in default) + "};",)
            values = array
            count_field = CDecl("int", count, str(len(default)))
        if element == "string":
            set_list = setter(SET_STRING_LIST, value, FieldValue(count))
        else:
            set_list = setter(_SCALAR[element][1] + "List", value, FieldValue(count))
        return CAttr(attr.name, (CDecl(f"{element_type}*", field, if_optional(values)),
                                 count_field), set_list,
                     doc + f" ({count} values)", statics)
    if element == "shape":
        dims = local_name(f"{field}_num_dims", taken)
        return CAttr(attr.name,
                     (CDecl("const int64_t* const*", field, if_optional("NULL")),
                      CDecl("const int*", dims, if_optional("NULL")), count_field),
                     setter("TF_SetAttrShapeList", value, FieldValue(dims), FieldValue(count),
                            guard=empty_guard),
                     doc + f" ({count} shapes; {dims}[i] -1 for an unknown rank"
                     + "; none leaves the OpDef default" * optional + ")")
    if element == "tensor":
        return CAttr(attr.name, (CDecl("TF_Tensor* const*", field, if_optional("NULL")),
                                 count_field),
                     setter("TF_SetAttrTensorList", value, FieldValue(count), "status",
                            guard=empty_guard, reports_status=True),
                     doc + f" ({count} tensors, copied" + "; none leaves the OpDef default" * optional + ")")
    if element == "func":
        return CAttr(attr.name, (CDecl("const char* const*", field, if_optional("NULL")),
                                 count_field),
                     setter(SET_FUNC_LIST, value, FieldValue(count), "status",
                            guard=empty_guard, reports_status=True),
                     doc + f" ({count} function names" + "; none leaves the OpDef default" * optional + ")")
    raise ValueError(f"attr {attr.name}: no C type for {attr.type!r}")


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class COp:
    """What the C templates print for one op."""

    op_type: str                  # string literal of the OpDef name
    function: str                 # opgen_MatMul
    attrs_type: str               # opgen_MatMulAttrs, "" without optional attrs
    attrs_init: str               # opgen_MatMulAttrsInit
    naming_error: str             # string literal: the message when naming it fails
    parameters: tuple[CDecl, ...]
    optional_fields: tuple[CDecl, ...]
    input_statements: tuple[str, ...]
    attr_statements: tuple[AttrStatement, ...]
    outputs: tuple[COutput, ...]
    statics: tuple[str, ...]
    doc: tuple[str, ...]          # comment lines
    aliases: tuple[CAlias, ...] = ()   # the function under its ApiDef endpoint names

    @property
    def parameter_list(self) -> str:
        return ", ".join(p.text for p in self.parameters)

    @property
    def output_statements(self) -> tuple[str, ...]:
        return tuple(s for output in self.outputs for s in output.statements())


@dataclass(frozen=True)
class CAlias:
    """A ``static inline`` function in the header that calls the op's function."""

    function: str                 # opgen_Dot
    attribute: str                # "" or 'OPGEN_DEPRECATED("...") '
    arguments: str                # the parameters' names, to pass on
    doc: str


def _attr_doc_lines(specs: Sequence[AttrSpec], attrs: Sequence[CAttr]) -> list[str]:
    lines = []
    for attr_spec, attr in zip(specs, attrs):
        lines.append(f"  {attr.fields[0].name}: {attr.doc}")
        if attr_spec.description.strip():
            lines += comment_lines(attr_spec.description, "    ")
    return lines


def c_op(spec: OpSpec, core: str, prefix: str = PREFIX) -> COp:
    function = prefix + core
    attrs_type = f"{function}Attrs" if spec.optional_attrs else ""
    taken = set(FUNCTION_NAMES)
    params = {arg.name: local_name(arg.public_name, taken) for arg in spec.signature_inputs}
    required = [c_attr(attr, local_name(attr.public_name, taken), taken, f"{PREFIX}internal_{core}_")
                for attr in spec.required_attrs]
    pointers = {arg.name: local_name(arg.name, taken) for arg in spec.outputs}
    outputs = []
    for arg in spec.outputs:
        pointer = pointers[arg.name]
        if arg.kind is ArgKind.SINGLE:
            outputs.append(COutput(arg.name, pointer))
        else:
            outputs.append(COutput(arg.name, pointer, local_name(f"{pointer}_capacity", taken),
                                   local_name(f"num_{pointer}", taken)))
    field_taken: set[str] = set()
    optional = [c_attr(attr, local_name(attr.public_name, field_taken), field_taken,
                       f"{PREFIX}internal_{core}_") for attr in spec.optional_attrs]

    parameters = [CDecl("TF_Graph*", "graph"), CDecl("const char*", "name")]
    list_lengths: dict[str, str] = {}
    doc_inputs = []
    for arg in spec.signature_inputs:
        p = params[arg.name]
        if arg.kind is ArgKind.SINGLE:
            parameters.append(CDecl("TF_Output", p))
        else:
            list_lengths[arg.name] = local_name(f"num_{p}", taken)
            parameters += [CDecl("const TF_Output*", p), CDecl("int", list_lengths[arg.name])]
        doc_inputs.append((p, input_type_doc(arg, spec), arg.kind is not ArgKind.SINGLE,
                           arg.description))
    input_statements = []
    for arg in spec.inputs:     # the runtime receives OpDef order
        if arg.kind is ArgKind.SINGLE:
            input_statements.append(f"TF_AddInput(desc, {params[arg.name]});")
        else:
            input_statements.append(f"TF_AddInputList(desc, {params[arg.name]}, {list_lengths[arg.name]});")
    for attr in required:
        parameters += attr.fields
    if attrs_type:
        parameters.append(CDecl(f"const {attrs_type}*", "attrs"))
    for output in outputs:
        parameters.append(CDecl("TF_Output*", output.pointer))
        if output.is_list:
            parameters += [CDecl("int", output.capacity), CDecl("int*", output.length)]
    parameters.append(CDecl("TF_Status*", "status"))

    attr_statements = [AttrStatement(a.setter, "") for a in required]
    attr_statements += [AttrStatement(a.setter, "attrs->") for a in optional]

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
        doc += ["", "Required attrs:"] + _attr_doc_lines(spec.required_attrs, required)
    if optional:
        doc += ["", f"Optional attrs (fields of {attrs_type}; NULL `attrs` means every default):"]
        doc += _attr_doc_lines(spec.optional_attrs, optional)
    if spec.outputs:
        doc += ["", "Outputs (each out-parameter may be NULL):"]
        for arg, output in zip(spec.outputs, outputs):
            kind = input_type_doc(arg, spec)
            if output.is_list:
                kind += (f"; up to {output.capacity} written to {output.pointer}, "
                         f"the list's length to *{output.length}")
            doc.append(f"  {output.pointer}: {kind}")
            if arg.description.strip():
                doc += comment_lines(arg.description, "    ")
    doc += ["", "`name` NULL or \"\" picks a unique name from the op type. Returns the new",
            "operation, or NULL with `status` set."]
    return COp(
        op_type=string_literal(spec.name),
        function=function,
        attrs_type=attrs_type,
        attrs_init=f"{attrs_type}Init" if attrs_type else "",
        naming_error=string_literal(f"out of memory naming a {spec.name} operation"),
        parameters=tuple(parameters),
        optional_fields=tuple(f for a in optional for f in a.fields),
        input_statements=tuple(input_statements),
        attr_statements=tuple(attr_statements),
        outputs=tuple(outputs),
        statics=tuple(s for a in required + optional for s in a.statics),
        doc=tuple(doc),
    )


def alias_core(endpoint: str) -> str:
    """An endpoint name as an identifier core; "" where it would reach the helpers'
    ``opgen_internal_`` names."""
    core = core_name(endpoint)
    return "" if core.startswith("internal") else core


def c_alias(alias: EndpointAlias, op: COp, prefix: str = PREFIX) -> CAlias:
    function = prefix + alias.name
    arguments = ", ".join(p.name for p in op.parameters)
    if alias.deprecation is None:
        return CAlias(function, "", arguments,
                      f"{function}: {op.function} under the name of an ApiDef endpoint.")
    message = deprecation_message(function, op.function, alias.deprecation)
    return CAlias(function, f"OPGEN_DEPRECATED({string_literal(message)}) ", arguments,
                  f"{function}: {op.function} under a deprecated ApiDef endpoint name.")


def c_ops(specs: Sequence[OpSpec], prefix: str = PREFIX) -> list[COp]:
    """Every generated op, sorted by op name; SKIP ops are left out. Public names start
    with ``prefix`` (the static helpers of the .c file keep ``opgen_internal_``)."""
    specs = [s for s in specs if s.visibility != "SKIP"]
    cores = op_cores(specs)
    # An alias takes no op's core, nor the Attrs / AttrsInit names beside it.
    taken = {c + suffix for c in cores.values() for suffix in ("Attrs", "AttrsInit")}
    aliases = endpoint_aliases(specs, cores, alias_core, taken)
    ops = []
    for spec in sorted(specs, key=lambda s: s.name):
        op = c_op(spec, cores[spec.name], prefix)
        if spec.name in aliases:
            op = replace(op, aliases=tuple(c_alias(a, op, prefix) for a in aliases[spec.name]))
        ops.append(op)
    return ops


def files(specs: Sequence[OpSpec], source: str,
          identity: Identity = DEFAULT) -> list[tuple[str, str, dict[str, Any]]]:
    """The header (declarations, attrs structs, docs) and the source defining them, named
    ``<prefix>ops.h`` / ``.c`` after ``identity.c_prefix``, which starts every symbol."""
    ops = c_ops(specs, identity.c_prefix)
    stem = identity.c_files
    setters = [s.setter for op in ops for s in op.attr_statements]
    outputs = [o for op in ops for o in op.outputs]
    context = {"source": source.replace("\n", " "), "ops": ops, "stem": stem,
               "prefix": identity.c_prefix, "guard": include_guard(stem, "_H_"),
               # helpers the .c file defines only when some op calls them
               "uses_string_list": any(s.function == SET_STRING_LIST for s in setters),
               "uses_func_list": any(s.function == SET_FUNC_LIST for s in setters),
               "uses_status_setters": any(s.reports_status for s in setters),
               "uses_list_output": any(o.is_list for o in outputs),
               "uses_output": any(not o.is_list for o in outputs),
               "uses_deprecated_aliases": any(a.attribute for op in ops for a in op.aliases)}
    return [("opgen_ops.h.j2", f"c/{stem}.h", context),
            ("opgen_ops.c.j2", f"c/{stem}.c", context)]


OWNED_GLOBS = ()
