"""TF_AddGradients and OPGEN_RegisterGradient called from C (gradients_capi.c), compiled
against the public headers and the runtime library."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

SOURCE = Path(__file__).resolve().parent / "gradients_capi.c"


def test_c_api_gradients(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = tmp_path / "gradients_capi"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", str(SOURCE),
                    f"-I{_paths.include_dir()}", f"-L{library.parent}", f"-l:{library.name}",
                    f"-Wl,-rpath,{library.parent}", "-lm", "-o", str(binary)], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert run.returncode == 0, run.stdout + run.stderr
    x = np.float32([0.5, -1.0, 2.0])
    np.testing.assert_allclose(np.float32(lines["grad"].split()), 2 * x + np.cos(x), rtol=1e-5)
    np.testing.assert_allclose(np.float32(lines["custom"].split()), [3, 3, 3])
    np.testing.assert_allclose(np.float32(lines["builtin"].split()), 2 * x)
    assert "conflicts with existing node" in lines["prefix_error"]
    assert "No gradient defined for op: Enter" in lines["missing_error"]
    assert lines["failures"] == "0"
