"""Where an installed opgen's C/C++ pieces live, as build systems ask for them.

``opgen config --cflags`` / ``--libs`` print pkg-config style flags for the runtime's
public headers and shared library (with an rpath, so programs find it at run time);
``--cmake-dir`` the folder of ``opgenConfig.cmake`` for ``find_package(opgen)`` (as
``opgen_DIR`` or on ``CMAKE_PREFIX_PATH``); ``--pkgconfig-dir`` the folder of ``opgen.pc``
for ``PKG_CONFIG_PATH``.
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


def _installed_folder(sub: str, name: str) -> Path | None:
    """The folder ``sub`` of the package that holds ``name``: the package's own, or for an
    editable install the site-packages folder the build installed into."""
    for package in _paths._package_dirs():
        if (package / sub / name).is_file():
            return package / sub
    return None


def cmake_dir() -> Path:
    """The folder of ``opgenConfig.cmake`` (installed with the package)."""
    folder = _installed_folder("cmake", "opgenConfig.cmake")
    if folder is None:
        raise FileNotFoundError(
            f"opgenConfig.cmake is not installed under {_paths.PACKAGE_DIR / 'cmake'}: it "
            "comes with an installed opgen (`pip install .`), not with a source checkout")
    return folder


def pkgconfig_dir() -> Path:
    """The folder of ``opgen.pc`` (installed with the package), for ``PKG_CONFIG_PATH``."""
    folder = _installed_folder("lib/pkgconfig", "opgen.pc")
    if folder is None:
        raise FileNotFoundError(
            f"opgen.pc is not installed under {_paths.PACKAGE_DIR / 'lib' / 'pkgconfig'}: it "
            "comes with an installed opgen (`pip install .`), not with a source checkout; "
            "`opgen config --cflags --libs` prints the same flags anywhere")
    return folder
