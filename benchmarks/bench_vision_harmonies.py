"""Benchmark of Harmonies photo recognition on the frozen synthetic test set (issue 8).

    nice -n 10 .venv/bin/python benchmarks/bench_vision_harmonies.py [--photos 200] [--side]

The test photos are 12 MP JPEGs from the TEST seed range of ``scorepad.vision.render3d``:
boards, scenes and cameras that training and calibration never saw (``docs/vision-boards.md``).
They are generated once and cached in /tmp. Every recognition runs on one core. Prints:
boards found (and side right), top colour accuracy, full stack accuracy (stack and cube
right), cube accuracy, silent errors (wrong and not flagged), flagged hexes, boards right
as they come, latency p50/p95 per 12 MP photo, and the peak memory of one recognition;
then the stack figures apart for the photos the recogniser marks as taken from straight
above (``straight_down``: the app suggests another photo, at an angle) and the others.
With ``--side`` the photos are read a second time with the board's side given, as the app
gives it (a table plays side A or side B), and those figures are printed too. With
``--whole``, the test boards holding a multiple of 3 tokens (a board between turns always
does; the generator's boards hold any count) are read with the side given, hex by hex and
then as whole turns, as the app reads a photo (``harmonies_turns``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorepad.games.harmonies import TOKENS_PER_TURN  # noqa: E402
from scorepad.vision import render3d  # noqa: E402
from scorepad.vision.decode import PhotoError  # noqa: E402
from scorepad.vision.harmonies import recognize_harmonies  # noqa: E402

from vision_common import cached_photos, pct, report_cost, timed  # noqa: E402

CACHE = Path("/tmp/scorepad-harmonies-test")
MEGAPIXELS = 12.0


def _make(index: int) -> Path:
    path = CACHE / f"test-{index}.jpg"
    truth = CACHE / f"test-{index}.json"
    if not path.exists() or not truth.exists():
        s = render3d.sample(render3d.TEST, index, MEGAPIXELS)
        truth.write_text(json.dumps(s.truth()))
        path.write_bytes(s.jpeg)
    return path


class Truth:
    """The stored truth of a test photo, shaped like a render3d.Sample for grading."""

    def __init__(self, doc: dict[str, object]) -> None:
        from scorepad.hexgrid import Hex

        cells = doc["cells"]
        assert isinstance(cells, list)
        stacks = {Hex(c["q"], c["r"]): tuple(c["stack"]) for c in cells}
        cubes = frozenset(Hex(c["q"], c["r"]) for c in cells if c.get("cube"))
        self.state = render3d.BoardState(str(doc["side"]), stacks, cubes)


def holds_whole_turns(path: Path) -> bool:
    """Whether the test board holds a multiple of 3 tokens, as a board between turns does
    (the generator's boards hold any count)."""
    truth = Truth(json.loads(path.with_suffix(".json").read_text()))
    return sum(len(s) for s in truth.state.stacks.values()) % TOKENS_PER_TURN == 0


def accuracy(
    paths: list[Path], with_side: bool, whole: bool = False
) -> tuple[render3d.Grade, dict[str, render3d.Grade], list[float], list[float]]:
    """Every test photo recognised (with the table's side given, as the app does, when
    ``with_side``; as a board of whole turns when ``whole``): the grades over all photos
    and by view, wall and CPU seconds."""
    total = render3d.Grade()
    views = {"at an angle": render3d.Grade(), "straight down": render3d.Grade()}
    seconds = []
    cpu = []  # CPU time: what the photo costs one core, whatever else the machine runs
    for path in paths:
        truth = Truth(json.loads(path.with_suffix(".json").read_text()))
        side = truth.state.side if with_side else None
        recognise = partial(recognize_harmonies, side=side, whole=whole)
        result, wall, used = timed(recognise, path.read_bytes(), PhotoError)
        seconds.append(wall)
        cpu.append(used)
        graded = render3d.grade(result, truth)  # type: ignore[arg-type]
        total.add(graded)
        if result is not None:
            views["straight down" if result.get("straight_down") else "at an angle"].add(graded)
    return total, views, seconds, cpu


def report(title: str, g: render3d.Grade, views: dict[str, render3d.Grade]) -> None:
    print(title)
    print(f"boards found            {pct(g.found, g.photos)}")
    print(f"side right              {pct(g.side_right, g.photos)}")
    print(f"top colour right        {pct(g.top_right, g.hexes)}")
    print(f"full stack right        {pct(g.stack_right, g.hexes)}")
    print(f"cube right              {pct(g.cube_right, g.hexes)}")
    print(f"hexes right (all)       {pct(g.right, g.hexes)}")
    print(f"silent errors           {pct(g.silent, g.hexes)}")
    print(f"flagged hexes           {pct(g.flagged, g.hexes)}")
    print(f"boards right as is      {pct(g.boards_right, g.photos)}")
    for view, v in views.items():
        print(f"-- boards found, photo {view}: {v.photos}")
        print(f"   full stack right     {pct(v.stack_right, v.hexes)}")
        print(f"   silent errors        {pct(v.silent, v.hexes)}")
        print(f"   flagged hexes        {pct(v.flagged, v.hexes)}")


def counts(g: render3d.Grade, views: dict[str, render3d.Grade]) -> dict[str, object]:
    return {**g.__dict__, **{view: v.__dict__ for view, v in views.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=200)
    parser.add_argument(
        "--side", action="store_true", help="also run with the table's side given (as the app)"
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="also read the boards holding a multiple of 3 tokens as whole turns (as the app)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    paths = cached_photos(CACHE, _make, args.photos)
    g, views, seconds, cpu = accuracy(paths, with_side=False)
    heading = f"== {args.photos} test photos ({MEGAPIXELS:.0f} MP, synthetic, TEST seeds)"
    report(heading, g, views)
    figures = counts(g, views)
    if args.side:
        sided, sided_views, _, _ = accuracy(paths, with_side=True)
        report("== the same photos, the table's side given (as the app asks)", sided, sided_views)
        figures["with_side"] = counts(sided, sided_views)
    if args.whole:
        whole_boards = [p for p in paths if holds_whole_turns(p)]
        title = f"== the {len(whole_boards)} boards holding a multiple of 3 tokens, side given"
        plain, plain_views, _, _ = accuracy(whole_boards, with_side=True)
        report(title + ", read hex by hex", plain, plain_views)
        turns, turns_views, _, _ = accuracy(whole_boards, with_side=True, whole=True)
        report(title + ", read as whole turns (as the app reads them)", turns, turns_views)
        figures["whole_boards"] = {
            "hex_by_hex": counts(plain, plain_views),
            "whole_turns": counts(turns, turns_views),
        }
    report_cost(
        seconds,
        cpu,
        paths[0],
        ("scorepad.vision.harmonies", "recognize_harmonies"),
        figures,
        args.json,
    )


if __name__ == "__main__":
    main()
