"""examples/rust and examples/go, compiled against the generated bindings and the
installed runtime, print what numpy computes for y = relu(x @ W + b); generated/rust and
generated/go are `opgen generate` on ops.pbtxt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opgen import _paths

REPO = Path(__file__).resolve().parents[2]

# The example's inputs (examples/c/graph_example.c uses the same).
X = np.array([[1, 2, 3], [-4, 0.5, 6]], np.float32)
W = np.array([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]], np.float32)
B = np.array([0.1, -0.2, 0.3, -4], np.float32)


def _expected() -> np.ndarray:
    return np.maximum(X @ W + B, 0)


def _printed(stdout: str) -> np.ndarray:
    return np.array([[float(v) for v in line.split()] for line in stdout.strip().splitlines()])


def _runtime_dir() -> Path:
    try:
        return _paths.runtime_library_path().parent
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("lang", ["rust", "go"])
def test_generated_bindings_are_fresh(lang):
    result = subprocess.run(
        [sys.executable, "-m", "opgen", "generate", "--check", "--lang", lang,
         "--ops", str(REPO / "ops.pbtxt"), "--out", str(REPO / "generated")],
        capture_output=True, text=True)
    assert result.returncode == 0, (
        f"generated/{lang} is stale; run `opgen generate --lang {lang} --ops ops.pbtxt "
        f"--out generated`:\n" + result.stdout + result.stderr)


def test_rust_example_prints_what_numpy_computes(tmp_path):
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust example is not built")
    lib_dir = _runtime_dir()
    example = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "rust", example, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    manifest = example / "Cargo.toml"
    crate = (REPO / "generated" / "rust").as_posix()
    manifest.write_text(manifest.read_text().replace('"../../generated/rust"', f'"{crate}"'))
    env = {**os.environ, "OPGEN_LIB_DIR": str(lib_dir), "CARGO_TARGET_DIR": str(tmp_path / "target"),
           "LD_LIBRARY_PATH": f"{lib_dir}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}"}
    result = subprocess.run([cargo, "run", "--offline", "--quiet"], cwd=example, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    np.testing.assert_allclose(_printed(result.stdout), _expected(), rtol=1e-6, atol=1e-6)


def test_go_example_prints_what_numpy_computes(tmp_path):
    go = shutil.which("go")
    if go is None:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    lib_dir = _runtime_dir()
    example = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "go", example)
    go_mod = example / "go.mod"
    package = (REPO / "generated" / "go").as_posix()
    go_mod.write_text(go_mod.read_text().replace("=> ../../generated/go", f"=> {package}"))
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOPATH": str(tmp_path / "gopath"),
           "GOCACHE": os.environ.get("GOCACHE", str(tmp_path / "gocache")),
           "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}",
           "CGO_LDFLAGS": f"-L{lib_dir} -Wl,-rpath,{lib_dir}"}
    result = subprocess.run([go, "run", "."], cwd=example, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    np.testing.assert_allclose(_printed(result.stdout), _expected(), rtol=1e-6, atol=1e-6)
