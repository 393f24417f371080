"""Go doc comments in the form ``gofmt`` (Go 1.19+) rewrites them to.

gofmt parses every doc comment into paragraphs, headings, code blocks and lists
(package go/doc/comment) and prints it back in one canonical layout: code blocks
indented by a tab, list items as ``  - item`` or `` 1. item``, a blank line between
blocks, old-style headings as ``# Heading``. An OpDef's description is free text that
often has indented lines (URLs, examples), so the generator applies the same rules to
it here and prints the comment as gofmt would, instead of leaving gofmt a diff.

Only what the descriptions need is implemented: link definitions ("[x]: url" blocks),
which gofmt moves to the end of a comment, are printed as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_LIST_MARKER = re.compile(r"[ \t]*(?:([-*+\u2022])|([0-9]+)[.)])([ \t].*)$")
_OLD_HEADING_BAD = set(";:!?+*/=[]{}_^°&§~%#@<\">\\")


def _indented(line: str) -> bool:
    return line[:1] in (" ", "\t")


def _leading_space(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _list_marker(line: str) -> tuple[str, str] | None:
    """(number or "", text after the marker) of a list item line; None if it is not one."""
    match = _LIST_MARKER.match(line)
    if not match or not match.group(3).strip():
        return None
    return match.group(2) or "", match.group(3)


def _is_list(line: str) -> bool:
    return _list_marker(line) is not None


def _is_heading(line: str) -> bool:
    return line.startswith("# ") and len(line) > 2 and line.strip() != "#"


def _is_old_heading(lines: Sequence[str], off: int) -> bool:
    if (off <= 0 or lines[off - 1] != "" or off + 2 >= len(lines) or lines[off + 1] != ""
            or _leading_space(lines[off + 2]) != ""):
        return False
    line = lines[off].strip()
    if not (line[:1].isalpha() and line[:1].isupper()) or not line[-1:].isalnum():
        return False
    if any(c in _OLD_HEADING_BAD for c in line):
        return False
    rest = line
    while "'" in rest:
        rest = rest.split("'", 1)[1]
        if rest != "s" and not rest.startswith("s "):
            return False
    rest = line
    while "." in rest:
        rest = rest.split(".", 1)[1]
        if rest == "" or rest.startswith(" "):
            return False
    return True


def _unindent(lines: Sequence[str]) -> list[str]:
    """``lines`` without their common leading blanks, blank lines as "" and without
    blank lines at either end."""
    out = [line if line.strip() else "" for line in lines]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    prefix = None
    for line in out:
        if line:
            lead = _leading_space(line)
            if prefix is None:
                prefix = lead
            else:
                n = 0
                while n < min(len(prefix), len(lead)) and prefix[n] == lead[n]:
                    n += 1
                prefix = prefix[:n]
    if prefix:
        out = [line[len(prefix):] if line.startswith(prefix) else line for line in out]
    return out


def _spans(lines: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each block: "para", "heading", "oldheading", "code", "list"
    (go/doc/comment's parseSpans)."""
    spans: list[tuple[int, int, str]] = []
    i, force_indent, n = 0, 0, len(lines)
    while True:
        while i < n and lines[i] == "":
            i += 1
        if i >= n:
            break
        start = i
        if i < force_indent or _indented(lines[i]):
            unindented_list_ok = _is_list(lines[i]) and i < force_indent
            i += 1
            while i < n and (lines[i] == "" or i < force_indent or _indented(lines[i])
                             or (unindented_list_ok and _is_list(lines[i]))):
                if lines[i] == "":
                    unindented_list_ok = False
                i += 1
            end = i
            while end > start and lines[end - 1] == "":
                end -= 1
            if end < n and lines[end].startswith("}"):
                end += 1
            kind = "list" if _is_list(lines[start]) else "code"
        else:
            i += 1
            while i < n and lines[i] != "" and not _indented(lines[i]):
                i += 1
            end = i
            if i < n and lines[i] != "" and not _is_list(lines[i]):
                if _is_list(lines[i - 1]):
                    force_indent = end
                    end -= 1
                    while end > start and _is_list(lines[end - 1]):
                        end -= 1
                elif lines[i - 1].endswith(("{", "\\")):
                    force_indent = end
                    end -= 1
                if start == end and force_indent > start:
                    i = start
                    continue
            if end - start == 1 and _is_heading(lines[start]):
                kind = "heading"
            elif end - start == 1 and _is_old_heading(lines, start):
                kind = "oldheading"
            else:
                kind = "para"
        spans.append((start, end, kind))
        i = end
    return spans


def _list(lines: Sequence[str], blank_before: bool) -> tuple[list[str], bool]:
    """A list's printed lines, and whether it needs a blank line before it."""
    first = _list_marker(lines[0])
    numbered = bool(first and first[0])
    items: list[tuple[str, list[list[str]]]] = []   # (number, paragraphs)
    text: list[str] = []
    blank_between = False

    def flush() -> None:
        if items and text:
            items[-1][1].append(list(text))
        text.clear()

    for line in lines:
        marker = _list_marker(line)
        if marker is not None and bool(marker[0]) == numbered:
            flush()
            items.append((marker[0], []))
            line = marker[1]
        line = line.strip()
        if not line:
            blank_between = True
            flush()
            continue
        text.append(line)
    flush()
    out: list[str] = []
    for k, (number, paragraphs) in enumerate(items):
        if k and blank_between:
            out.append("")
        prefix = f" {number}. " if number else "  - "
        for p, paragraph in enumerate(paragraphs):
            if p:
                out.append("")
            for j, line in enumerate(paragraph):
                out.append((prefix if p == 0 and j == 0 else "    ") + line)
        if not paragraphs:
            out.append(prefix.rstrip())
    return out, blank_before or blank_between


def canonical(lines: Sequence[str]) -> list[str]:
    """The text lines of a doc comment (without ``//``) as gofmt prints them: "" for a
    blank line, a leading tab for code."""
    text = [line.rstrip() for line in lines]
    if all(line and line[0] not in " \t" for line in text):
        return text   # one paragraph (most options' comments): printed as it is
    text = _unindent(text)
    out: list[str] = []
    previous_end = -1
    for start, end, kind in _spans(text):
        block = text[start:end]
        if kind == "list":
            printed, blank = _list(block, previous_end < start and previous_end >= 0)
        elif kind == "code":
            printed, blank = ["\t" + line if line else "" for line in _unindent(block)], True
        elif kind == "oldheading":
            printed, blank = ["# " + block[0].strip()], True
        else:
            printed, blank = block, True
        if out and blank:
            out.append("")
        out += printed
        previous_end = end
    return out


def _typographic_quotes(text: str) -> str:
    """gofmt prints `` and '' in doc text (not in code blocks) as curly double quotes."""
    return text.replace("``", "\u201c").replace("''", "\u201d")


def comment(lines: Sequence[str], indent: str = "") -> str:
    """``//`` lines of a doc comment whose text is ``lines``, as gofmt prints it."""
    out = []
    for line in canonical(lines):
        if not line:
            out.append(indent + "//")
        elif line.startswith("\t"):
            out.append(f"{indent}//{line}")
        else:
            out.append(f"{indent}// {_typographic_quotes(line)}")
    return "\n".join(out)
