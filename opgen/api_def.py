"""ApiDef overrides: how an op is presented to callers, kept apart from what it computes.

TensorFlow keeps names, visibility, argument order and documentation of each op in
``ApiDef`` text files (``api_def_<Op>.pbtxt``, each an ``ApiDefs`` message), often with
``<<END`` ... ``END`` blocks for long text. :func:`load` reads any number of such files or
folders; a later file overrides what an earlier one set, field by field, as TensorFlow's
own layering of base and per-language ApiDefs does. :func:`validate` checks them against
an OpList and reports every problem with its ``FILE:LINE:COLUMN`` and op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Sequence

from opgen.opdefs import (OpDefError, Problem, UnreadableError, decode_text, op_block_positions,
                          parse_text_message, read_file)
from opgen.protos import api_def_pb2, op_def_pb2

VISIBLE = "VISIBLE"
HIDDEN = "HIDDEN"
SKIP = "SKIP"


@dataclass
class ApiDefSet:
    """Merged ApiDefs by op name, with where each op's last override came from."""

    by_op: dict[str, api_def_pb2.ApiDef] = field(default_factory=dict)
    locations: dict[str, str] = field(default_factory=dict)   # op -> "FILE:LINE:COL"
    files: list[Path] = field(default_factory=list)             # every file read, in order

    def get(self, op_name: str) -> api_def_pb2.ApiDef | None:
        return self.by_op.get(op_name)


# --------------------------------------------------------------------------- reading

_HEREDOC = re.compile(r"<<([A-Za-z_][A-Za-z0-9_]*)[ \t]*$")


def expand_heredocs(text: str) -> str:
    """``field: <<END`` ... ``END`` blocks as quoted strings, keeping every line number.

    The block becomes one string literal on the opening line; the lines it spanned
    become empty lines, so a parse error or a location further down still points at
    the right line of the original file.
    """
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _HEREDOC.search(line)
        if match is None or '"' in line[: match.start()] or "#" in line[: match.start()]:
            out.append(line)
            i += 1
            continue
        terminator = match.group(1)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != terminator:
            body.append(lines[j])
            j += 1
        if j == len(lines):  # unterminated: leave it for the parser to report
            out.append(line)
            i += 1
            continue
        out.append(line[: match.start()] + _quote("\n".join(body)))
        out.extend([""] * (j - i))
        i = j + 1
    return "\n".join(out)


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def parse(text: str, display: str) -> tuple[api_def_pb2.ApiDefs, list[str]]:
    """One ApiDef file's content; also the ``FILE:LINE:COL`` of each op block."""
    expanded = expand_heredocs(text)
    api_defs = api_def_pb2.ApiDefs()
    parse_text_message(expanded, api_defs, display, "ApiDef syntax error")
    positions = op_block_positions(expanded, key="graph_op_name")
    locations = [f"{display}:{line}:{col}" for line, col in positions]
    locations += [display] * (len(api_defs.op) - len(locations))
    return api_defs, locations


def api_def_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files behind ``paths``: a file as given, a folder's ``*.pbtxt`` sorted by name."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(path.glob("*.pbtxt")))
        elif path.is_file():
            files.append(path)
        else:
            raise UnreadableError([Problem(str(path), "", "no such ApiDef file or folder")])
    return files


def load(paths: Sequence[str | Path]) -> ApiDefSet:
    """Read and merge the ApiDefs in ``paths`` (files or folders), later ones winning."""
    result = ApiDefSet()
    problems: list[Problem] = []
    for path in api_def_files(paths):
        result.files.append(path)
        try:
            text = decode_text(read_file(path, "ApiDef file"), str(path), "ApiDef syntax error")
            text = text.replace("\r\n", "\n")   # a Windows checkout: same lines, and <<END works
            api_defs, locations = parse(text, str(path))
        except UnreadableError:
            raise
        except OpDefError as e:
            problems.extend(e.problems)
            continue
        seen_here: set[str] = set()
        for index, (api_def, where) in enumerate(zip(api_defs.op, locations)):
            name = api_def.graph_op_name
            if not name:
                problems.append(Problem(where, f"#{index}", "ApiDef without graph_op_name"))
                continue
            if name in seen_here:
                problems.append(Problem(where, name, "second ApiDef for this op in one file"))
                continue
            seen_here.add(name)
            if name in result.by_op:
                merge_into(result.by_op[name], api_def)
            else:
                result.by_op[name] = api_def_pb2.ApiDef()
                result.by_op[name].CopyFrom(api_def)
            result.locations[name] = where
    if problems:
        raise OpDefError(problems)
    return result


def merge_into(base: api_def_pb2.ApiDef, override: api_def_pb2.ApiDef) -> None:
    """Apply the fields ``override`` sets on top of ``base``.

    Scalars and texts replace when set; endpoints and ``arg_order`` replace as a whole
    when given; args and attrs merge by name.
    """
    for name in ("deprecation_message", "summary", "description", "description_prefix",
                 "description_suffix"):
        if getattr(override, name):
            setattr(base, name, getattr(override, name))
    if override.deprecation_version:
        base.deprecation_version = override.deprecation_version
    if override.visibility != api_def_pb2.ApiDef.DEFAULT_VISIBILITY:
        base.visibility = override.visibility
    if override.endpoint:
        del base.endpoint[:]
        base.endpoint.extend(override.endpoint)
    if override.arg_order:
        del base.arg_order[:]
        base.arg_order.extend(override.arg_order)
    for field_name in ("in_arg", "out_arg", "attr"):
        existing = {item.name: item for item in getattr(base, field_name)}
        for item in getattr(override, field_name):
            target = existing.get(item.name)
            if target is None:
                getattr(base, field_name).add().CopyFrom(item)
                continue
            if item.rename_to:
                target.rename_to = item.rename_to
            if item.description:
                target.description = item.description
            if field_name == "attr" and item.HasField("default_value"):
                target.default_value.CopyFrom(item.default_value)


# ------------------------------------------------------------------------ validation

_VALUE_FIELD = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
                "shape": "shape", "tensor": "tensor", "func": "func"}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENDPOINT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def validate(api_defs: ApiDefSet, oplist: op_def_pb2.OpList) -> list[Problem]:
    """Every way ``api_defs`` does not fit ``oplist``: unknown ops, args, attrs..."""
    ops = {op.name: op for op in oplist.op}
    problems: list[Problem] = []
    for name, api_def in sorted(api_defs.by_op.items()):
        where = api_defs.locations.get(name, "")
        op = ops.get(name)
        if op is None:
            problems.append(Problem(where, name, "ApiDef for an op that is not in the OpList"))
            continue
        problems.extend(Problem(where, name, m) for m in _check(api_def, op))
    return problems


def _check(api_def: api_def_pb2.ApiDef, op: op_def_pb2.OpDef) -> list[str]:
    errors = []
    if api_def.visibility not in api_def_pb2.ApiDef.Visibility.values():
        # proto3 keeps an unknown enum number (visibility: 7) instead of refusing it
        errors.append(f"visibility {api_def.visibility} is not one of "
                      f"{', '.join(api_def_pb2.ApiDef.Visibility.keys())}")
    inputs = [a.name for a in op.input_arg]
    attrs = {a.name: a for a in op.attr}
    for endpoint in api_def.endpoint:
        if not _ENDPOINT.match(endpoint.name):
            errors.append(f"endpoint {endpoint.name!r} is not a dotted identifier")
        if endpoint.deprecation_version < 0:
            errors.append(f"endpoint {endpoint.name!r}: deprecation_version "
                          f"{endpoint.deprecation_version} is not an API version")
    for kind, items, known in (("in_arg", api_def.in_arg, inputs),
                               ("out_arg", api_def.out_arg, [a.name for a in op.output_arg]),
                               ("attr", api_def.attr, list(attrs))):
        for item in items:
            if item.name not in known:
                errors.append(f"{kind} '{item.name}' is not one of the op's "
                              f"{'attrs' if kind == 'attr' else kind + 's'} "
                              f"({', '.join(known) or 'none'})")
            elif item.rename_to and not _IDENTIFIER.match(item.rename_to):
                errors.append(f"{kind} '{item.name}': rename_to {item.rename_to!r} is not an "
                              "identifier")
    if api_def.arg_order and sorted(api_def.arg_order) != sorted(inputs):
        errors.append(f"arg_order [{', '.join(api_def.arg_order)}] must list each input "
                      f"exactly once ({', '.join(inputs) or 'none'})")
    renames = {item.name: item.rename_to for item in list(api_def.in_arg) + list(api_def.attr)
               if item.rename_to}
    if renames:
        final = [renames.get(n, n) for n in inputs + list(attrs)]
        clashes = sorted({n for n in final if final.count(n) > 1})
        if clashes:
            errors.append(f"after renaming, these names are used twice: {', '.join(clashes)}")
    for item in api_def.attr:
        attr = attrs.get(item.name)
        if attr is None or not item.HasField("default_value"):
            continue
        kind = item.default_value.WhichOneof("value")
        expected = "list" if attr.type.startswith("list(") else _VALUE_FIELD[attr.type]
        if kind != expected:
            errors.append(f"attr '{item.name}': default_value must hold a '{attr.type}' "
                          f"value, not '{kind}'")
    return errors


def visibility(api_def: api_def_pb2.ApiDef | None) -> str:
    """VISIBLE, HIDDEN or SKIP (VISIBLE without an ApiDef saying otherwise).

    Internal ops (``_Arg``) are not hidden by default: their names already start with
    ``_``, which keeps them out of ``__all__``.
    """
    value = api_def.visibility if api_def is not None else api_def_pb2.ApiDef.DEFAULT_VISIBILITY
    if value == api_def_pb2.ApiDef.DEFAULT_VISIBILITY:
        return VISIBLE
    return str(api_def_pb2.ApiDef.Visibility.Name(value))
