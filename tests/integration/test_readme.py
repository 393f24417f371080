"""The README tells the truth: its commands are the CI's (its examples run in
test_doc_examples.py)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def test_ci_runs_the_readme_commands_in_order():
    first_command = "pip install . && opgen generate --lang python --out out"
    test_command = 'pip install ".[test]" && pytest -q -n auto --dist loadfile'
    ci = (REPO / ".ci" / "run").read_text()
    for command in (first_command, test_command):
        assert command in README
        assert command in ci
    assert ci.index(first_command) < ci.index(test_command)
