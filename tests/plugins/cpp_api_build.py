"""Building examples/plugin_cpp (C++ ops written for TensorFlow) into one plugin library:
against opgen's headers here, against TensorFlow's in test_cpp_api_with_tensorflow.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
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


def _compile_and_link(out: Path, compiles: list[list[str]], link: list[str]) -> Path:
    """Runs the compile commands side by side (one per source: the builds are most of
    these tests' time), then the link command."""
    def run(command: list[str]) -> None:
        build = subprocess.run(command, capture_output=True, text=True)
        assert build.returncode == 0, f"{' '.join(command)}\n{build.stderr[-4000:]}"

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(run, compiles))
    run(link)
    return out


def _objects(out: Path, sources: list[str]) -> list[Path]:
    return [out.parent / f"{out.stem}.{Path(s).name}.o" for s in sources]


def compile_cpp_plugin(out: Path, *flags: str) -> Path:
    """`c++ -std=c++17 -fPIC` of the example's sources, linked `-shared`; skips without a
    compiler. -O0: the tests check behaviour, and the build is most of their time."""
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    objects = _objects(out, SOURCES)
    compiles = [[cxx, "-std=c++17", "-O0", "-fPIC", "-c", str(EXAMPLE_DIR / s), "-o", str(o),
                 *flags] for s, o in zip(SOURCES, objects)]
    link = [cxx, "-shared", *map(str, objects), "-o", str(out), *flags]
    return _compile_and_link(out, compiles, link)


def compile_cpp_plugin_with_gpu_kernel(out: Path, include_dir: Path) -> Path:
    """The example with its GPU kernels, as TensorFlow's guide builds one: GPU_SOURCES
    through nvcc as CUDA, the others through the host compiler, all with GOOGLE_CUDA=1;
    linked by nvcc with the CUDA runtime static; PTX for compute 8.0, which the driver
    compiles for the GPU it finds. Skips without nvcc."""
    nvcc = shutil.which("nvcc")
    cxx = shutil.which("c++") or shutil.which("g++")
    if nvcc is None or cxx is None:
        pytest.skip("needs nvcc and a C++ compiler")
    gpu_objects, cpu_objects = _objects(out, GPU_SOURCES), _objects(out, SOURCES)
    compiles = [[nvcc, "-std=c++17", "-O1", "-Xcompiler", "-fPIC", "-x", "cu",
                 "-gencode=arch=compute_80,code=compute_80", f"-I{include_dir}",
                 "-DGOOGLE_CUDA=1", "-c", str(EXAMPLE_DIR / s), "-o", str(o)]
                for s, o in zip(GPU_SOURCES, gpu_objects)]
    compiles += [[cxx, "-std=c++17", "-O0", "-fPIC", f"-I{include_dir}", "-DGOOGLE_CUDA=1",
                  "-c", str(EXAMPLE_DIR / s), "-o", str(o)]
                 for s, o in zip(SOURCES, cpu_objects)]
    link = [nvcc, "-shared", "-cudart", "static", "-gencode=arch=compute_80,code=compute_80",
            *map(str, gpu_objects + cpu_objects), "-o", str(out)]
    return _compile_and_link(out, compiles, link)


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
