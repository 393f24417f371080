"""examples/plugin_cpp with its GPU kernel (scale_clip_gpu.cu) built by nvcc against
opgen's C++ headers: the plugin loads on a machine without a GPU, registers the ScaleClip
kernel for the GPU beside the CPU ones (its REGISTER_KERNEL_BUILDER comes before the op's
REGISTER_OP here), and the CPU kernels still give numpy's numbers. tests/gpu runs it."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from cpp_api_build import compile_cpp_plugin_with_gpu_kernel


def test_gpu_kernel_registers_and_cpu_still_works(tmp_path):
    from opgen import _paths
    from opgen.runtime.kernels import registered_kernels
    lib = compile_cpp_plugin_with_gpu_kernel(tmp_path / "libcpp_ops_gpu.so", _paths.include_dir())
    try:
        ops = opgen.load_op_library(lib)
    except opgen.errors.OpError as e:  # this process loaded the example already
        pytest.skip(f"the example's ops are registered already: {e}")
    kernels = {(k.device_type, k.constraint[0].allowed_values.list.type[0])
               for k in registered_kernels("ScaleClip").kernel}
    assert ("GPU", 1) in kernels and ("CPU", 1) in kernels and ("CPU", 9) in kernels
    x = np.linspace(-4, 4, 9, dtype=np.float32)
    with opgen.device("/CPU:0"):
        got = np.asarray(ops.scale_clip(x, scale=1.5, limit=2.0))
    np.testing.assert_array_equal(got, np.clip(x * np.float32(1.5), -2, 2))
