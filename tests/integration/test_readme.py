"""The README tells the truth: its example runs, and its commands are the CI's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def test_readme_example_runs(capsys):
    pytest.importorskip("opgen.ops", reason="opgen.ops is installed by `pip install .`")
    example = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    exec(compile(example, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "float32 (2, 2)" in printed
    assert "[[0. 0.]\n [8. 8.]]" in printed
    assert "Matrix size-incompatible" in printed


def test_ci_runs_the_readme_test_command():
    test_command = 'pip install ".[test]" && pytest -q'
    assert test_command in README
    assert test_command in (REPO / ".ci" / "run").read_text()
