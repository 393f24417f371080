"""examples/c/graph_example.c compiles with the system C compiler against the installed
headers and runtime library, runs, and prints relu(x @ W + b) as numpy computes it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "c" / "graph_example.c"


def test_graph_example_prints_what_numpy_computes(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = tmp_path / "graph_example"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", str(EXAMPLE),
                    f"-I{_paths.include_dir()}", f"-L{library.parent}",
                    f"-l:{library.name}", f"-Wl,-rpath,{library.parent}", "-o", str(binary)],
                   check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])

    x = np.float32([[1, 2, 3], [-4, 0.5, 6]])
    w = np.float32([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]])
    b = np.float32([0.1, -0.2, 0.3, -4])
    np.testing.assert_allclose(got, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
