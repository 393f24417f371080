"""The example plugin's GPU kernel (examples/plugin/my_ops_cuda.cu), built with CMake
and nvcc, gives the CPU kernel's numbers on the GPU."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import opgen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))
from plugin_build import build_example_with_cmake  # noqa: E402


@pytest.fixture(scope="module")
def my_ops(tmp_path_factory):
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    build = tmp_path_factory.mktemp("my_ops_gpu") / "build"
    configured = build_example_with_cmake(build, cuda_architectures="native")
    assert "with the GPU kernel" in configured
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
