"""The hand-written C++ framework, Go runtime and Rust crate root are real source files
under templates/<lang>/static/, checked where they sit by their languages' tools (each
test skips, saying why, where its tool is missing), and copied unchanged into the output.
What they need per OpList or opgen version is generated beside them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from opgen import _paths, generate, opdefs
from opgen.langs import go
from opgen.langs.static_files import static_dir

CPP_FRAMEWORK = static_dir("cpp") / "opgen_framework.h"
GO_RUNTIME = static_dir("go") / "runtime.go"
RUST_LIB = static_dir("rust") / "lib.rs"

#: static file -> where `opgen generate` writes it
COPIES = {CPP_FRAMEWORK: "cpp/opgen_framework.h", GO_RUNTIME: "go/runtime.go",
          RUST_LIB: "rust/src/lib.rs"}


def _tool(*names: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"{' / '.join(names)} not installed: this check of the static source is skipped")


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, **kwargs)


@pytest.fixture(scope="module")
def bundled_output(tmp_path_factory) -> Path:
    """C++, Go and Rust for the bundled ops.pbtxt, as `opgen generate` writes them."""
    out = tmp_path_factory.mktemp("static-sources")
    generate.generate(opdefs.load(_paths.bundled_ops_path()), ["cpp", "go", "rust"], out)
    return out


def test_static_files_are_copied_byte_for_byte(bundled_output):
    for source, copy in COPIES.items():
        assert (bundled_output / copy).read_bytes() == source.read_bytes(), copy


def test_static_files_hold_no_template_syntax_left_over():
    # Jinja never parses them: a "{{ source }}" left in one would reach the user as is.
    for source in COPIES:
        assert not re.search(r"\{\{ *\w+ *\}\}|\{%", source.read_text()), source


def test_cpp_framework_compiles_in_place():
    cxx = _tool("c++", "g++", "clang++")
    result = _run([cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                   f"-I{_paths.include_dir()}", "-x", "c++", str(CPP_FRAMEWORK)])
    assert result.returncode == 0, result.stderr[-5000:]


def test_go_runtime_is_gofmt_clean_in_place():
    gofmt = _tool("gofmt")
    result = _run([gofmt, "-l", "-e", str(GO_RUNTIME)])   # -e: every syntax error
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_go_runtime_is_the_package_go_py_generates_around_it():
    text = GO_RUNTIME.read_text()
    assert re.search(rf"^package {go.PACKAGE}$", text, re.MULTILINE)
    assert f"{go.MODULE_PATH}/op" in text     # its package comment names the ops' package


def test_go_root_package_passes_go_vet(bundled_output, tmp_path):
    go_tool = _tool("go")
    env = {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOPATH": str(tmp_path / "gopath"), "GOCACHE": str(tmp_path / "gocache"),
           "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}",
           "PATH": str(Path(go_tool).parent) + ":/usr/bin:/bin", "HOME": str(tmp_path)}
    # runtime.go with the generated types.go: `go vet` takes one folder's package.
    result = _run([go_tool, "vet", "."], cwd=bundled_output / "go", env=env)
    assert result.returncode == 0, result.stderr[-5000:]


def test_rust_crate_root_is_rustfmt_clean_in_place():
    rustfmt = _tool("rustfmt")
    # From standard input rustfmt checks this file alone: the modules it declares
    # (ops.rs, data_type.rs) are generated, so they are not beside it.
    result = _run([rustfmt, "--edition", "2021", "--check"], input=RUST_LIB.read_text())
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def test_rust_crate_compiles(bundled_output, tmp_path):
    rustc = _tool("rustc")
    # The crate root with its generated modules; metadata only: nothing is linked.
    result = _run([rustc, "--edition", "2021", "--crate-type", "lib", "--emit", "metadata",
                   "--crate-name", "opgen_ops", "-o", str(tmp_path / "libopgen_ops.rmeta"),
                   str(bundled_output / "rust" / "src" / "lib.rs")])
    assert result.returncode == 0, result.stderr[-5000:]
    assert "warning" not in result.stderr, result.stderr[-5000:]


def test_wheel_and_sdist_ship_the_static_files():
    root = Path(__file__).resolve().parents[2]
    # CMake installs templates/ (static/ included) into the package; the sdist takes it whole.
    assert re.search(r"install\(DIRECTORY templates/ DESTINATION", (root / "CMakeLists.txt").read_text())
    assert '"templates"' in (root / "pyproject.toml").read_text()
    assert static_dir("cpp").parent.parent == _paths.templates_dir()
