"""The package's metadata says what its files say: the declared license is the LICENSE
file's, and the changelog's newest section is the version being built or Unreleased."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")

REPO = Path(__file__).resolve().parents[2]


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_the_license_file_is_the_declared_license():
    declared = _project()["license"]["text"]
    text = (REPO / "LICENSE").read_text()
    assert text.splitlines()[0] == f"{declared} License"
    assert f"License :: OSI Approved :: {declared} License" in _project()["classifiers"]


def test_the_changelog_names_the_version_or_unreleased_first():
    sections = re.findall(r"^## (.+)$", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert sections and sections[0] in ("Unreleased", _project()["version"])
    assert _project()["version"] in sections
