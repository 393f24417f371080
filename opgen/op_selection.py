"""Which ops ``opgen generate`` writes, and what the runtime's kernels add to their docs.

A binding for a real project rarely wants every op of TensorFlow's registry (1,800 and
more, most without a kernel in opgen's runtime): ``--only``/``--exclude`` pick ops by
name pattern, ``--only-runnable`` keeps those the runtime has a kernel for. Where all
ops are kept, ``--kernel-docs`` says in each function's docs on which devices and
dtypes it runs here instead.

Both read the kernel registry of the opgen runtime this process loads: the built-in CPU
kernels, the CUDA plugin's GPU kernels where it was built (listed without a GPU too),
and those of op libraries loaded before (``--from-library``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opgen.model import OpSpec

if TYPE_CHECKING:
    from opgen.protos import kernel_def_pb2


class SelectionError(ValueError):
    """A pattern that matches no op, or a selection that leaves no op."""


def select(specs: Sequence[OpSpec], only: Iterable[str] = (), exclude: Iterable[str] = (),
           runnable: Iterable[str] | None = None, *, where: str = "the OpList") -> list[OpSpec]:
    """The specs whose op name matches one of ``only`` (all, when it is empty) and none of
    ``exclude`` (shell-style patterns: ``*``, ``?``, ``[...]``, case-sensitive), and,
    when ``runnable`` is given, is one of those names. A pattern matching no op of
    ``specs`` is an error (a typo would otherwise silently drop or keep ops), and so is
    a selection that leaves no op; ``where`` names the OpList in those messages."""
    only, exclude = list(only), list(exclude)
    names = [spec.name for spec in specs]
    for option, patterns in (("--only", only), ("--exclude", exclude)):
        for pattern in patterns:
            if not any(fnmatch.fnmatchcase(n, pattern) for n in names):
                raise SelectionError(f"{option} {pattern!r} matches no op of {where} "
                                     f"({len(names)} ops; op names are case-sensitive, "
                                     "as in the OpDefs)")
    kept = [spec for spec in specs
            if (not only or any(fnmatch.fnmatchcase(spec.name, p) for p in only))
            and not any(fnmatch.fnmatchcase(spec.name, p) for p in exclude)]
    if runnable is not None:
        with_kernel = set(runnable)
        kept = [spec for spec in kept if spec.name in with_kernel]
    asked = [*(f"--only {p!r}" for p in only), *(f"--exclude {p!r}" for p in exclude),
             *(["--only-runnable"] if runnable is not None else [])]
    if not kept and asked:   # an empty OpList, selecting nothing, still generates
        raise SelectionError(f"{' '.join(asked)} leave no op of {where} to generate")
    return kept


def registered_kernels() -> dict[str, list[kernel_def_pb2.KernelDef]]:
    """op name -> its kernels in the opgen runtime (and loaded op libraries)."""
    from opgen.runtime.kernels import registered_kernels as all_kernels
    by_op: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    for kernel in all_kernels().kernel:
        by_op.setdefault(kernel.op, []).append(kernel)
    return by_op


def kernel_summary(kernels: Sequence[kernel_def_pb2.KernelDef]) -> str:
    """One sentence saying on which devices and dtypes ``kernels`` (one op's) run::

        Kernels in the opgen runtime: CPU for float32, float64; GPU for float32.
        Kernels in the opgen runtime: GPU for Tindices in {int32, int64} x Tparams in {float32}.
        Kernels in the opgen runtime: CPU for Tidx=int32 T=float32, Tidx=int64 T=int32.
        Kernels in the opgen runtime: CPU.

    A kernel's dtypes are its type constraints; with one type attr only the dtype is
    named; with several, the sets of values where the kernels cover every combination of
    them, else each kernel's ``attr=dtype``. An op without kernels says so."""
    from opgen.runtime.dtypes import as_dtype

    if not kernels:
        return _wrapped("No kernel in the opgen runtime: running it fails with NotFoundError "
                        "(building a graph with it works).")

    def dtype(value: int) -> str:
        try:
            return as_dtype(value).name
        except TypeError:
            return str(value)

    def natural(text: str) -> list[Any]:   # int8 before int16, as people list them
        return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]

    by_device: dict[str, set[tuple[tuple[str, str], ...]]] = {}
    for kernel in kernels:
        constraints = tuple(sorted((c.name, dtype(v)) for c in kernel.constraint
                                   for v in c.allowed_values.list.type))
        by_device.setdefault(kernel.device_type, set()).add(constraints)
    parts = []
    for device in sorted(by_device, key=lambda d: (d != "CPU", d)):
        combos = sorted((c for c in by_device[device] if c),
                        key=lambda combo: [natural(f"{n}={v}") for n, v in combo])
        attrs = {name for combo in combos for name, _ in combo}
        if not combos:
            parts.append(device)
        elif len(attrs) == 1:
            parts.append(f"{device} for {', '.join(value for (_, value), in combos)}")
        else:
            parts.append(f"{device} for {_combinations(combos, natural)}")
    return _wrapped(f"Kernels in the opgen runtime: {'; '.join(parts)}.")


def _wrapped(text: str) -> str:
    """At 80 columns: doc comments keep an op description's line breaks."""
    return textwrap.fill(text, width=80, break_long_words=False, break_on_hyphens=False)


def _combinations(combos: Sequence[tuple[tuple[str, str], ...]],
                  natural: Callable[[str], Any]) -> str:
    """Kernels over several type attrs: ``T in {a, b} x U in {c}`` where they cover
    every combination of their values, else each one as ``T=a U=c``."""
    values: dict[str, set[str]] = {}
    for combo in combos:
        for name, value in combo:
            values.setdefault(name, set()).add(value)
    full = math.prod(len(v) for v in values.values())
    if len(combos) == full and all(len(combo) == len(values) for combo in combos):
        return " x ".join(f"{name} in {{{', '.join(sorted(v, key=natural))}}}"
                          for name, v in sorted(values.items()))
    return ", ".join(" ".join(f"{name}={value}" for name, value in combo) for combo in combos)


def with_kernel_docs(specs: Sequence[OpSpec],
                     kernels: Mapping[str, Sequence[kernel_def_pb2.KernelDef]]) -> list[OpSpec]:
    """``specs`` with :func:`kernel_summary` as the last paragraph of each op's
    description, which every language's doc comment prints."""
    out = []
    for spec in specs:
        note = kernel_summary(kernels.get(spec.name, ()))
        text = f"{spec.description}\n\n{note}" if spec.description else note
        out.append(dataclasses.replace(spec, description=text))
    return out
