"""The timing loop every benchmark shares: warm up, then the median of repeated runs.

The machines these run on are shared and noisy, so a figure is a median (or, where a
benchmark asks for it, the fastest run) of several samples, each the mean of `inner`
back-to-back calls; and calls to compare are interleaved, so a change of load hits them
alike.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def median_seconds(fn: Callable[[], object], repeats: int, inner: int = 1, *, warmup: int = 1,
                   stat: Callable[[list[float]], float] = statistics.median,
                   clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call of `fn`: `stat` (the median) over `repeats` samples of `inner`
    calls each, after `warmup` untimed calls (first touch of buffers, lazy caches)."""
    return median_seconds_each([fn], repeats, inner=inner, warmup=warmup, stat=stat,
                               clock=clock)[0]


def median_seconds_each(fns: Sequence[Callable[[], object]], repeats: int, inner: int = 1, *,
                        warmup: int = 1,
                        stat: Callable[[list[float]], float] = statistics.median,
                        clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """median_seconds of each function, their samples taken in turn."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, times in zip(fns, samples):
            start = clock()
            for _ in range(inner):
                fn()
            times.append((clock() - start) / inner)
    return [stat(times) for times in samples]
