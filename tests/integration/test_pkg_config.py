"""opgen.pc and opgenConfig.cmake as a C program's build finds them: `pkg-config --cflags
--libs opgen` with PKG_CONFIG_PATH from `opgen config --pkgconfig-dir`, and CMake's
find_package(opgen) with CMAKE_PREFIX_PATH from `opgen config --cmake-dir` (no opgen_DIR).
The program adds two tensors eagerly and prints what numpy computes.

In an installed opgen the files come from the wheel; in a source checkout the test lays
out the wheel's folders (include/, lib/, lib/pkgconfig/opgen.pc from cmake/opgen.pc.in,
cmake/) around the headers and the runtime library in use."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from opgen import _paths

REPO = Path(__file__).resolve().parents[2]

PROGRAM = r"""
#include <stdio.h>
#include "tensorflow/c/eager/c_api.h"

static TFE_TensorHandle* vector(const float* values, int64_t n, TF_Status* s) {
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, &n, 1, n * sizeof(float));
  float* data = (float*)TF_TensorData(t);
  for (int64_t i = 0; i < n; ++i) data[i] = values[i];
  TFE_TensorHandle* h = TFE_NewTensorHandle(t, s);
  TF_DeleteTensor(t);
  return h;
}

int main(void) {
  const float a[3] = {1.5f, -2.0f, 4.0f}, b[3] = {0.25f, 8.0f, -1.0f};
  TF_Status* s = TF_NewStatus();
  TFE_ContextOptions* options = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(options, s);
  TFE_Op* op = TFE_NewOp(ctx, "AddV2", s);
  TFE_TensorHandle *x = vector(a, 3, s), *y = vector(b, 3, s);
  TFE_OpAddInput(op, x, s);
  TFE_OpAddInput(op, y, s);
  TFE_TensorHandle* out[1];
  int n = 1;
  TFE_Execute(op, out, &n, s);
  if (TF_GetCode(s) != TF_OK) { fprintf(stderr, "%s\n", TF_Message(s)); return 1; }
  TF_Tensor* sum = TFE_TensorHandleResolve(out[0], s);
  const float* v = (const float*)TF_TensorData(sum);
  printf("%g %g %g\n", v[0], v[1], v[2]);
  return 0;
}
"""
A = np.float32([1.5, -2.0, 4.0])
B = np.float32([0.25, 8.0, -1.0])


def _config(flag: str) -> Path | None:
    """What `opgen config FLAG` prints, or None where opgen is not installed (a checkout)."""
    result = subprocess.run([sys.executable, "-m", "opgen", "config", flag],
                            capture_output=True, text=True, cwd=tempfile.gettempdir())
    return Path(result.stdout.strip()) if result.returncode == 0 else None


def _staged_package(root: Path) -> Path:
    """The wheel's layout of site-packages/opgen under `root`, around the headers and the
    runtime library this checkout uses."""
    try:
        library = _paths.runtime_library_path().resolve()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    package = root / "opgen"
    (package / "lib" / "pkgconfig").mkdir(parents=True)
    (package / "include").symlink_to(_paths.include_dir())
    (package / "lib" / "libopgen_runtime.so").symlink_to(library)
    pc = (REPO / "cmake" / "opgen.pc.in").read_text().replace("@OPGEN_PACKAGE_VERSION@", "0.0.0")
    (package / "lib" / "pkgconfig" / "opgen.pc").write_text(pc)
    (package / "cmake").mkdir()
    shutil.copy(REPO / "cmake" / "opgenConfig.cmake", package / "cmake")
    shutil.copy(REPO / "ops.pbtxt", package)
    return package


def _run(program: Path) -> np.ndarray:
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return np.float32(result.stdout.split())


@pytest.mark.skipif(shutil.which("pkg-config") is None or shutil.which("cc") is None,
                    reason="pkg-config or a C compiler is not installed")
def test_pkg_config_flags_build_a_c_program(tmp_path):
    folder = _config("--pkgconfig-dir") or _staged_package(tmp_path) / "lib" / "pkgconfig"
    assert (folder / "opgen.pc").is_file()
    env = {**os.environ, "PKG_CONFIG_PATH": str(folder)}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "opgen"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    assert "-lopgen_runtime" in flags
    assert any(f.startswith("-I") and Path(f[2:], "tensorflow", "c", "c_api.h").is_file()
               for f in flags), flags
    version = subprocess.run(["pkg-config", "--modversion", "opgen"], env=env,
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version and version[0].isdigit()
    source = tmp_path / "add.c"
    source.write_text(PROGRAM)
    # No LD_LIBRARY_PATH: the rpath of --libs finds the library.
    subprocess.run(["cc", str(source), "-o", str(tmp_path / "add"), *flags], check=True)
    np.testing.assert_array_equal(_run(tmp_path / "add"), A + B)


CMAKE_PROJECT = """
cmake_minimum_required(VERSION 3.16)
project(add C)
find_package(opgen REQUIRED)
add_executable(add add.c)
target_link_libraries(add PRIVATE opgen::runtime)
"""


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                    reason="cmake or a C compiler is not installed")
def test_cmake_finds_opgen_on_the_prefix_path(tmp_path):
    folder = _config("--cmake-dir") or _staged_package(tmp_path / "site") / "cmake"
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    (project / "add.c").write_text(PROGRAM)
    build = tmp_path / "build"
    env = {k: v for k, v in os.environ.items() if k not in ("opgen_DIR", "CMAKE_PREFIX_PATH")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    configured = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), f"-DCMAKE_PREFIX_PATH={folder}",
         f"-DOPGEN_EXECUTABLE={shutil.which('opgen') or sys.executable}"],
        capture_output=True, text=True, env=env)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    cache = (build / "CMakeCache.txt").read_text()
    assert f"opgen_DIR:PATH={folder}" in cache
    built = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True,
                           env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    np.testing.assert_array_equal(_run(build / "add"), A + B)
