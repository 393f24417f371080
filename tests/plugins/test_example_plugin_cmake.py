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

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import build_example_with_cmake  # noqa: E402

RUN = """
import sys, numpy as np, opgen
ops = opgen.load_op_library(sys.argv[1])
a = np.arange(6, dtype=np.float32).reshape(2, 3)
got = ops.weighted_sum([a, 2 * a], weights=[0.5, 3.0]).numpy()
np.testing.assert_allclose(got, 6.5 * a, rtol=1e-6)
print("ok")
"""


def test_example_plugin_builds_with_cmake_and_runs(tmp_path):
    build = tmp_path / "build"
    configured = build_example_with_cmake(build, cuda_architectures="90")
    if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
        assert "my_ops: with the GPU kernel" in configured
    library = build / "libmy_ops.so"
    run = subprocess.run([sys.executable, "-c", RUN, str(library)], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
