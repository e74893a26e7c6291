"""The ``scorepad`` command (``shared/formats.md``, "The command line").

``scorepad score FILE|-`` prints the result as JSON or, with ``--format text``, as an aligned
table; ``scorepad recognize PHOTO --game GAME`` reads a photo (``scorepad.vision``). Bad input
exits 2 with one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from scorepad import games
from scorepad.boardfile import MAX_BOARD_BYTES, BoardError
from scorepad.scoring import Result
from scorepad.vision import cli as vision_cli  # light: OpenCV loads only to recognise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scorepad", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score a board file")
    score.add_argument("file", help="board file (JSON), or - for standard input")
    score.add_argument("--format", choices=("json", "text"), default="json")
    vision_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "recognize":
        return vision_cli.run(args)
    try:
        text = _read(args.file)
        result = games.score_text(text)
    except BoardError as err:
        print(f"scorepad: {err}", file=sys.stderr)
        return 2
    output = json.dumps(result.to_json(), indent=2, ensure_ascii=False)
    if args.format == "text":
        output = render_text(result)
    try:
        print(output, flush=True)
    except BrokenPipeError:  # e.g. piped into `head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _read(path: str) -> bytes:
    """At most one byte more than a board file may hold: endless input cannot exhaust memory."""
    limit = MAX_BOARD_BYTES + 1
    if path == "-":
        return sys.stdin.buffer.read(limit)
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError as err:
        raise BoardError([f"cannot read {path}: {err.strerror}"]) from None


def render_text(result: Result) -> str:
    """An aligned per-category table: one column per player, ranks and tie-breaks below."""
    game = games.get(result.game)
    names = [p.name for p in result.players]
    rows: list[list[str]] = [["", *names]]
    for key, label in game.categories.items():
        rows.append([label, *(str(p.categories[key]) for p in result.players)])
    rows.append(["Total", *(str(p.total) for p in result.players)])
    rows.append(["Rank", *(str(p.rank) for p in result.players)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [game.title, ""]
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=False)
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0 or n == len(game.categories):
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(
        ("Winners: " if len(result.winners) > 1 else "Winner: ") + ", ".join(result.winners)
    )
    lines.extend(f"Tie-break: {t}" for t in result.tiebreaks)
    if game.notes is not None:
        lines.extend(game.notes(result))
    lines.extend(f"Warning: {w}" for w in result.warnings)
    return "\n".join(lines)
