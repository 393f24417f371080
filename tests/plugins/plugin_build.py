"""Building plugins as a plugin author would: C plugins with the system C compiler
(`cc -shared -fPIC` against an include folder), and examples/plugin with CMake and
find_package(opgen)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plugin" / "my_ops.c"


def compile_plugin(source: Path, out: Path, include_dir: Path, *extra: str) -> Path:
    """`cc -shared -fPIC` of one C file; skips the test when there is no compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    command = [cc, "-std=c11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC",
               f"-I{include_dir}", str(source), "-o", str(out), *extra]
    build = subprocess.run(command, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(command)}\n{build.stderr}"
    return out


def opgen_command(folder: Path) -> str:
    """The `opgen` command find_package(opgen) asks for: the installed one, or (for a
    `pip install --target` without console scripts) a wrapper around this Python."""
    found = shutil.which("opgen")
    if found:
        return found
    wrapper = folder / "opgen"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m opgen "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def build_example_with_cmake(build: Path, cuda_architectures: str) -> str:
    """Configures and builds examples/plugin into `build` (its library: build /
    "libmy_ops.so"); returns CMake's configure output, which says whether the GPU kernel
    is in. Skips when cmake or opgen's installed CMake package is missing."""
    from opgen import config
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    try:
        cmake_dir = config.cmake_dir()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    configure = subprocess.run(
        ["cmake", "-S", str(EXAMPLE.parent), "-B", str(build), f"-Dopgen_DIR={cmake_dir}",
         f"-DOPGEN_EXECUTABLE={opgen_command(build.parent)}",
         f"-DCMAKE_CUDA_ARCHITECTURES={cuda_architectures}"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    return configure.stdout
