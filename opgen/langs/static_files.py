"""Files a language ships unchanged: hand-written C++, Go and Rust under
``templates/<lang>/static/``, real source files that compilers and linters check where
they sit (tests/generator/test_static_sources.py). The values that differ per OpList or
per opgen version go into small generated files beside them.

``files()`` of a language lists a static file as ``static_file(...)``; ``static.j2`` of
that language prints its text unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opgen import _paths

#: the template, in each language's folder, that prints ``text`` unchanged
TEMPLATE = "static.j2"


def static_dir(language: str) -> Path:
    """The folder of ``language``'s static files."""
    return _paths.templates_dir() / language / "static"


def static_file(language: str, name: str, out_path: str) -> tuple[str, str, dict[str, Any]]:
    """The ``files()`` entry writing static file ``name`` of ``language`` to ``out_path``."""
    with open(static_dir(language) / name, encoding="utf-8", newline="") as source:
        return TEMPLATE, out_path, {"text": source.read()}
