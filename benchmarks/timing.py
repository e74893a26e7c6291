"""Shared timing for the engine benchmarks.

Figures are CPU time of the benchmark process (``time.process_time``), so other load on a
shared 2-core machine does not inflate them the way wall-clock time would; each benchmark
also prints wall-clock time for one figure, for comparison.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any


def cpu_ms(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[float]:
    """CPU milliseconds of ``fn(item)`` for each item."""
    out = []
    clock = time.process_time
    for item in items:
        start = clock()
        fn(item)
        out.append((clock() - start) * 1000)
    return out


def wall_ms(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[float]:
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - start) * 1000)
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def report(label: str, values: list[float], unit: str = "table") -> None:
    print(
        f"  {label:18} mean {statistics.fmean(values):.3f} ms  "
        f"p50 {percentile(values, 50):.3f} ms  p99 {percentile(values, 99):.3f} ms per {unit}"
    )
