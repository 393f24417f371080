"""Fixtures shared by the generator tests: small OpLists written as text, a stand-in
for ``opgen.runtime`` so generated modules import without the C library, and
TensorFlow's full registry (skipped when the test data is absent)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# ../shared/testdata beside the checkout (or beside a folder of worktrees).
TESTDATA = next((p / "shared" / "testdata" for p in REPO.parents
                 if (p / "shared" / "testdata").is_dir()), REPO.parent / "shared" / "testdata")


def _testdata(env: str, name: str) -> Path | None:
    path = Path(os.environ[env]) if os.environ.get(env) else TESTDATA / name
    return path if path.is_file() else None


TF_OPLIST = _testdata("OPGEN_TF_OPLIST", "tf-2.21-oplist.pb")
TF_OPLIST_TEXT = _testdata("OPGEN_TF_OPLIST_TEXT", "tf-2.21-ops.pbtxt")


@pytest.fixture
def pbtxt(tmp_path):
    """Write text-format OpList content to a file and return its path."""
    def write(text: str, name: str = "ops.pbtxt") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


class RecordingRuntime:
    """Stands in for opgen.runtime: records each execute_op call, returns fake outputs."""

    def __init__(self):
        from opgen.runtime import dtypes  # pure Python: never loads the C library
        self.calls = []
        self.module = types.ModuleType("opgen.runtime")
        self.module.execute_op = self.execute_op
        self.module.dtypes = dtypes

    def execute_op(self, op_type, inputs, attrs, name):
        self.calls.append((op_type, inputs, attrs, name))
        return [f"{op_type}:{i}" for i in range(self.outputs)]

    outputs = 1


@pytest.fixture
def fake_runtime(monkeypatch):
    runtime = RecordingRuntime()
    monkeypatch.setitem(sys.modules, "opgen.runtime", runtime.module)
    return runtime


_counter = 0


def import_package(folder: Path):
    """Import the generated package in ``folder`` (its __init__.py and lazy submodules)
    under a fresh name."""
    global _counter
    _counter += 1
    name = f"_opgen_generated_{_counter}"
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the package imports its submodules by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def import_generated():
    """Import a generated package folder under a fresh name (use with fake_runtime)."""
    return import_package


@pytest.fixture(scope="session")
def tf_oplist_path():
    if TF_OPLIST is None:
        pytest.skip("TensorFlow's binary OpList is absent (set OPGEN_TF_OPLIST or provide "
                    "../shared/testdata/tf-2.21-oplist.pb)")
    return TF_OPLIST


@pytest.fixture(scope="session")
def tf_oplist_text_path():
    if TF_OPLIST_TEXT is None:
        pytest.skip("TensorFlow's text OpList is absent (set OPGEN_TF_OPLIST_TEXT or provide "
                    "../shared/testdata/tf-2.21-ops.pbtxt)")
    return TF_OPLIST_TEXT


class Formatters:
    """Each language's formatter, run in check mode over generated output with its
    default settings; a check skips, saying why, where its tool is not installed.
    Each returns the formatter's complaint ("" when the output is formatted)."""

    @staticmethod
    def _tool(name: str) -> str:
        found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
        if not found:
            pytest.skip(f"{name} not installed: generated output is not checked with it")
        return found

    @staticmethod
    def _run(command: list[str], **kwargs) -> str:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                                check=False, **kwargs)
        if result.returncode != 0 or result.stdout.strip():
            return (result.stdout[-4000:] + result.stderr[-4000:]) or f"exit {result.returncode}"
        return ""

    def gofmt(self, folder: Path) -> str:
        # -l lists the files gofmt would change; -e reports every syntax error
        return self._run([self._tool("gofmt"), "-l", "-e", str(folder)])

    def rustfmt(self, crate: Path) -> str:
        # The crate root pulls in its modules; build.rs stands alone. (Not `cargo fmt`:
        # its diff of a file as large as TensorFlow's ops.rs runs out of memory.)
        return self._run([self._tool("rustfmt"), "--edition", "2021", "--check",
                          str(crate / "src" / "lib.rs"), str(crate / "build.rs")], cwd=crate)

    def ruff_format(self, folder: Path) -> str:
        # --isolated: ruff's defaults (line length 88), not this repository's settings
        result = subprocess.run([self._tool("ruff"), "format", "--isolated", "--check",
                                 str(folder)], capture_output=True, text=True, timeout=600,
                                check=False)
        return "" if result.returncode == 0 else result.stdout[-4000:] + result.stderr[-4000:]

    def black(self, folder: Path) -> str:
        result = subprocess.run([self._tool("black"), "--check", "--quiet", str(folder)],
                                capture_output=True, text=True, timeout=600, check=False,
                                cwd=folder)
        return "" if result.returncode == 0 else result.stderr[-4000:] or "black --check failed"


@pytest.fixture(scope="session")
def formatters() -> Formatters:
    return Formatters()
