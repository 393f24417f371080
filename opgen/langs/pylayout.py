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

#: ruff format's and black's default line length
WIDTH = 88

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = frozenset(")]}")


def _scan(text: str) -> list[tuple[int, int, int]]:
    """(depth, open index, close index) of every bracket pair of ``text``, outside
    string literals, in order of their opening."""
    pairs: list[tuple[int, int, int]] = []
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _string_end(text, i)
            continue
        if c in _OPEN:
            stack.append(len(pairs))
            pairs.append((len(stack) - 1, i, -1))
        elif c in _CLOSE and stack:
            k = stack.pop()
            depth, start, _ = pairs[k]
            pairs[k] = (depth, start, i)
        i += 1
    return pairs


def _string_end(text: str, i: int) -> int:
    """The index after the string literal that starts at ``text[i]`` (a quote)."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        end = text.find(quote * 3, i + 3)
        while end != -1 and _escaped(text, end):
            end = text.find(quote * 3, end + 1)
        return len(text) if end == -1 else end + 3
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return len(text)


def _escaped(text: str, i: int) -> bool:
    backslashes = len(text[:i]) - len(text[:i].rstrip("\\"))
    return backslashes % 2 == 1


def split_items(body: str) -> list[str]:
    """``body`` (the inside of a bracket) cut at its top-level commas."""
    items, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == '"' or c == "'":
            i = _string_end(body, i)
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == "," and depth == 0:
            items.append(body[start:i].strip())
            start = i + 1
        i += 1
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


def _split(text: str, indent: str, is_def: bool) -> list[str]:
    if len(indent) + len(text) <= WIDTH:
        return [indent + text]
    top = [(start, end) for depth, start, end in _scan(text) if depth == 0 and end > start + 1]
    if not top:
        return [indent + text]   # nothing to split at (a long string literal)
    start, end = top[0] if is_def else top[-1]
    head, body, tail = text[:start + 1], text[start + 1:end], text[end:]
    inner = indent + "    "
    items = split_items(body)
    if is_def and len(items) == 1:
        body += ","   # a def split at its parameters always ends them with a comma
    if len(inner) + len(body) <= WIDTH or len(items) == 1:
        lines = [indent + head, *_split(body, inner, False)]
    else:
        lines = [indent + head]
        for item in items:
            lines += _split(item + ",", inner, False)
    if is_def and len(indent) + len(tail) > WIDTH and tail.startswith(") -> "):
        # a return annotation too long for its line goes in parentheses of its own
        annotation, colon = tail[5:].split(":", 1)
        lines += [indent + ") -> (", inner + annotation, f"{indent}):{colon}"]
    else:
        lines.append(indent + tail)
    return lines
