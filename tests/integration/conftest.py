"""Fixtures the programs compiled against opgen (and against TensorFlow's own C library)
share: the `opgen config` compiler flags and the tensorflow package's folder."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from tf_reference import run_tf, tf_python


@pytest.fixture(scope="module")
def flags() -> list[str]:
    """`opgen config --cflags --libs` of the installed CLI, run outside the checkout."""
    from opgen import _paths
    try:
        _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    result = subprocess.run([sys.executable, "-m", "opgen", "config", "--cflags", "--libs"],
                            capture_output=True, text=True, cwd=tempfile.gettempdir())
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.fixture(scope="module")
def tensorflow_root() -> Path:
    """The tensorflow pip package's folder: its libtensorflow_cc.so.2 exports TensorFlow's
    C API (TF_NewGraph, TF_SessionRun...) and include/ holds the C headers."""
    found = run_tf(["-c", "import importlib.util, os; "
                    "print(os.path.dirname(importlib.util.find_spec('tensorflow').origin))"],
                   check=False)
    if found.returncode != 0:
        pytest.skip(f"tensorflow is not importable in {tf_python()}")
    root = Path(found.stdout.strip())
    if not (root / "libtensorflow_cc.so.2").exists() or not (root / "include").is_dir():
        pytest.skip("this tensorflow package ships no C library and headers")
    return root
