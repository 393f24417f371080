"""Fixtures: examples/plugin/my_ops.c built against opgen's headers, and loaded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import EXAMPLE, compile_plugin  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _plugins_need_a_process_without_tensorflow():
    """See tests/conftest.py. Module-scoped, so that it runs before the module-scoped
    fixtures that load plugins (an autouse fixture comes first within its scope). With
    tensorflow imported, TF_LoadLibrary refuses a plugin whose C API calls would bind to
    TensorFlow's (runtime/src/plugin_symbols.h); these tests need the plugins loaded."""
    if "tensorflow" in sys.modules:
        pytest.skip("tensorflow was imported into this test process by an earlier test; a "
                    "plugin would bind to its C API (run this folder on its own)")


@pytest.fixture(scope="session")
def my_ops_path(tmp_path_factory) -> Path:
    """libmy_ops.so built from the example against opgen's headers."""
    from opgen import _paths
    out = tmp_path_factory.mktemp("plugin") / "libmy_ops.so"
    return compile_plugin(EXAMPLE, out, _paths.include_dir())


@pytest.fixture(scope="session")
def my_ops(my_ops_path):
    """The example plugin loaded into the runtime and wrapped."""
    import opgen
    if "tensorflow" in sys.modules:  # session-scoped: set up before the autouse check
        pytest.skip("tensorflow was imported into this test process; see tests/conftest.py")
    return opgen.load_op_library(my_ops_path)
