"""Fixtures shared by the generator tests: small OpLists written as text, a stand-in
for ``opgen.runtime`` so generated modules import without the C library, and
TensorFlow's full registry (skipped when the test data is absent)."""

from __future__ import annotations

import importlib.util
import os
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
