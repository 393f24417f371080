"""The C and C++ examples (examples/c/generated_ops_example.c, examples/cpp/relu_example.cc)
compile on the checked-in generated/c and generated/cpp with the flags `opgen config`
prints, run, and print what numpy and opgen's Python ops compute for relu(x @ W + b);
examples/cpp/variable_example.cc's resource variables take the values numpy computes.
The same sources also build and run against TensorFlow's own C library when the
tensorflow package is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

# the resource-variable programs' expected lines, beside this file (importlib mode)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import variable_programs

REPO = Path(__file__).resolve().parents[2]
C_EXAMPLE = REPO / "examples" / "c" / "generated_ops_example.c"
CPP_EXAMPLE = REPO / "examples" / "cpp" / "relu_example.cc"
VARIABLE_EXAMPLE = REPO / "examples" / "cpp" / "variable_example.cc"

X = np.float32([[1, 2, 3], [-4, 0.5, 6]])
W = np.float32([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]])
B = np.float32([0.1, -0.2, 0.3, -4])


def _opgen(*args: str) -> str:
    """The installed CLI in a fresh process, outside the checkout."""
    result = subprocess.run([sys.executable, "-m", "opgen", *args], capture_output=True,
                            text=True, cwd=tempfile.gettempdir())
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _printed(binary: Path) -> np.ndarray:
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])


@pytest.fixture(scope="module")
def expected():
    """relu(x @ W + b) by numpy, and by opgen's generated Python ops (eager)."""
    by_numpy = np.maximum(X @ W + B, 0)
    try:
        from opgen import ops
        by_python = np.asarray(ops.relu(ops.bias_add(ops.mat_mul(X, W), B)))
        np.testing.assert_allclose(by_python, by_numpy, rtol=1e-6, atol=1e-6)
    except FileNotFoundError:   # no runtime library: numpy alone
        pass
    return by_numpy


def test_config_flags_name_the_installed_headers_and_library(flags):
    from opgen import _paths
    include = [f[2:] for f in flags if f.startswith("-I")]
    assert (Path(include[0]) / "tensorflow" / "c" / "c_api.h").is_file()
    library = _paths.runtime_library_path().resolve()
    assert f"-L{library.parent}" in flags and f"-Wl,-rpath,{library.parent}" in flags
    assert "-lopgen_runtime" in flags or f"-l:{library.name}" in flags


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on PATH")
def test_c_example_prints_relu_of_x_w_plus_b(tmp_path, flags, expected):
    binary = tmp_path / "c_example"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", str(C_EXAMPLE),
                    str(REPO / "generated" / "c" / "opgen_ops.c"),
                    f"-I{REPO / 'generated' / 'c'}", *flags, "-o", str(binary)], check=True)
    np.testing.assert_allclose(_printed(binary), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")
def test_cpp_example_prints_relu_of_x_w_plus_b(tmp_path, flags, expected):
    binary = tmp_path / "cpp_example"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", str(CPP_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(binary)], check=True)
    np.testing.assert_allclose(_printed(binary), expected, rtol=1e-5, atol=1e-6)


def test_generated_c_and_cpp_are_fresh():
    result = subprocess.run([sys.executable, "-m", "opgen", "generate", "--check", "--lang", "c,cpp",
                             "--ops", str(REPO / "ops.pbtxt"), "--out", str(REPO / "generated")],
                            capture_output=True, text=True, cwd=tempfile.gettempdir())
    assert result.returncode == 0, (
        "generated/c or generated/cpp is stale; run `opgen generate --lang c,cpp`:\n"
        + result.stdout + result.stderr)


# ------------------------------------------------------ TensorFlow's own C library


def _link_against_tensorflow(objects: list[Path], linker: str, root: Path, out: Path) -> None:
    """Links ``objects`` to TensorFlow's libtensorflow_cc.so.2 as found at run time.

    The linker would spend a minute reading that 1 GB library; it links instead against
    a stub of the same soname defining just the TF_ symbols the objects use, and the
    rpath makes the real library the one loaded.
    """
    used = set()
    for obj in objects:
        listing = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True)
        used.update(line.split()[-1] for line in listing.stdout.splitlines()
                    if line.split()[-1].startswith("TF_"))
    stub_dir = out.parent / "tf_stub"
    stub_dir.mkdir(exist_ok=True)
    stub = stub_dir / "stub.c"
    stub.write_text("".join(f"void {name}(void) {{}}\n" for name in sorted(used)))
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libtensorflow_cc.so.2", str(stub),
                    "-o", str(stub_dir / "libtensorflow_cc.so.2")], check=True)
    subprocess.run([linker, *map(str, objects), f"-L{stub_dir}", "-l:libtensorflow_cc.so.2",
                    f"-Wl,-rpath,{root}", "-o", str(out)], check=True)


def _run_quietly(binary: Path) -> np.ndarray:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])


@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("cc") is None
                    or shutil.which("nm") is None, reason="no C/C++ compiler or nm on PATH")
def test_c_and_cpp_examples_run_on_tensorflows_c_library(tmp_path, tensorflow_root, expected):
    include = f"-I{tensorflow_root / 'include'}"
    c_objects = [tmp_path / "example_c.o", tmp_path / "opgen_ops.o"]
    subprocess.run(["cc", "-std=c11", "-Wall", "-c", str(C_EXAMPLE), f"-I{REPO / 'generated' / 'c'}",
                    include, "-o", str(c_objects[0])], check=True)
    subprocess.run(["cc", "-std=c11", "-Wall", "-c", str(REPO / "generated" / "c" / "opgen_ops.c"),
                    include, "-o", str(c_objects[1])], check=True)
    cpp_object = tmp_path / "example_cpp.o"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-c", str(CPP_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", include, "-o", str(cpp_object)], check=True)
    _link_against_tensorflow(c_objects, "cc", tensorflow_root, tmp_path / "c_on_tf")
    _link_against_tensorflow([cpp_object], "c++", tensorflow_root, tmp_path / "cpp_on_tf")
    for binary in (tmp_path / "c_on_tf", tmp_path / "cpp_on_tf"):
        linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
        assert str(tensorflow_root / "libtensorflow_cc.so.2") in linked   # the real one
        np.testing.assert_allclose(_run_quietly(binary), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")
def test_cpp_variable_example_updates_across_runs_as_numpy_computes(tmp_path, flags):
    # opgen::Variable: initialize, update in loops across ClientSession runs, read back;
    # an unassigned read, a wrong dtype and a wrong shape fail with TensorFlow's codes.
    binary = tmp_path / "variable_example"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", str(VARIABLE_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(binary)], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    # TF_FAILED_PRECONDITION is 9, TF_INVALID_ARGUMENT 3
    lines = variable_programs.check(run.stdout, "9", "3")
    assert lines["no_initializer"] == "9 | variable 'counter' has no initial value"


@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("cc") is None
                    or shutil.which("nm") is None, reason="no C/C++ compiler or nm on PATH")
def test_cpp_variable_example_runs_alike_on_tensorflows_c_library(tmp_path, tensorflow_root):
    # TensorFlow's own VarHandleOp ... kernels behind the same opgen::Variable code.
    obj = tmp_path / "variable_example.o"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-c", str(VARIABLE_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", f"-I{tensorflow_root / 'include'}",
                    "-o", str(obj)], check=True)
    binary = tmp_path / "variable_on_tf"
    _link_against_tensorflow([obj], "c++", tensorflow_root, binary)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    variable_programs.check(run.stdout, "9", "3")


TRAIN_EXAMPLE = REPO / "examples" / "cpp" / "train_example.cc"


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")
def test_cpp_train_example_gradients_and_losses_equal_pythons(tmp_path, flags):
    # opgen::AddSymbolicGradients against numpy; the optimizers' 20 losses exactly as
    # opgen.gradients + opgen.train give them; the errors with TensorFlow's codes.
    import train_programs
    binary = tmp_path / "train_example"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", str(TRAIN_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(binary)], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = train_programs.check(run.stdout)
    assert lines["unconnected"] == "output null"
    code, message = lines["no_gradient"].split(" | ", 1)   # TF_NOT_FOUND
    assert code == "5" and message.startswith("No gradient defined for op: Enter"), message
    assert lines["wrong_length"] == ("3 | Must specify a gradient input for each output: "
                                     "0 grad_inputs for 1 outputs")
    assert lines["no_gradients"] == "3 | No gradients provided for any variable: ['w']."


@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("cc") is None
                    or shutil.which("nm") is None, reason="no C/C++ compiler or nm on PATH")
def test_cpp_train_example_runs_on_tensorflows_c_library(tmp_path, tensorflow_root):
    # TensorFlow's own TF_AddGradientsWithPrefix and ResourceApply* kernels behind the same
    # code: the gradients numpy computes, training losses that fall.
    import train_programs
    obj = tmp_path / "train_example.o"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-c", str(TRAIN_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", f"-I{tensorflow_root / 'include'}",
                    "-o", str(obj)], check=True)
    binary = tmp_path / "train_on_tf"
    _link_against_tensorflow([obj], "c++", tensorflow_root, binary)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = train_programs.check(run.stdout, opgen_runtime=False)
    assert "unreachable" in lines["unconnected"]      # TensorFlow's C API refuses these
    assert lines["wrong_length"].startswith("3 | Must specify a gradient input")
