"""examples/bazel builds in Bazel: its genrule runs `opgen generate --lang cpp` and
declares the two headers it writes, and its cc_binary compiles examples/cpp's relu
example on them, links the runtime and prints relu(x @ W + b).

Tried with Debian's bazel-bootstrap (Bazel 4.2) offline, as README.md there says: the
`platforms` repository from Debian's bazel-platforms package, `rules_cc` and
`rules_java` from examples/bazel/offline (stand-ins for the versions Bazel 4.2 would
download). Skips, saying why, without bazel or the platforms package. One Bazel run
(--batch, so no server stays behind): ~40 s on 2 busy cores the first time, ~20 s
when run again from the same checkout."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import _paths

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "bazel"
# Where Debian's bazel-platforms package installs the `platforms` repository.
PLATFORMS = Path("/usr/share/bazel/tools/platforms")

X = np.float32([[1, 2, 3], [-4, 0.5, 6]])
W = np.float32([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]])
B = np.float32([0.1, -0.2, 0.3, -4])

# Linked where it is installed (`opgen config --libs`), not copied into Bazel's _solib:
# the installed runtime finds OpenBLAS relative to its own folder ($ORIGIN).
RUNTIME_BUILD = '''
cc_library(
    name = "runtime",
    hdrs = glob(["include/**/*.h"]),
    strip_include_prefix = "include",
    linkopts = ["-L{lib}", "-lopgen_runtime", "-Wl,-rpath,{lib}"],
    visibility = ["//visibility:public"],
)
'''


def _runtime_library() -> Path | None:
    try:
        return _paths.runtime_library_path()
    except FileNotFoundError:
        return None


def _opgen_digest() -> str:
    """A digest of the generator's sources and templates."""
    digest = hashlib.sha256()
    for folder in (Path(opgen.__file__).parent, _paths.templates_dir()):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2", ".h", ".go", ".rs"):
                digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def bazel_build():
    """A workspace with the example as package //ex, built offline; (workspace, whether
    the cc targets were built too, bazel's output)."""
    bazel = shutil.which("bazel")
    if bazel is None:
        pytest.skip("bazel not installed (Debian: apt-get install bazel-bootstrap bazel-platforms)")
    if not PLATFORMS.is_dir():
        pytest.skip(f"{PLATFORMS} missing (Debian's bazel-platforms package): "
                    "Bazel would download `platforms`")
    # One folder per checkout, kept between runs under one Bazel output root: Bazel
    # unpacks itself once, and a second run reuses the C++ toolchain's configuration and
    # whatever did not change (~20 s instead of ~40 s). The genrule's action carries a
    # digest of opgen's sources (OPGEN_STAMP), so a changed generator reruns it.
    user_root = Path(tempfile.gettempdir()) / f"opgen-bazel-test-{os.getuid()}"
    root = user_root / hashlib.sha256(str(REPO).encode()).hexdigest()[:12]
    ws = root / "ws"
    shutil.rmtree(root / "bin", ignore_errors=True)
    shutil.rmtree(root / "runtime", ignore_errors=True)
    (ws / "ex").mkdir(parents=True, exist_ok=True)
    shutil.copy(_paths.bundled_ops_path(), ws / "ops.pbtxt")
    (ws / "BUILD.bazel").write_text('exports_files(["ops.pbtxt"])\n')
    shutil.copy(EXAMPLE / "BUILD.bazel", ws / "ex" / "BUILD.bazel")
    shutil.copy(REPO / "examples" / "cpp" / "relu_example.cc", ws / "ex")
    # `opgen` on the actions' PATH: this interpreter with this opgen.
    tools = root / "bin"
    tools.mkdir()
    (tools / "opgen").write_text(f'#!/bin/sh\nPYTHONPATH="{Path(opgen.__file__).parent.parent}" '
                                 f'exec "{sys.executable}" -m opgen "$@"\n')
    (tools / "opgen").chmod(0o755)

    library = _runtime_library()
    targets = ["//ex:opgen_cpp_ops"]
    workspace = ""
    if library is not None:
        runtime = root / "runtime"
        runtime.mkdir()
        (runtime / "include").symlink_to(_paths.include_dir())
        build = RUNTIME_BUILD.replace("{lib}", str(Path(library).resolve().parent))
        workspace = (f'new_local_repository(\n    name = "opgen_runtime",\n    path = "{runtime}",\n'
                     f'    build_file_content = """{build}""",\n)\n')
        targets.append("//ex:relu_example")
    (ws / "WORKSPACE").write_text(workspace)

    offline = EXAMPLE / "offline"
    # (the system bazelrc stays: Debian's names Bazel's install base in it)
    command = [bazel, "--batch", "--nohome_rc", "--noworkspace_rc",
               f"--output_user_root={user_root}",
               "build", f"--override_repository=platforms={PLATFORMS}",
               f"--override_repository=rules_cc={offline / 'rules_cc'}",
               f"--override_repository=rules_java={offline / 'rules_java'}",
               f"--action_env=PATH={tools}:/usr/bin:/bin",
               f"--action_env=OPGEN_STAMP={_opgen_digest()}", *targets]
    result = subprocess.run(command, cwd=ws, capture_output=True, text=True, timeout=900,
                            check=False)
    assert result.returncode == 0, result.stderr[-6000:]
    return ws, library is not None, result.stderr


def test_genrule_writes_both_headers_as_opgen_generate_does(bazel_build, tmp_path):
    ws = bazel_build[0]
    out = ws / "bazel-bin" / "ex" / "cpp"
    assert sorted(p.name for p in out.iterdir()) == ["opgen_framework.h", "opgen_ops.h"]
    subprocess.run([sys.executable, "-m", "opgen", "generate", "--lang", "cpp", "--ops",
                    str(ws / "ops.pbtxt"), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    for name in ("opgen_framework.h", "opgen_ops.h"):
        assert (out / name).read_bytes() == (tmp_path / "cpp" / name).read_bytes(), name


def test_cc_binary_builds_and_prints_relu_of_x_w_plus_b(bazel_build):
    ws, built, _ = bazel_build
    if not built:
        pytest.skip("no opgen runtime library: only the genrule was built")
    run = subprocess.run([str(ws / "bazel-bin" / "ex" / "relu_example")], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    printed = np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])
    np.testing.assert_allclose(printed, np.maximum(X @ W + B, 0), rtol=1e-5, atol=1e-6)
