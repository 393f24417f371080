"""The fenced code blocks of the README and docs/*.md, and how test_doc_examples.py runs them.

A block is the text between a fence line (three backticks and a language) and the
closing fence. An HTML comment on the line just before the opening fence (invisible on
GitHub and in the MkDocs site) tells the test what to do with it:

    <!-- docs-test: skip (REASON) -->   a python block that cannot run here (needs a GPU,
                                        PyTorch, TensorFlow, a file the reader has);
                                        the reason is required
    <!-- docs-test: run -->             a sh block to run (sh blocks are skipped unless
                                        marked: most install things or need files)

Unmarked python blocks run. docs/documentation.md describes this for writers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([\w+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<action>\w+)(?:\s*\((?P<reason>[^)]*)\))?\s*-->\s*$")
ACTIONS = {"skip", "run"}


@dataclass(frozen=True)
class Block:
    document: str  # relative to the repository
    line: int  # 1-based line of the first line of code
    language: str
    code: str
    action: str | None  # "skip", "run" or None (no marker)
    reason: str | None

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"

    @property
    def runs(self) -> bool:
        if self.action == "skip":
            return False
        if self.language == "python":
            return True
        return self.language in ("sh", "bash", "shell") and self.action == "run"


def _name(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of `path`, with the marker just before it (if any)."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        found.append(Block(
            document=_name(path), line=i + 2, language=opening.group(1),
            code="\n".join(lines[i + 1:end]) + "\n",
            action=marker.group("action") if marker else None,
            reason=(marker.group("reason") or "").strip() or None if marker else None))
        i = end + 1
    return found


def malformed_markers(path: Path) -> list[str]:
    """Markers the test would not understand, or skips without a reason, or markers
    that stand before no fence (a typo would otherwise silently run or skip nothing)."""
    problems = []
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if not (line.lstrip().startswith("<!--") and "docs-test" in line):
            continue  # prose that mentions markers (docs/documentation.md) is not one
        marker = MARKER.match(line)
        where = f"{_name(path)}:{number}"
        if not marker or marker.group("action") not in ACTIONS:
            problems.append(f"{where}: not a docs-test marker: {line.strip()}")
        elif marker.group("action") == "skip" and not (marker.group("reason") or "").strip():
            problems.append(f"{where}: a skip needs a reason: {line.strip()}")
        elif number >= len(lines) or not FENCE.match(lines[number]):
            problems.append(f"{where}: the marker must stand on the line before a fence")
    return problems
