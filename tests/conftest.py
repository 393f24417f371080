"""Shared test fixtures: where TensorFlow's real op registry and the runtime library are."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Under --import-mode=importlib no test folder is on sys.path; this one is put there so
# that every test file can import the helpers it holds (tf_reference).
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_addoption(parser):
    # Here, not in tests/gpu/conftest.py, so that pytest knows it however it is started
    # (an option of a conftest below the rootdir's test folder is unknown from the root).
    parser.addoption(
        "--kernel-sample", action="store_true",
        help="GPU tests: run one case per test and kernel choice (dtypes, op ...: "
             "see tests/gpu/conftest.py), deselecting the rest: enough for "
             "compute-sanitizer to see every kernel, in a fraction of the time")


REPO = Path(__file__).resolve().parents[1]
SHARED_TESTDATA = REPO.parent / "shared" / "testdata"


def _testdata(env_var: str, file_name: str) -> Path:
    path = Path(os.environ.get(env_var) or SHARED_TESTDATA / file_name)
    if not path.is_file():
        pytest.skip(f"TensorFlow's op registry {file_name} not found: set {env_var} or "
                    f"put it in {SHARED_TESTDATA}")
    return path


@pytest.fixture(scope="session")
def tf_oplist_path() -> Path:
    """TensorFlow 2.21's binary OpList (the bytes of TF_GetAllOpList)."""
    return _testdata("OPGEN_TF_OPLIST", "tf-2.21-oplist.pb")


@pytest.fixture(scope="session")
def tf_ops_text_path() -> Path:
    """The same OpList in protobuf text format."""
    return _testdata("OPGEN_TF_OPLIST_TEXT", "tf-2.21-ops.pbtxt")


@pytest.fixture
def no_tensorflow_in_process():
    """For tests that load plugin libraries. A plugin binds its TF_* calls to the first C
    API in the process's global symbol scope, which is TensorFlow's once an earlier test
    has imported tensorflow (only where it is installed): the plugin's ops would then
    register with TensorFlow. Such tests need a process without it."""
    import sys
    if "tensorflow" in sys.modules:
        pytest.skip("tensorflow was imported into this test process by an earlier test; a "
                    "plugin would bind to its C API (run this file on its own)")
