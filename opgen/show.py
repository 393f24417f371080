"""``opgen show OP``: the ``OpSpec`` a template sees, as text a person reads.

Every fact a language layer uses appears once: visibility and endpoints (after ApiDef
overrides), inputs in signature order with their kind and types, attrs split into
inferred / required / optional with defaults, allowed values and minimums, outputs,
flags, deprecation, and the documentation.
"""

from __future__ import annotations

from opgen.langs import python as py
from opgen.model import ArgKind, ArgSpec, AttrSpec, DType, OpSpec


def _arg_type(arg: ArgSpec) -> str:
    if arg.kind is ArgKind.TYPE_LIST:
        return f"list of tensors, types from attr '{arg.type_list_attr}'"
    element = arg.fixed_type.name if arg.fixed_type else f"type from attr '{arg.type_attr}'"
    if arg.kind is ArgKind.NUMBER_LIST:
        return f"list of '{arg.number_attr}' tensors, {element}"
    return f"tensor, {element}"


def _attr_line(attr: AttrSpec) -> str:
    parts = [f"{attr.public_name}: {attr.type}"]
    if attr.api_name:
        parts.append(f"(OpDef name '{attr.name}')")
    if attr.has_default:
        parts.append(f"= {py.doc_literal(attr.default, attr.type)}")
    if attr.allowed_values is not None:
        shown = ", ".join(v.name if isinstance(v, DType) else py.doc_literal(v, attr.element_type)
                          for v in attr.allowed_values)
        parts.append(f"allowed: {{{shown}}}")
    if attr.minimum is not None:
        parts.append(f"minimum: {attr.minimum}")
    if attr.inferred_from:
        parts.append(f"inferred from: {', '.join(attr.inferred_from)}")
    return " ".join(parts)


def _endpoint(spec: OpSpec, name: str) -> str:
    deprecation = spec.endpoint_deprecation(name)
    if deprecation is None:
        return name
    removal = f", removed in version {deprecation.removed_in}" if deprecation.removed_in else ""
    return f"{name} (deprecated{removal})"


def _doc(text: str, indent: str) -> list[str]:
    return [indent + line if line else "" for line in text.strip().splitlines()]


def format_spec(spec: OpSpec) -> str:
    """A readable, stable, multi-line description of ``spec``."""
    functions = py.python_ops([spec])
    lines = [f"op {spec.name}"]
    lines.append(f"  visibility: {spec.visibility}")
    lines.append(f"  endpoints: {', '.join(_endpoint(spec, e) for e in spec.endpoints)}")
    if functions:
        op = functions[0]
        parameters = op.parameters.replace("_dtypes.", "opgen.").replace("_math.", "math.")
        lines.append(f"  python: {op.function}({parameters}) -> {op.return_hint}")
    flags = [name for name in ("is_stateful", "is_commutative", "is_aggregate",
                               "allows_uninitialized_input", "is_distributed_communication")
             if getattr(spec, name)]
    if flags:
        lines.append(f"  flags: {', '.join(flags)}")
    if spec.deprecation:
        lines.append(f"  deprecated at GraphDef version {spec.deprecation.version}: "
                     f"{spec.deprecation.explanation}")
    if spec.summary:
        lines.append(f"  summary: {spec.summary.strip()}")
    if spec.description.strip():
        lines.append("  description:")
        lines += _doc(spec.description, "    ")
    sections = [
        ("inputs (signature order)", [(a.public_name, _arg_type(a), a.description, a)
                                      for a in spec.signature_inputs]),
        ("outputs", [(a.public_name, _arg_type(a), a.description, a) for a in spec.outputs]),
    ]
    for title, rows in sections:
        lines.append(f"  {title}:" if rows else f"  {title}: none")
        for name, kind, description, arg in rows:
            renamed = f" (OpDef name '{arg.name}')" if arg.api_name else ""
            ref = " (ref)" if arg.is_ref else ""
            lines.append(f"    {name}: {kind}{ref}{renamed}")
            lines += _doc(description, "      ")
    for title, attrs in (("inferred attrs", spec.inferred_attrs),
                         ("required attrs", spec.required_attrs),
                         ("optional attrs", spec.optional_attrs)):
        lines.append(f"  {title}:" if attrs else f"  {title}: none")
        for attr in attrs:
            lines.append(f"    {_attr_line(attr)}")
            lines += _doc(attr.description, "      ")
    if spec.control_outputs:
        lines.append(f"  control outputs: {', '.join(spec.control_outputs)}")
    return "\n".join(lines) + "\n"
