"""The README's and docs/*.md's examples run as written (doc_blocks.py: which blocks, and
the `<!-- docs-test: ... -->` markers that skip one or opt a shell block in).

Each document's runnable blocks run in document order in one fresh interpreter, as a
reader pastes them: python blocks in one namespace (later blocks use what earlier ones
defined), marked shell blocks with bash (`opgen` being this interpreter's
`python -m opgen`), so a shell block may build what the next python block loads. The
interpreter runs with `-W error::ResourceWarning`, from a temporary folder outside the
checkout, so that the opgen found is the installed one (here: the one PYTHONPATH names),
not the checkout's by accident of the current folder. That folder links `examples/` to the
repository's, for the files examples open (`examples/models/mlp.pb`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_blocks import REPO, Block, blocks, documents, malformed_markers

# What examples print, as their comments say: the test checks results, not only that they ran.
EXPECTED_OUTPUT = {
    "README.md": ["float32 (2, 2)", "[[0. 0.]\n [8. 8.]]", "Matrix size-incompatible",
                  "(4, 10) [1. 1. 1. 1.]"],
    "docs/plugins.md": ["[2.  2.5 3. ] float64", "(2, None)"],
    "docs/languages/python.md": ["[[5.0, 11.0], [11.0, 25.0]]"],
    "docs/functions.md": ["14.0\n[np.float32(14.0), np.float32(17.0)]", "[0.305  0.7864]"],
    "docs/training.md": ["[ 3 17]", "[ 3 17  3] (3, 16) [1000   16]"],
}

DRIVER = textwrap.dedent('''\
    import gc, json, subprocess, sys, warnings
    warnings.simplefilter("error", ResourceWarning)
    with open(sys.argv[1]) as f:
        blocks = json.load(f)
    namespace = {"__name__": "__main__"}
    for block in blocks:
        if block["language"] != "python":
            sys.stdout.flush()
            subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block["code"]], check=True)
            continue
        # Padded so that a traceback names the line of the document.
        code = "\\n" * (block["line"] - 1) + block["code"]
        exec(compile(code, block["document"], "exec"), namespace)
    namespace.clear()
    gc.collect()
    ''')


def _documents_with(language_test) -> list[str]:
    return [str(p.relative_to(REPO)) for p in documents()
            if any(b.runs and language_test(b) for b in blocks(p))]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("doc_examples")
    (folder / "examples").symlink_to(REPO / "examples")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "opgen"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m opgen "$@"\n')
    shim.chmod(0o755)
    (folder / "driver.py").write_text(DRIVER)
    probe = subprocess.run([sys.executable, "-c", "import opgen.ops"], cwd=folder,
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("opgen.ops is not importable outside the checkout (`pip install .`): "
                    + probe.stderr.strip().splitlines()[-1])
    return folder


@pytest.mark.parametrize("document", _documents_with(lambda b: True))
def test_examples_run(document, workdir):
    runnable = [b for b in blocks(REPO / document) if b.runs]
    result = _run(runnable, workdir)
    where = ", ".join(b.where for b in runnable)
    assert result.returncode == 0, \
        f"{document}'s examples ({where}) failed:\n{result.stdout[-3000:]}\n{result.stderr}"
    assert "ResourceWarning" not in result.stderr, result.stderr
    for expected in EXPECTED_OUTPUT.get(document, []):
        assert expected in result.stdout


def _run(runnable: list[Block], workdir: Path) -> subprocess.CompletedProcess:
    spec = workdir / (runnable[0].document.replace("/", "_") + ".json")
    spec.write_text(json.dumps([b.__dict__ for b in runnable]))
    env = dict(os.environ, PATH=f"{workdir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run([sys.executable, "-W", "error::ResourceWarning", "driver.py", spec.name],
                          cwd=workdir, env=env, capture_output=True, text=True, timeout=300)


def test_the_runner_reports_failures_and_unclosed_files(workdir):
    def block(code: str, language: str = "python") -> Block:
        return Block("fake.md", 3, language, code, None, None)
    failing = _run([block("x = 1\n"), block("1 / 0\n")], workdir)
    assert failing.returncode != 0 and 'File "fake.md", line 3' in failing.stderr
    leaking = _run([block("data = open('driver.py').read()\n")], workdir)
    assert "ResourceWarning" in leaking.stderr
    in_order = _run([block("opgen --version > version.txt\n", "sh"),
                     block("import pathlib, opgen\nprint(pathlib.Path('version.txt').read_text().split()[-1] == opgen.__version__)\n"),
                     block("false\n", "sh"), block("print('not reached')\n")], workdir)
    assert in_order.returncode != 0 and in_order.stdout.split() == ["True"]


def test_markers_are_well_formed():
    assert [problem for p in documents() for problem in malformed_markers(p)] == []


def test_the_examples_are_found():
    found = [b for p in documents() for b in blocks(p)]
    readme = [b for b in found if b.document == "README.md" and b.language == "python"]
    assert len(readme) >= 3 and all(b.runs for b in readme)
    assert any(b.action == "skip" for b in found)  # the GPU/PyTorch ones, at least


def test_markers_steer_the_blocks(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("text\n\n```python\nx = 1\n```\n<!-- docs-test: skip (needs a GPU) -->\n"
                   "```python\nimport torch\n```\n```sh\nrm -rf /\n```\n"
                   "<!-- docs-test: run -->\n```sh\nopgen --help\n```\n<!-- docs-test: skip -->\n"
                   "para\n<!-- docs-test: sometimes -->\n```python\n```\n<!-- docs-test: run -->\n")
    got = [(b.line, b.language, b.runs, b.reason) for b in blocks(doc)]
    assert got == [(4, "python", True, None), (8, "python", False, "needs a GPU"),
                   (11, "sh", False, None), (15, "sh", True, None), (21, "python", True, None)]
    problems = malformed_markers(doc)
    assert len(problems) == 3
    assert "needs a reason" in problems[0] and "not a docs-test marker" in problems[1]
    assert "before a fence" in problems[2]
