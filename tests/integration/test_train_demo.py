"""examples/train: the same MLP and small CNN, trained by 100 SGD steps from make_data.py's
files, print bit-identical losses from Python, C, C++, Rust and Go (one runtime, one graph,
so one sequence of kernel calls on the same values), the losses fall, and TensorFlow 2.21
training the same models from the same values gives the same curve to 1e-5 relative.
A language whose toolchain is missing skips, as in the other example tests."""

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
from tf_reference import run_tf

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "train"
STEPS = 100
MODELS = ["mlp", "cnn"]
# The kernels split work by thread count alone (never by timing), and these tensors are
# small enough to run on one thread anyway; every program gets the same setting regardless.
THREADS = {"OPGEN_NUM_THREADS": "2"}


def _runtime_dir() -> Path:
    try:
        return _paths.runtime_library_path().parent
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("train-data")
    subprocess.run([sys.executable, str(DEMO / "make_data.py"), str(out)], check=True,
                   cwd=tempfile.gettempdir())
    return out


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("train-build")


def _flags() -> list[str]:
    _runtime_dir()
    config = [sys.executable, "-m", "opgen", "config"]
    run = lambda what: subprocess.run([*config, what], capture_output=True, text=True,  # noqa: E731
                                      check=True, cwd=tempfile.gettempdir()).stdout.split()
    return run("--cflags") + run("--libs")


def _build_c(build: Path) -> list[str]:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) on PATH")
    binary = build / "train_c"
    if not binary.exists():
        subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", str(DEMO / "train.c"),
                        str(REPO / "generated" / "c" / "opgen_ops.c"),
                        f"-I{REPO / 'generated' / 'c'}", *_flags(), "-o", str(binary)], check=True)
    return [str(binary)]


def _build_cpp(build: Path) -> list[str]:
    if shutil.which("c++") is None:
        pytest.skip("no C++ compiler (c++) on PATH")
    binary = build / "train_cpp"
    if not binary.exists():
        subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", str(DEMO / "train.cc"),
                        f"-I{REPO / 'generated' / 'cpp'}", *_flags(), "-o", str(binary)], check=True)
    return [str(binary)]


def _build_rust(build: Path) -> list[str]:
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust program is not built")
    lib_dir = _runtime_dir()
    binary = build / "target" / "debug" / "opgen-train-demo"
    if not binary.exists():
        crate = build / "rust"
        shutil.copytree(DEMO / "rust", crate, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
        manifest = crate / "Cargo.toml"
        manifest.write_text(manifest.read_text().replace(
            '"../../../generated/rust"', f'"{(REPO / "generated" / "rust").as_posix()}"'))
        env = {**os.environ, "OPGEN_LIB_DIR": str(lib_dir), "CARGO_TARGET_DIR": str(build / "target")}
        result = subprocess.run([cargo, "build", "--offline", "--quiet"], cwd=crate, env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-5000:]
    return [str(binary)]


def _build_go(build: Path) -> list[str]:
    go = shutil.which("go")
    if go is None:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    lib_dir = _runtime_dir()
    binary = build / "train_go"
    if not binary.exists():
        module = build / "go"
        shutil.copytree(DEMO / "go", module)
        go_mod = module / "go.mod"
        go_mod.write_text(go_mod.read_text().replace(
            "=> ../../../generated/go", f"=> {(REPO / 'generated' / 'go').as_posix()}"))
        env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
               "GOPATH": str(build / "gopath"),
               "GOCACHE": os.environ.get("GOCACHE", str(build / "gocache")),
               "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}",
               "CGO_LDFLAGS": f"-L{lib_dir} -Wl,-rpath,{lib_dir}"}
        result = subprocess.run([go, "build", "-o", str(binary), "."], cwd=module, env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-5000:]
    return [str(binary)]


BUILDERS = {"c": _build_c, "cpp": _build_cpp, "rust": _build_rust, "go": _build_go}


def _losses(command: list[str], data: Path, model: str, env: dict | None = None) -> list[str]:
    """Runs one program; returns its lines, checked for form: "step bits decimal", with the
    decimal the float32 the bits are."""
    lib_dir = str(_runtime_dir())
    env = {**os.environ, **THREADS, **(env or {}),
           "LD_LIBRARY_PATH": f"{lib_dir}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}"}
    run = subprocess.run([*command, str(data), model], capture_output=True, text=True,
                         timeout=300, env=env, cwd=tempfile.gettempdir())
    assert run.returncode == 0, run.stderr[-5000:]
    lines = run.stdout.splitlines()
    assert len(lines) == STEPS, run.stdout[-2000:]
    for step, line in enumerate(lines):
        index, bits, decimal = line.split()
        assert int(index) == step
        assert np.float32(decimal) == np.uint32(int(bits, 16)).view(np.float32), line
    return lines


def _values(lines: list[str]) -> np.ndarray:
    return np.array([np.uint32(int(line.split()[1], 16)) for line in lines]).view(np.float32)


@pytest.fixture(scope="module")
def python_losses(data) -> dict[str, list[str]]:
    _runtime_dir()
    return {model: _losses([sys.executable, str(DEMO / "train.py")], data, model)
            for model in MODELS}


@pytest.mark.parametrize("model", MODELS)
def test_python_training_lowers_the_loss(python_losses, model):
    losses = _values(python_losses[model])
    assert np.all(np.isfinite(losses))
    # ten batches: compare the first pass over them with the last
    assert losses[-10:].mean() < 0.1 * losses[:10].mean(), losses


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("lang", list(BUILDERS))
def test_language_prints_pythons_losses_bit_for_bit(lang, model, data, build, python_losses):
    lines = _losses(BUILDERS[lang](build), data, model)
    assert lines == python_losses[model]


@pytest.mark.parametrize("model", MODELS)
def test_loss_curve_equals_tensorflows(model, data, python_losses):
    # TensorFlow's child process: no opgen paths, its own threads pinned likewise
    run = run_tf([DEMO / "train_tensorflow.py", data, model])
    theirs = _values(run.stdout.splitlines())
    ours = _values(python_losses[model])
    assert theirs.shape == (STEPS,)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=0)
