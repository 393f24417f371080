import sys
from pathlib import Path

import pytest

# The test_kernels_* files share kernel_dtypes.py; under --import-mode=importlib a test
# folder is not on sys.path, so this one is put there.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def runtime_lib():
    """The loaded runtime library; tests that need it skip cleanly without it."""
    from opgen.runtime import _lib
    try:
        return _lib.lib()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")
