"""Python: TensorFlow's naming conventions, Python literals and docstrings for each op.

Everything the ``templates/python`` template prints is computed here, where it can be
tested: function and parameter names, defaults as Python source, the docstring as a
string literal that always compiles, and the call into ``opgen.runtime.execute_op``.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from opgen.model import NO_DEFAULT, ArgKind, ArgSpec, AttrSpec, DType, OpSpec, TensorValue

NAME = "python"
#: template (under templates/python/) -> output file (under OUT/)
FILES = {"module.py.j2": "python/__init__.py"}

# Names the generated module defines besides the op functions; nothing may shadow them.
MODULE_GLOBALS = frozenset({"_collections", "_execute_op", "_math", "_np", "__all__"})
# Locals of every generated function besides its parameters.
FUNCTION_LOCALS = frozenset({"_out", "name"})

# TensorFlow renames these with a trailing underscore: Python keywords, plus the
# capitalised builtins (exception classes, True/False/None) and dunder names; "print"
# and "exec" were keywords in Python 2 and stay reserved for the same signatures.
RESERVED = frozenset(keyword.kwlist) | {"print", "exec"} | frozenset(
    n for n in dir(builtins) if n[:1].isupper() or n.startswith("__"))


# --------------------------------------------------------------------------- naming


def snake_case(op_name: str) -> str:
    """TensorFlow's op-name -> Python function-name rule.

    A ``_`` goes before an upper-case letter that follows a lower-case one, or that is
    followed by a lower-case one (so acronyms stay together: ``FFT2D`` -> ``fft2d``,
    ``Conv3DBackpropInputV2`` -> ``conv3d_backprop_input_v2``). A ``>`` namespace
    separator becomes ``_``. Leading underscores (internal ops) are kept as they are.
    """
    stripped = op_name.lstrip("_")
    prefix = op_name[: len(op_name) - len(stripped)]
    out: list[str] = []
    for i, c in enumerate(stripped):
        if c == ">":
            out.append("_")
            continue
        if c.isupper() and i > 0 and stripped[i - 1] not in ">_":
            prev_lower = stripped[i - 1].islower()
            next_lower = i + 1 < len(stripped) and stripped[i + 1].islower()
            if prev_lower or next_lower:
                out.append("_")
        out.append(c.lower())
    name = re.sub(r"[^a-z0-9_]", "_", "".join(out))
    return prefix + name


def avoid_reserved(name: str, taken: Iterable[str] = ()) -> str:
    """``name`` with trailing underscores added until it is neither reserved nor taken."""
    taken = set(taken)
    while name in RESERVED or name in taken or not name.isidentifier():
        name += "_"
    return name


def function_names(op_names: Iterable[str]) -> dict[str, str]:
    """Op name -> function name, unique within one module.

    When two ops snake-case to the same name, the one whose op name sorts first keeps
    it and the others get ``_2``, ``_3``... — the same result for any input order.
    """
    result: dict[str, str] = {}
    taken = set(MODULE_GLOBALS)
    for op_name in sorted(op_names):
        base = avoid_reserved(snake_case(op_name))
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        taken.add(candidate)
        result[op_name] = candidate
    return result


def parameter_names(spec: OpSpec, extra_taken: Iterable[str] = ()) -> dict[str, str]:
    """OpDef input/attr name -> Python parameter name, for inputs and caller attrs."""
    taken = set(MODULE_GLOBALS) | FUNCTION_LOCALS | set(extra_taken)
    result: dict[str, str] = {}
    for original in [a.name for a in spec.inputs] + [a.name for a in spec.caller_attrs]:
        result[original] = avoid_reserved(original, taken)
        taken.add(result[original])
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


def string_literal(text: str | bytes) -> str:
    """A double-quoted Python literal for ``text`` (``b"..."`` for non-UTF-8 bytes)."""
    if isinstance(text, bytes):
        body = repr(text)[2:-1].replace('"', '\\"').replace("\\'", "'")
        return f'b"{body}"'
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


def float_literal(value: float, single_precision: bool = True) -> str:
    """Shortest source for a float attr (float32 by default: ``0.1``, not ``0.100000001``)."""
    if math.isnan(value):
        return "_math.nan"
    if math.isinf(value):
        return "_math.inf" if value > 0 else "-_math.inf"
    if single_precision:
        import numpy as np
        # numpy finds the shortest digits that round-trip through float32; Python's
        # repr then writes them its own way (0.0001, not 1e-04).
        text = repr(float(str(np.float32(value))))
    else:
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


def tensor_literal(value: TensorValue) -> str:
    import numpy as np

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
    else:
        try:
            dtype = np.dtype(value.dtype.name).name
        except TypeError:
            dtype = None  # bfloat16, qint8...: numpy has no such dtype
    dtype_arg = f", dtype={string_literal(dtype)}" if dtype else ""
    if not value.shape:
        return f"_np.array({element(value.values[0]) if value.values else '0'}{dtype_arg})"
    values = "[" + ", ".join(element(v) for v in value.values) + "]"
    shape = "(" + ", ".join(str(d) for d in value.shape) + ("," if len(value.shape) == 1 else "") + ")"
    return f"_np.array({values}{dtype_arg}).reshape({shape})"


# ------------------------------------------------------------------------ docstrings


def docstring_literal(text: str, indent: str = "    ") -> str:
    """``text`` as a triple-quoted docstring that always compiles and reads back as ``text``.

    Backslashes, quotes that could close the literal and control characters are
    escaped; continuation lines are indented by ``indent``.
    """
    escaped = []
    for c in text:
        if c == "\\":
            escaped.append("\\\\")
        elif c == "\n" or c.isprintable() or c == "\t":
            escaped.append(c)
        else:
            escaped.append(repr(c)[1:-1])
    lines = [line.rstrip(" \t") for line in "".join(escaped).split("\n")]
    body = "\n".join([lines[0]] + [indent + line if line else "" for line in lines[1:]])
    body = body.replace('"""', '\\"\\"\\"')
    unescaped_quote_at_end = body.endswith('"') and (len(body) - 1 - len(body[:-1].rstrip("\\"))) % 2 == 0
    if len(lines) == 1 and unescaped_quote_at_end:
        body = body[:-1] + '\\"'  # it would run into the closing quotes
    return f'"""{body}\n{indent}"""' if len(lines) > 1 else f'"""{body}"""'


def _types_phrase(types: Sequence[DType]) -> str:
    return ", ".join(f"`{t.name}`" for t in types)


def _input_doc(arg: ArgSpec, spec: OpSpec, seen_type_attrs: dict[str, str],
               params: dict[str, str]) -> str:
    def type_attr_phrase(attr_name: str) -> str:
        if attr_name in seen_type_attrs:
            return f"Must have the same type as `{seen_type_attrs[attr_name]}`."
        seen_type_attrs[attr_name] = params[arg.name]
        attr = spec.attr(attr_name)
        if attr.allowed_values:
            return f"Must be one of the following types: {_types_phrase(attr.allowed_values)}."
        return ""

    if arg.kind is ArgKind.TYPE_LIST:
        text = "A list of `Tensor` objects."
    elif arg.kind is ArgKind.NUMBER_LIST:
        minimum = spec.attr(arg.number_attr).minimum or 0
        count = f"at least {minimum} " if minimum else ""
        if arg.fixed_type:
            text = f"A list of {count}`Tensor` objects with type `{arg.fixed_type.name}`."
        else:
            text = f"A list of {count}`Tensor` objects with the same type. " + \
                type_attr_phrase(arg.type_attr)
    elif arg.fixed_type:
        text = f"A `Tensor` of type `{arg.fixed_type.name}`."
    else:
        text = "A `Tensor`. " + type_attr_phrase(arg.type_attr)
    if arg.is_ref:
        text = text.replace("`Tensor`", "mutable `Tensor`", 1)
    return text.strip()


def _attr_doc(attr: AttrSpec) -> str:
    article = "An" if attr.type[0] in "aeiou" else "A"
    kind = f"`{attr.type}`"
    if attr.type == "type":
        kind = "dtype"
    if attr.allowed_values:
        kind += " from: " + ", ".join(
            f"`{v.name}`" if isinstance(v, DType) else f"`{doc_literal(v, attr.element_type)}`"
            for v in attr.allowed_values)
    text = f"{article} {kind}"
    if attr.minimum is not None:
        text += f" with at least {attr.minimum} elements" if attr.is_list \
            else f" that is `>= {attr.minimum}`"
    if attr.has_default:
        text = "An optional " + text.split(" ", 1)[1] + \
            f". Defaults to `{doc_literal(attr.default, attr.type)}`"
    return text + "."


def _output_doc(arg: ArgSpec, spec: OpSpec, params: dict[str, str]) -> str:
    if arg.kind is ArgKind.TYPE_LIST:
        return f"A list of `Tensor` objects of type `{arg.type_list_attr}`."
    if arg.kind is ArgKind.NUMBER_LIST:
        return f"A list of `{arg.number_attr}` `Tensor` objects."
    if arg.fixed_type:
        return f"A `Tensor` of type `{arg.fixed_type.name}`."
    for inp in spec.inputs:
        if inp.type_attr == arg.type_attr and inp.kind is ArgKind.SINGLE:
            return f"A `Tensor`. Has the same type as `{params[inp.name]}`."
    if arg.type_attr in params:
        return f"A `Tensor` of type `{params[arg.type_attr]}`."
    return "A `Tensor`."


def _wrap(text: str, indent: str) -> list[str]:
    lines = [indent + line if line.strip() else "" for line in text.strip().split("\n")]
    return lines


def docstring(spec: OpSpec, params: dict[str, str], fields: list[str]) -> str:
    """The docstring text (not yet a literal): summary, description, Args, Returns."""
    parts = [spec.summary.strip() or f"Runs the `{spec.name}` op."]
    if spec.description.strip():
        parts += ["", spec.description.strip()]
    if spec.deprecation:
        parts += ["", f"Deprecated at GraphDef version {spec.deprecation.version}: "
                      f"{spec.deprecation.explanation}"]
    parts += ["", "Args:"]
    seen_type_attrs: dict[str, str] = {}
    for arg in spec.inputs:
        parts.append(f"  {params[arg.name]}: {_input_doc(arg, spec, seen_type_attrs, params)}")
        if arg.description.strip():
            parts += _wrap(arg.description, "    ")
    for attr in spec.caller_attrs:
        parts.append(f"  {params[attr.name]}: {_attr_doc(attr)}")
        if attr.description.strip():
            parts += _wrap(attr.description, "    ")
    parts += ["  name: A name for the operation (optional).", "", "Returns:"]
    if not spec.outputs:
        parts.append("  None.")
    elif len(spec.outputs) == 1:
        parts.append("  " + _output_doc(spec.outputs[0], spec, params))
        if spec.outputs[0].description.strip():
            parts += _wrap(spec.outputs[0].description, "  ")
    else:
        parts.append(f"  A tuple of `Tensor` objects ({', '.join(fields)}).")
        parts.append("")
        for field, arg in zip(fields, spec.outputs):
            parts.append(f"  {field}: {_output_doc(arg, spec, params)}")
            if arg.description.strip():
                parts += _wrap(arg.description, "    ")
    return "\n".join(parts)


# ------------------------------------------------------------------ template context


@dataclass(frozen=True)
class OutputTuple:
    class_name: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class PythonOp:
    """What the template prints for one op."""

    op_type: str          # the OpDef name, as a literal
    function: str
    parameters: str       # "a, b, transpose_a=False, name=None"
    docstring: str        # a complete literal
    inputs: str           # "[a, b]"
    attrs: str            # '{"transpose_a": transpose_a}'
    returns: str          # "" (no outputs), "_out[0]", "_UniqueOutput._make(_out)"
    output_tuple: OutputTuple | None


def python_op(spec: OpSpec, function: str, output_class: str | None) -> PythonOp:
    params = parameter_names(spec, extra_taken=[output_class] if output_class else [])
    parameters = [params[a.name] for a in spec.inputs]
    parameters += [params[a.name] for a in spec.required_attrs]
    parameters += [f"{params[a.name]}={literal(a.default, a.type)}" for a in spec.optional_attrs]
    parameters.append("name=None")
    fields = output_field_names(spec.outputs)
    if not spec.outputs:
        returns = ""
    elif len(spec.outputs) == 1:
        returns = "_out[0]"
    else:
        returns = f"{output_class}._make(_out)"
    attrs = ", ".join(f"{string_literal(a.name)}: {params[a.name]}" for a in spec.caller_attrs)
    return PythonOp(
        op_type=string_literal(spec.name),
        function=function,
        parameters=", ".join(parameters),
        docstring=docstring_literal(docstring(spec, params, fields)),
        inputs="[" + ", ".join(params[a.name] for a in spec.inputs) + "]",
        attrs="{" + attrs + "}",
        returns=returns,
        output_tuple=OutputTuple(output_class, tuple(fields)) if output_class else None,
    )


def module_context(specs: Sequence[OpSpec], source: str) -> dict[str, Any]:
    """Everything ``module.py.j2`` needs for one module holding ``specs``."""
    specs = sorted(specs, key=lambda s: s.name)
    functions = function_names(s.name for s in specs)
    taken = set(functions.values()) | MODULE_GLOBALS
    ops = []
    for spec in specs:
        output_class = None
        if len(spec.outputs) > 1:
            base = _output_class_base(spec.name)
            output_class, n = base, 1
            while output_class in taken:
                n += 1
                output_class = f"{base}{n}"
            taken.add(output_class)
        ops.append(python_op(spec, functions[spec.name], output_class))
    uses_numpy = any(isinstance(a.default, TensorValue) or (
        a.type == "list(tensor)" and a.has_default and a.default) for s in specs for a in s.caller_attrs)
    uses_math = any(_has_special_float(a) for s in specs for a in s.caller_attrs)
    imports = []
    if any(op.output_tuple for op in ops):
        imports.append("import collections as _collections")
    if uses_math:
        imports.append("import math as _math")
    if uses_numpy:
        imports.append("import numpy as _np")
    return {
        "source": source.replace("\n", " "),
        "imports": imports,
        "ops": ops,
        "public": [op.function for op in ops if not op.function.startswith("_")],
    }


def _has_special_float(attr: AttrSpec) -> bool:
    if attr.default is NO_DEFAULT or attr.element_type not in ("float", "tensor"):
        return False
    values = attr.default if attr.is_list else [attr.default]
    if attr.element_type == "tensor":
        values = [v for t in values for v in t.values if isinstance(v, (float, complex))]
        values = [p for v in values for p in ((v.real, v.imag) if isinstance(v, complex) else (v,))]
    return any(math.isinf(v) or math.isnan(v) for v in values)

