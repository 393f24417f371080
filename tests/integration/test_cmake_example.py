"""examples/cmake: find_package(opgen) through `opgen config --cmake-dir`, the C++ ops
generated at build time by add_custom_command with opgen's depfile, the example built
on them and linked to the installed runtime; it prints what numpy computes, and the
depfile makes a change to the OpList (and only that) regenerate."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None,
                                reason="cmake is not installed: the CMake example is not built")


def _cmake_dir() -> str:
    result = subprocess.run([sys.executable, "-m", "opgen", "config", "--cmake-dir"],
                            capture_output=True, text=True, cwd=tempfile.gettempdir())
    if result.returncode != 0:
        pytest.skip(f"opgen is not installed with its CMake package: {result.stderr.strip()}")
    return result.stdout.strip()


def test_cmake_example_generates_builds_and_runs(tmp_path):
    cmake_dir = _cmake_dir()
    assert (Path(cmake_dir) / "opgenConfig.cmake").is_file()
    ops = tmp_path / "ops.pbtxt"             # a copy, so the test can touch it
    shutil.copy(REPO / "ops.pbtxt", ops)
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    env = dict(os.environ)
    # the opgen of this interpreter, whatever PATH says
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    subprocess.run(["cmake", "-S", str(REPO / "examples" / "cmake"), "-B", str(build), *generator,
                    f"-Dopgen_DIR={cmake_dir}", f"-DOPGEN_OPS={ops}", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True, text=True, env=env)

    def build_once() -> str:
        result = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True,
                                env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    first = build_once()
    assert "opgen: generating C++ ops" in first
    assert (build / "generated" / "opgen.d").is_file()

    run = subprocess.run([str(build / "relu_example")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])
    x = np.float32([[1, 2, 3], [-4, 0.5, 6]])
    w = np.float32([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]])
    b = np.float32([0.1, -0.2, 0.3, -4])
    np.testing.assert_allclose(got, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)

    assert "opgen: generating" not in build_once()      # nothing changed: nothing runs
    os.utime(ops)                                      # the OpList changed (by mtime)
    assert "opgen: generating" in build_once()
