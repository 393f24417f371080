import pytest


@pytest.fixture(scope="session")
def runtime_lib():
    """The loaded runtime library; tests that need it skip cleanly without it."""
    from opgen.runtime import _lib
    try:
        return _lib.lib()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")
