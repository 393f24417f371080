"""Doc-comment text shared by the compiled-language bindings (Rust, Go).

The text is plain lines; each language module turns it into its comment syntax and
spells attr defaults its own way (``literal`` argument).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgen.model import ArgKind, ArgSpec, AttrSpec, OpSpec


def clean_lines(text: str) -> list[str]:
    """``text`` as lines without trailing blanks, line breaks of any kind normalised and
    control characters (which no comment syntax wants) dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for separator in ("\u2028", "\u2029", "\x0b", "\x0c", "\x85"):
        text = text.replace(separator, "\n")
    text = "".join(c for c in text if c == "\n" or c == "\t" or (ord(c) >= 0x20 and c != "\x7f"))
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    return lines if any(lines) else []


def input_phrase(arg: ArgSpec) -> str:
    """What kind of value an input takes: ``a tensor of type float32``, ``a list of tensors``."""
    if arg.kind is ArgKind.TYPE_LIST:
        text = f"a list of tensors with types from attr `{arg.type_list_attr}`"
    elif arg.kind is ArgKind.NUMBER_LIST:
        of = f"of type `{arg.fixed_type.name}`" if arg.fixed_type else f"of type attr `{arg.type_attr}`"
        text = f"a list of `{arg.number_attr}` tensors {of}"
    elif arg.fixed_type:
        text = f"a tensor of type `{arg.fixed_type.name}`"
    else:
        text = f"a tensor of type attr `{arg.type_attr}`"
    return ("a reference to " + text) if arg.is_ref else text


def attr_phrase(attr: AttrSpec, literal: Callable[[Any, str], str]) -> str:
    """``an int >= 1``, ``a list(type) from: float32, int32``, ``... Defaults to `x`.``"""
    article = "an" if attr.type[0] in "aeiou" else "a"
    text = f"{article} `{attr.type}`"
    if attr.allowed_values:
        text += " from: " + ", ".join(
            f"`{literal(v, attr.element_type)}`" for v in attr.allowed_values)
    if attr.minimum is not None:
        text += f" with at least {attr.minimum} elements" if attr.is_list else f" that is >= {attr.minimum}"
    text += "."
    if attr.has_default:
        text += f" Defaults to `{literal(attr.default, attr.type)}`."
    return text


def op_doc(spec: OpSpec, names: dict[str, str], output_names: Sequence[str],
           literal: Callable[[Any, str], str], returns_operation: str,
           summary_fallback: bool = True) -> list[str]:
    """The doc lines of an op's constructor function: summary, description, what each
    input and required attr is, what it returns. ``names`` maps OpDef arg/attr names to
    the parameter names the language uses. Without a summary the doc starts with
    ``Adds a `Op` operation.``, or (``summary_fallback`` false) with the description."""
    lines = clean_lines(spec.summary)
    if not lines and summary_fallback:
        lines = [f"Adds a `{spec.name}` operation."]
    description = clean_lines(spec.description)
    if description:
        lines += ([""] if lines else []) + description
    if spec.deprecation:
        lines += ["", f"Deprecated at GraphDef version {spec.deprecation.version}: "
                      + " ".join(clean_lines(spec.deprecation.explanation))]
    params = [(names[a.name], input_phrase(a), a.description) for a in spec.signature_inputs]
    params += [(names[a.name], attr_phrase(a, literal), a.description) for a in spec.required_attrs]
    if params:
        lines += ["", "Arguments:"]
        for name, phrase, text in params:
            lines.append(f"- `{name}`: {phrase}")
            lines += ["  " + line if line else "" for line in clean_lines(text)]
    lines += ["", "Returns:"]
    if not spec.outputs:
        lines.append(f"- {returns_operation}")
    for arg, name in zip(spec.outputs, output_names):
        lines.append(f"- `{name}`: " + input_phrase(arg).replace("a reference to ", ""))
        lines += ["  " + line if line else "" for line in clean_lines(arg.description)]
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def attr_doc(spec: OpSpec, attr: AttrSpec, literal: Callable[[Any, str], str]) -> list[str]:
    """The doc lines of an optional attr's setter: its description, kind and default."""
    lines = clean_lines(attr.description) or [f"Sets attr `{attr.name}` of `{spec.name}`."]
    phrase = attr_phrase(attr, literal)
    return lines + ["", phrase[0].upper() + phrase[1:]]
