"""Target languages: one module per language, looked up by name.

A language module provides ``NAME``, ``files(specs, source)`` — a list of (template
under ``templates/<NAME>/``, output path under the output folder, the values the
template prints) — and ``OWNED_GLOBS``, patterns of output files an earlier run may
have written that the writer removes when a run no longer produces them. A file shipped
unchanged (hand-written source under ``templates/<NAME>/static/``) is listed through
:func:`opgen.langs.static_files.static_file`.

Language modules share :mod:`~opgen.langs.naming`, :mod:`~opgen.langs.numbers`,
:mod:`~opgen.langs.c_family`, :mod:`~opgen.langs.doctext` and
:mod:`~opgen.langs.endpoints`; none imports another language module
(tests/generator/test_lang_independence.py).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: language name -> module under opgen.langs. The compiled languages bind the runtime's
#: C API (docs/c_and_cpp.md, docs/bindings-rust-go.md).
LANGUAGES = {
    "python": "opgen.langs.python",
    "c": "opgen.langs.c",
    "cpp": "opgen.langs.cpp",
    "rust": "opgen.langs.rust",
    "go": "opgen.langs.go",
}


class UnknownLanguageError(ValueError):
    pass


def get(name: str) -> ModuleType:
    """The module of language ``name``; raises ``UnknownLanguageError`` naming the known ones."""
    try:
        return importlib.import_module(LANGUAGES[name])
    except KeyError:
        raise UnknownLanguageError(
            f"unknown language {name!r}; known languages: {', '.join(sorted(LANGUAGES))}") from None


def known() -> list[str]:
    return sorted(LANGUAGES)
