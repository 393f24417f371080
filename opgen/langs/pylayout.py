"""Python lines laid out as ``ruff format`` and ``black`` lay them out (default settings).

The generator prints its Python already formatted, so that a project that runs
``ruff format --check`` or ``black --check`` over its sources accepts the generated
package as it is. The statements it prints that can be long are a ``def`` with its
parameters and calls with bracketed arguments; a line that fits stays whole, and one
that does not is split at its brackets as the formatters split it:

* the bracket's contents on one line of their own, indented 4 more, when they fit;
* else one item per line, each with a trailing comma, each item split again the same
  way when it is still too long.

A ``def`` splits at its parameter list (the formatters' left-hand split), any other
line at its last bracket (their right-hand split). String literals are never split.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

#: ruff format's and black's default line length
WIDTH = 88

# What the layout looks at in a line: string literals (skipped whole; the generator
# writes them double-quoted, escapes inside), brackets and commas. (One regex pass: a
# loop over characters in Python would cost ~0.3 s on TensorFlow's registry.)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[()\[\]{},]')
_OPENING = frozenset("([{")


def _scan(text: str) -> list[tuple[int, int, int]]:
    """(depth, open index, close index) of every bracket pair of ``text``, outside
    string literals, in order of their opening."""
    pairs: list[tuple[int, int, int]] = []
    stack: list[int] = []
    for match in _TOKENS.finditer(text):
        c = match.group()
        if c in _OPENING:
            stack.append(len(pairs))
            pairs.append((len(stack) - 1, match.start(), -1))
        elif len(c) == 1 and c != "," and stack:
            k = stack.pop()
            pairs[k] = (pairs[k][0], pairs[k][1], match.start())
    return pairs


def split_items(body: str) -> list[str]:
    """``body`` (the inside of a bracket) cut at its top-level commas."""
    items, depth, start = [], 0, 0
    for match in _TOKENS.finditer(body):
        c = match.group()
        if len(c) != 1:
            continue   # a string literal
        if c in _OPENING:
            depth += 1
        elif c != ",":
            depth -= 1
        elif depth == 0:
            items.append(body[start:match.start()].strip())
            start = match.end()
    last = body[start:].strip()
    if last:
        items.append(last)
    return items


def layout(text: str, indent: str = "", is_def: bool = False) -> str:
    """``text`` (one logical line, without its indent) as the formatters print it at
    ``indent``; a ``def`` (``is_def``) splits at its parameters."""
    if len(indent) + len(text) <= WIDTH:   # nearly every line
        return indent + text
    return "\n".join(_split(text, indent, is_def))


def statement(keyword: str, value: str, indent: str = "") -> str:
    """``keyword`` (``"return "``, ``"x = "``) then expression ``value``, laid out: when
    the line split at the value's last bracket would still start too long, the value
    goes in parentheses of its own, as the formatters put it, if that helps."""
    if len(indent) + len(keyword) + len(value) <= WIDTH:
        return indent + keyword + value
    lines = _split(keyword + value, indent, False)
    if len(lines[0]) <= WIDTH:
        return "\n".join(lines)
    inner = _split(value, indent + "    ", False)
    if len(inner[0]) > WIDTH:
        return "\n".join(lines)
    return "\n".join([f"{indent}{keyword}(", *inner, indent + ")"])


class Group(NamedTuple):
    """A bracketed expression whose items the caller knows (no scan needed)."""

    head: str                 # up to and including the opening bracket: "_f(", "{"
    items: Sequence[Item]
    tail: str                 # from the closing bracket on: ")", ") -> T:"

    def text(self) -> str:
        return self.head + ", ".join([_text(i) for i in self.items]) + self.tail


Item: TypeAlias = "str | Group"


def _text(item: Item) -> str:
    return item if isinstance(item, str) else item.text()


def bracketed(indent: str, head: str, items: Sequence[Item], tail: str,
              is_def: bool = False) -> str:
    """``head``, ``items`` joined by commas, ``tail`` (``head`` ends with the bracket that
    holds the items), laid out at ``indent``; ``is_def``: a def's parameters."""
    line = indent + head + ", ".join([_text(i) for i in items]) + tail
    if len(line) <= WIDTH:   # nearly every line
        return line
    return "\n".join(_layout(indent, head, items, tail, is_def))


def _item_lines(item: Item, suffix: str, indent: str) -> list[str]:
    if isinstance(item, str):
        return _split(item + suffix, indent, False)
    text = item.text() + suffix
    if len(indent) + len(text) <= WIDTH:
        return [indent + text]
    return _layout(indent, item.head, item.items, item.tail + suffix, False)


def _layout(indent: str, head: str, items: Sequence[Item], tail: str,
            is_def: bool) -> list[str]:
    inner = indent + "    "
    body = ", ".join([_text(i) for i in items])
    if len(items) == 1:
        # a def split at its parameters always ends them with a comma
        lines = [indent + head, *_item_lines(items[0], "," if is_def else "", inner)]
    elif len(inner) + len(body) <= WIDTH:
        lines = [indent + head, inner + body]
    else:
        lines = [indent + head]
        for item in items:
            lines += _item_lines(item, ",", inner)
    if is_def and len(indent) + len(tail) > WIDTH and tail.startswith(") -> "):
        # a return annotation too long for its line goes in parentheses of its own
        annotation, colon = tail[5:].split(":", 1)
        lines += [indent + ") -> (", inner + annotation, f"{indent}):{colon}"]
    else:
        lines.append(indent + tail)
    return lines


def _split(text: str, indent: str, is_def: bool) -> list[str]:
    """``text`` laid out by scanning it for its brackets."""
    if len(indent) + len(text) <= WIDTH:
        return [indent + text]
    top = [(start, end) for depth, start, end in _scan(text) if depth == 0 and end > start + 1]
    if not top:
        return [indent + text]   # nothing to split at (a long string literal)
    start, end = top[0] if is_def else top[-1]
    return _layout(indent, text[:start + 1], split_items(text[start + 1:end]), text[end:],
                   is_def)
