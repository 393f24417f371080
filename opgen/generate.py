"""Render the templates of each language and write the files: atomically, byte-stable,
only what changed.

Rendering happens entirely in memory first, for every language asked for; only when
all of it succeeded is anything written. Each changed file is written to a temporary
file beside its destination and renamed over it, so a reader never sees half a file;
an unchanged file is left alone (its mtime too), which keeps build systems quiet.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from opgen import _paths, api_def, langs, model, opdef_wire, opdefs
from opgen.langs.identity import DEFAULT, Identity
from opgen.protos import op_def_pb2


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files 0600; generated files get the mode an ordinary open() would give.
_UMASK = _current_umask()


class GenerateError(Exception):
    """Rendering or writing failed; nothing was written."""


@dataclass(frozen=True)
class GeneratedFile:
    path: Path          # relative to the output folder
    content: bytes


@dataclass(frozen=True)
class WriteResult:
    changed: tuple[Path, ...]     # written (or, in check mode, would be written)
    unchanged: tuple[Path, ...]
    removed: tuple[Path, ...] = ()  # stale files of an earlier run (or would be removed)


def describe_oplist(oplist: op_def_pb2.OpList, *, canonical: bytes | None = None) -> str:
    """Names the input by content, not by file, so text and binary give the same output.

    ``canonical`` is ``opdef_wire.canonical_bytes(oplist)`` where the caller has it."""
    digest = hashlib.sha256(opdefs.to_binary(oplist, canonical=canonical)).hexdigest()[:16]
    return f"an OpList of {len(oplist.op)} ops (sha256 {digest})"


def _environment(language: str) -> jinja2.Environment:
    return _environment_for(str(_paths.templates_dir() / language))


@functools.cache
def _environment_for(folder: str) -> jinja2.Environment:
    # One per template folder and process: an Environment keeps its compiled templates
    # (compiling the Python ones takes ~7 ms) and recompiles a file that changed.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector, if it runs, until the block ends.

    Rendering builds tens of thousands of records (specs, texts) that all stay alive until
    it returns and form no cycles: collections during it find nothing, yet each walks
    them (8-20% of rendering TensorFlow's registry, benchmarks/RESULTS.md). Nothing is
    lost: collection resumes, with the same thresholds, when the block ends.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def render(oplist: op_def_pb2.OpList, languages: Sequence[str],
           api_defs: api_def.ApiDefSet | None = None) -> list[GeneratedFile]:
    """Every file of every language in ``languages`` for ``oplist``, sorted by path.

    ``api_defs`` (see :mod:`opgen.api_def`) are checked against ``oplist`` first
    (:func:`opgen.model.op_specs`).
    """
    with cyclic_gc_paused():
        return _render(oplist, languages, api_defs)


def _render(oplist: op_def_pb2.OpList, languages: Sequence[str],
            api_defs: api_def.ApiDefSet | None) -> list[GeneratedFile]:
    modules = [langs.get(name) for name in languages]   # unknown names fail before any work
    canonical = opdef_wire.canonical_bytes(oplist)   # serialized once for both
    specs = model.op_specs(oplist, api_defs, canonical=canonical)
    return _render_specs(modules, specs, describe_oplist(oplist, canonical=canonical))


def render_specs(specs: Sequence[model.OpSpec], languages: Sequence[str],
                 source: str, identity: Identity = DEFAULT) -> list[GeneratedFile]:
    """Every file of every language in ``languages`` for ``specs`` (from
    :func:`opgen.model.op_specs`), sorted by path; ``source`` names the OpList in the
    files' headers (:func:`describe_oplist`), ``identity`` the package, crate, module,
    prefix and namespace the output is published under."""
    with cyclic_gc_paused():
        return _render_specs([langs.get(name) for name in languages], specs, source, identity)


def _render_specs(modules: Sequence[Any], specs: Sequence[model.OpSpec],
                  source: str, identity: Identity = DEFAULT) -> list[GeneratedFile]:
    files = []
    for module in modules:
        env = _environment(module.NAME)
        for template_name, out_path, context in module.files(specs, source, identity):
            try:
                text = env.get_template(template_name).render(**context)
            except jinja2.TemplateError as e:
                raise GenerateError(f"template {module.NAME}/{template_name} failed: {e}") from e
            files.append(GeneratedFile(Path(out_path), text.encode("utf-8")))
    return sorted(files, key=lambda f: f.path)


def stale_files(files: Iterable[GeneratedFile], out_dir: str | Path,
                languages: Sequence[str], identity: Identity = DEFAULT) -> list[Path]:
    """Files under ``out_dir`` an earlier run of ``languages`` wrote that ``files`` lacks
    (under the names ``identity`` gives)."""
    out_dir = Path(out_dir)
    produced = {f.path for f in files}
    stale: set[Path] = set()
    for name in languages:
        module = langs.get(name)
        owned = getattr(module, "owned_globs", None)
        for pattern in owned(identity) if owned else getattr(module, "OWNED_GLOBS", ()):
            stale.update(p.relative_to(out_dir) for p in out_dir.glob(pattern))
    return sorted(stale - produced)


def write(files: Iterable[GeneratedFile], out_dir: str | Path, *, check: bool = False,
          remove: Sequence[Path] = ()) -> WriteResult:
    """Write the files that differ from what is on disk under ``out_dir``.

    ``remove`` names stale files (relative to ``out_dir``) to delete once every write
    succeeded. With ``check`` nothing is written; the result says what would change.
    If any write fails, the temporary files are removed and no destination has been
    replaced.
    """
    out_dir = Path(out_dir)
    changed: list[GeneratedFile] = []
    unchanged: list[GeneratedFile] = []
    for f in files:
        destination = out_dir / f.path
        try:
            same = destination.read_bytes() == f.content
        except OSError:
            same = False
        (unchanged if same else changed).append(f)
    result = WriteResult(tuple(f.path for f in changed), tuple(f.path for f in unchanged),
                         tuple(remove))
    if check:
        return result
    folders = {(out_dir / f.path).parent for f in (*changed, *unchanged)}
    with _output_lock(out_dir):
        remove_stray_temp_files(folders)
        if changed or remove:
            _write_locked(changed, out_dir, remove)
    return result


# Temporary files are named TEMP_PREFIX + the destination's name + random + ".tmp" in the
# destination's folder (os.replace needs the same file system). A run killed between
# creating one and renaming it leaves it behind; the next run removes it.
TEMP_PREFIX = ".opgen_"


def remove_stray_temp_files(folders: Iterable[Path]) -> list[Path]:
    """Deletes the temporary files an interrupted run left in `folders` (only files
    named as :func:`write` names its own); returns them."""
    removed = []
    for folder in folders:
        for stray in folder.glob(f"{TEMP_PREFIX}*.tmp"):
            try:
                stray.unlink()
                removed.append(stray)
            except FileNotFoundError:
                pass
            except OSError:
                pass  # not ours to fix; writing then reports what is wrong, if anything
    return removed


@contextlib.contextmanager
def _output_lock(out_dir: Path) -> Iterator[None]:
    """Holds an exclusive lock on the output folder (flock on the folder itself, no
    lock file), so that a concurrent run's temporary files are never taken for
    strays. Where flock is unavailable, runs unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(out_dir, os.O_RDONLY)
    except OSError:  # not there yet (nothing stray in it), or unusable: the write says
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass  # a file system without flock: as before, unlocked
        yield
    finally:
        os.close(fd)  # releases the lock


def _write_locked(changed: Sequence[GeneratedFile], out_dir: Path, remove: Sequence[Path]) -> None:
    staged: list[tuple[str, Path]] = []
    try:
        for f in changed:
            destination = out_dir / f.path
            destination.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{destination.name}.",
                                        suffix=".tmp", dir=destination.parent)
            staged.append((temp, destination))
            with os.fdopen(fd, "wb") as out:
                out.write(f.content)
            os.chmod(temp, 0o666 & ~_UMASK)
        for temp, destination in staged:
            os.replace(temp, destination)
        for path in remove:
            (out_dir / path).unlink(missing_ok=True)
    except OSError as e:
        for temp, _ in staged:
            if os.path.exists(temp):
                os.unlink(temp)
        raise GenerateError(f"cannot write under {out_dir}: {e}") from e


def template_paths(languages: Sequence[str]) -> list[Path]:
    """The template files ``languages`` render and the static files they copy
    (``templates/<lang>/static``): dependencies of the output."""
    root = _paths.templates_dir()
    return sorted(path for name in languages
                  for pattern in ("*.j2", "static/*")
                  for path in (root / langs.get(name).NAME).glob(pattern))


def depfile(targets: Iterable[Path], dependencies: Iterable[Path]) -> bytes:
    """A Make-style depfile (what CMake's DEPFILE and Ninja read): targets: dependencies."""
    def escape(path: Path) -> str:
        return str(path).replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
    line = " ".join(escape(t) for t in targets) + ":"
    for dep in dependencies:
        line += " \\\n  " + escape(dep)
    return (line + "\n").encode("utf-8")


def generate(oplist: op_def_pb2.OpList, languages: Sequence[str], out_dir: str | Path, *,
             check: bool = False, api_defs: api_def.ApiDefSet | None = None) -> WriteResult:
    """Render ``languages`` for ``oplist`` and write them under ``out_dir``, removing
    files an earlier run wrote that this one no longer produces."""
    files = render(oplist, languages, api_defs)
    return write(files, out_dir, check=check, remove=stale_files(files, out_dir, languages))
