"""What the ``opgen`` command line shares across its commands: how much it says
(``-q``/``-v``, through the ``opgen`` logger), the ``--lang`` value type, and shell
completion of languages and op names.

Progress and summary lines are INFO messages of the ``opgen`` logger, on stderr;
``-q`` hides them, ``-v`` adds DEBUG ones: what is loaded from where, and timings.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

log = logging.getLogger("opgen")

QUIET, NORMAL, VERBOSE = logging.WARNING, logging.INFO, logging.DEBUG


class _ClickHandler(logging.Handler):
    """Writes through click.echo to the stderr of the moment (CliRunner swaps it)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


def set_verbosity(quiet: bool, verbose: bool) -> None:
    """Point the ``opgen`` logger at stderr with the level -q / -v ask for."""
    if quiet and verbose:
        raise click.UsageError("give either -q/--quiet or -v/--verbose, not both")
    for handler in [h for h in log.handlers if isinstance(h, _ClickHandler)]:
        log.removeHandler(handler)
    log.addHandler(_ClickHandler())
    log.setLevel(QUIET if quiet else VERBOSE if verbose else NORMAL)
    log.propagate = False


def is_quiet() -> bool:
    """Whether -q was given: progress lines on stdout are left out too."""
    return log.getEffectiveLevel() > NORMAL


@contextmanager
def timed(what: str) -> Iterator[None]:
    """Logs (DEBUG, so under -v) how long the block took: ``<what> in 12.3 ms``."""
    start = time.perf_counter()
    yield
    log.debug("%s in %.1f ms", what, (time.perf_counter() - start) * 1e3)


# ---------------------------------------------------------------------------- --lang

def _known_languages() -> list[str]:
    from opgen import langs
    return list(langs.known())


if TYPE_CHECKING:   # generic to type checkers since click 8.2; plain at run time before
    _ListParamType = click.ParamType[list[str], Any]
else:
    _ListParamType = click.ParamType


class LanguageList(_ListParamType):
    """Comma-separated target languages, each one opgen knows; an unknown one is refused
    with the known ones listed, and the shell completes them."""

    name = "LANGS"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> list[str]:
        if isinstance(value, list):
            return value
        known = _known_languages()
        names = [name.strip() for name in str(value).split(",") if name.strip()]
        if not names:
            self.fail(f"no language given; known languages: {', '.join(known)}", param, ctx)
        unknown = [name for name in names if name not in known]
        if unknown:
            self.fail(f"unknown language{'s' if len(unknown) > 1 else ''} "
                      f"{', '.join(repr(n) for n in unknown)}; known languages: "
                      f"{', '.join(known)}", param, ctx)
        return names

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[CompletionItem]:
        done, _, last = incomplete.rpartition(",")
        prefix = f"{done}," if done else ""
        given = set(done.split(",")) if done else set()
        return [CompletionItem(prefix + name) for name in _known_languages()
                if name.startswith(last) and name not in given]


# ---------------------------------------------------------------------------- op names

# `  name: "MatMul"` directly under a top-level `op {`: the op names of a text OpList,
# read without parsing the whole file (completion must answer at once).
_TEXT_OP_NAME = re.compile(r'^op\s*\{\s*name:\s*"([^"]+)"', re.MULTILINE)


def _op_names(ops: str | None) -> list[str]:
    from opgen import _paths
    path = Path(ops) if ops and ops != "-" else _paths.bundled_ops_path()
    data = path.read_bytes()
    try:
        names = _TEXT_OP_NAME.findall(data.decode("utf-8"))
    except UnicodeDecodeError:
        names = []
    if not names:  # binary, or text laid out otherwise: parse it
        from opgen import opdefs
        names = [op.name for op in opdefs.load(str(path)).op]
    return sorted(names)


def complete_op_names(ctx: click.Context, param: click.Parameter,
                      incomplete: str) -> list[CompletionItem]:
    """The op names of the OpList --ops names (the bundled one by default) that start
    with what was typed; none when it cannot be read (completion never fails loudly)."""
    try:
        names = _op_names(ctx.params.get("ops"))
    except Exception:  # noqa: BLE001 - an unreadable --ops: nothing to offer, no traceback
        return []
    return [CompletionItem(name) for name in names if name.startswith(incomplete)]
