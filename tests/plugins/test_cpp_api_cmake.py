"""examples/plugin_cpp built the way its CMakeLists.txt says (find_package(opgen), the GPU
kernel left out: tests/plugins/test_cpp_api_gpu_build.py covers it), loaded in a fresh
process (this one may hold the example's ops already, under another path)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from cpp_api_build import EXAMPLE_DIR
from plugin_build import opgen_command

RUN = """
import sys, numpy as np, opgen
ops = opgen.load_op_library(sys.argv[1])
got = np.asarray(ops.zero_out(np.array([7, 8, 9], np.int32), preserve_index=2))
np.testing.assert_array_equal(got, [0, 0, 9])
got = np.asarray(ops.weighted_add_n([np.ones(2), np.full(2, 3.0)], weights=[2.0, 0.5]))
np.testing.assert_array_equal(got, [3.5, 3.5])
print("ok")
"""


def test_example_builds_with_cmake_and_runs(tmp_path):
    from opgen import config
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    try:
        cmake_dir = config.cmake_dir()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(EXAMPLE_DIR), "-B", str(build), f"-Dopgen_DIR={cmake_dir}",
         f"-DOPGEN_EXECUTABLE={opgen_command(tmp_path)}", "-DCPP_OPS_CUDA=OFF"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    run = subprocess.run([sys.executable, "-c", RUN, str(build / "libcpp_ops.so")],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
