"""Where opgen's installed resources live.

In a wheel, CMake installs the runtime library, headers, templates and the bundled
``ops.pbtxt`` inside the package directory. In a source checkout the same files sit at
the repository root (and the library in a CMake build folder, named by
``OPGEN_RUNTIME_LIB``). Every lookup tries the package first, then the checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_DIR.parent

RUNTIME_LIBRARY_NAME = "libopgen_runtime.so"


def _package_dirs() -> list[Path]:
    """This package's folders: its own, then any other on ``opgen.__path__``. An
    editable install (scikit-build-core's redirect mode) imports the sources from the
    checkout but puts the built library in site-packages/opgen, which it adds there."""
    import sys

    dirs = [PACKAGE_DIR]
    package = sys.modules.get(__package__ or "opgen")
    for entry in getattr(package, "__path__", []) or []:
        path = Path(entry).resolve()
        if path not in dirs:
            dirs.append(path)
    return dirs


def _first_existing(*candidates: Path) -> Path | None:
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return None


def templates_dir() -> Path:
    """The folder holding ``<lang>/`` Jinja templates."""
    found = _first_existing(PACKAGE_DIR / "templates", SOURCE_ROOT / "templates")
    if found is None:
        raise FileNotFoundError(
            f"opgen's templates are missing: looked in {PACKAGE_DIR / 'templates'} and "
            f"{SOURCE_ROOT / 'templates'}; reinstall opgen with `pip install .`")
    return found


def bundled_ops_path() -> Path:
    """The ``ops.pbtxt`` describing the runtime's built-in ops."""
    found = _first_existing(PACKAGE_DIR / "ops.pbtxt", SOURCE_ROOT / "ops.pbtxt")
    if found is None:
        raise FileNotFoundError(
            f"the bundled ops.pbtxt is missing: looked in {PACKAGE_DIR} and {SOURCE_ROOT}")
    return found


def include_dir() -> Path:
    """The folder of the runtime's public C headers."""
    found = _first_existing(PACKAGE_DIR / "include", SOURCE_ROOT / "runtime" / "include")
    if found is None:
        raise FileNotFoundError(f"opgen's C headers are missing under {PACKAGE_DIR}")
    return found


def runtime_library_path() -> Path:
    """The runtime shared library: ``$OPGEN_RUNTIME_LIB``, else the installed copy."""
    override = os.environ.get("OPGEN_RUNTIME_LIB")
    if override:
        path = Path(override)
        if not path.is_file():
            raise FileNotFoundError(f"OPGEN_RUNTIME_LIB names {path}, which is not a file")
        return path
    installed = PACKAGE_DIR / "lib" / RUNTIME_LIBRARY_NAME
    for folder in _package_dirs():
        candidate = folder / "lib" / RUNTIME_LIBRARY_NAME
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"the opgen runtime library was not found at {installed}. Install opgen with "
        "`pip install .` (which builds it), or build it with CMake and point "
        "OPGEN_RUNTIME_LIB at the resulting libopgen_runtime.so")
