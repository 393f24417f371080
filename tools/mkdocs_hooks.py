"""MkDocs hooks (mkdocs.yml `hooks:`): the site is docs/ plus two files of the repository
root, and links that leave docs/ are made to work on the site.

- README.md becomes the home page (index.md) and CHANGELOG.md the changelog page,
  generated at build time rather than copied, so each text lives in one file.
- A relative link to a repository file outside docs/ (`../examples/c/README.md`, or in
  the README `examples/models/README.md`) becomes a link to that file on the
  repository's web view when mkdocs.yml has `repo_url`, else the link's text followed by
  the path in code. Links between pages (`docs/gpu.md` from the README) are rewritten to
  the page. On GitHub every link stays a plain relative link.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

REPO = Path(__file__).resolve().parents[1]
# Site page -> the repository file it is made from.
ROOT_PAGES = {"index.md": "README.md", "changelog.md": "CHANGELOG.md"}
LINK = re.compile(r"(?<!!)\[((?:[^\]\[]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", re.S | re.M)


def on_files(files, config):
    for page, source in ROOT_PAGES.items():
        files.append(File.generated(config, page, content=(REPO / source).read_text()))
    return files


def _repo_path_of(page_path: str) -> str:
    """Where the page's text lives in the repository (docs/x.md, or README.md)."""
    return ROOT_PAGES.get(page_path, "docs/" + page_path)


def _rewrite(markdown: str, page_path: str, repo_url: str | None) -> str:
    source_dir = posixpath.dirname(_repo_path_of(page_path))
    page_dir = posixpath.dirname(page_path)

    def link(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:|#", target, re.I):
            return match.group(0)
        path, _, anchor = target.partition("#")
        in_repo = posixpath.normpath(posixpath.join(source_dir, path))
        if in_repo.startswith("docs/"):
            relative = posixpath.relpath(in_repo[len("docs/"):], page_dir or ".")
            return f"[{text}]({relative}{'#' + anchor if anchor else ''})"
        if in_repo in ROOT_PAGES.values():
            page = next(p for p, s in ROOT_PAGES.items() if s == in_repo)
            return f"[{text}]({posixpath.relpath(page, page_dir or '.')})"
        if repo_url:
            kind = "tree" if (REPO / in_repo).is_dir() else "blob"
            return f"[{text}]({repo_url.rstrip('/')}/{kind}/main/{in_repo})"
        return text if text.strip("`") == in_repo else f"{text} (`{in_repo}`)"

    # Fenced blocks are left as they are; links are rewritten in the prose between them.
    pieces, last = [], 0
    for block in FENCED.finditer(markdown):
        pieces.append(LINK.sub(link, markdown[last:block.start()]))
        pieces.append(block.group(0))
        last = block.end()
    pieces.append(LINK.sub(link, markdown[last:]))
    return "".join(pieces)


def on_page_markdown(markdown, page, config, files):
    return _rewrite(markdown, page.file.src_uri, config.get("repo_url"))
