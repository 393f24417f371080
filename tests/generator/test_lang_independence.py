"""Each language module builds on the shared modules of opgen.langs (naming, numbers,
c_family, doctext, endpoints, static_files) and the model, never on another language:
a change to one language's spelling cannot leak into another's output."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from opgen import langs

LANGS_DIR = Path(langs.__file__).resolve().parent
LANGUAGE_MODULES = set(langs.LANGUAGES.values())     # opgen.langs.python, ...


def imported_modules(path: Path) -> set[str]:
    """Every opgen.langs module ``path`` imports, at top level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:   # relative: from . import c / from .c import x
                module = ".".join(["opgen", "langs"] + ([module] if module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("opgen.langs.")}


def test_the_checker_sees_imports_anywhere(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from opgen.langs import rust as r\n"
                      "def f():\n    from .python import snake_case\n    import opgen.langs.go\n")
    assert {"opgen.langs.rust", "opgen.langs.python", "opgen.langs.go"} <= imported_modules(sample)


@pytest.mark.parametrize("path", sorted(LANGS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_langs_module_imports_a_language_module(path):
    own = f"opgen.langs.{path.stem}"
    others = (imported_modules(path) & LANGUAGE_MODULES) - {own}
    assert not others, f"{path.name} imports language module(s) {sorted(others)}; move what " \
                       "they share into a neutral module (naming, numbers, c_family, ...)"
