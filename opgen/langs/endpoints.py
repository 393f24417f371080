"""ApiDef endpoints as extra names for the C, C++, Rust and Go targets.

Those targets name each op's function or class after the op (Python names it after the
primary endpoint), so every endpoint that spells differently in the target becomes an
alias of it; aliases of deprecated endpoints carry the target's deprecation mark. An
alias never displaces a generated name: one that is taken is dropped, as in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from opgen.model import DeprecatedEndpoint, OpSpec


@dataclass(frozen=True)
class EndpointAlias:
    name: str                               # the identifier in the target language
    deprecation: DeprecatedEndpoint | None  # set when the endpoint is deprecated


def deprecation_message(alias: str, function: str, endpoint: DeprecatedEndpoint) -> str:
    """``Dot is deprecated (removed in version 2): use MatMul instead``."""
    removed = f" (removed in version {endpoint.removed_in})" if endpoint.removed_in else ""
    return f"{alias} is deprecated{removed}: use {function} instead"


def endpoint_aliases(specs: Iterable[OpSpec], functions: Mapping[str, str],
                     identifier: Callable[[str], str], taken: Iterable[str]
                     ) -> dict[str, tuple[EndpointAlias, ...]]:
    """Op name -> the aliases its endpoints add, in op-name then endpoint order.

    ``functions`` maps op names to the generated names (all of them taken first);
    ``identifier`` spells an endpoint's last dotted part in the target ("" for none
    it can have); ``taken`` holds
    every other name the aliases must not reuse. SKIP and HIDDEN ops get no aliases.
    """
    used = set(taken) | set(functions.values())
    result: dict[str, tuple[EndpointAlias, ...]] = {}
    for spec in sorted(specs, key=lambda s: s.name):
        if spec.visibility != "VISIBLE" or spec.endpoints == (spec.name,):
            continue
        aliases = []
        for endpoint in spec.endpoints:
            alias = identifier(endpoint.rsplit(".", 1)[-1])
            if not alias or alias in used:
                continue
            used.add(alias)
            aliases.append(EndpointAlias(alias, spec.endpoint_deprecation(endpoint)))
        if aliases:
            result[spec.name] = tuple(aliases)
    return result


def message_of(alias: EndpointAlias, function: str) -> str:
    """The deprecation message of ``alias`` ("" when it is not deprecated)."""
    if alias.deprecation is None:
        return ""
    return deprecation_message(alias.name, function, alias.deprecation)
