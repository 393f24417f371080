"""Where an installed opgen's C/C++ pieces live, as build systems ask for them.

``opgen config --cflags`` / ``--libs`` print pkg-config style flags for the runtime's
public headers and shared library (with an rpath, so programs find it at run time);
``--cmake-dir`` the folder of ``opgenConfig.cmake`` for ``find_package(opgen)``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from opgen import _paths


def _quote(path: Path | str) -> str:
    return shlex.quote(str(path))


def cflags() -> str:
    """``-I<include dir>``: the folder holding ``tensorflow/c/c_api.h``."""
    return f"-I{_quote(_paths.include_dir())}"


def libs() -> str:
    """``-L<dir> -lopgen_runtime -Wl,-rpath,<dir>`` for the runtime library in use
    (``$OPGEN_RUNTIME_LIB`` when set, as everywhere else)."""
    library = _paths.runtime_library_path().resolve()
    name = library.name
    if name.startswith("lib") and name.endswith(".so"):
        link = f"-l{name[3:-3]}"
    else:   # a library named otherwise is linked by its file name
        link = f"-l:{name}"
    folder = _quote(library.parent)
    return f"-L{folder} {link} -Wl,-rpath,{folder}"


def cmake_dir() -> Path:
    """The folder of ``opgenConfig.cmake`` (installed with the package)."""
    folder = _paths.PACKAGE_DIR / "cmake"
    if not (folder / "opgenConfig.cmake").is_file():
        raise FileNotFoundError(
            f"opgenConfig.cmake is not installed under {folder}: it comes with an "
            "installed opgen (`pip install .`), not with a source checkout")
    return folder
