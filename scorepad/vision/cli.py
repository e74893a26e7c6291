"""``scorepad recognize PHOTO --game GAME [--layout LAYOUT.json]`` (``shared/formats.md``,
"Recognising a photo"): prints one player's part of a board file with a probability per cell.
Bad photos and bad layouts exit 2 with one line on stderr, never a traceback.

Wiring into ``scorepad/cli.py``::

    from scorepad.vision import cli as vision_cli
    vision_cli.add_parser(sub)            # after the "score" sub-parser
    ...
    if args.command == "recognize":
        return vision_cli.run(args)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scorepad.boardfile import MAX_BOARD_BYTES, BoardError, loads

GAMES = ("sunflower-valley", "harmonies", "spring-meadow", "seasons")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``recognize`` sub-command to the main parser's sub-parsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "recognize", help="recognise a photo of a sheet (prints board-file cells as JSON)"
    )
    parser.add_argument("photo", help="photo file: JPEG, PNG or WebP (HEIC with pillow-heif)")
    parser.add_argument("--game", required=True, choices=GAMES)
    parser.add_argument(
        "--layout",
        help="layout JSON to fit the photo onto: a Sunflower Valley sheet layout "
        "({'name', 'cells'}) or a Spring Meadow burrow layout ({'name', 'orientation', 'rows'})",
    )
    parser.add_argument("--side", choices=("A", "B"), help="Harmonies board side, when known")
    parser.add_argument(
        "--whole-turns",
        action="store_true",
        help="read a Harmonies board as holding a multiple of 3 tokens (every turn places 3), "
        "as the web app does",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Recognise ``args.photo``; print the JSON result. Returns the exit code."""
    try:
        # Imported here: OpenCV loads only for this command, and a missing extra is a
        # readable message rather than a traceback.
        from scorepad.vision.decode import MAX_BYTES, PhotoError
        from scorepad.vision.recognize import recognize
    except ImportError as err:
        print(
            "scorepad: photo recognition needs the vision extra "
            f"(pip install 'scorepad[vision]'): {err}",
            file=sys.stderr,
        )
        return 2
    if args.game != "harmonies" and (args.side or args.whole_turns):
        print("scorepad: --side and --whole-turns are for Harmonies boards", file=sys.stderr)
        return 2
    if args.game == "harmonies" and args.layout:
        print(
            "scorepad: a Harmonies board has no layout: its sides are fixed (--side)",
            file=sys.stderr,
        )
        return 2
    try:
        # One byte over the limit is enough for decode() to refuse a photo too large.
        data = _read(args.photo, "photo", MAX_BYTES + 1)
        if len(data) > MAX_BYTES:  # its true size is not known: only read up to here
            raise PhotoError(f"the photo is too large (over {MAX_BYTES // 2**20} MB)")
        layout = _layout(args.layout) if args.layout else None
        result = recognize(
            data, game=args.game, layout=layout, side=args.side, whole=args.whole_turns
        )
    except BoardError as err:
        print(f"scorepad: {_one_line(err)}", file=sys.stderr)
        return 2
    except PhotoError as err:
        print(f"scorepad: {args.photo}: {_one_line(err)}", file=sys.stderr)
        return 2
    from scorepad.cli import emit  # here: scorepad.cli imports this module

    return emit(json.dumps(result, indent=1, ensure_ascii=False))


def _layout(path: str) -> Any:
    """The layout file's JSON object, read and checked as board files are (size, nesting,
    duplicate keys, huge numbers, encoding)."""
    try:
        doc = loads(_read(path, "layout", MAX_BOARD_BYTES + 1))
    except BoardError as err:
        said = (p.replace("board file", "layout file") for p in err.problems)
        raise BoardError([f"the layout {path}: {p}" for p in said]) from None
    if not isinstance(doc, dict):
        raise BoardError([f"the layout {path} is not a JSON object"])
    return doc


def _read(path: str, what: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the file: endless input (a device, a pipe) cannot exhaust
    memory, and the caller refuses what is over its own limit."""
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError as err:
        raise BoardError([f"cannot read the {what} {path}: {err.strerror}"]) from None


def _one_line(err: Exception) -> str:
    if isinstance(err, BoardError):
        return " ".join("; ".join(err.problems).split())
    return " ".join(str(err).split())
