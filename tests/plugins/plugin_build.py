"""Compiling C plugins with the system C compiler, as a plugin author would
(`cc -shared -fPIC` against an include folder)."""

from __future__ import annotations

import shutil
import subprocess
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
