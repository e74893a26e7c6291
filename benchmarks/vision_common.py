"""What the photo benchmarks share: the cached frozen test photos, percentages, timing of one
recognition (wall clock and CPU time) and the peak memory of a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np


def cached_photos(cache: Path, make: Callable[[int], Path], count: int) -> list[Path]:
    """The frozen test photos 0..count-1, generated once by ``make`` (two processes), cached."""
    cache.mkdir(exist_ok=True)
    with Pool(2) as pool:
        return pool.map(make, range(count), chunksize=2)


def pct(a: float, b: float) -> str:
    return f"{100 * a / max(b, 1):6.2f} %  ({a}/{b})"


def timed(recognize: Callable[[bytes], Any], data: bytes, refused: type[Exception]) -> Any:
    """``(answer or None when refused, wall seconds, CPU seconds)`` of one recognition."""
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        answer = recognize(data)
    except refused:
        answer = None
    return answer, time.perf_counter() - start, time.process_time() - cpu_start


def peak_memory(path: Path, module: str, function: str) -> float:
    """Peak resident memory (MB) of a fresh process recognising one photo.

    Read from ``VmHWM`` (the new program's own high-water mark): Linux carries
    ``ru_maxrss`` across ``exec``, so a child started by a benchmark that had grown to
    366 MB reported 366 MB for a recognition that peaks at 257 MB."""
    code = (
        "import resource, sys\n"
        f"from {module} import {function}\n"
        f"try:\n    {function}(open(sys.argv[1], 'rb').read())\nexcept Exception:\n    pass\n"
        "try:\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "    print(int(status.split()[0]))\n"
        "except (OSError, IndexError):\n"
        "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, env=env, check=True
    )
    return int(out.stdout.strip()) / 1024


def report_cost(
    seconds: list[float],
    cpu: list[float],
    photo: Path,
    recogniser: tuple[str, str],
    figures: dict[str, Any],
    json_path: str | None,
) -> None:
    """Print latency (wall clock and CPU time, p50 and p95) and the peak memory of one
    12 MP recognition (``recogniser``: module and function); with ``json_path``, write them
    there with ``figures`` (the accuracy counts)."""
    p50, p95 = np.percentile(seconds, [50, 95])
    c50, c95 = np.percentile(cpu, [50, 95])
    print(f"latency 12 MP, wall clock p50 {p50:.3f} s  p95 {p95:.3f} s")
    print(f"latency 12 MP, CPU time   p50 {c50:.3f} s  p95 {c95:.3f} s")
    mb = peak_memory(photo, *recogniser)
    print(f"peak memory, one 12 MP recognition (whole process): {mb:.0f} MB")
    if json_path:
        cost = {"p50": p50, "p95": p95, "cpu_p50": c50, "cpu_p95": c95, "peak_mb": mb}
        Path(json_path).write_text(json.dumps({**figures, **cost}, indent=1, default=float))
