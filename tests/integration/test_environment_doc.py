"""docs/environment.md lists every OPGEN_* environment variable the code reads."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ["opgen", "runtime", "tools", "tests/conftest.py", "tests/tf_reference.py", ".ci/run"]
# getenv("X"), os.environ.get("X"), os.environ["X"], EnvIsSet("X"), _testdata("X", ...)
READ = re.compile(r"""(?:getenv|environ\.get|environ\[|EnvIsSet|_testdata)\(?\s*["'](OPGEN_[A-Z0-9_]+)["']""")
# shell: ${OPGEN_X:-...} or $OPGEN_X
SHELL_READ = re.compile(r"\$\{?(OPGEN_[A-Z0-9_]+)")


def _variables_read() -> set[str]:
    found: set[str] = set()
    for name in SOURCES:
        root = REPO / name
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()
                                                and p.suffix in {".py", ".cc", ".h", ".c", ".cu", ".sh"}]
        for path in files:
            text = path.read_text(errors="replace")
            found |= set(READ.findall(text))
            if path.suffix == ".sh" or path.name == "run":
                found |= set(SHELL_READ.findall(text))
    return found


def test_every_variable_the_code_reads_is_documented():
    documented = set(re.findall(r"`(OPGEN_[A-Z0-9_]+)`", (REPO / "docs" / "environment.md").read_text()))
    read = _variables_read()
    assert {"OPGEN_NUM_THREADS", "OPGEN_RUNTIME_LIB", "OPGEN_TF_PYTHON"} <= read  # the scan works
    assert sorted(read - documented) == []
