"""Rust: a crate of safe wrappers over the runtime's TensorFlow C API, one builder per op.

Each op becomes a function taking its inputs and required attrs (``ops::mat_mul(a, b)``)
that returns a builder struct (``ops::MatMul``) with one method per optional attr, plus
``name``, ``device``, ``control_input`` and ``build(&graph)``. The hand-written part of
the crate (FFI declarations, ``Graph``, ``Operation``, ``Output``, ``Tensor``,
``Session``, ``Error``) is ``templates/rust/static/lib.rs``, copied unchanged; its
``DataType`` enum is generated beside it (``data_type.rs``). Everything the templates
print for an op is computed here: names, Rust types of attrs, the conversion into an
``AttrValue``, and the doc comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from opgen.langs import doctext, numbers, rslayout
from opgen.langs.endpoints import EndpointAlias, endpoint_aliases, message_of
from opgen.langs.identity import DEFAULT, Identity
from opgen.langs.naming import (
    camel_dtypes,
    named_dtypes,
    dtype_camel,
    dtype_camel_name,
    snake_case,
    unique,
    words,
)
from opgen.langs.static_files import static_file
from opgen.model import ArgKind, AttrSpec, DType, OpSpec, Shape, TensorValue

NAME = "rust"

#: Rust's strict, reserved and (2018+) edition keywords: none can name a parameter or
#: function without ``r#``, and ``self``/``Self``/``super``/``crate`` not even with it.
KEYWORDS = words("""
    as async await break const continue crate dyn else enum extern false fn for gen if impl
    in let loop match mod move mut pub ref return self Self static struct super trait true
    try type unsafe use where while abstract become box do final macro override priv typeof
    unsized virtual yield
""")

#: Prelude names the generated ``ops`` module relies on; an op struct of the same name
#: would shadow them. (The crate's own types are spelled ``crate::Shape`` there, so an
#: op may be called ``Shape``.)
OPS_MODULE_TYPES = frozenset({
    "Result", "Option", "Some", "None", "Ok", "Err", "Vec", "String", "Box",
    "Into", "IntoIterator", "AsRef", "Iterator", "Clone", "Copy", "Default", "Drop",
    "Send", "Sync", "Sized", "From", "Fn", "FnMut", "FnOnce", "ToString", "ToOwned"})

#: Locals and names the generated function bodies use: no parameter may take them.
BODY_NAMES = frozenset({"op"})

#: Methods every builder has; an optional attr of the same name gets a trailing ``_``.
BUILDER_METHODS = frozenset({"name", "device", "control_input", "build", "op"})

# --------------------------------------------------------------------------- naming


def avoid_keywords(name: str, taken: Iterable[str] = ()) -> str:
    """``name`` with trailing underscores until it is neither a keyword nor taken."""
    taken = set(taken)
    if not name or name[0].isdigit():
        name = "_" + name
    if name == "_":
        name = "__"
    while name in KEYWORDS or name in taken:
        name += "_"
    return name


def snake_identifier(name: str) -> str:
    """A Rust snake_case identifier for an OpDef arg or attr name (``Tidx`` -> ``tidx``)."""
    return re.sub(r"[^a-z0-9_]", "_", snake_case(name))


def struct_base(op_name: str) -> str:
    """The op's builder struct name: the op name itself, made an identifier."""
    return re.sub(r"[^A-Za-z0-9_]", "_", op_name)


def op_names(op_names: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Op name -> (function name, struct name), unique in the ``ops`` module; the op
    whose name sorts first keeps a contested name, later ones get ``_2``, ``_3``..."""
    functions: set[str] = set()
    structs: set[str] = set(OPS_MODULE_TYPES)
    result = {}
    for op_name in sorted(op_names):
        function = unique(avoid_keywords(snake_case(op_name)), functions)
        struct = unique(avoid_keywords(struct_base(op_name), OPS_MODULE_TYPES), structs)
        result[op_name] = (function, struct)
    return result


def parameter_names(spec: OpSpec) -> dict[str, str]:
    """OpDef input / required-attr name -> parameter name of the op's function."""
    taken = set(BODY_NAMES)
    result = {}
    for item in list(spec.signature_inputs) + list(spec.required_attrs):
        result[item.name] = avoid_keywords(snake_identifier(item.public_name), taken)
        taken.add(result[item.name])
    return result


def method_names(spec: OpSpec) -> dict[str, str]:
    """Optional attr name -> builder method name."""
    taken = set(BUILDER_METHODS)
    result = {}
    for attr in spec.optional_attrs:
        result[attr.name] = avoid_keywords(snake_identifier(attr.public_name), taken)
        taken.add(result[attr.name])
    return result


def dtype_variant(enum_name: str) -> str:
    """``DT_FLOAT`` -> ``Float``: the crate's ``DataType`` variant."""
    return dtype_camel_name(enum_name)


def dtypes() -> list[tuple[str, int]]:
    """(variant, enum value) of every non-reference DataType but DT_INVALID, by value."""
    return camel_dtypes()


def dtype_literal(dtype: DType) -> str:
    return "DataType::" + dtype_camel(dtype)


# ------------------------------------------------------------------------ attr types

#: attr type -> (parameter type, expression making an AttrValue of ``{}``)
_ATTR_TYPES = {
    "string": ("impl AsRef<[u8]>", "crate::AttrValue::string({})"),
    "int": ("i64", "crate::AttrValue::Int({})"),
    "float": ("f32", "crate::AttrValue::Float({})"),
    "bool": ("bool", "crate::AttrValue::Bool({})"),
    "type": ("crate::DataType", "crate::AttrValue::Type({})"),
    "shape": ("impl Into<crate::Shape>", "crate::AttrValue::Shape({}.into())"),
    "tensor": ("crate::Tensor", "crate::AttrValue::Tensor({})"),
    "func": ("impl Into<String>", "crate::AttrValue::Func({}.into())"),
    "list(string)": ("impl IntoIterator<Item = impl AsRef<[u8]>>",
                     "crate::AttrValue::string_list({})"),
    "list(int)": ("&[i64]", "crate::AttrValue::IntList({}.to_vec())"),
    "list(float)": ("&[f32]", "crate::AttrValue::FloatList({}.to_vec())"),
    "list(bool)": ("&[bool]", "crate::AttrValue::BoolList({}.to_vec())"),
    "list(type)": ("&[crate::DataType]", "crate::AttrValue::TypeList({}.to_vec())"),
    "list(shape)": ("&[crate::Shape]", "crate::AttrValue::ShapeList({}.to_vec())"),
    "list(tensor)": ("Vec<crate::Tensor>", "crate::AttrValue::TensorList({})"),
    "list(func)": ("impl IntoIterator<Item = impl Into<String>>",
                   "crate::AttrValue::func_list({})"),
}


def attr_type(attr: AttrSpec) -> str:
    """The Rust parameter type of an attr: ``i64``, ``&[crate::DataType]``, ``impl Into<crate::Shape>``..."""
    return _ATTR_TYPES[attr.type][0]


def attr_value(attr: AttrSpec, variable: str) -> str:
    """The expression turning parameter ``variable`` into the crate's ``AttrValue``."""
    return _ATTR_TYPES[attr.type][1].format(variable)


# ------------------------------------------------------------------------- literals


def string_literal(text: str | bytes) -> str:
    """A Rust string literal (``b"..."`` for bytes that are not UTF-8)."""
    if isinstance(text, bytes):
        body = "".join(chr(b) if 0x20 <= b < 0x7f and chr(b) not in '"\\' else f"\\x{b:02x}"
                       for b in text)
        return f'b"{body}"'
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) == 0x7f or not c.isprintable():
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


_SPECIAL_FLOATS = {"nan": "f32::NAN", "inf": "f32::INFINITY", "-inf": "f32::NEG_INFINITY"}


def float_literal(value: float) -> str:
    """An ``f32`` value: the shortest digits that round-trip, or f32's named constants."""
    special = numbers.special_float(value)
    return _SPECIAL_FLOATS[special] if special else numbers.shortest_float32_repr(value)


def literal(value: Any, attr_type: str) -> str:
    """Rust source spelling an attr value (used in doc comments for defaults)."""
    if attr_type.startswith("list("):
        element = attr_type[5:-1]
        return "[" + ", ".join(literal(v, element) for v in value) + "]"
    if attr_type == "bool":
        return "true" if value else "false"
    if attr_type == "int":
        return str(int(value))
    if attr_type == "float":
        return float_literal(value)
    if attr_type == "string":
        return string_literal(value)
    if attr_type == "type":
        return dtype_literal(value)
    if attr_type == "shape":
        return shape_literal(value)
    if attr_type == "func":
        return string_literal(value.name)
    if attr_type == "tensor":
        return tensor_description(value)
    raise ValueError(f"no Rust literal for attr type {attr_type!r}")


def shape_literal(shape: Shape) -> str:
    if shape.dims is None:
        return "Shape::unknown()"
    return "Shape::from(&[" + ", ".join("-1" if d is None else str(d) for d in shape.dims) + "][..])"


def tensor_description(value: TensorValue) -> str:
    """Tensor defaults are described, not spelled: Rust has no tensor literal."""
    return f"a {value.dtype.name} tensor of shape {list(value.shape)}"


# ------------------------------------------------------------------------ doc comments


def doc_comment(lines: Sequence[str], indent: str = "") -> str:
    """``///`` lines; an opening code fence becomes ```` ```text```` so that rustdoc never
    runs an OpDef's example as a doctest."""
    out, in_fence = [], False
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith("```"):
            if not in_fence:
                line = line[:len(line) - len(stripped)] + "```text"
            in_fence = not in_fence
        out.append(f"{indent}///{' ' + line if line else ''}")
    return "\n".join(out)


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class Input:
    param: str
    rust_type: str
    add: str          # the statement adding it to ``op``


@dataclass(frozen=True)
class Attr:
    param: str        # parameter (required) or method (optional) name
    rust_type: str
    set: str          # the statement setting it on ``op``
    doc: str          # doc comment (optional attrs)

    @property
    def setter_signature(self) -> str:
        """The builder method's ``pub fn ...(mut self, value: T) -> Self {`` (optional attrs)."""
        return rslayout.signature("    ", f"pub fn {self.param}",
                                  ["mut self", f"value: {self.rust_type}"], " -> Self {")


@dataclass(frozen=True)
class RustOp:
    op_type: str      # string literal
    function: str
    struct: str
    doc: str
    parameters: str   # "a: impl Into<crate::Output>, b: impl Into<crate::Output>, ..."
    inputs: tuple[Input, ...]
    required: tuple[Attr, ...]
    optional: tuple[Attr, ...]
    aliases: tuple[RustAlias, ...] = ()   # the function under its ApiDef endpoint names
    parameter_list: tuple[str, ...] = ()   # "a: impl Into<crate::Output>", ...

    @property
    def arguments(self) -> str:
        """The parameters' names, to pass on."""
        return ", ".join([i.param for i in self.inputs] + [a.param for a in self.required])

    # The lines the template prints, laid out as rustfmt would (rslayout).

    def signature(self, function: str | None = None) -> str:
        """``pub fn ...(...) -> Struct {`` of the function or of an alias of it."""
        return rslayout.signature("", f"pub fn {function or self.function}",
                                  self.parameter_list, f" -> {self.struct} {{")

    @property
    def new_op(self) -> str:
        return rslayout.let_call("    ", "let mut op", "crate::OpSpec::new", [self.op_type])

    @property
    def alias_body(self) -> str:
        """An alias's call of the function."""
        args = [i.param for i in self.inputs] + [a.param for a in self.required]
        return rslayout.call("    ", self.function, args, "")


@dataclass(frozen=True)
class RustAlias:
    name: str
    doc: str
    attribute: str    # "" or #[deprecated(note = "...")]


_LIST_INPUT = "impl IntoIterator<Item = impl Into<crate::Output>>"


def rust_op(spec: OpSpec, function: str, struct: str) -> RustOp:
    params = parameter_names(spec)
    methods = method_names(spec)
    inputs = []
    for arg in spec.signature_inputs:
        p = params[arg.name]
        if arg.kind is ArgKind.SINGLE:
            inputs.append(Input(p, "impl Into<crate::Output>",
                                rslayout.call("    ", "op.add_input", [f"{p}.into()"])))
        else:
            inputs.append(Input(p, _LIST_INPUT, rslayout.call("    ", "op.add_input_list", [p])))
    by_name = {i.param: i for i in inputs}
    # TF_AddInput order is the OpDef's, whatever order the caller passes them in.
    adds = tuple(by_name[params[arg.name]] for arg in spec.inputs)
    required = tuple(
        Attr(params[a.name], attr_type(a),
             rslayout.call("    ", "op.set_attr",
                           [string_literal(a.name), attr_value(a, params[a.name])]), "")
        for a in spec.required_attrs)
    optional = tuple(
        Attr(methods[a.name], attr_type(a),
             rslayout.method_call("        ", "self.op", "set_attr",
                                  [string_literal(a.name), attr_value(a, "value")]),
             doc_comment(doctext.attr_doc(spec, a, literal), "    "))
        for a in spec.optional_attrs)
    output_names = [snake_identifier(a.public_name) for a in spec.outputs]
    doc = doctext.op_doc(spec, params, output_names, literal,
                         "the operation (it has no outputs); run it as a session target")
    doc += ["", (f"Call `.build(&graph)` on the returned [`{struct}`] to add the operation; "
                 "its outputs are `operation.output(i)`, flattened in the order above.")]
    parameter_list = tuple([f"{i.param}: {i.rust_type}" for i in inputs] +
                           [f"{a.param}: {a.rust_type}" for a in required])
    return RustOp(string_literal(spec.name), function, struct, doc_comment(doc),
                  ", ".join(parameter_list), adds, required, optional,
                  parameter_list=parameter_list)


def rust_alias(alias: EndpointAlias, function: str) -> RustAlias:
    # `since` would name the version that deprecated the name; an ApiDef gives the one
    # that removes it, so that goes in the note.
    message = message_of(alias, function)
    if not message:
        return RustAlias(alias.name, f"/// [`{function}`] under the name of an ApiDef endpoint.", "")
    return RustAlias(alias.name, f"/// [`{function}`] under a deprecated ApiDef endpoint name.",
                     f"#[deprecated(note = {string_literal(message)})]")


def rust_ops(specs: Sequence[OpSpec]) -> list[RustOp]:
    """Every generated op, sorted by op name; ops an ApiDef marks SKIP are left out."""
    specs = sorted((s for s in specs if s.visibility != "SKIP"), key=lambda s: s.name)
    names = op_names(s.name for s in specs)
    functions = {op_name: function for op_name, (function, _) in names.items()}
    aliases = endpoint_aliases(specs, functions, lambda e: avoid_keywords(snake_identifier(e)),
                               ())
    ops = []
    for spec in specs:
        op = rust_op(spec, *names[spec.name])
        if spec.name in aliases:
            op = replace(op, aliases=tuple(rust_alias(a, op.function) for a in aliases[spec.name]))
        ops.append(op)
    return ops


def files(specs: Sequence[OpSpec], source: str,
          identity: Identity = DEFAULT) -> list[tuple[str, str, dict[str, Any]]]:
    """(template, output path, context): the crate manifest, build script, the
    hand-written crate root and resource variables (static), its ``DataType`` enum, the
    ops."""
    source = source.replace("\n", " ")
    common = {"source": source}
    return [
        ("Cargo.toml.j2", "rust/Cargo.toml", {**common, "crate": identity.rust_crate,
                                              "lib": identity.rust_lib,
                                              "version": identity.rust_version}),
        ("build.rs.j2", "rust/build.rs", common),
        static_file(NAME, "lib.rs", "rust/src/lib.rs"),
        static_file(NAME, "variable.rs", "rust/src/variable.rs"),
        static_file(NAME, "train.rs", "rust/src/train.rs"),
        static_file(NAME, "flow.rs", "rust/src/flow.rs"),
        ("data_type.rs.j2", "rust/src/data_type.rs", {**common, "dtypes": dtypes(),
                                                           "dtype_names": named_dtypes()}),
        ("ops.rs.j2", "rust/src/ops.rs", {**common, "ops": rust_ops(specs)}),
    ]


#: files an earlier run may have written that this run might not: removed when stale
OWNED_GLOBS = ("rust/src/*.rs",)
