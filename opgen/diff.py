"""``opgen diff OLD NEW``: what changed between two OpLists, and whether callers break.

A binding maintainer runs it before moving to a new TensorFlow: ops added and removed,
and for every op in both, each change classified as *breaking* (code that called the
old generated function may fail: a removed or renamed argument, a changed default, a
narrowed type set, a new required attr...) or *compatible* (new optional attrs, wider
type sets, documentation). Comparison is on the ``OpSpec`` (after ApiDefs), so what
is compared is what the generated functions expose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from opgen.model import NO_DEFAULT, ArgSpec, AttrSpec, DType, OpSpec

# add(breaking, message): records one change of an op
_Add = Callable[[bool, str], None]


@dataclass(frozen=True)
class Change:
    op: str
    breaking: bool
    message: str

    def __str__(self) -> str:
        return f"{'breaking' if self.breaking else 'compatible'}: {self.message}"


@dataclass
class Diff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]

    @property
    def has_breaking(self) -> bool:
        return bool(self.removed or self.breaking)


def diff_specs(old: list[OpSpec], new: list[OpSpec]) -> Diff:
    old_by_name = {s.name: s for s in old if s.visibility != "SKIP"}
    new_by_name = {s.name: s for s in new if s.visibility != "SKIP"}
    result = Diff(added=sorted(set(new_by_name) - set(old_by_name)),
                  removed=sorted(set(old_by_name) - set(new_by_name)))
    for name in sorted(set(old_by_name) & set(new_by_name)):
        result.changes.extend(diff_op(old_by_name[name], new_by_name[name]))
    return result


def diff_op(old: OpSpec, new: OpSpec) -> list[Change]:
    changes: list[Change] = []

    def add(breaking: bool, message: str) -> None:
        changes.append(Change(old.name, breaking, message))

    _diff_endpoints(old, new, add)
    if old.visibility != new.visibility:
        add(new.visibility == "HIDDEN", f"visibility {old.visibility} -> {new.visibility}")
    _diff_inputs(old, new, add)
    _diff_attrs(old, new, add)
    _diff_outputs(old, new, add)
    if new.deprecation and not old.deprecation:
        add(False, f"deprecated at GraphDef version {new.deprecation.version}: "
                   f"{new.deprecation.explanation}")
    if (old.summary, old.description) != (new.summary, new.description):
        add(False, "documentation changed")
    return changes


def _diff_endpoints(old: OpSpec, new: OpSpec, add: _Add) -> None:
    """Callers use endpoint names: removing one breaks them; deprecating one, adding one,
    or making another one primary while keeping the old name does not."""
    old_primary, new_primary = old.endpoints[0], new.endpoints[0]
    if old_primary != new_primary:
        if old_primary in new.endpoints:
            add(False, f"primary endpoint {old_primary} -> {new_primary} "
                       f"({old_primary} is still an endpoint)")
        else:
            add(True, f"renamed from {old_primary} to {new_primary}")
    for name in old.endpoints:
        if name not in new.endpoints:
            if name != old_primary:
                add(True, f"endpoint {name} removed")
            continue
        deprecation = new.endpoint_deprecation(name)
        if deprecation and not old.endpoint_deprecation(name):
            removal = f", removed in version {deprecation.removed_in}" if deprecation.removed_in else ""
            add(False, f"endpoint {name} deprecated{removal}")
    for name in new.endpoints:
        if name not in old.endpoints and name != new_primary:
            add(False, f"endpoint {name} added")


def _arg_type(arg: ArgSpec) -> str:
    return arg.fixed_type.name if arg.fixed_type else f"attr {arg.type_attr or arg.type_list_attr}"


def _diff_inputs(old: OpSpec, new: OpSpec, add: _Add) -> None:
    old_inputs = [a.public_name for a in old.signature_inputs]
    new_inputs = [a.public_name for a in new.signature_inputs]
    old_by, new_by = {a.public_name: a for a in old.inputs}, {a.public_name: a for a in new.inputs}
    removed = [n for n in old_inputs if n not in new_by]
    added = [n for n in new_inputs if n not in old_by]
    # A removed and an added input at the same position read as a rename.
    renames = {n: new_inputs[old_inputs.index(n)] for n in removed
               if old_inputs.index(n) < len(new_inputs) and new_inputs[old_inputs.index(n)] in added}
    for name in removed:
        add(True, f"input '{name}' renamed to '{renames[name]}'" if name in renames
            else f"input '{name}' removed")
    for name in added:
        if name not in renames.values():
            add(True, f"input '{name}' added (callers must pass it)")
    common_old = [n for n in old_inputs if n in new_by]
    common_new = [n for n in new_inputs if n in old_by]
    if common_old != common_new:
        add(True, f"inputs reordered: ({', '.join(common_old)}) -> ({', '.join(common_new)})")
    for name in common_old:
        a, b = old_by[name], new_by[name]
        if a.kind != b.kind:
            add(True, f"input '{name}': {a.kind.value} -> {b.kind.value}")
        elif a.fixed_type and b.fixed_type and a.fixed_type != b.fixed_type:
            add(True, f"input '{name}': type {a.fixed_type.name} -> {b.fixed_type.name}")
        elif bool(a.fixed_type) != bool(b.fixed_type):
            # attr -> one fixed type narrows what callers may pass; the reverse widens it.
            add(b.fixed_type is not None, f"input '{name}': type {_arg_type(a)} -> {_arg_type(b)}")


def _shown(value: Any, attr: AttrSpec) -> str:
    from opgen.langs.python import doc_literal
    if value is NO_DEFAULT:
        return "(none)"
    return doc_literal(value, attr.type)


def _allowed_names(attr: AttrSpec) -> set[Any]:
    return {v.name if isinstance(v, DType) else v for v in attr.allowed_values or ()}


def _diff_attrs(old: OpSpec, new: OpSpec, add: _Add) -> None:
    old_attrs = {a.public_name: a for a in old.inferred_attrs + old.caller_attrs}
    new_attrs = {a.public_name: a for a in new.inferred_attrs + new.caller_attrs}
    old_caller = {a.public_name for a in old.caller_attrs}
    new_caller = {a.public_name for a in new.caller_attrs}
    for name, a in old_attrs.items():
        b = new_attrs.get(name)
        if b is None:
            add(name in old_caller, f"attr '{name}' removed")
            continue
        if a.type != b.type:
            add(True, f"attr '{name}': type {a.type} -> {b.type}")
            continue
        if name in old_caller and name not in new_caller:
            add(False, f"attr '{name}' is now inferred from the inputs")
        if name in new_caller and name not in old_caller and not b.has_default:
            add(True, f"attr '{name}' is no longer inferred: callers must pass it")
        if name in old_caller and name in new_caller and a.default != b.default:
            if not a.has_default:
                add(False, f"attr '{name}' gained a default {_shown(b.default, b)}")
            elif not b.has_default:
                add(True, f"attr '{name}' lost its default {_shown(a.default, a)}: "
                          "callers must pass it")
            else:
                add(True, f"attr '{name}': default {_shown(a.default, a)} -> "
                          f"{_shown(b.default, b)}")
        if a.allowed_values is not None or b.allowed_values is not None:
            before, after = _allowed_names(a), _allowed_names(b)
            if b.allowed_values is not None and (a.allowed_values is None or before - after):
                lost = sorted(map(str, before - after)) if a.allowed_values is not None else ["any"]
                add(True, f"attr '{name}': allowed values narrowed (no longer: {', '.join(lost)})")
            elif a.allowed_values is not None and (b.allowed_values is None or after - before):
                gained = sorted(map(str, after - before)) if b.allowed_values is not None else ["any"]
                add(False, f"attr '{name}': allowed values widened (now also: {', '.join(gained)})")
        if (b.minimum or 0) > (a.minimum or 0):
            add(True, f"attr '{name}': minimum {a.minimum} -> {b.minimum}")
        elif (b.minimum or 0) < (a.minimum or 0):
            add(False, f"attr '{name}': minimum {a.minimum} -> {b.minimum}")
    for name, b in new_attrs.items():
        if name in old_attrs:
            continue
        if name not in new_caller:
            add(False, f"attr '{name}' added (inferred from the inputs)")
        elif b.has_default:
            add(False, f"attr '{name}' added with default {_shown(b.default, b)}")
        else:
            add(True, f"attr '{name}' added without a default: callers must pass it")


def _diff_outputs(old: OpSpec, new: OpSpec, add: _Add) -> None:
    a = [(o.public_name, o.kind) for o in old.outputs]
    b = [(o.public_name, o.kind) for o in new.outputs]
    if a != b:
        add(True, f"outputs ({', '.join(n for n, _ in a)}) -> ({', '.join(n for n, _ in b)})")


def format_diff(result: Diff) -> str:
    """One change per line, ``OP: breaking|compatible: what`` (an added or removed op is
    a change of its own), sorted by op, breaking first; then a summary line. Lines can
    be filtered: ``grep ': breaking: '``, ``grep '^Conv2D: '``."""
    changes = [*result.changes,
               *(Change(op, True, "op removed") for op in result.removed),
               *(Change(op, False, "op added") for op in result.added)]
    lines = [f"{c.op}: {c}" for c in sorted(changes, key=lambda c: (c.op, not c.breaking,
                                                                     c.message))]
    breaking_ops = len({c.op for c in result.breaking})
    lines.append(f"{len(result.breaking) + len(result.removed)} breaking change(s) "
                 f"({len(result.removed)} removed op(s), {breaking_ops} changed op(s)), "
                 f"{len(result.changes) - len(result.breaking)} compatible change(s), "
                 f"{len(result.added)} added op(s)")
    return "\n".join(lines) + "\n"
