"""Rust statements laid out as ``rustfmt`` lays them out (default settings).

The generator prints its Rust already formatted, so that ``cargo fmt --check`` accepts
the generated crate as it is. The statements it prints that can be long are function
signatures and calls; rustfmt keeps each on one line while it fits its widths and else
puts one parameter or argument per line, each ending with a comma:

* a signature while the line fits ``MAX_WIDTH``;
* a call while its arguments take at most ``FN_CALL_WIDTH`` columns and the line fits;
* a method chain (``self.op.set_attr(...)``) while it takes at most ``CHAIN_WIDTH``
  columns; past that its last call goes on a line of its own, or, when the call's
  arguments are too wide, the arguments do.

The arguments the generator passes are short expressions without chains of their own
(the crate's helpers, e.g. ``AttrValue::string``, do the conversions), so no argument
needs a layout of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

#: rustfmt's defaults: max_width, fn_call_width, chain_width
MAX_WIDTH = 100
FN_CALL_WIDTH = 60
CHAIN_WIDTH = 60


def _vertical(indent: str, opening: str, items: Sequence[str], closing: str) -> str:
    inner = indent + "    "
    return "\n".join([indent + opening, *[f"{inner}{item}," for item in items], indent + closing])


def signature(indent: str, head: str, params: Sequence[str], tail: str) -> str:
    """``head(params) tail`` (``pub fn f`` ... ``-> T {``): one line, or one parameter a line."""
    line = f"{indent}{head}({', '.join(params)}){tail}"
    if len(line) <= MAX_WIDTH:
        return line
    if not params:
        return f"{indent}{head}(\n{indent}){tail}"
    return _vertical(indent, head + "(", params, ")" + tail)


def call(indent: str, callee: str, args: Sequence[str], end: str = ";") -> str:
    """``callee(args)end`` for a callee without a chain to break (``op.set_attr``, ``f``);
    a sole argument may take more than ``FN_CALL_WIDTH``."""
    joined = ", ".join(args)
    line = f"{indent}{callee}({joined}){end}"
    if len(line) <= MAX_WIDTH and (len(joined) <= FN_CALL_WIDTH or len(args) < 2):
        return line
    return _vertical(indent, callee + "(", args, ")" + end)


def let_call(indent: str, binding: str, callee: str, args: Sequence[str]) -> str:
    """``binding = callee(args);``: the call goes on the next line when that makes it fit."""
    line = call(indent, f"{binding} = {callee}", args)
    if "\n" not in line:
        return line
    inner = indent + "    "
    moved = call(inner, callee, args)
    if "\n" not in moved:
        return f"{indent}{binding} =\n{moved}"
    return line


def method_call(indent: str, receiver: str, method: str, args: Sequence[str],
                end: str = ";") -> str:
    """``receiver.method(args)end`` where ``receiver`` is itself a chain (``self.op``)."""
    joined = ", ".join(args)
    chain = f"{receiver}.{method}({joined})"
    if len(chain) <= CHAIN_WIDTH and len(indent) + len(chain) + len(end) <= MAX_WIDTH:
        return indent + chain + end
    if len(joined) <= FN_CALL_WIDTH:
        inner = indent + "    "
        return f"{indent}{receiver}\n{inner}.{method}({joined}){end}"
    return call(indent, f"{receiver}.{method}", args, end)
