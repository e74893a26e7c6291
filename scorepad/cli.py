"""The ``scorepad`` command (``shared/formats.md``, "The command line").

``scorepad score FILE|-`` prints the result as JSON or, with ``--format text``, as an aligned
table (a Spring Meadow game file, the recorded phases then the board, adds its ledger);
``scorepad recognize PHOTO --game GAME`` reads a photo (``scorepad.vision``). Bad input
exits 2 with one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from scorepad import games
from scorepad.boardfile import MAX_BOARD_BYTES, BoardError, loads
from scorepad.games import spring_meadow
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
        result, ledger = score_file(_read(args.file))
    except BoardError as err:
        print(f"scorepad: {err}", file=sys.stderr)
        return 2
    doc = result.to_json()
    if ledger is not None:
        doc["ledger"] = ledger.to_json()
    output = json.dumps(doc, indent=2, ensure_ascii=False)
    if args.format == "text":
        output = render_text(result) + ("\n" + ledger_text(ledger) if ledger else "")
    return emit(output)


def emit(output: str) -> int:
    """Print the result: 0, or 1 with one line when it cannot be written (a full disk),
    never a traceback. A reader that stopped early (``head``) had all it wanted: 0."""
    try:
        print(output, flush=True)
    except BrokenPipeError:
        code = 0
    except OSError as err:
        print(f"scorepad: cannot write the result: {err.strerror or err}", file=sys.stderr)
        code = 1
    else:
        return 0
    # Python flushes standard output once more on exit: let that go nowhere.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code


def score_file(text: bytes) -> tuple[Result, spring_meadow.Ledger | None]:
    """A board file's result; or a Spring Meadow game file's (a list of board files: the
    recorded phases, then the board), with its ledger (``spring_meadow.score_game_file``)."""
    doc = loads(text)
    if spring_meadow.is_game_file(doc):
        return spring_meadow.score_game_file(doc)
    game, table = games.parse(doc)
    return game.score(table), None


def ledger_text(ledger: spring_meadow.Ledger) -> str:
    """A game file's phases as text: what the table above shows, each phase's winners,
    then the pins."""
    last = len(ledger.phases)
    lines = [
        f"The table above: phase {last}, the game's last"
        if ledger.finished
        else f"The table above: the board as it stands (phase {last + 1}, not recorded)",
        "Phases:",
    ]
    lines += [f"  {p.number}: {', '.join(p.winners)}" for p in ledger.phases]
    pins = ", ".join(f"{name} {n}" for name, n in ledger.pins.items())
    lines.append(f"Pins: {pins}")
    if ledger.finished:
        lines.append(f"Game won by {', '.join(ledger.winners)} (2 pins)")
    return "\n".join(lines)


def _read(path: str) -> bytes:
    """At most one byte more than a board file may hold: endless input cannot exhaust memory."""
    limit = MAX_BOARD_BYTES + 1
    if path == "-" and sys.stdin is None:  # started with standard input closed
        raise BoardError(["cannot read standard input: it is closed"])
    try:
        if path == "-":
            return sys.stdin.buffer.read(limit)
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError as err:
        where = "standard input" if path == "-" else path
        raise BoardError([f"cannot read {where}: {err.strerror}"]) from None


def render_text(result: Result) -> str:
    """An aligned per-category table: one column per player, ranks and tie-breaks below."""
    game = games.get(result.game)
    names = [p.name for p in result.players]
    rows: list[list[str]] = [["", *names]]
    shown = game.categories_of(result)
    for key, label in shown.items():
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
        if n == 0 or n == len(shown):
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
