"""The names generated code is published under: its Python package, Rust crate, Go
module and package, C symbol prefix and C++ namespace.

The defaults are what ``opgen generate`` has always written (``generated/`` is that
output); a project that ships its own binding, or links two of them into one program,
gives its own (``opgen generate --python-package myproj.ops --c-prefix myproj_ ...``).
Each value is checked here, so that a bad one is refused before anything is rendered,
naming the option and what the language allows.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, fields

from opgen.langs.c_family import CPP_RESERVED
from opgen.langs.naming import words

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_GO_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*\Z")
# Cargo: ASCII letters, digits, '-' and '_', not starting with a digit
_CRATE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}\Z")
# Semantic versioning 2.0.0, as Cargo requires
_SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?\Z")
# Go module paths: slash-separated elements of letters, digits and "-._~" (go help module-path)
_GO_MODULE = re.compile(r"[A-Za-z0-9-._~]+(/[A-Za-z0-9-._~]+)*\Z")
#: Go's keywords (opgen.langs.go renames parameters away from them too); here, because
#: a package name may not be one and the Go module imports this one.
GO_KEYWORDS = words("""
    break case chan const continue default defer else fallthrough for func go goto if
    import interface map package range return select struct switch type var
""")


class IdentityError(ValueError):
    """A name the target language does not accept; the message names the option."""


@dataclass(frozen=True)
class Identity:
    """What each language's output is called (the CLI option of each field in brackets)."""

    python_package: str = "python"      # --python-package: dotted; written to OUT/<a>/<b>/
    rust_crate: str = "opgen-ops"       # --rust-crate: Cargo package; the library is the
    rust_version: str = "0.1.0"         #   same name with '_' for '-' (--rust-version)
    go_module: str = "opgen.dev/tf"     # --go-module: go.mod's module path; ops in <it>/op
    go_package: str = "tf"              # --go-package: the name of the root package
    c_prefix: str = "opgen_"            # --c-prefix: of every C symbol and of the files
    cpp_namespace: str = "opgen::ops"   # --cpp-namespace: of the op classes; also names
    #                                     the header (opgen::ops -> opgen_ops.h)

    def __post_init__(self) -> None:
        for problem in self.problems():
            raise IdentityError(problem)

    def problems(self) -> list[str]:
        found = []
        parts = self.python_package.split(".")
        if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
            found.append(f"--python-package {self.python_package!r}: not a Python module "
                         "name (identifiers separated by dots, no keywords)")
        if not _CRATE.match(self.rust_crate):
            found.append(f"--rust-crate {self.rust_crate!r}: a crate name is ASCII letters, "
                         "digits, '-' and '_', not starting with a digit (at most 64)")
        if not _SEMVER.match(self.rust_version):
            found.append(f"--rust-version {self.rust_version!r}: not a semantic version "
                         "(MAJOR.MINOR.PATCH, as Cargo wants)")
        if not _GO_MODULE.match(self.go_module) or self.go_module.startswith(("/", ".")):
            found.append(f"--go-module {self.go_module!r}: not a Go module path "
                         "(elements of letters, digits and -._~ separated by '/')")
        if not _GO_IDENTIFIER.match(self.go_package) or self.go_package in GO_KEYWORDS:
            found.append(f"--go-package {self.go_package!r}: not a Go package name "
                         "(lower-case letters, digits and '_', not a keyword)")
        if not _C_IDENTIFIER.match(self.c_prefix):
            found.append(f"--c-prefix {self.c_prefix!r}: not the start of a C identifier "
                         "(letters, digits and '_', not starting with a digit)")
        names = self.cpp_namespace.split("::")
        if not all(_C_IDENTIFIER.match(n) and n not in CPP_RESERVED for n in names) or \
                names[0] in ("std", "internal"):
            found.append(f"--cpp-namespace {self.cpp_namespace!r}: not a C++ namespace "
                         "(identifiers separated by '::', no keywords, not std)")
        return found

    def is_default(self, name: str) -> bool:
        """Whether field ``name`` has its default value."""
        default = next(f.default for f in fields(self) if f.name == name)
        return bool(getattr(self, name) == default)

    # Derived names, one place each.

    @property
    def python_folder(self) -> str:
        """The package's folder under OUT (``myproj.ops`` -> ``myproj/ops``)."""
        return self.python_package.replace(".", "/")

    @property
    def rust_lib(self) -> str:
        """The crate's library name, as ``use`` writes it."""
        return self.rust_crate.replace("-", "_")

    @property
    def cpp_namespaces(self) -> tuple[str, ...]:
        return tuple(self.cpp_namespace.split("::"))

    @property
    def cpp_header(self) -> str:
        """The C++ ops header: the namespace joined by '_' (``opgen_ops.h``)."""
        return "_".join(self.cpp_namespaces) + ".h"

    @property
    def c_files(self) -> str:
        """The stem of the C header and source: ``<prefix>ops`` (``opgen_ops``)."""
        return f"{self.c_prefix}ops"


DEFAULT = Identity()


def include_guard(stem: str, suffix: str) -> str:
    """``OPGEN_GENERATED_<STEM>`` + suffix, the stem's ``opgen_`` dropped, so the
    default files keep their guards (``opgen_ops`` -> ``OPGEN_GENERATED_OPS_H_``)."""
    upper = re.sub(r"[^A-Za-z0-9]", "_", stem).upper()
    return f"OPGEN_GENERATED_{upper.removeprefix('OPGEN_')}{suffix}"
