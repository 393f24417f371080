"""examples/plugin_cpp with its GPU kernels (scale_clip_gpu.cu, and scale_and_shift.cu.cc,
the guide's GPU functor launched on Eigen::GpuDevice::stream()) built by nvcc against
opgen's C++ headers: the plugin loads on a machine without a GPU, registers the ScaleClip
and ScaleAndShift kernels for the GPU beside the CPU ones (ScaleClip's
REGISTER_KERNEL_BUILDER comes before the op's REGISTER_OP here), and the CPU kernels still
give numpy's numbers. Run in a fresh process:
this one may hold the CPU-only build of the same ops. tests/gpu runs the GPU kernel."""

from __future__ import annotations

import subprocess
import sys

from cpp_api_build import compile_cpp_plugin_with_gpu_kernel

RUN = """
import sys, numpy as np, opgen
from opgen.runtime.kernels import registered_kernels
ops = opgen.load_op_library(sys.argv[1])
kernels = {(k.device_type, k.constraint[0].allowed_values.list.type[0])
           for k in registered_kernels("ScaleClip").kernel}
assert {("GPU", 1), ("CPU", 1), ("CPU", 9)} <= kernels, kernels
x = np.linspace(-4, 4, 9, dtype=np.float32)
with opgen.device("/CPU:0"):
    got = np.asarray(ops.scale_clip(x, scale=1.5, limit=2.0))
np.testing.assert_array_equal(got, np.clip(x * np.float32(1.5), -2, 2))
kernels = {(k.device_type, k.constraint[0].allowed_values.list.type[0])
           for k in registered_kernels("ScaleAndShift").kernel}
assert kernels == {(d, t) for d in ("CPU", "GPU") for t in (1, 2, 3)}, kernels
with opgen.device("/CPU:0"):
    got = np.asarray(ops.scale_and_shift(x, scale=0.5, shift=1.0))
np.testing.assert_array_equal(got, x * np.float32(0.5) + np.float32(1.0))
print("ok")
"""


def test_gpu_kernel_registers_and_cpu_still_works(tmp_path):
    from opgen import _paths
    lib = compile_cpp_plugin_with_gpu_kernel(tmp_path / "libcpp_ops_gpu.so", _paths.include_dir())
    run = subprocess.run([sys.executable, "-c", RUN, str(lib)], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
