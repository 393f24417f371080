"""C++: a header-only API over TensorFlow's C API, in the style of TensorFlow's C++ ops.

One class per op in ``opgen::ops``, constructed from a ``Scope`` with the inputs and
required attrs; optional attrs through chained setters on the op's ``Attrs``
(``MatMul::TransposeA(true)``); the outputs are public members. The framework it
builds on (``Scope``, ``Input``, ``Output``, ``Tensor``, ``ClientSession``, ``Error``)
is ``templates/cpp/static/opgen_framework.h``, copied unchanged. Names and literals
here; layout in ``templates/cpp``. Identifier cores and C literals come from
:mod:`opgen.langs.c_family`, which the C language module shares.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from opgen.langs import c_family
from opgen.langs.endpoints import EndpointAlias, endpoint_aliases, message_of
from opgen.langs.identity import DEFAULT, Identity, include_guard
from opgen.langs.naming import unique
from opgen.langs.static_files import static_file
from opgen.model import ArgKind, AttrSpec, OpSpec

NAME = "cpp"

#: names an op class may not take in ``opgen::ops`` (C++ reserved words, and the helpers the
#: framework itself puts in ``opgen::ops``; its other names live in ``opgen`` and are always
#: spelled qualified in generated code)
RESERVED = c_family.RESERVED | {"ops", "internal", "opgen", "std", "Cond", "BuildWhileLoop",
                                "CondGraphBuilderFn", "BodyGraphBuilderFn"}

# Members and locals of every op class and constructor besides the op's own names.
CLASS_NAMES = frozenset({"Attrs", "operation", "scope", "attrs"})


# --------------------------------------------------------------------------- naming


def camel_case(name: str) -> str:
    """An attr name as its setter: ``transpose_a`` -> ``TransposeA``, ``T`` -> ``T``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    camel = "".join(p[:1].upper() + p[1:] for p in parts) or "Attr"
    return camel if not camel[0].isdigit() else "Attr" + camel


def _member_name(name: str, taken: set[str]) -> str:
    """The ``Attrs`` field of an attr: its name with a trailing ``_``, as TensorFlow's."""
    base = c_family.local_name(name, set(), ()).rstrip("_")
    candidate, n = base + "_", 1
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}_"
    taken.add(candidate)
    return candidate


def comment_lines(text: str, indent: str = "") -> list[str]:
    """Lines for ``///`` comments: also no trailing backslash (it would continue the
    comment onto the next line)."""
    lines = c_family.comment_lines(text, indent)
    return [line + "." if line.endswith("\\") else line for line in lines]


# ------------------------------------------------------------------------- literals

_SCALAR_TYPES = {"int": "int64_t", "float": "float", "bool": "bool", "string": "std::string",
                 "type": "TF_DataType", "shape": "::opgen::PartialTensorShape",
                 "tensor": "::opgen::Tensor", "func": "std::string"}

_SETTERS = {"int": "SetAttrInt", "float": "SetAttrFloat", "bool": "SetAttrBool",
            "string": "SetAttrString", "type": "SetAttrType", "shape": "SetAttrShape",
            "tensor": "SetAttrTensor", "func": "SetAttrFunc"}


def attr_type(attr: AttrSpec) -> str:
    element = _SCALAR_TYPES[attr.element_type]
    return f"std::vector<{element}>" if attr.is_list else element


def parameter_type(attr: AttrSpec) -> str:
    """How a setter or constructor takes the attr: by value when small, else by reference."""
    cpp = attr_type(attr)
    return cpp if attr.type in ("int", "float", "bool", "type") else f"const {cpp}&"


def string_literal(value: str | bytes) -> str:
    """A ``std::string`` expression; with the length when the text holds a NUL."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    if b"\0" in data:
        return f"std::string({c_family.string_literal(data)}, {len(data)})"
    return f"std::string({c_family.string_literal(data)})"


def literal(value: Any, attr_type_name: str) -> str:
    """C++ source for an attr value of ``attr_type_name`` (as the model holds it)."""
    if attr_type_name.startswith("list("):
        element = attr_type_name[5:-1]
        cpp = _SCALAR_TYPES[element]
        return f"std::vector<{cpp}>{{" + ", ".join(literal(v, element) for v in value) + "}"
    if attr_type_name == "int":
        return f"int64_t{{{c_family.int_literal(value)}}}"
    if attr_type_name == "float":
        return c_family.float_literal(value)
    if attr_type_name == "bool":
        return "true" if value else "false"
    if attr_type_name == "string":
        return string_literal(value)
    if attr_type_name == "type":
        return c_family.dtype_literal(value)
    if attr_type_name == "shape":
        if value.dims is None:
            return "::opgen::PartialTensorShape::UnknownRank()"
        return "::opgen::PartialTensorShape({" + ", ".join(
            c_family.int_literal(-1 if d is None else d) for d in value.dims) + "})"
    if attr_type_name == "func":
        return string_literal(value.name)
    if attr_type_name == "tensor":
        return "::opgen::Tensor()"   # empty: the runtime applies the OpDef default
    raise ValueError(f"no C++ literal for attr type {attr_type_name!r}")


def _optional_attr_doc(attr: AttrSpec) -> str:
    """``type from {int32, int64}; default int32``, as the C header says it."""
    if attr.type in c_family.UNSET_WHEN_EMPTY:
        return c_family.attr_doc(attr) + " when not set"
    return c_family.attr_doc(attr, c_family.default_doc(attr.default, attr.type))


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class CppAttr:
    setter: str         # TransposeA
    member: str         # transpose_a_
    type: str           # bool, std::vector<int64_t>
    parameter: str      # how the setter takes it
    default: str        # C++ initializer
    statement: str      # _builder.SetAttrBool("transpose_a", attrs.transpose_a_);
    doc: tuple[str, ...]


@dataclass(frozen=True)
class CppOutput:
    member: str
    type: str           # ::opgen::Output or ::opgen::OutputList
    statement: str      # how the constructor fills it
    doc: tuple[str, ...]


@dataclass(frozen=True)
class CppOp:
    op_type: str
    class_name: str
    parameters: str               # after `const ::opgen::Scope& scope`
    arguments: str                # the same names, to delegate to the Attrs constructor
    conversions: tuple[str, ...]  # inputs -> Outputs, before the operation is described
    input_statements: tuple[str, ...]
    required_statements: tuple[str, ...]
    attrs: tuple[CppAttr, ...]
    outputs: tuple[CppOutput, ...]
    single_output: str            # the member an op converts to Output/Input, "" if none
    list_output: str              # the member for operator[] / size(), "" if none
    doc: tuple[str, ...]
    aliases: tuple[CppAlias, ...] = ()   # the class under its ApiDef endpoint names


@dataclass(frozen=True)
class CppAlias:
    doc: str
    declaration: str              # using Dot [[deprecated("...")]] = MatMul;


def _set_statement(attr: AttrSpec, value: str) -> str:
    setter = _SETTERS[attr.element_type] + ("List" if attr.is_list else "")
    statement = f"_builder.{setter}({c_family.string_literal(attr.name)}, {value});"
    if attr.has_default and attr.type in c_family.UNSET_WHEN_EMPTY:
        empty = f"{value}.empty()"
        statement = f"if (!{empty}) {statement}"
    return statement


def cpp_op(spec: OpSpec, class_name: str) -> CppOp:
    taken = set(CLASS_NAMES) | {class_name}
    params: dict[str, str] = {}
    for arg in spec.signature_inputs:
        params[arg.name] = c_family.local_name(arg.public_name, taken, RESERVED)
    for attr in spec.required_attrs:
        params[attr.name] = c_family.local_name(attr.public_name, taken, RESERVED)
    members = {arg.name: c_family.local_name(arg.name, taken, RESERVED) for arg in spec.outputs}
    attrs = []
    for attr in spec.optional_attrs:
        setter = unique(camel_case(attr.public_name), taken)
        member = _member_name(attr.public_name, taken)
        doc = [_optional_attr_doc(attr) + "."] + (
            comment_lines(attr.description) if attr.description.strip() else [])
        attrs.append(CppAttr(setter, member, attr_type(attr), parameter_type(attr),
                             literal(attr.default, attr.type),
                             _set_statement(attr, f"attrs.{member}"), tuple(doc)))

    parameters: list[tuple[str, str]] = []     # (type, name) of the constructor's parameters
    conversions, input_statements = [], []
    for arg in spec.signature_inputs:
        kind = "::opgen::Input" if arg.kind is ArgKind.SINGLE else "::opgen::InputList"
        parameters.append((kind, params[arg.name]))
    for arg in spec.inputs:     # converted in OpDef order: constants are made in that order
        p = params[arg.name]
        local = f"_in_{p}"
        if arg.kind is ArgKind.SINGLE:
            conversions.append(f"::opgen::Output {local} = scope.AsOutput({p});")
            input_statements.append(f"_builder.AddInput({local});")
        else:
            conversions.append(f"::opgen::OutputList {local} = scope.AsOutputList({p});")
            input_statements.append(f"_builder.AddInputList({local});")
    for attr in spec.required_attrs:
        parameters.append((parameter_type(attr), params[attr.name]))
    required_statements = tuple(_set_statement(a, params[a.name]) for a in spec.required_attrs)

    outputs = []
    for arg in spec.outputs:
        member = members[arg.name]
        kind = c_family.input_type_doc(arg, spec)
        output_doc = (kind,) + tuple(comment_lines(arg.description) if arg.description.strip() else ())
        if arg.kind is ArgKind.SINGLE:
            outputs.append(CppOutput(member, "::opgen::Output",
                                     f"this->{member} = ::opgen::Output(this->operation, _next_output++);",
                                     output_doc))
        else:
            outputs.append(CppOutput(
                member, "::opgen::OutputList",
                f"this->{member} = ::opgen::internal::ListOutputs(this->operation, "
                f"{c_family.string_literal(arg.name)}, &_next_output);", output_doc))
    single = outputs[0].member if len(outputs) == 1 and outputs[0].type == "::opgen::Output" else ""
    list_output = outputs[0].member if len(outputs) == 1 and not single else ""

    doc = [f"{spec.name}: " + (comment_lines(spec.summary)[0] if spec.summary.strip()
                                  else f"adds a {spec.name} operation.")]
    doc += comment_lines(spec.summary)[1:] if spec.summary.strip() else []
    if spec.description.strip():
        doc += [""] + comment_lines(spec.description)
    if spec.deprecation:
        doc += ["", f"Deprecated at GraphDef version {spec.deprecation.version}: "
                    + c_family.comment_text(spec.deprecation.explanation)]
    if spec.inputs or spec.required_attrs:
        doc += ["", "Arguments:"]
        for arg in spec.signature_inputs:
            doc.append(f"  {params[arg.name]}: {c_family.input_type_doc(arg, spec)}")
            doc += comment_lines(arg.description, "    ") if arg.description.strip() else []
        for attr in spec.required_attrs:
            doc.append(f"  {params[attr.name]}: {c_family.attr_doc(attr)}")
            doc += comment_lines(attr.description, "    ") if attr.description.strip() else []
    if attrs:
        doc += ["", "Optional attrs (see Attrs): " + ", ".join(a.setter for a in attrs) + "."]
    if outputs:
        doc += ["", "Outputs: " + ", ".join(o.member for o in outputs) + "."]
    return CppOp(
        op_type=c_family.string_literal(spec.name),
        class_name=class_name,
        parameters="".join(f", {kind} {name}" for kind, name in parameters),
        arguments="".join(f", {name}" for _, name in parameters),
        conversions=tuple(conversions),
        input_statements=tuple(input_statements),
        required_statements=required_statements,
        attrs=tuple(attrs),
        outputs=tuple(outputs),
        single_output=single,
        list_output=list_output,
        doc=tuple(doc),
    )


def cpp_alias(alias: EndpointAlias, class_name: str) -> CppAlias:
    """``using Dot = MatMul;``, with ``[[deprecated("...")]]`` for a deprecated endpoint."""
    message = message_of(alias, class_name)
    if not message:
        return CppAlias(f"{alias.name}: {class_name} under the name of an ApiDef endpoint.",
                        f"using {alias.name} = {class_name};")
    return CppAlias(f"{alias.name}: {class_name} under a deprecated ApiDef endpoint name.",
                    f"using {alias.name} [[deprecated({c_family.string_literal(message)})]] = "
                    f"{class_name};")


def cpp_ops(specs: Sequence[OpSpec], namespaces: Sequence[str] = ()) -> list[CppOp]:
    """Every generated op, sorted by op name; SKIP ops are left out. No class takes the
    name of one of the ``namespaces`` it is declared in."""
    specs = [s for s in specs if s.visibility != "SKIP"]
    reserved = RESERVED | set(namespaces)
    cores = c_family.op_cores(specs, reserved)
    aliases = endpoint_aliases(specs, cores, c_family.core_name, reserved)
    ops = []
    for spec in sorted(specs, key=lambda s: s.name):
        op = cpp_op(spec, cores[spec.name])
        if spec.name in aliases:
            op = replace(op, aliases=tuple(cpp_alias(a, op.class_name) for a in aliases[spec.name]))
        ops.append(op)
    return ops


def files(specs: Sequence[OpSpec], source: str,
          identity: Identity = DEFAULT) -> list[tuple[str, str, dict[str, Any]]]:
    """The framework header (static: the same for every OpList, namespace ``opgen``) and
    the ops header (named after ``identity.cpp_namespace``, which holds its classes)."""
    source = source.replace("\n", " ")
    header = identity.cpp_header
    context = {"source": source, "ops": cpp_ops(specs, identity.cpp_namespaces),
               "namespace": identity.cpp_namespace, "namespaces": identity.cpp_namespaces,
               "guard": include_guard(header.removesuffix(".h"), "_H_CC_")}
    return [static_file(NAME, "opgen_framework.h", "cpp/opgen_framework.h"),
            ("opgen_ops.h.j2", f"cpp/{header}", context)]


OWNED_GLOBS = ()
