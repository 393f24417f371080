"""The map cannot rot: every path docs/architecture.md and the README's layout name
exists, and every module of the runtime and of the Python package is on the map.

A path is a token that starts with one of the repository's top-level folders (or is a
file name with a source extension, found anywhere in the repository). `<lang>`-style
placeholders and `*` match any name; C header paths such as `opgen/c_api_ext.h` may be
given as an `#include` names them, relative to runtime/include/.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "docs" / "architecture.md"
README = REPO / "README.md"

TOP_LEVEL = ("\\.ci", "protos", "opgen", "runtime", "templates", "generated",
             "cmake", "examples", "tools", "benchmarks", "docs", "tests", "tensorflow")
# A slashed path starting at a top-level folder (the character before it must not
# continue a longer path, e.g. site-packages/opgen/lib).
PATH_RE = re.compile(r"(?<![\w./<>*-])((?:%s)/[\w.*<>/-]*)" % "|".join(TOP_LEVEL))
EXTENSIONS = "py|pyi|cc|h|cu|cuh|c|md|proto|j2|toml|cmake|pbtxt|sh|\\*"
BARE_RE = re.compile(r"(?<![\w./<>*-])(\w[\w*]*\.(?:%s))(?![\w/*])" % EXTENSIONS)
SEARCH_ROOTS = (REPO, REPO / "runtime" / "include")
NOT_SOURCE = {".git", "build", "build-dev", "out", "__pycache__"}


def _layout_section(readme: str) -> str:
    match = re.search(r"^## Layout\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, "README.md has no '## Layout' section"
    return match.group(1)


def _as_glob(token: str) -> str:
    token = token.rstrip(".").rstrip("/") or token
    return re.sub(r"<[^>/]*>", "*", token)


@functools.lru_cache(maxsize=None)
def _repo_file_names() -> frozenset[str]:
    names = set()
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [d for d in subfolders
                         if d not in NOT_SOURCE and not d.startswith((".venv", "venv", "build"))]
        names.update(files)
        names.update(subfolders)
    return frozenset(names)


def _missing_paths(text: str) -> list[str]:
    missing = []
    for token in sorted(set(PATH_RE.findall(text))):
        pattern = _as_glob(token)
        if not any(any(root.glob(pattern)) for root in SEARCH_ROOTS if pattern):
            missing.append(token)
    names = _repo_file_names()
    for token in sorted(set(BARE_RE.findall(text))):
        pattern = re.compile(re.escape(token).replace(r"\*", ".*") + r"\Z")
        if not any(pattern.match(name) for name in names):
            missing.append(token)
    return missing


@pytest.mark.parametrize("document", ["docs/architecture.md", "README.md#Layout"])
def test_every_named_path_exists(document):
    text = ARCHITECTURE.read_text() if document.startswith("docs") else _layout_section(README.read_text())
    assert _missing_paths(text) == [], f"{document} names paths that do not exist"


def test_the_checker_catches_a_missing_path():
    text = "runtime/src/graph.* and opgen/runtime/nonexistent_module.py and gone_file.cc"
    assert _missing_paths(text) == ["opgen/runtime/nonexistent_module.py", "gone_file.cc"]


def test_readme_layout_lists_the_kernel_folders_of_both_devices():
    layout = _layout_section(README.read_text())
    for folder in ("runtime/kernels/cuda/", "runtime/kernels/cpu/"):
        assert folder in layout


def test_architecture_points_nowhere_outside_the_repository():
    text = ARCHITECTURE.read_text()
    assert "../" not in text and "DESIGN.md" not in text and "/work/" not in text


# Every module of these folders must be named on the map (its file name, or its stem
# followed by `.*` / `*` for a header and source pair).
COVERED_FOLDERS = ("runtime/src", "runtime/src/optimizer", "runtime/kernels", "runtime/python",
                   "opgen", "opgen/runtime", "opgen/langs")
SOURCE_SUFFIXES = {".py", ".cc", ".h", ".c", ".cu", ".cuh"}


def _unmapped_modules(text: str) -> list[str]:
    unmapped = []
    for folder in COVERED_FOLDERS:
        for path in sorted((REPO / folder).iterdir()):
            if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
                continue
            named = re.search(r"(?<![\w])%s(?![\w])" % re.escape(path.name), text) or \
                re.search(r"(?<![\w])%s\.?\*" % re.escape(path.stem), text)
            if not named:
                unmapped.append(str(path.relative_to(REPO)))
    return unmapped


def test_every_runtime_and_package_module_is_on_the_map():
    assert _unmapped_modules(ARCHITECTURE.read_text()) == [], \
        "add these modules to docs/architecture.md's layout"
