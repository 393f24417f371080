"""From where an OpList comes to its validated OpSpecs: the one path every command that
reads ops takes (``opgen generate``, ``list``, ``show``, ``diff``).

An OpList comes from a file or standard input (:func:`opgen.opdefs.load`), the opgen
runtime's live registry (:func:`opgen.opdefs.load_runtime_registry`) or an op library
(plugin) loaded into that runtime (:func:`load_library`); each is validated as it is
read. ApiDefs, when given, are read next and checked against it, then the specs are
built (:func:`opgen.model.op_specs`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen import _paths, api_def, generate, model, opdef_wire, opdefs
from opgen.protos import op_def_pb2

log = logging.getLogger("opgen")   # what is read from where, and how long it took (-v)


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1e3


class SourceError(Exception):
    """An OpList source that cannot be read for a reason of its own (an op library the
    runtime refuses to load); the message says which and why."""


@dataclass(frozen=True)
class Source:
    """Where the OpList comes from: at most one of ``ops`` (a path, or ``"-"`` for
    standard input), ``from_runtime`` and ``from_library``; none means the bundled
    ops.pbtxt."""

    ops: str | None = None
    from_runtime: bool = False
    from_library: str | None = None

    def describe(self) -> str:
        """The source as a message names it."""
        if self.from_runtime:
            return "the runtime registry"
        if self.from_library is not None:
            return self.from_library
        return self.ops or "the bundled ops.pbtxt"

    def files(self) -> list[Path]:
        """The files the OpList is read from (what generated files depend on); none for
        standard input and the runtime registry."""
        if self.from_library is not None:
            return [Path(self.from_library)]
        if self.from_runtime or self.ops == opdefs.STDIN:
            return []
        return [Path(self.ops or _paths.bundled_ops_path())]


def load_oplist(source: Source) -> op_def_pb2.OpList:
    """The OpList ``source`` names, validated (:class:`opgen.opdefs.OpDefError` otherwise)."""
    if source.from_library is not None:
        return load_library(source.from_library)
    if source.from_runtime:
        return opdefs.load_runtime_registry()
    return opdefs.load(source.ops if source.ops is not None else _paths.bundled_ops_path())


def load_library(path: str) -> op_def_pb2.OpList:
    """The ops an op library registers, as the opgen runtime loads it (TF_LoadLibrary,
    as :func:`opgen.load_op_library` does; its kernels are registered too), validated."""
    # the runtime is imported only where a library is loaded
    from opgen.runtime import errors, op_library
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no op library at {path}")
    try:
        oplist = op_library.library_op_list(path)
    except errors.OpError as e:
        raise SourceError(f"cannot load op library {path}: {e}") from None
    problems = opdefs.validate_oplist(oplist)
    if problems:
        raise opdefs.OpDefError(problems)
    return oplist


def load_api_defs(paths: Sequence[str | Path]) -> api_def.ApiDefSet | None:
    """The ApiDefs in ``paths`` (files or folders), merged; None when there are none."""
    return api_def.load(paths) if paths else None


@dataclass(frozen=True)
class Loaded:
    """An OpList read and validated, its ApiDefs and its specs (sorted by op name)."""

    oplist: op_def_pb2.OpList
    api_defs: api_def.ApiDefSet | None
    specs: list[model.OpSpec]
    canonical: bytes | None   # opdef_wire.canonical_bytes(oplist) where specs were built


def load(source: Source, api_def_paths: Sequence[str | Path] = (), *, specs: bool = True,
         api_defs_of_other_ops: bool = False) -> Loaded:
    """Read ``source`` (validated), then the ApiDefs in ``api_def_paths``, and build the
    specs (unless ``specs`` is false: then ``Loaded.specs`` is empty).

    The ApiDefs must fit the OpList (:class:`opgen.opdefs.OpDefError` otherwise); with
    ``api_defs_of_other_ops``, those of ops the OpList lacks are left out instead (an
    older OpList, compared with ApiDefs written for a newer one).
    """
    start = time.perf_counter()
    oplist = load_oplist(source)
    log.debug("read %d ops from %s in %.1f ms", len(oplist.op), source.describe(), _ms_since(start))
    start = time.perf_counter()
    api_defs = load_api_defs(api_def_paths)
    if api_defs is not None:
        log.debug("read ApiDefs from %s in %.1f ms", ", ".join(map(str, api_def_paths)),
                  _ms_since(start))
    if api_defs is not None and api_defs_of_other_ops:
        api_defs = _only_ops_of(api_defs, oplist)
    if not specs:
        return Loaded(oplist, api_defs, [], None)
    start = time.perf_counter()
    canonical = opdef_wire.canonical_bytes(oplist)   # serialized once, for all who need it
    with generate.cyclic_gc_paused():   # as render does: thousands of records, no cycles
        specs_built = model.op_specs(oplist, api_defs, canonical=canonical)
    log.debug("built %d op specs in %.1f ms", len(specs_built), _ms_since(start))
    return Loaded(oplist, api_defs, specs_built, canonical)


def _only_ops_of(api_defs: api_def.ApiDefSet,
                 oplist: op_def_pb2.OpList) -> api_def.ApiDefSet | None:
    names = {op.name for op in oplist.op}
    subset = api_def.ApiDefSet({n: d for n, d in api_defs.by_op.items() if n in names},
                               api_defs.locations, api_defs.files)
    return subset if subset.by_op else None
