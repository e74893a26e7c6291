"""Benchmark of photo recognition on the frozen synthetic test set (issue 7).

    nice -n 10 .venv/bin/python benchmarks/bench_vision.py [--photos 1000] [--large 20]

The test photos come from the TEST seed range of ``scorepad.vision.synth``: drawing styles,
scenes and layouts that training and calibration never saw (``docs/vision.md``). The
issue asks for at least 200; 1 000 are read by default, because a player's misreadings
come a sheet at a time and 200 sheets move the cells-right figure by tenths of a point
(the figure is printed for each block of 200 too). Prints:
sheets found, cell accuracy (area, mountain, item), rail side accuracy, silent errors (wrong
and not flagged; apart, the hexes a sheet doubted as a whole lacks, which no flag can mark
though the app says the sheet was hard to read), flagged cells, sheets right before any
correction, the residents tallies read (and read right), latency p50/p95 for 3 MP and
12 MP JPEGs on one core, and the peak memory of one 12 MP recognition.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorepad.vision import synth  # noqa: E402
from scorepad.vision.decode import PhotoError  # noqa: E402
from scorepad.vision.recognize import recognize  # noqa: E402

from vision_common import peak_memory  # noqa: E402

#: Generated test photos. The name changed when the tally became the player's (3 December,
#: ``synth.kept_tally``): photos cached before show random ticks.
CACHE = Path("/tmp/scorepad-vision-test-tally")
#: Test photos per block in the cells-right spread (the issue's minimum sample).
BLOCK = 200


def _make(args: tuple[int, float]) -> Path:
    index, megapixels = args
    path = CACHE / f"test-{index}-{megapixels}.jpg"
    if not path.exists():
        path.write_bytes(synth.sample(synth.TEST, index, megapixels).jpeg)
    return path


def photos(count: int, megapixels: float) -> list[Path]:
    """The frozen test photos (generated once from their seeds, then cached)."""
    CACHE.mkdir(exist_ok=True)
    with Pool(2) as pool:
        return pool.map(_make, [(i, megapixels) for i in range(count)], chunksize=4)


def truth(index: int) -> synth.Sample:
    # The truth does not depend on the resolution; 0.3 MP renders it quickly.
    return synth.sample(synth.TEST, index, 0.3)


@dataclass
class Tallies:
    """How many residents tallies the recogniser gave, and how many it read as ticked."""

    given: int = 0
    right: int = 0


def accuracy(
    count: int, with_layout: bool
) -> tuple[synth.Grade, int, int, int, list[float], Tallies, list[synth.Grade]]:
    total = synth.Grade()
    each: list[synth.Grade] = []  # per photo, for the figures by block
    tallies = Tallies()
    found = right_sheets = grids = 0
    seconds = []
    for i, path in enumerate(photos(count, 3.0)):
        t = truth(i)
        layout = {"name": "test", "cells": t.layout["cells"]} if with_layout else None
        start = time.perf_counter()
        try:
            result = recognize(path.read_bytes(), layout=layout)
        except PhotoError:
            empty = {"player": {"cells": []}, "confidence": []}
            refused = synth.grade(empty, t, with_layout)
            refused.silent = 0  # every cell wrong, but the player is told (as for boards)
            total.add(refused)
            each.append(refused)
            continue
        finally:
            seconds.append(time.perf_counter() - start)
        found += 1
        if "residents" in result["player"]:
            tallies.given += 1
            tallies.right += result["player"]["residents"] == t.tally
        g = synth.grade(result, t, with_layout)
        right_sheets += g.right == g.cells
        grids += g.mountain_right == g.cells  # every hex found, mountains where printed
        total.add(g)
        each.append(g)
    return total, found, right_sheets, grids, seconds, tallies, each


def by_block(each: list[synth.Grade], block: int = BLOCK) -> list[float]:
    """Cells right (%) in each run of ``block`` photos: how much the figure moves from one
    sample of test photos to the next (a player's misreadings come a sheet at a time)."""
    out = []
    for start in range(0, len(each) - block + 1, block):
        part = synth.Grade()
        for g in each[start : start + block]:
            part.add(g)
        out.append(100 * part.right / max(part.cells, 1))
    return out


#: The issue's target for cells right, in per cent (issue 7).
CELLS_TARGET = 99


def pct(a: int, b: int) -> str:
    return f"{100 * a / max(b, 1):6.2f} %  ({a}/{b})"


def latency(count: int, megapixels: float) -> list[float]:
    seconds = []
    for path in photos(count, megapixels):
        data = path.read_bytes()
        start = time.perf_counter()
        with contextlib.suppress(PhotoError):
            recognize(data)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=1000)
    parser.add_argument("--large", type=int, default=20, help="12 MP photos for latency")
    parser.add_argument("--layout", action="store_true", help="also run with the layout given")
    parser.add_argument(
        "--layout-only", action="store_true", help="only with the layout given (the app's case)"
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    figures: dict[str, object] = {}
    modes = [True] if args.layout_only else [False, True] if args.layout else [False]
    for with_layout in modes:
        g, found, right, grids, seconds, tallies, each = accuracy(args.photos, with_layout)
        name = "with layout" if with_layout else "without layout"
        print(f"== {args.photos} test photos (3 MP), {name}")
        print(f"sheets found            {pct(found, args.photos)}")
        print(f"  grid and mountains right {pct(grids, args.photos)}")
        print(f"cells right             {pct(g.right, g.cells)}")
        # Two decimals round 98.997 % up to "99.00 %": say plainly whether the target is met.
        needed = -(-CELLS_TARGET * g.cells // 100)  # whole cells, rounded up
        verdict = "met" if g.right >= needed else f"not met, {needed - g.right} cell(s) short"
        print(f"  target {CELLS_TARGET} % of cells: {verdict}")
        print(f"  area                  {pct(g.area_right, g.area_cells)}")
        print(f"  mountain              {pct(g.mountain_right, g.cells)}")
        print(f"  item                  {pct(g.item_right, g.item_cells)}")
        print(f"  rail sides            {pct(g.rail_sides_right, g.rails)}")
        print(f"silent errors           {pct(g.silent, g.cells)}")
        print(f"  hexes a doubted sheet's grid missed {pct(g.missed_on_doubted, g.cells)}")
        unsaid = g.silent - g.missed_on_doubted
        print(f"  the others (nothing said)           {pct(unsaid, g.cells)}")
        print(f"flagged cells           {pct(g.flagged, g.cells)}")
        print(f"sheets right as is      {pct(right, args.photos)}")
        print(f"residents tally given   {pct(tallies.given, args.photos)}")
        print(f"  as ticked             {pct(tallies.right, tallies.given)}")
        blocks = by_block(each)
        if len(blocks) > 1:
            spread = ", ".join(f"{b:.2f}" for b in blocks)
            print(f"  cells right by {BLOCK} photos: {spread} %")
        p50, p95 = np.percentile(seconds, [50, 95])
        print(f"latency 3 MP            p50 {p50:.3f} s  p95 {p95:.3f} s")
        figures[name] = {
            "cells_right_by_block": blocks,
            **g.__dict__,
            "found": found,
            "grids": grids,
            "sheets_right": right,
            "tallies": tallies.__dict__,
            "p50": p50,
            "p95": p95,
        }
    if args.large:
        seconds = latency(args.large, 12.0)
        p50, p95 = np.percentile(seconds, [50, 95])
        print(f"latency 12 MP ({args.large} photos) p50 {p50:.3f} s  p95 {p95:.3f} s")
        figures["12mp"] = {"p50": p50, "p95": p95}
        mb = peak_memory(photos(1, 12.0)[0], "scorepad.vision.recognize", "recognize")
        print(f"peak memory, one 12 MP recognition (whole process): {mb:.0f} MB")
        figures["peak_mb"] = mb
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(benchmark process peak {own:.0f} MB)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=float))


if __name__ == "__main__":
    main()
