"""Go: a cgo module over the runtime's TensorFlow C API, one function per op.

As in TensorFlow's Go API there are two packages: ``tf`` (the module root: ``Graph``,
``Operation``, ``Output``, ``Tensor``, ``Session``, ``Error``, over cgo) and ``tf/op``
(``Scope`` and the ops, plain Go). Each op becomes an exported function of ``op`` taking
a ``*Scope``, its inputs and required attrs and, last, functional options for the
optional attrs (``op.MatMul(s, a, b, op.MatMulTransposeA(true))``); it returns the op's
outputs and an ``error``. Everything the templates print for an op is computed here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from opgen.langs import doctext, godoc, numbers
from opgen.langs.endpoints import EndpointAlias, endpoint_aliases, message_of
from opgen.langs.identity import DEFAULT, GO_KEYWORDS, Identity
from opgen.langs.naming import (
    camel_dtypes,
    dtype_camel,
    named_dtypes,
    unique,
    words,
)
from opgen.langs.static_files import static_file
from opgen.model import ArgKind, AttrSpec, OpSpec, Shape

NAME = "go"

#: The Go module path of the generated module (its go.mod), the root package's name;
#: the ops are package ``op`` in the ``op`` folder, which imports the root as ``tf``.
#: templates/go/static/runtime.go spells both as written here (a test checks).
MODULE_PATH = "opgen.dev/tf"
PACKAGE = "tf"

KEYWORDS = GO_KEYWORDS

#: Predeclared identifiers: a parameter of such a name would shadow the type or builtin
#: the function body (or its signature) uses.
PREDECLARED = words("""
    any bool byte comparable complex64 complex128 error float32 float64 int int8 int16
    int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil
    append cap clear close complex copy delete imag len make max min new panic print
    println real recover
""")

#: Locals of a generated function and unexported package names it refers to.
BODY_NAMES = frozenset({"scope", "optional", "attrs", "opt", "op", "err", "outs", "tf",
                        "optionalAttr", "funcNames", "splitOutputs"})

#: Exported names package ``op`` defines besides the ops: scope.go's, variable.go's,
#: train.go's and flow.go's (TensorFlow's ref-variable op ``Variable`` gets ``Variable2``,
#: as any collision would).
RUNTIME_NAMES = frozenset({"Scope", "NewScope", "NewScopeWithGraph",
                           "Variable", "VariableAttr", "NewVariable", "VariableName",
                           "VariableInitialValue", "VariableInitialTensor", "VariableContainer",
                           "VariableSharedName", "GlobalVariablesInitializer",
                           "Optimizer", "GradAndVar", "NewGradientDescentOptimizer",
                           "NewMomentumOptimizer", "NewAdamOptimizer",
                           "TensorSpec", "FunctionBuilder", "CondBuilder", "NewFunction", "Call",
                           "Cond", "WhileLoop"})

#: TF_Code names as the package spells them.
CODES = ("OK", "Cancelled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
         "AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
         "Aborted", "OutOfRange", "Unimplemented", "Internal", "Unavailable", "DataLoss",
         "Unauthenticated")


# --------------------------------------------------------------------------- naming


def camel_case(name: str) -> str:
    """``transpose_a`` -> ``TransposeA``, ``Tidx`` -> ``Tidx``, ``_Arg`` -> ``Arg``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    text = "".join(p[:1].upper() + p[1:] for p in parts)
    return text if text and not text[0].isdigit() else "Op" + text


def lower_camel_case(name: str) -> str:
    """A parameter name: ``transpose_a`` -> ``transposeA``, ``T`` -> ``t``, ``Tidx`` -> ``tidx``."""
    text = camel_case(name)
    lead = re.match(r"[A-Z]+(?![a-z])|[A-Z]", text)
    if lead and len(lead.group()) > 1 and lead.end() < len(text):
        # "DTypes" -> "dTypes": keep the last capital of an acronym that starts a word.
        return text[:lead.end() - 1].lower() + text[lead.end() - 1:]
    return text[:lead.end()].lower() + text[lead.end():] if lead else text


def avoid_reserved(name: str, taken: Iterable[str] = ()) -> str:
    taken = set(taken)
    while name in KEYWORDS or name in PREDECLARED or name in taken or name == "_":
        name += "_"
    return name


def package_names() -> set[str]:
    """Every name of package ``op`` that is not an op's."""
    return set(RUNTIME_NAMES) | set(PREDECLARED)


@dataclass(frozen=True)
class OpNames:
    function: str
    attr_type: str               # the functional-option type, ``MatMulAttr``
    options: dict[str, str]      # optional attr name -> option function


def op_names(specs: Sequence[OpSpec]) -> dict[str, OpNames]:
    """Unique package-level names for every op, in op-name order so that a name a later
    op also wants stays with the earlier one (which gets nothing appended)."""
    taken = package_names()
    specs = sorted(specs, key=lambda s: s.name)
    functions = {s.name: unique(camel_case(s.name), taken, "") for s in specs}
    result = {}
    for spec in specs:
        function = functions[spec.name]
        attr_type = unique(function + "Attr", taken, "") if spec.optional_attrs else ""
        options = {a.name: unique(function + camel_case(a.public_name), taken, "")
                   for a in spec.optional_attrs}
        result[spec.name] = OpNames(function, attr_type, options)
    return result


def parameter_names(spec: OpSpec) -> dict[str, str]:
    """OpDef input / required-attr name -> Go parameter name."""
    taken = set(BODY_NAMES) | package_names()
    result = {}
    for item in list(spec.signature_inputs) + list(spec.required_attrs):
        result[item.name] = avoid_reserved(lower_camel_case(item.public_name), taken)
        taken.add(result[item.name])
    return result


# ------------------------------------------------------------------------ attr types

#: attr type -> (Go parameter type, the attrs-map value of parameter ``{}``)
_ATTR_TYPES = {
    "string": ("string", "{}"),
    "int": ("int64", "{}"),
    "float": ("float32", "{}"),
    "bool": ("bool", "{}"),
    "type": ("tf.DataType", "{}"),
    "shape": ("tf.Shape", "{}"),
    "tensor": ("*tf.Tensor", "{}"),
    "func": ("string", "tf.Func({})"),
    "list(string)": ("[]string", "{}"),
    "list(int)": ("[]int64", "{}"),
    "list(float)": ("[]float32", "{}"),
    "list(bool)": ("[]bool", "{}"),
    "list(type)": ("[]tf.DataType", "{}"),
    "list(shape)": ("[]tf.Shape", "{}"),
    "list(tensor)": ("[]*tf.Tensor", "{}"),
    "list(func)": ("[]string", "funcNames({})"),
}


def attr_type(attr: AttrSpec) -> str:
    return _ATTR_TYPES[attr.type][0]


def attr_value(attr: AttrSpec, variable: str) -> str:
    return _ATTR_TYPES[attr.type][1].format(variable)


# ------------------------------------------------------------------------- literals


def string_literal(text: str | bytes) -> str:
    """A Go interpreted string literal (bytes that are not UTF-8 as ``\\x`` escapes)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    out = []
    for c in data.decode("utf-8", errors="surrogateescape"):
        code = ord(c)
        if 0xDC80 <= code <= 0xDCFF:          # an undecodable byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7f or not c.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


#: How doc comments spell float32's special values: as Go's strconv formats them (no
#: Go expression names a float32 NaN or infinity; math.NaN() is a float64 call).
_SPECIAL_FLOATS = {"nan": "NaN", "inf": "+Inf", "-inf": "-Inf"}


def float_literal(value: float) -> str:
    """A ``float32`` value: the shortest digits that round-trip, else NaN / +Inf / -Inf."""
    special = numbers.special_float(value)
    return _SPECIAL_FLOATS[special] if special else numbers.shortest_float32_repr(value)


def literal(value: Any, attr_type: str) -> str:
    """Go source spelling an attr value (doc comments show defaults this way)."""
    if attr_type.startswith("list("):
        element = attr_type[5:-1]
        go_type = _ATTR_TYPES[attr_type][0]
        return go_type + "{" + ", ".join(literal(v, element) for v in value) + "}"
    if attr_type == "bool":
        return "true" if value else "false"
    if attr_type == "int":
        return str(int(value))
    if attr_type == "float":
        return float_literal(value)
    if attr_type == "string":
        return string_literal(value)
    if attr_type == "type":
        return "tf." + dtype_camel(value)
    if attr_type == "shape":
        return shape_literal(value)
    if attr_type == "func":
        return string_literal(value.name)
    if attr_type == "tensor":
        return f"a {value.dtype.name} tensor of shape {list(value.shape)}"
    raise ValueError(f"no Go literal for attr type {attr_type!r}")


def shape_literal(shape: Shape) -> str:
    if shape.dims is None:
        return "tf.UnknownShape()"
    return "tf.MakeShape(" + ", ".join("-1" if d is None else str(d) for d in shape.dims) + ")"


def doc_comment(lines: Sequence[str], indent: str = "") -> str:
    """``//`` lines as gofmt (Go 1.19+) prints them (godoc); the text's ``- `` lines
    (and their indented continuations) are list items."""
    out, in_list = [], False
    for line in lines:
        if line.startswith("- "):
            line, in_list = "  " + line, True
        elif in_list and line.startswith("  "):
            line = "  " + line
        else:
            in_list = False
        out.append(line)
    return godoc.comment(out, indent)


def _aligned(names: Iterable[str]) -> list[str]:
    """Names padded to one width, as gofmt aligns a const block."""
    names = list(names)
    width = max(map(len, names), default=0)
    return [name.ljust(width) for name in names]


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class Option:
    function: str
    go_type: str
    value: str        # the attrs-map value of ``value``
    attr_name: str    # string literal
    doc: str


@dataclass(frozen=True)
class GoOp:
    op_type: str          # string literal
    function: str
    doc: str
    parameters: str       # "scope *Scope, a Output, b Output, optional ...MatMulAttr"
    results: str          # "(Output, error)"
    required: tuple[tuple[str, str], ...]   # (attr name literal, value expression)
    inputs: str           # "a, b, OutputList(values)" in OpDef order
    attr_type: str
    options: tuple[Option, ...]
    error_return: str     # "return Output{}, err"
    output_args: str      # "" or the arguments of op.splitOutputs(...)
    success_return: str   # "return op.Output(0), nil"
    aliases: tuple[GoAlias, ...] = ()   # the function under its ApiDef endpoint names


@dataclass(frozen=True)
class GoAlias:
    name: str
    doc: str              # ends in a "Deprecated:" paragraph for a deprecated endpoint


def _zero(kind: ArgKind) -> str:
    return "tf.Output{}" if kind is ArgKind.SINGLE else "nil"


def go_op(spec: OpSpec, names: OpNames) -> GoOp:
    params = parameter_names(spec)
    parameters = ["scope *Scope"]
    for arg in spec.signature_inputs:
        parameters.append(f"{params[arg.name]} {'tf.Output' if arg.kind is ArgKind.SINGLE else '[]tf.Output'}")
    parameters += [f"{params[a.name]} {attr_type(a)}" for a in spec.required_attrs]
    if names.attr_type:
        parameters.append(f"optional ...{names.attr_type}")
    inputs = ", ".join(params[a.name] if a.kind is ArgKind.SINGLE else f"tf.OutputList({params[a.name]})"
                       for a in spec.inputs)
    required = tuple((string_literal(a.name), attr_value(a, params[a.name])) for a in spec.required_attrs)

    if not spec.outputs:
        results, zero, success, output_args = "(*tf.Operation, error)", "nil", "return op, nil", ""
    else:
        results = "(" + ", ".join("tf.Output" if a.kind is ArgKind.SINGLE else "[]tf.Output"
                                  for a in spec.outputs) + ", error)"
        zero = ", ".join(_zero(a.kind) for a in spec.outputs)
        if all(a.kind is ArgKind.SINGLE for a in spec.outputs):
            output_args = ""
            success = "return " + ", ".join(f"op.Output({i})" for i in range(len(spec.outputs))) + ", nil"
        else:
            output_args = ("[]string{" + ", ".join(string_literal(a.name) for a in spec.outputs) +
                           "}, []bool{" + ", ".join("false" if a.kind is ArgKind.SINGLE else "true"
                                                    for a in spec.outputs) + "}")
            success = "return " + ", ".join(f"outs[{i}][0]" if a.kind is ArgKind.SINGLE else f"outs[{i}]"
                                            for i, a in enumerate(spec.outputs)) + ", nil"

    options = tuple(
        Option(names.options[a.name], attr_type(a), attr_value(a, "value"), string_literal(a.name),
               doc_comment([(f"{names.options[a.name]} sets the optional `{a.name}` attr of "
                             f"{names.function}."), ""] + doctext.attr_doc(spec, a, literal)))
        for a in spec.optional_attrs)
    output_names = [lower_camel_case(a.public_name) for a in spec.outputs]
    lines = [f"{names.function} adds a `{spec.name}` operation to the scope's graph.", ""]
    lines += doctext.op_doc(spec, params, output_names, literal,
                            "the operation (it has no outputs), to run as a session target",
                            summary_fallback=False)
    if names.attr_type:
        lines += ["", f"Optional attrs are set by the {names.attr_type} options: "
                      + ", ".join(o.function for o in options) + "."]
    lines += ["", "The last result is the error of adding the operation, nil on success."]
    return GoOp(string_literal(spec.name), names.function, doc_comment(lines),
                ", ".join(parameters), results, required, inputs, names.attr_type, options,
                f"return {zero}, err", output_args, success)


def go_alias(alias: EndpointAlias, function: str) -> GoAlias:
    message = message_of(alias, function)
    if not message:
        return GoAlias(alias.name, doc_comment(
            [f"{alias.name} is {function} under the name of an ApiDef endpoint."]))
    # The paragraph gopls and staticcheck read to flag callers.
    return GoAlias(alias.name, doc_comment(
        [f"{alias.name} is {function} under a deprecated ApiDef endpoint name.", "",
         f"Deprecated: {message}."]))


def go_ops(specs: Sequence[OpSpec]) -> list[GoOp]:
    """Every generated op, sorted by op name; ops an ApiDef marks SKIP are left out."""
    specs = sorted((s for s in specs if s.visibility != "SKIP"), key=lambda s: s.name)
    names = op_names(specs)
    # Aliases take no name of the package: functions, option types and options.
    taken = package_names() | {n for op in names.values()
                               for n in (op.attr_type, *op.options.values()) if n}
    aliases = endpoint_aliases(specs, {s.name: names[s.name].function for s in specs},
                               lambda e: avoid_reserved(camel_case(e)), taken)
    ops = []
    for spec in specs:
        op = go_op(spec, names[spec.name])
        if spec.name in aliases:
            op = replace(op, aliases=tuple(go_alias(a, op.function) for a in aliases[spec.name]))
        ops.append(op)
    return ops


def files(specs: Sequence[OpSpec], source: str,
          identity: Identity = DEFAULT) -> list[tuple[str, str, dict[str, Any]]]:
    """(template, output path, context): go.mod, the dtype and code constants, the
    hand-written runtime (static: package ``PACKAGE``), the ops and the hand-written
    resource variables of package op (static)."""
    source = source.replace("\n", " ")
    common = {"source": source, "package": identity.go_package, "module": identity.go_module}
    return [
        ("go.mod.j2", "go/go.mod", common),
        ("types.go.j2", "go/types.go", {
            **common,
            "dtypes": list(zip(_aligned(name for name, _ in camel_dtypes()), (v for _, v in camel_dtypes()))),
            "codes": list(zip(_aligned(CODES), CODES)),
            "dtype_names": list(zip(_aligned(f"{c}:" for c, _ in named_dtypes()),
                                    (n for _, n in named_dtypes())))}),
        _runtime_file(identity),
        _runtime_file(identity, "function.go"),
        ("scope.go.j2", "go/op/scope.go", common),
        ("ops.go.j2", "go/op/ops.go", {**common, "ops": go_ops(specs)}),
        _variable_file(identity),
        _variable_file(identity, "train.go"),
        _variable_file(identity, "flow.go"),
    ]


def _runtime_file(identity: Identity, name: str = "runtime.go") -> tuple[str, str, dict[str, Any]]:
    """runtime.go or function.go (static, written for ``PACKAGE`` in ``MODULE_PATH``) in
    the package and module ``identity`` names: its package clause and the names its
    comment gives."""
    template, path, context = static_file(NAME, name, f"go/{name}")
    text = context["text"]
    if identity.go_package != PACKAGE:
        text = text.replace(f"\npackage {PACKAGE}\n", f"\npackage {identity.go_package}\n", 1)
        text = text.replace(f"// Package {PACKAGE} ", f"// Package {identity.go_package} ", 1)
    text = text.replace(f"{MODULE_PATH}/op", f"{identity.go_module}/op")
    return template, path, {"text": text}


#: files an earlier run may have written that this run might not: removed when stale
def _variable_file(identity: Identity, name: str = "variable.go") -> tuple[str, str, dict[str, Any]]:
    """op/variable.go, op/train.go or op/flow.go (static, importing ``MODULE_PATH``)
    importing the module ``identity`` names."""
    template, path, context = static_file(NAME, name, f"go/op/{name}")
    text = context["text"].replace(f'tf "{MODULE_PATH}"', f'tf "{identity.go_module}"', 1)
    return template, path, {"text": text}


OWNED_GLOBS = ("go/*.go", "go/op/*.go")
