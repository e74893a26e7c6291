"""Stress benchmark of the board finder: Harmonies boards on a checked cloth of their own cream.

    nice -n 10 .venv/bin/python benchmarks/bench_checked_table.py [--photos 100] [--first 7000]

The scenes never draw such a table (``render3d.cream_check``): its light squares are the
board's cream less up to 30 per channel, so the board's edges vanish wherever they cross
one, and its dark squares' lines cross the whole photo. Such a table made one board in
2 000 of the scenes' own (VALIDATION 106 682, ``docs/vision-boards.md``); here it is every
board. Boards, scenes and cameras are those of VALIDATION photos ``first`` onwards (3 MP,
the side given, as the app gives it). Prints what ``bench_vision_harmonies.py`` prints for
the test set, and the CPU time per photo.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_vision_harmonies import report  # noqa: E402

from scorepad.vision import render3d  # noqa: E402
from scorepad.vision.decode import PhotoError  # noqa: E402
from scorepad.vision.harmonies import recognize_harmonies  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=100)
    parser.add_argument("--first", type=int, default=7000, help="first VALIDATION index")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    total = render3d.Grade()
    views = {"at an angle": render3d.Grade(), "straight down": render3d.Grade()}
    cpu = []
    missed = []
    for index in range(args.first, args.first + args.photos):
        seed = render3d.VALIDATION[0] + index
        state, scene = render3d.random_board(seed), render3d.Scene.of(seed)
        shot = render3d.render(state, scene, 3.0, seed, table=render3d.cream_check)
        start = time.process_time()
        try:
            result = recognize_harmonies(shot.jpeg, side=state.side)
        except PhotoError:
            result = None
        cpu.append(time.process_time() - start)
        graded = render3d.grade(result, shot)
        total.add(graded)
        if result is not None:
            views["straight down" if result.get("straight_down") else "at an angle"].add(graded)
        if graded.top_right < graded.hexes:
            missed.append(f"{index} ({graded.top_right}/{graded.hexes})")
    report(
        f"== {args.photos} VALIDATION boards on a checked cloth of their cream (3 MP)", total, views
    )
    print(f"boards with a top colour wrong (index, tops right): {', '.join(missed) or 'none'}")
    p50, p95 = np.percentile(cpu, [50, 95])
    print(f"CPU time per photo, p50 / p95: {p50:.2f} / {p95:.2f} s")


if __name__ == "__main__":
    main()
