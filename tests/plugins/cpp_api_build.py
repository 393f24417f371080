"""Building examples/plugin_cpp (C++ ops written for TensorFlow) into one plugin library:
against opgen's headers here, against TensorFlow's in test_cpp_api_with_tensorflow.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLE_DIR = Path(__file__).resolve().parents[2] / "examples" / "plugin_cpp"
# The kernels of WeightedAddN before its op, as in the example's CMakeLists.txt.
SOURCES = ["weighted_add_n_kernels.cc", "weighted_add_n_op.cc", "zero_out.cc", "scale_clip.cc",
           "repeat_rows.cc", "fill_shaped.cc", "scale_and_shift.cc", "function_name.cc",
           "function_list.cc", "partial_shape_dims.cc", "string_repeat.cc", "unstack_rows.cc",
           "async_add_one.cc"]
# The GPU halves, compiled as CUDA with GOOGLE_CUDA defined (as TensorFlow's builds do).
GPU_SOURCES = ["scale_clip_gpu.cu", "scale_and_shift.cu.cc"]


def compile_cpp_plugin(out: Path, *flags: str) -> Path:
    """`c++ -std=c++17 -shared -fPIC` of the example's sources; skips without a compiler.
    -O0: the tests check behaviour, and the build is most of their time."""
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    command = [cxx, "-std=c++17", "-O0", "-shared", "-fPIC",
               *[str(EXAMPLE_DIR / s) for s in SOURCES], "-o", str(out), *flags]
    build = subprocess.run(command, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(command)}\n{build.stderr[-4000:]}"
    return out


def compile_cpp_plugin_with_gpu_kernel(out: Path, include_dir: Path) -> Path:
    """The example with its GPU kernels (GPU_SOURCES), all through nvcc as CUDA with
    GOOGLE_CUDA=1, the CUDA runtime linked statically; PTX for compute 8.0, which the driver
    compiles for the GPU it finds. Skips without nvcc."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("needs nvcc")
    command = [nvcc, "-std=c++17", "-O1", "-shared", "-Xcompiler", "-fPIC", "-cudart", "static",
               "-gencode=arch=compute_80,code=compute_80", f"-I{include_dir}", "-x", "cu",
               "-DGOOGLE_CUDA=1", *[str(EXAMPLE_DIR / s) for s in GPU_SOURCES + SOURCES],
               "-o", str(out)]
    build = subprocess.run(command, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(command)}\n{build.stderr[-4000:]}"
    return out


_LOADED: dict = {}


def load_cpp_ops(tmp_path_factory):
    """(path, module) of the example built against opgen's headers and loaded, once per
    process: a second copy of the library could not register the same ops again."""
    if "ops" not in _LOADED:
        import opgen
        from opgen import _paths
        out = tmp_path_factory.mktemp("cpp_plugin") / "libcpp_ops.so"
        path = compile_cpp_plugin(out, f"-I{_paths.include_dir()}", "-Wall", "-Wextra", "-Werror")
        _LOADED["ops"] = (path, opgen.load_op_library(path))
    return _LOADED["ops"]
