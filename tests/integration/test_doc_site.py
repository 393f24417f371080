"""No broken links in the README and docs/: every relative link names a file or folder of
the repository, and every #anchor a heading of its page, under both the slug rules of
GitHub (where the files are read) and of MkDocs (the site, mkdocs.yml). Pure Python,
always runs. When MkDocs is installed (`pip install ".[docs]"`), the site also builds
with `mkdocs build --strict`, which fails on any warning: a page outside the nav, a link
or anchor it cannot resolve, a docstring the API reference cannot render.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
EXPLICIT_ID = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _prose(text: str) -> str:
    """The text without fenced blocks and code spans, where link syntax is literal."""
    return CODE_SPAN.sub("", FENCED.sub("", text))


def _heading_text(markdown: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)  # a link counts as its text
    return re.sub(r"[`*]|<[^>]+>", "", text)


def github_slug(heading: str) -> str:
    text = _heading_text(heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def mkdocs_slug(heading: str) -> str:
    # Python-Markdown's toc.slugify, which MkDocs uses.
    text = unicodedata.normalize("NFKD", _heading_text(heading)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The anchors both renderers give `path` (duplicates numbered as each does)."""
    text = FENCED.sub("", path.read_text())
    found: dict[str, set[str]] = {"github": set(), "mkdocs": set()}
    for style, slug, separator in (("github", github_slug, "-"), ("mkdocs", mkdocs_slug, "_")):
        seen: dict[str, int] = {}
        for _, heading in HEADING.findall(text):
            base = slug(heading)
            count = seen.get(base, 0)
            seen[base] = count + 1
            found[style].add(base if count == 0 else f"{base}{separator}{count}")
    return (found["github"] & found["mkdocs"]) | set(EXPLICIT_ID.findall(text))


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    problems = []
    for target in LINK.findall(_prose(path.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}: {target}"
        if not linked.exists():
            problems.append(f"{where}: no such file")
        elif not linked.is_relative_to(root):
            problems.append(f"{where}: outside the repository")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{where}: no heading with this anchor (on GitHub and in MkDocs)")
    return problems


@pytest.mark.parametrize("document", [str(p.relative_to(REPO)) for p in documents()])
def test_relative_links_and_anchors_resolve(document):
    assert broken_links(REPO / document) == []


def test_the_checker_finds_broken_links(tmp_path):
    doc = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## Exit codes: 0, 1 and 2\n\n## Exit codes: 0, 1 and 2\n")
    doc.write_text(
        "# Page\n\n## `opgen show OP` and more\n\n"
        "[ok](other.md#exit-codes-0-1-and-2) [dup](other.md#exit-codes-0-1-and-2-1) "
        "[self](#opgen-show-op-and-more) [web](https://example.com/x) ![img](other.md)\n"
        "[gone](missing.md) [bad anchor](other.md#nope) [self bad](#page-1)\n"
        "`[in code](missing.md)`\n```\n[in a block](missing.md)\n```\n")
    problems = broken_links(doc, root=tmp_path)
    # The duplicate heading's anchor differs: -1 on GitHub, _1 in MkDocs, so it is refused.
    assert [p.split(": ", 1)[1] for p in problems] == [
        "other.md#exit-codes-0-1-and-2-1: no heading with this anchor (on GitHub and in MkDocs)",
        "missing.md: no such file",
        "other.md#nope: no heading with this anchor (on GitHub and in MkDocs)",
        "#page-1: no heading with this anchor (on GitHub and in MkDocs)"]


def test_slugs_follow_each_renderer():
    assert github_slug("C: `OUT/c/opgen_ops.h` and `OUT/c/opgen_ops.c`") == "c-outcopgen_opsh-and-outcopgen_opsc"
    assert mkdocs_slug("C: `OUT/c/opgen_ops.h` and `OUT/c/opgen_ops.c`") == "c-outcopgen_opsh-and-outcopgen_opsc"
    assert github_slug("Rust - and Go") == "rust---and-go"
    assert mkdocs_slug("Rust - and Go") == "rust-and-go"


def _mkdocs() -> list[str] | None:
    """This interpreter's MkDocs (the docs extra beside the test extra), else one on PATH."""
    probe = subprocess.run([sys.executable, "-c", "import mkdocs"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "mkdocs"]
    exe = shutil.which("mkdocs")
    return [exe] if exe else None


def test_the_site_builds_strictly(tmp_path):
    command = _mkdocs()
    if command is None:
        pytest.skip('MkDocs is not installed (pip install ".[docs]")')
    result = subprocess.run([*command, "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=REPO, capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))  # Material's banner
    assert result.returncode == 0, result.stderr[-6000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "python-api" / "index.html").is_file()


def _page(name: str) -> str:
    return (REPO / "docs" / "reference" / name).read_text()


def test_the_api_reference_covers_the_public_api():
    import opgen
    from opgen import runtime
    documented = set(re.findall(r"^::: opgen\.runtime\.(\w+)$", _page("python-api.md"), re.M))
    # dtype objects are DType instances (documented with DType), newaxis is None.
    public = {name for name in opgen._RUNTIME_EXPORTS
              if not isinstance(getattr(runtime, name), runtime.DType) and name != "newaxis"}
    assert sorted(public - documented) == []
    assert sorted(documented - set(runtime.__all__)) == []


def test_the_ops_reference_names_every_generated_module():
    modules = {p.stem for p in (REPO / "generated" / "python").glob("_ops_*.py")}
    assert modules and set(re.findall(r"^::: python\.(_ops_\w+)$", _page("ops.md"), re.M)) == modules


def test_every_page_is_in_the_site_navigation():
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    listed = set(re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?(\S+\.md)\s*$", nav, re.M))
    pages = {str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md")}
    assert sorted(pages - listed) == [] and sorted(listed - pages - {"index.md", "changelog.md"}) == []


# `opgen.runtime._lib`, `from opgen import _paths`: a private module in a user's command.
PRIVATE = re.compile(r"\bopgen(?:\.[a-z]\w*)*\._[a-z]\w*|\bfrom opgen(?:\.\w+)* import _[a-z]")


def test_user_docs_use_public_names_only():
    """Users reach opgen's files through `opgen config` and its modules through public
    names. docs/architecture.md, the map of the code, names private modules on purpose."""
    pages = [p for p in documents() if p.name != "architecture.md"]
    pages += sorted((REPO / "examples").rglob("README.md"))
    found = [f"{p.relative_to(REPO)}: {m}" for p in pages for m in PRIVATE.findall(p.read_text())]
    assert found == []
    assert PRIVATE.findall('INC=$(python -c "from opgen import _paths; print(_paths.include_dir())")')
    assert PRIVATE.findall("opgen.runtime._lib.load()") == ["opgen.runtime._lib"]
