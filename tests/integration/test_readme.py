"""The README tells the truth: its commands are the CI's (its examples run in
test_doc_examples.py)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def test_ci_runs_the_readme_test_command():
    test_command = 'pip install ".[test]" && pytest -q'
    assert test_command in README
    assert test_command in (REPO / ".ci" / "run").read_text()
