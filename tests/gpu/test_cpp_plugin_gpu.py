"""The GPU kernels of examples/plugin_cpp give the CPU kernels' numbers: scale_clip_gpu.cu
(a C++ OpKernel on opgen's headers that launches on the stream of
context->eigen_device<Eigen::GpuDevice>()) and
scale_and_shift.cu.cc (the guide's GPU functor, launched on
context->eigen_device<Eigen::GpuDevice>().stream())."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))
from cpp_api_build import compile_cpp_plugin_with_gpu_kernel


@pytest.fixture(scope="module")
def cpp_ops(tmp_path_factory):
    from opgen import _paths
    lib = compile_cpp_plugin_with_gpu_kernel(tmp_path_factory.mktemp("cpp_gpu") / "libcpp_ops.so",
                                             _paths.include_dir())
    try:
        return opgen.load_op_library(lib)
    except opgen.errors.OpError as e:  # this process loaded the example from elsewhere
        pytest.skip(f"the example's ops are registered already: {e}")


@pytest.mark.parametrize("shape", [(5,), (3, 1000), (0, 4)])
def test_scale_clip_on_the_gpu_equals_the_cpu(cpp_ops, gpu_matches_cpu, rng, shape):
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    gpu_matches_cpu(cpp_ops.scale_clip, x, scale=0.5, limit=1.0)


def test_constructor_check_on_the_gpu(cpp_ops):
    with opgen.device("/GPU:0"), pytest.raises(opgen.errors.InvalidArgumentError,
                                               match="ScaleClip needs limit > 0"):
        cpp_ops.scale_clip(np.ones(3, np.float32), limit=0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("shape", [(7,), (300, 1100), (0, 4)])
def test_guide_style_gpu_functor_equals_the_cpu(cpp_ops, gpu_matches_cpu, rng, dtype, shape):
    # (300, 1100) is more elements than one grid of 1024 blocks of 256 covers: the kernel's
    # grid-stride loop takes the rest
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    gpu_matches_cpu(cpp_ops.scale_and_shift, x, scale=1.5, shift=-2.0)
