"""examples/plugin built the way its README says: CMake with find_package(opgen), and,
where nvcc is found, with its GPU kernel (my_ops_cuda.cu) compiled in. The library is
loaded in a fresh process (this one may hold the example already, under another path)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def opgen_command(folder: Path) -> str:
    """The `opgen` command find_package(opgen) asks for: the installed one, or (for a
    `pip install --target` without console scripts) a wrapper around this Python."""
    import sys
    found = shutil.which("opgen")
    if found:
        return found
    wrapper = folder / "opgen"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m opgen "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

RUN = """
import sys, numpy as np, opgen
ops = opgen.load_op_library(sys.argv[1])
a = np.arange(6, dtype=np.float32).reshape(2, 3)
got = ops.weighted_sum([a, 2 * a], weights=[0.5, 3.0]).numpy()
np.testing.assert_allclose(got, 6.5 * a, rtol=1e-6)
print("ok")
"""


def test_example_plugin_builds_with_cmake_and_runs(tmp_path):
    from opgen import config
    try:
        cmake_dir = config.cmake_dir()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(REPO / "examples" / "plugin"), "-B", str(build),
         f"-Dopgen_DIR={cmake_dir}", f"-DOPGEN_EXECUTABLE={opgen_command(tmp_path)}", "-DCMAKE_CUDA_ARCHITECTURES=90"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
        assert "my_ops: with the GPU kernel" in configure.stdout
    compile_ = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert compile_.returncode == 0, compile_.stdout + compile_.stderr
    library = build / "libmy_ops.so"
    run = subprocess.run([sys.executable, "-c", RUN, str(library)], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
