"""Language-neutral facts about attr numbers that every language's literals start from.

A float attr is a float32: each language spells the same shortest digits that round-trip
through float32, or its own names for NaN and the infinities (:func:`special_float`).
"""

from __future__ import annotations

import math
import struct
from typing import Literal

SpecialFloat = Literal["nan", "inf", "-inf"]


def to_float32(value: float) -> float:
    """``value`` rounded to float32 (beyond float32's range: the infinity of its sign)."""
    try:
        result: float = struct.unpack("f", struct.pack("f", value))[0]
        return result
    except OverflowError:   # beyond float32's range: it rounds to infinity there
        return math.copysign(math.inf, value)


def special_float(value: float) -> SpecialFloat | None:
    """``"nan"``, ``"inf"`` or ``"-inf"``; None for a finite value."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


def shortest_float32_digits(value: float) -> str:
    """The fewest significant digits (``%g``) that read back as ``value``'s float32, as
    numpy prints an np.float32: ``0.1``, not ``0.100000001``."""
    target = to_float32(value)
    for digits in range(1, 10):     # 9 significant digits always round-trip a float32
        text = f"{target:.{digits}g}"
        if to_float32(float(text)) == target:
            return text
    return repr(target)


def shortest_float32_repr(value: float) -> str:
    """Those digits as Python's ``repr`` writes them (``0.0001``, not ``1e-04``), always
    with a ``.`` or an exponent: valid float source in Python, Rust and Go alike."""
    text = repr(float(shortest_float32_digits(value)))
    if "." not in text and "e" not in text and "E" not in text:
        text += ".0"
    return text
