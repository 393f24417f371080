import ctypes

import pytest


@pytest.fixture(scope="module")
def runtime_cdll():
    """A fresh ctypes handle on the runtime library, for tests that declare C functions
    themselves (independent of opgen.runtime's declarations). Skips without a library."""
    from opgen import _paths
    from opgen.runtime import _lib
    try:
        path = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    _lib._preload_openblas()
    return ctypes.CDLL(str(path))
