"""The example plugin's GPU kernel (examples/plugin/my_ops_cuda.cu), built with CMake
and nvcc, gives the CPU kernel's numbers on the GPU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen

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


@pytest.fixture(scope="module")
def my_ops(tmp_path_factory):
    from opgen import config
    if shutil.which("cmake") is None or shutil.which("nvcc") is None:
        pytest.skip("needs cmake and nvcc")
    build = tmp_path_factory.mktemp("my_ops_gpu") / "build"
    configure = subprocess.run(["cmake", "-S", str(REPO / "examples" / "plugin"), "-B", str(build),
                                f"-Dopgen_DIR={config.cmake_dir()}", f"-DOPGEN_EXECUTABLE={opgen_command(build.parent)}", "-DCMAKE_CUDA_ARCHITECTURES=native"],
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert "with the GPU kernel" in configure.stdout
    built = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    try:
        return opgen.load_op_library(build / "libmy_ops.so")
    except opgen.errors.OpError as e:  # this process loaded the example from elsewhere
        pytest.skip(f"WeightedSum is registered already: {e}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count", [1, 3, 11])  # 11: more values than one launch sums
def test_weighted_sum_on_the_gpu_equals_the_cpu(my_ops, gpu_matches_cpu, rng, dtype, count):
    values = [rng.standard_normal((4, 33)).astype(dtype) for _ in range(count)]
    weights = [float(w) for w in rng.standard_normal(count)]
    gpu_matches_cpu(my_ops.weighted_sum, values, weights=weights)


def test_weighted_sum_of_empty_tensors(my_ops, gpu_matches_cpu):
    gpu_matches_cpu(my_ops.weighted_sum, [np.zeros((0, 3), np.float32)] * 2, weights=[1.0, 2.0])
