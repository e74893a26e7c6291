"""Benchmark of Spring Meadow photo recognition on the frozen synthetic test set (issue 8).

    nice -n 10 .venv/bin/python benchmarks/bench_vision_spring_meadow.py [--photos 200]

The test photos are 12 MP JPEGs from the TEST seed range of ``scorepad.vision.meadow_synth``:
boards, scenes and cameras that training and calibration never saw (``docs/vision-boards.md``).
They are generated once and cached in /tmp. Every recognition runs on one core. Prints:
boards found (and orientation right), square state accuracy, boards whose full rows are
all recognised right, boards right as they come, silent errors (wrong and not flagged),
flagged squares, latency p50/p95 per 12 MP photo, and the peak memory of one recognition.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorepad.vision import meadow_synth as synth  # noqa: E402
from scorepad.vision.decode import PhotoError  # noqa: E402
from scorepad.vision.spring_meadow import recognize_spring_meadow  # noqa: E402

from vision_common import cached_photos, pct, report_cost, timed  # noqa: E402

CACHE = Path("/tmp/scorepad-meadow-test")
MEGAPIXELS = 12.0


def _make(index: int) -> Path:
    path = CACHE / f"test-{index}.jpg"
    truth = CACHE / f"test-{index}.json"
    if not path.exists() or not truth.exists():
        s = synth.sample(synth.TEST, index, MEGAPIXELS)
        truth.write_text(json.dumps({"orientation": s.orientation, "rows": s.rows}))
        path.write_bytes(s.jpeg)
    return path


class Truth:
    """The stored truth of a test photo, shaped like a meadow_synth.Sample for grading."""

    def __init__(self, doc: dict[str, object]) -> None:
        self.orientation = str(doc["orientation"])
        rows = doc["rows"]
        assert isinstance(rows, list)
        self.rows = [str(r) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=200)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    paths = cached_photos(CACHE, _make, args.photos)
    total = synth.Grade()
    seconds = []
    cpu = []  # CPU time: what the photo costs one core, whatever else the machine runs
    for path in paths:
        truth = Truth(json.loads(path.with_suffix(".json").read_text()))
        result, wall, used = timed(recognize_spring_meadow, path.read_bytes(), PhotoError)
        seconds.append(wall)
        cpu.append(used)
        total.add(synth.grade(result, truth))  # type: ignore[arg-type]
    g = total
    print(f"== {args.photos} test photos ({MEGAPIXELS:.0f} MP, synthetic, TEST seeds)")
    print(f"boards found            {pct(g.found, g.photos)}")
    print(f"orientation right       {pct(g.orientation_right, g.photos)}")
    print(f"square state right      {pct(g.right, g.squares)}")
    print(f"full rows all right     {pct(g.full_rows_right, g.photos)}")
    print(f"boards right as is      {pct(g.boards_right, g.photos)}")
    print(f"silent errors           {pct(g.silent, g.squares)}")
    print(f"flagged squares         {pct(g.flagged, g.squares)}")
    report_cost(
        seconds,
        cpu,
        paths[0],
        ("scorepad.vision.spring_meadow", "recognize_spring_meadow"),
        g.__dict__,
        args.json,
    )


if __name__ == "__main__":
    main()
