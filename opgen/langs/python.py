"""Python: TensorFlow's naming conventions, Python literals and docstrings for each op.

Everything the ``templates/python`` template prints is computed here, where it can be
tested: function and parameter names, defaults as Python source, the docstring as a
string literal that always compiles, and the call into ``opgen.runtime.execute_op``.
"""

from __future__ import annotations

import builtins
import keyword
import operator
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from opgen.langs import numbers
from opgen.langs.endpoints import deprecation_message
from opgen.langs.identity import DEFAULT, Identity
from opgen.langs.naming import snake_case, unique
from opgen.langs.pylayout import Group, bracketed, layout, statement
from opgen.model import (
    NO_DEFAULT,
    ArgKind,
    ArgSpec,
    AttrSpec,
    DType,
    OpSpec,
    TensorValue,
    make_frozen,
)

NAME = "python"

# (module names: looking an Enum member up on its class costs ~65 ns in Python 3.11)
_SINGLE, _NUMBER_LIST, _TYPE_LIST = ArgKind.SINGLE, ArgKind.NUMBER_LIST, ArgKind.TYPE_LIST

# Names a generated function body or default refers to; no parameter may shadow them.
MODULE_GLOBALS = frozenset({"_collections", "_execute_op", "_math", "_np", "_dtypes",
                            "_deprecated", "__all__"})
# Names every generated group module or the stub defines or uses in annotations; a
# function of the same name would shadow them (in a stub, wherever it is defined).
GROUP_GLOBALS = frozenset({
    "annotations", "_TYPE_CHECKING", "_collections", "_dtypes", "_execute_op", "_math",
    "_np", "_warnings", "_deprecated", "_warned", "Any", "Sequence", "NamedTuple",
    "DTypeLike", "OpOutput", "ShapeLike", "TensorLike", "int", "float", "bool", "str", "list",
    "overload", "EagerTensorLike", "EagerOutput", "GraphOutput",
    "_functools", "_deprecated_alias", "_warned_aliases", "_deprecated_endpoint"})


# Names the index module (__init__.py) defines.
INDEX_GLOBALS = frozenset({"_GROUPS", "_where", "_importlib", "__getattr__", "__dir__"})


# Locals of every generated function besides its parameters.
FUNCTION_LOCALS = frozenset({"_out", "name"})

# TensorFlow renames these with a trailing underscore: Python keywords, plus the
# capitalised builtins (exception classes, True/False/None) and dunder names; "print"
# and "exec" were keywords in Python 2 and stay reserved for the same signatures.
RESERVED = frozenset(keyword.kwlist) | {"print", "exec"} | frozenset(
    n for n in dir(builtins) if n[:1].isupper() or n.startswith("__"))


# --------------------------------------------------------------------------- naming


def avoid_reserved(name: str, taken: Collection[str] = ()) -> str:
    """``name`` with trailing underscores added until it is neither reserved nor taken."""
    while name in RESERVED or name in taken or not name.isidentifier():
        name += "_"
    return name


def function_names(op_names: Iterable[str],
                   base: Callable[[str], str] = snake_case) -> dict[str, str]:
    """Op name -> function name, unique within one package.

    ``base`` gives each op's preferred name (TensorFlow's snake_case by default). When
    two ops want the same name, the one whose op name sorts first keeps it and the
    others get ``_2``, ``_3``... — the same result for any input order.
    """
    result: dict[str, str] = {}
    taken = set(MODULE_GLOBALS | GROUP_GLOBALS | INDEX_GLOBALS)
    for op_name in sorted(op_names):
        result[op_name] = unique(avoid_reserved(base(op_name)), taken)
    return result


_PARAMETER_TAKEN = MODULE_GLOBALS | FUNCTION_LOCALS
_NOT_A_PARAMETER = RESERVED | _PARAMETER_TAKEN


def parameter_names(spec: OpSpec, extra_taken: Iterable[str] = ()) -> dict[str, str]:
    """OpDef input/attr name -> Python parameter name (after ApiDef renames), for
    inputs and caller attrs."""
    taken = set(extra_taken)
    result: dict[str, str] = {}
    for args in (spec.signature_inputs, spec.caller_attrs):
        for arg in args:
            name = arg.api_name or arg.name
            if name in _NOT_A_PARAMETER or name in taken or not name.isidentifier():
                name = avoid_reserved(name, taken | _PARAMETER_TAKEN)
            result[arg.name] = name
            taken.add(name)
    return result


def output_field_names(outputs: Sequence[ArgSpec]) -> list[str]:
    """Namedtuple field names for ``outputs``: valid, unique, no leading underscore."""
    fields: list[str] = []
    for arg in outputs:
        field = arg.name.lstrip("_") or "output"
        while keyword.iskeyword(field) or field in fields or not field.isidentifier():
            field += "_"
        fields.append(field)
    return fields


def _output_class_base(op_name: str) -> str:
    core = re.sub(r"[^A-Za-z0-9_]", "_", op_name.lstrip("_"))
    return f"_{core}Output"


# ------------------------------------------------------------------------- literals


# Printable ASCII except '"' and '\\': such text is its own literal body.
_PLAIN_STRING = re.compile(r'[\x20\x21\x23-\x5b\x5d-\x7e]*')


# How each byte stands inside b"...": printable ASCII as itself (backslash and double
# quote escaped), the usual control characters by name, everything else as \xNN.
_BYTE_ESCAPES = [
    {0x5C: "\\\\", 0x22: '\\"', 0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r"}.get(
        b, chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}")
    for b in range(256)
]


def string_literal(text: str | bytes) -> str:
    """A double-quoted Python literal for ``text`` (``b"..."`` for non-UTF-8 bytes)."""
    if isinstance(text, bytes):
        return 'b"' + "".join(_BYTE_ESCAPES[b] for b in text) + '"'
    if _PLAIN_STRING.fullmatch(text):   # the common case, without the loop below
        return '"' + text + '"'
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c.isprintable() or c == " ":
            out.append(c)
        else:
            out.append(repr(c)[1:-1])  # \n, \t, \x00, \u2028 ...
    return '"' + "".join(out) + '"'


_SPECIAL_FLOATS = {"nan": "_math.nan", "inf": "_math.inf", "-inf": "-_math.inf"}


def float_literal(value: float, single_precision: bool = True) -> str:
    """Shortest source for a float attr (float32 by default: ``0.1``, not ``0.100000001``)."""
    special = numbers.special_float(value)
    if special is not None:
        return _SPECIAL_FLOATS[special]
    if single_precision:
        return numbers.shortest_float32_repr(value)
    text = repr(float(value))
    if not re.search(r"[.eE]", text):
        text += ".0"
    return text


def literal(value: Any, attr_type: str) -> str:
    """Python source for an attr value of ``attr_type`` (as the model holds it)."""
    if attr_type.startswith("list("):
        element = attr_type[5:-1]
        return "[" + ", ".join(literal(v, element) for v in value) + "]"
    if attr_type == "bool":
        return "True" if value else "False"
    if attr_type == "int":
        return str(int(value))
    if attr_type == "float":
        return float_literal(value)
    if attr_type == "string":
        return string_literal(value)
    if attr_type == "type":
        # dtypes travel as their names; opgen.runtime.as_dtype accepts them.
        return string_literal(value.name)
    if attr_type == "shape":
        if value.dims is None:
            return "None"
        return "[" + ", ".join("None" if d is None else str(d) for d in value.dims) + "]"
    if attr_type == "func":
        return string_literal(value.name)
    if attr_type == "tensor":
        return tensor_literal(value)
    raise ValueError(f"no Python literal for attr type {attr_type!r}")


def doc_literal(value: Any, attr_type: str) -> str:
    """``literal`` as a reader of the docstring wants it: ``-inf``, not ``-_math.inf``."""
    return literal(value, attr_type).replace("_math.", "").replace("_np.", "np.")


# DataType names numpy has a dtype of the same name for.
_NUMPY_DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                           "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
                           "complex128"})


def tensor_literal(value: TensorValue) -> str:
    def element(v: Any) -> str:
        if isinstance(v, bytes):
            return string_literal(v)
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, float):
            return float_literal(v, single_precision=value.dtype.name != "float64")
        if isinstance(v, complex):
            return f"complex({float_literal(v.real)}, {float_literal(v.imag)})"
        return str(v)

    if value.dtype.name == "string":
        dtype = "object"
    else:   # bfloat16, qint8...: numpy has no such dtype
        dtype = value.dtype.name if value.dtype.name in _NUMPY_DTYPES else ""
    dtype_arg = f", dtype={string_literal(dtype)}" if dtype else ""
    if not value.shape:
        return f"_np.array({element(value.values[0]) if value.values else '0'}{dtype_arg})"
    values = "[" + ", ".join(element(v) for v in value.values) + "]"
    shape = "(" + ", ".join(str(d) for d in value.shape) + ("," if len(value.shape) == 1 else "") + ")"
    return f"_np.array({values}{dtype_arg}).reshape({shape})"


# ------------------------------------------------------------------------ docstrings


_NOT_PLAIN = re.compile(r"[^\n\t\x20-\x7e]")


def _escape_char(match: re.Match[str]) -> str:
    c = match.group()
    return c if c.isprintable() else repr(c)[1:-1]


# Blanks that end a line.
_TRAILING_BLANKS = re.compile(r"[ \t]+$", re.MULTILINE)
# The bytes that stand for themselves in a docstring (see _NOT_PLAIN).
_PLAIN_BYTES = bytes([0x09, 0x0A, *range(0x20, 0x7F)])


def docstring_literal(text: str, indent: str = "    ") -> str:
    """``text`` as a triple-quoted docstring that always compiles and reads back as ``text``.

    Backslashes, quotes that could close the literal and control characters are
    escaped; continuation lines are indented by ``indent`` (blanks).
    """
    # Each step first asks (at C speed) whether it has anything to do: most docstrings
    # are plain ASCII without backslashes, trailing blanks or triple quotes.
    body = text.replace("\\", "\\\\") if "\\" in text else text
    if not body.isascii() or body.encode("ascii").translate(None, _PLAIN_BYTES):
        body = _NOT_PLAIN.sub(_escape_char, body)
    # (the escapes leave "\n" as the only line break and tabs as the only other blank)
    if " \n" in body or "\t\n" in body or body.endswith((" ", "\t")):
        body = _TRAILING_BLANKS.sub("", body)
    multiline = "\n" in body
    if multiline:
        # Indent every line after the first, except empty ones: no line ends with a blank
        # any more, so one that ends with the (blank) indent is an empty line.
        continuation = "\n" + indent
        body = body.replace("\n", continuation)
        if indent:
            body = body.replace(indent + "\n", "\n")
            if body.endswith(continuation):
                body = body[:-len(indent)]
    if '"""' in body:
        body = body.replace('"""', '\\"\\"\\"')
    unescaped_quote_at_end = body.endswith('"') and (len(body) - 1 - len(body[:-1].rstrip("\\"))) % 2 == 0
    if not multiline and unescaped_quote_at_end:
        body = body[:-1] + '\\"'  # it would run into the closing quotes
    return f'"""{body}\n{indent}"""' if multiline else f'"""{body}"""'


class SharedText:
    """The Python text of specs that many ops share, made once per spec object.

    ``model.op_specs`` gives identical args and attrs (and allowed-type lists) one object;
    an attr's parameter, docstring line and the like are the same in every op that has
    it. Entries are keyed by ``id()`` and keep the object they describe, so an id cannot
    be reused while an entry stands.
    """

    def __init__(self) -> None:
        self._attrs: dict[int, tuple[AttrSpec, AttrText]] = {}
        self._types: dict[int, tuple[Sequence[DType], str]] = {}

    def attrs(self, attrs: Sequence[AttrSpec], params: dict[str, str]) -> list[AttrText]:
        """``attr_text(attr, params[attr.name])`` of each of ``attrs``; made once per attr
        for its own name, which nearly every op uses."""
        known = self._attrs
        texts = []
        for attr in attrs:
            hit = known.get(id(attr))   # (the entry keeps attr alive: the id is still its)
            if hit is None:
                hit = known[id(attr)] = (attr, attr_text(attr, attr.api_name or attr.name))
            text, param = hit[1], params[attr.name]
            texts.append(text if text.param == param else attr_text(attr, param))
        return texts

    def types(self, types: Sequence[DType]) -> str:
        """``_types_phrase(types)``."""
        hit = self._types.get(id(types))
        if hit is None:
            hit = self._types[id(types)] = (types, _types_phrase(types))
        return hit[1]


def _types_phrase(types: Sequence[DType]) -> str:
    return ", ".join([f"`{t.name}`" for t in types])


def _type_attr_phrase(attr_name: str, spec: OpSpec, seen_type_attrs: dict[str, str],
                      param: str, shared: SharedText) -> str:
    """What an input of type attr ``attr_name`` (parameter ``param``) may be: the allowed
    types the first time, then "the same type as" the first input of that attr."""
    if attr_name in seen_type_attrs:
        return f"Must have the same type as `{seen_type_attrs[attr_name]}`."
    seen_type_attrs[attr_name] = param
    allowed = spec.attr(attr_name).allowed_values
    if allowed:
        return f"Must be one of the following types: {shared.types(allowed)}."
    return ""


def _input_doc(arg: ArgSpec, spec: OpSpec, seen_type_attrs: dict[str, str],
               params: dict[str, str], shared: SharedText) -> str:
    kind = arg.kind
    # The model guarantees an arg without a fixed type a type attr, a number list its
    # number attr ("" never reaches these lines).
    type_attr, number_attr = arg.type_attr or "", arg.number_attr or ""
    if kind is _SINGLE:
        if arg.fixed_type:
            text = f"A `Tensor` of type `{arg.fixed_type.name}`."
        else:
            text = "A `Tensor`. " + _type_attr_phrase(type_attr, spec, seen_type_attrs,
                                                     params[arg.name], shared)
    elif kind is _TYPE_LIST:
        text = "A list of `Tensor` objects."
    else:
        minimum = spec.attr(number_attr).minimum or 0
        count = f"at least {minimum} " if minimum else ""
        if arg.fixed_type:
            text = f"A list of {count}`Tensor` objects with type `{arg.fixed_type.name}`."
        else:
            text = f"A list of {count}`Tensor` objects with the same type. " + \
                _type_attr_phrase(type_attr, spec, seen_type_attrs, params[arg.name], shared)
    if arg.is_ref:
        text = text.replace("`Tensor`", "mutable `Tensor`", 1)
    return text.strip()


def _attr_doc(attr: AttrSpec) -> str:
    attr_type = attr.type
    kind = "dtype" if attr_type == "type" else f"`{attr_type}`"
    allowed = attr.allowed_values
    if allowed:
        element = attr.element_type
        kind += " from: " + ", ".join([
            f"`{v.name}`" if isinstance(v, DType) else f"`{doc_literal(v, element)}`"
            for v in allowed])
    if attr.minimum is not None:
        kind += f" with at least {attr.minimum} elements" if attr.is_list \
            else f" that is `>= {attr.minimum}`"
    if attr.default is not NO_DEFAULT:
        return f"An optional {kind}. Defaults to `{doc_literal(attr.default, attr_type)}`."
    return f"{'An' if attr_type[0] in 'aeiou' else 'A'} {kind}."


def _output_doc(arg: ArgSpec, spec: OpSpec, params: dict[str, str]) -> str:
    if arg.kind is _TYPE_LIST:
        return f"A list of `Tensor` objects of type `{arg.type_list_attr}`."
    if arg.kind is _NUMBER_LIST:
        return f"A list of `{arg.number_attr}` `Tensor` objects."
    if arg.fixed_type:
        return f"A `Tensor` of type `{arg.fixed_type.name}`."
    for inp in spec.inputs:
        if inp.type_attr == arg.type_attr and inp.kind is _SINGLE:
            return f"A `Tensor`. Has the same type as `{params[inp.name]}`."
    if arg.type_attr in params:
        return f"A `Tensor` of type `{params[arg.type_attr]}`."
    return "A `Tensor`."


def _wrap(text: str, indent: str) -> list[str]:
    lines = [indent + line if line.strip() else "" for line in text.strip().split("\n")]
    return lines


def _docstring_parts(spec: OpSpec, params: dict[str, str], fields: Sequence[str],
                     attrs: Sequence[AttrText], shared: SharedText) -> tuple[list[str], bool]:
    """The docstring's parts, to be joined by newlines (a part that ends with a newline is
    followed by an empty line), and whether all of them are made here, with no text from
    the OpDef or ApiDef in them."""
    generated = True
    summary = spec.summary.strip()
    if summary:
        generated = False
    parts = [(summary or f"Runs the `{spec.name}` op.") + "\n"]
    description = spec.description.strip()
    if description:
        generated = False
        parts.append(description + "\n")
    if spec.deprecation:
        generated = False
        parts.append(f"Deprecated at GraphDef version {spec.deprecation.version}: "
                     f"{spec.deprecation.explanation}\n")
    parts.append("Args:")
    seen_type_attrs: dict[str, str] = {}
    for arg in spec.inputs:
        parts.append(f"  {params[arg.name]}: {_input_doc(arg, spec, seen_type_attrs, params, shared)}")
        if arg.description and arg.description.strip():
            generated = False
            parts += _wrap(arg.description, "    ")
    for text in attrs:
        parts.append(text.doc)
        if not text.plain_doc:
            generated = False
    parts.append("  name: A name for the operation (optional).\n")
    parts.append("Returns:")
    outputs = spec.outputs
    if not outputs:
        parts.append("  None eagerly; in graph mode, the created Operation.")
    elif len(outputs) == 1:
        parts.append("  " + _output_doc(outputs[0], spec, params))
        if outputs[0].description and outputs[0].description.strip():
            generated = False
            parts += _wrap(outputs[0].description, "  ")
    else:
        parts.append(f"  A tuple of `Tensor` objects ({', '.join(fields)}).\n")
        for field, arg in zip(fields, outputs):
            parts.append(f"  {field}: {_output_doc(arg, spec, params)}")
            if arg.description and arg.description.strip():
                generated = False
                parts += _wrap(arg.description, "    ")
    return parts, generated


def docstring(spec: OpSpec, params: dict[str, str], fields: Sequence[str],
              attrs: Sequence[AttrText], shared: SharedText) -> str:
    """The docstring text (not yet a literal): summary, description, Args, Returns.

    ``attrs`` is the text of ``spec.caller_attrs``; ``fields`` name the outputs when
    there are several.
    """
    return "\n".join(_docstring_parts(spec, params, fields, attrs, shared)[0])


def docstring_source(spec: OpSpec, params: dict[str, str], fields: Sequence[str],
                     attrs: Sequence[AttrText], shared: SharedText) -> str:
    """``docstring_literal(docstring(...))``, for a function body.

    Most ops' docstrings hold only text made here: names, types, plain phrases (attr
    docs are checked once per attr). Such text needs no escapes and has no blanks at
    line ends, so it is laid out by one join instead of docstring_literal's ~10 passes
    over it (~7 ms on TensorFlow's registry).
    """
    parts, generated = _docstring_parts(spec, params, fields, attrs, shared)
    if generated:
        return '"""' + "\n    ".join(parts) + '\n    """'
    return docstring_literal("\n".join(parts))


# ------------------------------------------------------------------------ type hints

# The aliases (TensorLike, DTypeLike, ShapeLike, OpOutput) live in opgen.op_typing.
_SCALAR_HINTS = {"int": "int", "float": "float", "bool": "bool", "string": "str",
                 "type": "DTypeLike", "shape": "ShapeLike", "tensor": "TensorLike",
                 "func": "Any"}


# attr type -> its annotation: ``int``, ``Sequence[DTypeLike]``... (a float attr takes
# ints too, which PEP 484's numeric tower lets ``float`` say)
_ATTR_HINTS = {**_SCALAR_HINTS, **{f"list({t})": f"Sequence[{hint}]" for t, hint in _SCALAR_HINTS.items()}}


def attr_hint(attr: AttrSpec) -> str:
    """The annotation of an attr parameter: ``int``, ``Sequence[DTypeLike]``..."""
    return _ATTR_HINTS[attr.type]


def input_hint(arg: ArgSpec) -> str:
    return "TensorLike" if arg.kind is _SINGLE else "Sequence[TensorLike]"


def output_hint(arg: ArgSpec, output: str = "OpOutput") -> str:
    return output if arg.kind is _SINGLE else f"list[{output}]"


# Ops of no inputs that only a graph runs (a Session feeds them; eagerly they fail):
# their stub returns the graph's Output, where other input-less ops say OpOutput.
GRAPH_ONLY_OPS = frozenset({"Placeholder", "PlaceholderV2"})


def stub_overloads(spec: OpSpec, params: dict[str, str],
                   tail: Sequence[str]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The stub's overloads of an op of one output, as (parameters, return hint): for
    each input, that input a graph Output -> the node's Output; then every input eager
    (EagerTensorLike) -> a Tensor; last any TensorLike mix -> OpOutput. Empty (one plain
    signature) for ops of several or no outputs. ``tail``: the attr and name parameters."""
    inputs = spec.signature_inputs
    if len(spec.outputs) != 1 or not inputs:
        return ()
    output = spec.outputs[0]

    def signature(hints: Sequence[str]) -> tuple[str, ...]:
        return tuple([f"{params[a.name]}: {h}" for a, h in zip(inputs, hints)] + list(tail))

    def hint_of(arg: ArgSpec, hint: str) -> str:
        return hint if arg.kind is _SINGLE else f"Sequence[{hint}]"

    general = [input_hint(arg) for arg in inputs]
    overloads = []
    for i, arg in enumerate(inputs):
        graph = general.copy()
        graph[i] = hint_of(arg, "GraphOutput")
        overloads.append((signature(graph), output_hint(output, "GraphOutput")))
    overloads.append((signature([hint_of(arg, "EagerTensorLike") for arg in inputs]),
                      output_hint(output, "EagerOutput")))
    overloads.append((signature(general), output_hint(output)))
    return tuple(overloads)


# ------------------------------------------------------------------ template context

#: dtypes ``opgen.runtime.dtypes`` defines as attributes; other defaults stay names.
RUNTIME_DTYPES = frozenset({
    "float32", "float64", "int32", "uint8", "int16", "int8", "string", "complex64",
    "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16",
    "uint16", "complex128", "float16", "resource", "variant", "uint32", "uint64"})

def default_source(value: Any, attr_type: str) -> str:
    """A default as generated code spells it: dtypes as ``_dtypes.float32``, as TensorFlow does."""
    if attr_type == "type" and value.name in RUNTIME_DTYPES:
        return f"_dtypes.{value.name}"
    if attr_type == "list(type)":
        return "[" + ", ".join(default_source(v, "type") for v in value) + "]"
    return literal(value, attr_type)


@dataclass(frozen=True)
class OutputTuple:
    class_name: str
    typename: str
    fields: tuple[str, ...]
    hints: tuple[str, ...]

    @property
    def annotated_fields(self) -> tuple[tuple[str, str], ...]:
        """(field, annotation) pairs, for the stub's NamedTuple."""
        return tuple(zip(self.fields, self.hints))


@dataclass(frozen=True)
class DeprecatedAlias:
    """A name kept for a deprecated endpoint: it warns once, then calls the function."""

    name: str
    message: str          # the warning, as a literal


@dataclass(frozen=True)
class PythonOp:
    """What the templates print for one op."""

    op_type: str          # the OpDef name, as a literal
    function: str
    parameters: str       # "a: TensorLike, b: TensorLike, transpose_a: bool = False, ..."
    return_hint: str      # "OpOutput", "_UniqueOutput", "OpNode"
    stub_return_hint: str  # the stub's: return_hint, or "GraphOutput" (GRAPH_ONLY_OPS)
    # the stub's @overload signatures, (stub parameters, return hint); () for one plain
    # signature (see stub_overloads)
    stub_overloads: tuple[tuple[tuple[str, ...], str], ...]
    docstring: str        # a complete literal
    inputs: str           # "[a, b]", OpDef order
    attrs: str            # '{"transpose_a": transpose_a}', keyed by OpDef attr names
    returns: str          # "_out or None" (no outputs), "_out[0]", "_UniqueOutput._make(_out)"
    output_tuple: OutputTuple | None
    deprecation: str      # "" or the arguments of _deprecated(...)
    aliases: tuple[str, ...]
    public: bool
    deprecated_aliases: tuple[DeprecatedAlias, ...] = ()
    # the items of parameters, the stub's parameters, inputs and attrs, for the layout
    parameter_items: tuple[str, ...] = ()
    stub_parameter_items: tuple[str, ...] = ()
    input_items: tuple[str, ...] = ()
    attr_items: tuple[str, ...] = ()

    # The lines the templates print, laid out as ruff format / black would (pylayout).

    @property
    def definition(self) -> str:
        """The ``def`` line(s) of the function."""
        return bracketed("", f"def {self.function}(", self.parameter_items,
                         f") -> {self.return_hint}:", is_def=True)

    def stub_definition(self, function: str | None = None) -> str:
        """The stub's ``def ...: ...`` line(s): the function's ``@overload`` signatures
        (stub_overloads) or its one signature; an alias of it (``function``) gets that one."""
        if function is None and self.stub_overloads:
            return "\n".join("@overload\n" + bracketed("", f"def {self.function}(", items,
                                                       f") -> {hint}: ...", is_def=True)
                             for items, hint in self.stub_overloads)
        return bracketed("", f"def {function or self.function}(", self.stub_parameter_items,
                         f") -> {self.stub_return_hint}: ...", is_def=True)

    def deprecation_decorator(self, alias: DeprecatedAlias) -> str:
        """The stub's ``@_deprecated_endpoint(...)`` line(s) of a deprecated alias."""
        return bracketed("", "@_deprecated_endpoint(", [alias.message], ")")

    @property
    def call(self) -> str:
        """The body's call into the runtime."""
        return bracketed("    ", "_out = _execute_op(",
                         [self.op_type, Group("[", self.input_items, "]"),
                          Group("{", self.attr_items, "}"), "name"], ")")

    @property
    def deprecation_call(self) -> str:
        return layout(f"_deprecated({self.deprecation})", "    ")

    @property
    def output_tuple_definition(self) -> str:
        """The namedtuple class of several outputs (``output_tuple`` is set)."""
        t = self.output_tuple
        assert t is not None
        fields = ", ".join(f'"{f}"' for f in t.fields)
        return statement(f"{t.class_name} = ",
                         f'_collections.namedtuple("{t.typename}", [{fields}])')

    @property
    def return_statement(self) -> str:
        return statement("return ", self.returns, "    ")

    @property
    def output_class(self) -> str:
        """The stub's ``class ...(NamedTuple):`` line(s) (``output_tuple`` is set)."""
        assert self.output_tuple is not None
        return layout(f"class {self.output_tuple.class_name}(NamedTuple):")

    @property
    def deprecated_alias_definitions(self) -> tuple[str, ...]:
        return tuple(statement(f"{a.name} = ",
                               f'_deprecated_alias({self.function}, "{a.name}", {a.message})')
                     for a in self.deprecated_aliases)

    @property
    def alias_names(self) -> tuple[str, ...]:
        if not self.deprecated_aliases:   # nearly every op
            return self.aliases
        return self.aliases + tuple(a.name for a in self.deprecated_aliases)


def _annotated_default(attr: AttrSpec) -> tuple[str, str]:
    """An optional attr parameter's annotation and default: ``("str", "\"NHWC\"")``."""
    hint = _ATTR_HINTS[attr.type]
    if attr.type == "func" or (attr.type == "shape" and attr.default.dims is None):
        hint = f"{hint} | None" if hint != "Any" else hint
    return hint, default_source(attr.default, attr.type)


class AttrText(NamedTuple):
    """The text of one caller attr, as parameter ``param``, in each place an op shows it."""

    param: str
    parameter: str        # in the signature: "keep_dims: bool = False"
    stub_parameter: str   # in the stub: "keep_dims: bool = ..."
    doc: str              # in the docstring's Args: "  keep_dims: An optional `bool`. ...",
                          # then the attr's description, if any, on lines of its own
    plain_doc: bool       # doc is one line that docstring_literal leaves as it is
    attrs_entry: str      # in the call's attrs dict: '"keep_dims": keep_dims'


def attr_text(attr: AttrSpec, param: str) -> AttrText:
    """The text of caller attr ``attr`` as parameter ``param``."""
    if attr.default is NO_DEFAULT:
        hint = _ATTR_HINTS[attr.type]
        parameter = stub_parameter = f"{param}: {hint}"
    else:
        hint, default = _annotated_default(attr)
        parameter, stub_parameter = f"{param}: {hint} = {default}", f"{param}: {hint} = ..."
    doc_lines = [f"  {param}: {_attr_doc(attr)}"]
    if attr.description and attr.description.strip():
        doc_lines += _wrap(attr.description, "    ")
    doc = "\n".join(doc_lines)
    # What docstring_literal would leave as it is: one line of printable ASCII without
    # backslashes, triple quotes or a quote or blank at its end.
    plain_doc = (doc.isascii() and doc.isprintable() and "\\" not in doc and '"""' not in doc
                 and not doc.endswith(('"', " ")))
    return AttrText(param, parameter, stub_parameter, doc, plain_doc,
                    f"{string_literal(attr.name)}: {param}")


def parameter_lists(spec: OpSpec, params: dict[str, str],
                    attrs: Sequence[AttrText]) -> tuple[list[str], list[str]]:
    """The parameters of the function and of its stub (which has ``= ...`` for defaults);
    ``attrs`` is the text of ``spec.caller_attrs``."""
    # (plain loops: most ops have a few parameters, too few to pay for comprehensions)
    source = []
    for arg in spec.signature_inputs:
        source.append(f"{params[arg.name]}: {'TensorLike' if arg.kind is _SINGLE else 'Sequence[TensorLike]'}")
    stub = source.copy()
    for text in attrs:
        source.append(text.parameter)
        stub.append(text.stub_parameter)
    source.append("name: str | None = None")
    stub.append("name: str | None = None")
    return source, stub


_NOT_WORD = re.compile(r"\W")


def python_op(spec: OpSpec, function: str, output_class: str | None,
              aliases: Sequence[str] = (), shared: SharedText | None = None,
              deprecated_aliases: Sequence[DeprecatedAlias] = ()) -> PythonOp:
    """What the templates print for ``spec``; ``shared`` carries the text of specs that
    other ops share (made once per python_ops call)."""
    shared = shared or SharedText()
    params = parameter_names(spec, extra_taken=(output_class,) if output_class else ())
    attrs = shared.attrs(spec.caller_attrs, params)
    outputs = spec.outputs
    fields: list[str] = []
    tuple_spec = None
    if not outputs:
        # Eagerly `_out` is empty; in graph mode it is the Operation, which TensorFlow
        # returns too (e.g. for control_dependencies([no_op()])).
        returns, return_hint = "_out or None", "OpNode"
    elif len(outputs) == 1:
        returns, return_hint = "_out[0]", output_hint(outputs[0])
    else:
        returns, return_hint = f"{output_class}._make(_out)", str(output_class)
        fields = output_field_names(outputs)
        tuple_spec = make_frozen(OutputTuple, {
            "class_name": output_class, "typename": _NOT_WORD.sub("_", spec.name),
            "fields": tuple(fields), "hints": tuple([output_hint(a) for a in outputs])})
    deprecation = ""
    if spec.deprecation:
        deprecation = (f"{string_literal(spec.name)}, {spec.deprecation.version}, "
                       f"{string_literal(spec.deprecation.explanation)}")
    parameters, stub_parameters = parameter_lists(spec, params, attrs)
    inputs, attr_entries = [], []   # (loops, not comprehensions: see parameter_lists)
    for arg in spec.inputs:
        inputs.append(params[arg.name])
    for text in attrs:
        attr_entries.append(text.attrs_entry)
    op: PythonOp = make_frozen(PythonOp, {
        "op_type": string_literal(spec.name),
        "function": function,
        "parameters": ", ".join(parameters),
        "return_hint": return_hint,
        "stub_return_hint": "GraphOutput" if spec.name in GRAPH_ONLY_OPS else return_hint,
        "stub_overloads": stub_overloads(
            spec, params, [text.stub_parameter for text in attrs] + ["name: str | None = None"]),
        "docstring": docstring_source(spec, params, fields, attrs, shared),
        "inputs": "[" + ", ".join(inputs) + "]",
        "attrs": "{" + ", ".join(attr_entries) + "}",
        "returns": returns,
        "output_tuple": tuple_spec,
        "deprecation": deprecation,
        "aliases": tuple(aliases),
        "public": spec.visibility != "HIDDEN",
        "deprecated_aliases": tuple(deprecated_aliases),
        "parameter_items": tuple(parameters),
        "stub_parameter_items": tuple(stub_parameters),
        "input_items": tuple(inputs),
        "attr_items": tuple(attr_entries),
    })
    return op


def base_function_name(spec: OpSpec) -> str:
    """snake_case of the primary endpoint (its last dotted part); ops an ApiDef hides
    get a leading ``_``, as in TensorFlow's generator."""
    name = snake_case(spec.endpoints[0].rsplit(".", 1)[-1]) if spec.endpoints else snake_case(spec.name)
    return ("_" + name) if spec.visibility == "HIDDEN" else name


def group_of(function: str) -> str:
    """The submodule a function lives in: one per first letter, so an import stays small."""
    first = function.lstrip("_")[:1].lower()
    return f"_ops_{first if first.isalpha() else 'other'}"


def python_ops(specs: Sequence[OpSpec]) -> list[PythonOp]:
    """Every generated op, sorted by op name; SKIP ops are left out."""
    specs = sorted([s for s in specs if s.visibility != "SKIP"], key=operator.attrgetter("name"))
    by_name = {spec.name: spec for spec in specs}
    functions = function_names(by_name, lambda op_name: base_function_name(by_name[op_name]))
    taken = set(MODULE_GLOBALS | GROUP_GLOBALS | INDEX_GLOBALS) | set(functions.values())
    aliases: dict[str, list[str]] = {}
    deprecated: dict[str, list[DeprecatedAlias]] = {}
    for spec in specs:
        for endpoint in spec.endpoints[1:]:
            alias = avoid_reserved(snake_case(endpoint.rsplit(".", 1)[-1]))
            if spec.visibility == "HIDDEN":
                alias = "_" + alias
            if alias not in taken:   # an alias never displaces a function name
                taken.add(alias)
                deprecation = spec.endpoint_deprecation(endpoint)
                if deprecation is None:
                    aliases.setdefault(spec.name, []).append(alias)
                else:
                    message = deprecation_message(alias, functions[spec.name], deprecation)
                    deprecated.setdefault(spec.name, []).append(
                        DeprecatedAlias(alias, string_literal(message)))
    ops = []
    shared = SharedText()
    for spec in specs:
        output_class = None
        if len(spec.outputs) > 1:
            output_class = unique(_output_class_base(spec.name), taken)
        ops.append(python_op(spec, functions[spec.name], output_class, aliases.get(spec.name, ()),
                             shared, deprecated.get(spec.name, ())))
    return ops


def _shadowed_tuple_note(field: str) -> str:
    """An output named as a tuple method (UniqueWithCounts' ``count``) keeps its name, as in
    TensorFlow's namedtuple; the stub tells type checkers the shadowing is meant."""
    return "  # type: ignore[assignment]" if hasattr(tuple, field) else ""


def stub_body(ops: Sequence[PythonOp]) -> str:
    """The stub's classes, functions and aliases, with the blank lines ruff format and
    black put in a stub: none between functions or between assignments, one where the
    kind of statement changes, one around a class."""
    out: list[str] = []
    previous = ""
    for op in ops:
        entries: list[tuple[str, str]] = []
        if op.output_tuple:
            fields = "".join(f"\n    {field}: {hint}{_shadowed_tuple_note(field)}"
                             for field, hint in op.output_tuple.annotated_fields)
            entries.append(("class", op.output_class + fields))
        entries.append(("def", op.stub_definition()))
        for alias in op.aliases:
            entries.append(("assign", f"{alias} = {op.function}"))
        for deprecated in op.deprecated_aliases:
            entries.append(("def", op.deprecation_decorator(deprecated) + "\n" +
                            op.stub_definition(deprecated.name)))
        for kind, text in entries:
            if previous and (kind != previous or kind == "class"):
                out.append("")
            out.append(text)
            previous = kind
    return "\n".join(out)


def _group_context(ops: Sequence[PythonOp]) -> dict[str, Any]:
    sources = " ".join(op.parameters for op in ops)
    return {
        "ops": ops,
        "uses_collections": any(op.output_tuple for op in ops),
        "uses_math": "_math." in sources,
        "uses_numpy": "_np." in sources,
        "uses_dtypes": "_dtypes." in sources,
        "uses_warnings": any(op.deprecation or op.deprecated_aliases for op in ops),
        "uses_op_deprecation": any(op.deprecation for op in ops),
        "uses_deprecated_aliases": any(op.deprecated_aliases for op in ops),
    }


def files(specs: Sequence[OpSpec], source: str,
          identity: Identity = DEFAULT) -> list[tuple[str, str, dict[str, Any]]]:
    """(template, output path, context) of every file: the lazy index, its stub, the groups,
    in the folder of ``identity.python_package`` (the package imports itself by
    ``__name__``, so its text does not depend on its name)."""
    folder = identity.python_folder
    ops = python_ops(specs)
    groups: dict[str, list[PythonOp]] = {}
    for op in ops:
        groups.setdefault(group_of(op.function), []).append(op)
    source = source.replace("\n", " ")
    names = {group: " ".join(sorted([op.function for op in members] +
                                    [a for op in members for a in op.alias_names]))
             for group, members in sorted(groups.items())}
    public = sorted(n for op in ops if op.public for n in (op.function, *op.alias_names)
                    if not n.startswith("_"))
    index = {"source": source, "groups": names, "public": public}
    stub_ops = sorted(ops, key=operator.attrgetter("function"))
    out: list[tuple[str, str, dict[str, Any]]] = [("__init__.py.j2", f"{folder}/__init__.py", index),
           ("__init__.pyi.j2", f"{folder}/__init__.pyi",
            {"source": source, "stub_body": stub_body(stub_ops), "public": public,
             "uses_deprecated_aliases": any(op.deprecated_aliases for op in ops)})]
    for group, members in sorted(groups.items()):
        context = {"source": source, "group": group, **_group_context(members)}
        out.append(("group.py.j2", f"{folder}/{group}.py", context))
    return out


#: files an earlier run may have written that this run might not: removed when stale
OWNED_GLOBS = ("python/_ops_*.py",)


def owned_globs(identity: Identity) -> tuple[str, ...]:
    """OWNED_GLOBS for the package ``identity`` names."""
    return (f"{identity.python_folder}/_ops_*.py",)
