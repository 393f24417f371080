"""Naming helpers every language module shares."""

from __future__ import annotations


def unique(base: str, taken: set[str], separator: str = "_") -> str:
    """``base``, else ``base_2``, ``base_3``... (``separator`` before the number): the first
    name not in ``taken``, which it then joins.

    Callers visit ops in sorted order, so the same registry always gives the same names."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}{separator}{n}"
    taken.add(candidate)
    return candidate
