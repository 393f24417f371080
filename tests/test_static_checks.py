"""opgen/ itself passes `mypy --strict` and `ruff check`, as configured in pyproject.toml
(`[tool.mypy]`, `[tool.ruff]`: the relaxed modules are named there, each with its reason).

Both are in the test extra; each test skips, saying so, where its tool is missing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it is part of the test extra)")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def test_mypy_strict_passes_on_the_package():
    # files, strictness and the per-module relaxations come from pyproject.toml
    result = _run("mypy", "--config-file", str(REPO / "pyproject.toml"), "--no-error-summary")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_passes_on_the_package():
    result = _run("ruff", "check", "--no-cache", "opgen")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_checks_can_fail(tmp_path):
    # The same configuration rejects a module with an untyped function and an unused import.
    bad = tmp_path / "opgen_static_probe.py"
    bad.write_text("import os\n\n\ndef f(x):\n    return x\n")
    mypy = _run("mypy", "--config-file", str(REPO / "pyproject.toml"), str(bad))
    assert mypy.returncode != 0 and "no-untyped-def" in mypy.stdout
    ruff = _run("ruff", "check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(bad))
    assert ruff.returncode != 0 and "F401" in ruff.stdout
