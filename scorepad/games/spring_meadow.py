"""Spring Meadow: one scoring phase, a game as a ledger of phases, and the solo game.

Rules: ``shared/rules/README.md``, section "Spring Meadow" (the digest of
``spring-meadow.ru.txt``); board file: ``shared/formats.md``, section "Spring Meadow".
How we read the rules, and the two compatible board-file extensions (``options.layouts`` with
a per-player ``layout``, and ``solo_values``), are in ``docs/spring-meadow.md``.

A board is a grid of squares written as strings, top row first: vertical boards have 15 rows
of 10, horizontal boards 10 rows of 15 as the player sees them. A square is named
``(row, col)``: 0-based indices into ``rows``, row 0 being the top line of the file. Scoring
counts *lines*, numbered from 1: rows from the bottom on a vertical board, columns from the
left on a horizontal one.

Helpers for a board editor:

- ``ORIENTATIONS``; ``ROWS[orientation]`` and ``COLS[orientation]``: the board's shape;
  ``LINES`` (15) and ``LINE_LENGTH`` (10): the counted lines.
- ``SQUARE_CODES`` (code → name), ``BURROW_CODES``, ``SNOW``, ``COVERED``, ``OPEN``,
  ``CLEARED``, ``MARMOT``.
- ``empty_board(orientation, layout=None)``: all snow, with the layout's burrows open.
- ``line_squares(orientation, line)``: the squares of counted line ``line``;
  ``turn_square(square, source, target)``: a square after turning the board.
- ``fill_row(rows, orientation, line)``: cover every snow square of that counted line.
- ``Layout``, ``parse_layout(doc)``, ``dump_layout(layout)``, ``example_layout()``,
  ``Layout.burrows_for(orientation)``: board layouts (which squares of a side are burrows).

Scoring: ``GAME`` (the registry entry: ``parse``, ``dump``, ``score`` one phase),
``score_board(board)`` for one board's categories and evidence, ``seats_from_active(names,
active)`` for the tie rule's values, ``score_game(phases)`` for
the ledger of a whole game (``Ledger``), ``solo_mark(total)``, ``campaign(totals)`` and
``campaigns(games)`` for the solo game.

``details`` of each player in a result:
``counting`` ("rows from the bottom" or "columns from the left"), ``full_rows`` (the
counted lines that scored 10, from 1), ``counting_row`` (the first incomplete line, ``None``
when all 15 are full), ``counting_row_covered`` (its covered squares),
``full_rows_not_counted`` (full lines above the first incomplete one: they never score),
``cleared_burrows``, ``marmots``, ``open_burrows`` (lists of ``[row, col]``), ``picnic``
(bool), ``seats_from_active`` (the tie-break value, ``None`` without an active player), and
for a solo game ``solo`` (``values``, ``rows_completed``, ``mark``, ``good`` and
``outstanding`` (the rulebook's marks), ``board``: the board side's layout name or ``None``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, Literal, cast

from pydantic import Field

from scorepad.boardfile import BoardError, Model, unique_names, validate
from scorepad.games import Game
from scorepad.scoring import PlayerScore, Result, TieBreak, rank
from scorepad.wording import counted

Orientation = Literal["vertical", "horizontal"]
Square = tuple[int, int]

ORIENTATIONS: tuple[Orientation, ...] = ("vertical", "horizontal")
#: Rows and columns of the grid as the player sees it (formats.md).
ROWS: Mapping[str, int] = {"vertical": 15, "horizontal": 10}
COLS: Mapping[str, int] = {"vertical": 10, "horizontal": 15}
#: Counted lines (rows from the bottom, or columns from the left) and squares per line.
LINES = 15
LINE_LENGTH = 10

SNOW, COVERED, OPEN, CLEARED, MARMOT = ".", "#", "o", "c", "m"
SQUARE_CODES: Mapping[str, str] = {
    SNOW: "snow",
    COVERED: "covered",
    OPEN: "open burrow",
    CLEARED: "cleared burrow",
    MARMOT: "burrow with a marmot",
}
BURROW_CODES = frozenset({OPEN, CLEARED, MARMOT})
#: Every burrow counts as a covered square ("Норы уже считаются закрытыми ячейками").
COVERED_CODES = frozenset({COVERED, OPEN, CLEARED, MARMOT})

BURROWS_PER_SIDE = 11
MAX_PLAYERS = 4
FULL_ROW_POINTS = 10
PICNIC_POINTS = 2
PINS_TO_WIN = 2
SOLO_GOOD = 140
SOLO_OUTSTANDING = 150
CAMPAIGN_TARGET = 600

#: A code may turn into these between two phases: tiles never move, marmots never leave.
_LATER_CODES: Mapping[str, frozenset[str]] = {
    SNOW: frozenset({SNOW, COVERED}),
    OPEN: frozenset({OPEN, CLEARED, MARMOT, COVERED}),
    CLEARED: frozenset({CLEARED, MARMOT, COVERED}),
    MARMOT: frozenset({MARMOT, COVERED}),
    COVERED: frozenset({COVERED}),
}


# ---------------------------------------------------------------------------- geometry


@cache
def line_squares(orientation: Orientation, line: int) -> tuple[Square, ...]:
    """The squares of counted line ``line`` (1 = bottom row, or left column when horizontal)."""
    if not 1 <= line <= LINES:
        raise ValueError(f"line {line} is outside 1..{LINES}")
    if orientation == "vertical":
        row = ROWS["vertical"] - line
        return tuple((row, col) for col in range(COLS["vertical"]))
    return tuple((row, line - 1) for row in range(ROWS["horizontal"]))


def square_line(orientation: Orientation, square: Square) -> tuple[int, int]:
    """The counted line a square lies on and its place along it, from 1 (from the left on a
    row, from the top on a column): the inverse of :func:`line_squares`, and how a player
    finds a square by the numbers printed beside the board."""
    row, col = square
    if orientation == "vertical":
        return ROWS["vertical"] - row, col + 1
    return col + 1, row + 1


def turn_square(square: Square, source: Orientation, target: Orientation) -> Square:
    """A square of a board side seen after turning the board from ``source`` to ``target``.

    Horizontal play is the vertical board turned a quarter turn clockwise, so that the bottom
    row becomes the left column: the order in which lines are counted does not change
    (docs/spring-meadow.md, "Horizontal boards").
    """
    row, col = square
    if source == target:
        return square
    if source == "vertical":
        return (col, LINES - 1 - row)
    return (LINES - 1 - col, row)


def empty_board(orientation: Orientation, layout: Layout | None = None) -> tuple[str, ...]:
    """A board of snow, with the layout's burrows shown open (a new game's board)."""
    burrows = layout.burrows_for(orientation) if layout else frozenset()
    return tuple(
        "".join(OPEN if (r, c) in burrows else SNOW for c in range(COLS[orientation]))
        for r in range(ROWS[orientation])
    )


def fill_row(rows: Sequence[str], orientation: Orientation, line: int) -> tuple[str, ...]:
    """Cover every snow square of counted line ``line``; burrow squares keep their code."""
    grid = [list(row) for row in rows]
    for r, c in line_squares(orientation, line):
        if grid[r][c] == SNOW:
            grid[r][c] = COVERED
    return tuple("".join(row) for row in grid)


def _squares_with(rows: Sequence[str], codes: frozenset[str]) -> list[Square]:
    found: list[Square] = []
    for r, row in enumerate(rows):
        # Most rows hold no burrow at all: skip them without looking at each square.
        if any(code in row for code in codes):
            found.extend((r, c) for c, code in enumerate(row) if code in codes)
    return found


# ---------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Layout:
    """Which squares of one printed board side are burrows, as drawn in ``orientation``."""

    name: str
    orientation: Orientation
    burrows: frozenset[Square]

    def burrows_for(self, orientation: Orientation) -> frozenset[Square]:
        """The burrow squares when the side is played in ``orientation``."""
        return frozenset(turn_square(s, self.orientation, orientation) for s in self.burrows)


class _LayoutDoc(Model):
    name: str
    orientation: Orientation = "vertical"
    rows: list[str]


def _layout_from(doc: _LayoutDoc, label: str) -> tuple[Layout | None, list[str]]:
    problems = []
    if not doc.name.strip():
        problems.append(f"{label}: the name is empty")
    problems += _grid_problems(label, doc.rows, doc.orientation, frozenset({SNOW, OPEN}))
    if problems:
        return None, problems
    burrows = frozenset(_squares_with(doc.rows, frozenset({OPEN})))
    return Layout(doc.name, doc.orientation, burrows), []


def parse_layout(doc: Any) -> Layout:
    """Validate a layout document: ``{"name", "orientation", "rows"}`` with ``.`` and ``o``."""
    model = validate(_LayoutDoc, doc, root="layout")
    layout, problems = _layout_from(model, f"layout {model.name!r}")
    if layout is None:
        raise BoardError(problems)
    return layout


def dump_layout(layout: Layout) -> dict[str, Any]:
    """A layout document that :func:`parse_layout` reads back."""
    rows = ROWS[layout.orientation]
    cols = COLS[layout.orientation]
    return {
        "name": layout.name,
        "orientation": layout.orientation,
        "rows": [
            "".join(OPEN if (r, c) in layout.burrows else SNOW for c in range(cols))
            for r in range(rows)
        ],
    }


def layout_warnings(layout: Layout) -> list[str]:
    """A printed side has 11 burrows: any other count is probably a mistake in the layout."""
    if len(layout.burrows) == BURROWS_PER_SIDE:
        return []
    return [
        f"layout {layout.name!r} has {counted(len(layout.burrows), 'burrow', 'burrows')}; "
        f"every printed board side has {BURROWS_PER_SIDE}"
    ]


def example_layout() -> Layout:
    """The bundled example layout (an invented side, not one of the 8 printed ones)."""
    text = (
        resources.files("scorepad")
        .joinpath("data/spring-meadow-layout-example.json")
        .read_text(encoding="utf-8")
    )
    return parse_layout(json.loads(text))


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Board:
    """One player's mountain board at a scoring phase (or at the end of a solo game)."""

    name: str
    orientation: Orientation
    rows: tuple[str, ...]
    layout: str | None = None
    #: Solo: the signpost values written down as rows were completed.
    solo_values: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Table:
    """The boards in clockwise seating order, the active player, the known layouts."""

    players: tuple[Board, ...]
    active: str | None = None
    layouts: tuple[Layout, ...] = ()

    def layout_of(self, board: Board) -> Layout | None:
        return next((x for x in self.layouts if x.name == board.layout), None)

    @property
    def solo(self) -> bool:
        return len(self.players) == 1 and self.players[0].solo_values is not None


class _OptionsDoc(Model):
    active: str | None = None
    layouts: list[_LayoutDoc] = Field(default_factory=list)


class _PlayerDoc(Model):
    name: str
    orientation: Orientation = "vertical"
    rows: list[str]
    layout: str | None = None
    solo_values: list[int] | None = None


class _TableDoc(Model):
    game: Literal["spring-meadow"]
    options: _OptionsDoc = _OptionsDoc()
    players: list[_PlayerDoc]


def _grid_problems(
    label: str, rows: Sequence[str], orientation: Orientation, codes: frozenset[str]
) -> list[str]:
    """Shape and square codes of a grid (formats.md: 15 rows of 10, or 10 rows of 15)."""
    want_rows, want_cols = ROWS[orientation], COLS[orientation]
    problems = []
    if len(rows) != want_rows:
        problems.append(
            f"{label}: {counted(len(rows), 'row', 'rows')}; a {orientation} board has "
            f"{want_rows} rows of {want_cols} squares"
        )
    for r, row in enumerate(rows):
        if len(row) != want_cols:
            problems.append(
                f"{label}, row {r}: {counted(len(row), 'square', 'squares')}; a {orientation} "
                f"board row has {want_cols}"
            )
        for c, code in enumerate(row):
            if code not in codes:
                allowed = " ".join(sorted(codes))
                problems.append(
                    f"{label}, square ({r}, {c}): {code!r} is not a square code ({allowed})"
                )
    return problems


def _burrow_problems(
    label: str, rows: Sequence[str], burrows: frozenset[Square] | None
) -> list[str]:
    """Burrow codes only where the side has burrows; a burrow square is never snow."""
    if burrows is None:
        seen = _squares_with(rows, BURROW_CODES)
        if len(seen) > BURROWS_PER_SIDE:
            return [
                f"{label}: {len(seen)} burrow squares (o, c, m); a board side has only "
                f"{BURROWS_PER_SIDE} burrows"
            ]
        return []
    problems = []
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            if code in BURROW_CODES and (r, c) not in burrows:
                problems.append(
                    f"{label}, square ({r}, {c}): {SQUARE_CODES[code]} {code!r} where the "
                    "layout has no burrow"
                )
            elif code == SNOW and (r, c) in burrows:
                problems.append(
                    f"{label}, square ({r}, {c}): the layout has a burrow here, so it is open "
                    "'o', cleared 'c', with a marmot 'm' or covered '#', never snow '.'"
                )
    return problems


def parse(doc: Any) -> Table:
    """Validate a Spring Meadow board file; every problem is listed in one :class:`BoardError`."""
    model = validate(_TableDoc, doc)
    problems = unique_names([p.name for p in model.players])
    if not 1 <= len(model.players) <= MAX_PLAYERS:
        problems.append(f"players: {len(model.players)} players; Spring Meadow is for 1 to 4")
    layouts, found = _parse_layouts(model.options.layouts)
    problems += found
    active = model.options.active
    if active is not None and active not in [p.name for p in model.players]:
        problems.append(f"'options', 'active': {active!r} is not one of the players")
    for p in model.players:
        problems += _board_problems(p, model.options.layouts, layouts)
        problems += _solo_problems(f"player {p.name!r}", p, len(model.players), active)
    if problems:
        raise BoardError(problems)
    boards = tuple(
        Board(
            name=p.name,
            orientation=p.orientation,
            rows=tuple(p.rows),
            layout=p.layout,
            solo_values=tuple(p.solo_values) if p.solo_values is not None else None,
        )
        for p in model.players
    )
    return Table(players=boards, active=active, layouts=tuple(layouts))


#: Layouts a board file may carry: the 8 printed sides several times over (each read again
#: from a photo, say), and few enough that a file cannot make every tap slow.
MAX_LAYOUTS = 32


def _parse_layouts(docs: Sequence[_LayoutDoc]) -> tuple[list[Layout], list[str]]:
    """The table's layouts (``options.layouts``), names unique."""
    if len(docs) > MAX_LAYOUTS:
        return [], [f"'options', 'layouts': {len(docs)} layouts; at most {MAX_LAYOUTS}"]
    layouts: list[Layout] = []
    problems = []
    for i, layout_doc in enumerate(docs):
        layout, found = _layout_from(layout_doc, f"'options', layout {layout_doc.name!r}")
        problems += found
        if layout and layout.name in {x.name for x in layouts}:
            problems.append(f"'options', layout #{i + 1}: two layouts are named {layout.name!r}")
        elif layout:
            layouts.append(layout)
    return layouts, problems


def _board_problems(
    p: _PlayerDoc, drawn: Sequence[_LayoutDoc], layouts: Sequence[Layout]
) -> list[str]:
    """A board's shape and codes, and its burrows against its layout when it names one."""
    label = f"player {p.name!r}"
    problems = _grid_problems(label, p.rows, p.orientation, frozenset(SQUARE_CODES))
    if p.layout is not None and all(x.name != p.layout for x in drawn):
        problems.append(f"{label}: layout {p.layout!r} is not in 'options', 'layouts'")
    if problems:
        return problems
    # A broken layout was reported on its own; the board is then checked as without one.
    layout = next((x for x in layouts if x.name == p.layout), None)
    burrows = layout.burrows_for(p.orientation) if layout else None
    return _burrow_problems(label, p.rows, burrows)


def _solo_problems(label: str, p: _PlayerDoc, players: int, active: str | None) -> list[str]:
    """``solo_values`` belong to a lone player, who has no scoring phase and no picnic."""
    if p.solo_values is None:
        return []
    problems = []
    if players != 1:
        problems.append(f"{label}: 'solo_values' are for a solo game (one player)")
    if active is not None:
        problems.append(f"{label}: a solo game has no scoring phase, so no active player")
    if len(p.solo_values) > LINES:
        problems.append(
            f"{label}: {len(p.solo_values)} solo values; at most {LINES} rows can be completed"
        )
    for i, value in enumerate(p.solo_values):
        if value < 0:
            problems.append(f"{label}, solo value #{i + 1}: {value} is negative")
    return problems


def dump(table: Table) -> dict[str, Any]:
    """The board file of ``table`` (round-trips through :func:`parse`)."""
    options: dict[str, Any] = {}
    if table.active is not None:
        options["active"] = table.active
    if table.layouts:
        options["layouts"] = [dump_layout(x) for x in table.layouts]
    players = []
    for b in table.players:
        player: dict[str, Any] = {
            "name": b.name,
            "orientation": b.orientation,
            "rows": list(b.rows),
        }
        if b.layout is not None:
            player["layout"] = b.layout
        if b.solo_values is not None:
            player["solo_values"] = list(b.solo_values)
        players.append(player)
    return {"game": "spring-meadow", "options": options, "players": players}


# ---------------------------------------------------------------------------- scoring


def score_board(board: Board) -> tuple[dict[str, int], dict[str, Any]]:
    """One board's phase categories (picnic 0) and the evidence.

    Rule: +10 per completely covered line from the bottom (left) up to the first incomplete
    line, +1 per covered square of that line, full lines above it never score; every burrow
    counts as covered; +1 per cleared burrow anywhere, a marmot's burrow scores nothing.
    """
    full: list[int] = []
    counting_row: int | None = None
    counting_covered = 0
    for line in range(1, LINES + 1):
        covered = sum(
            board.rows[r][c] in COVERED_CODES for r, c in line_squares(board.orientation, line)
        )
        if covered < LINE_LENGTH:
            counting_row, counting_covered = line, covered
            break
        full.append(line)
    not_counted = []
    if counting_row is not None:
        for line in range(counting_row + 1, LINES + 1):
            squares = line_squares(board.orientation, line)
            if all(board.rows[r][c] in COVERED_CODES for r, c in squares):
                not_counted.append(line)
    cleared = _squares_with(board.rows, frozenset({CLEARED}))
    categories = {
        "full_rows": FULL_ROW_POINTS * len(full),
        "partial_row": counting_covered,
        "cleared_burrows": len(cleared),
        "picnic": 0,
    }
    details: dict[str, Any] = {
        "counting": "rows from the bottom"
        if board.orientation == "vertical"
        else "columns from the left",
        "full_rows": full,
        "counting_row": counting_row,
        "counting_row_covered": counting_covered,
        "full_rows_not_counted": not_counted,
        "cleared_burrows": [list(s) for s in cleared],
        "marmots": [list(s) for s in _squares_with(board.rows, frozenset({MARMOT}))],
        "open_burrows": [list(s) for s in _squares_with(board.rows, frozenset({OPEN}))],
        "picnic": False,
        "seats_from_active": None,
    }
    return categories, details


def seats_from_active(names: Sequence[str], active: str) -> dict[str, int]:
    """Counter-clockwise seat distance from the active player (players listed clockwise).

    Rule: on a tie the tied player farthest counter-clockwise from the active player wins;
    the active player itself is the nearest (0). Larger wins.
    """
    a = list(names).index(active)
    n = len(names)
    return {name: (a - i) % n for i, name in enumerate(names)}


def _table_warnings(table: Table) -> list[str]:
    warnings = []
    for known in table.layouts:
        warnings += layout_warnings(known)
    for board in table.players:
        layout = table.layout_of(board)
        if layout is None:
            continue
        burrows = layout.burrows_for(board.orientation)
        hidden = sum(board.rows[r][c] == COVERED for r, c in burrows)
        marmots = sum(board.rows[r][c] == MARMOT for r, c in burrows)
        if hidden > marmots:
            # Covering a burrow costs a marmot on a cleared burrow (rule "Норы").
            warnings.append(
                f"player {board.name!r}: more burrows covered by tiles ({hidden}) than "
                f"marmots on the board ({marmots}); covering a burrow needs a marmot on a "
                "cleared burrow"
            )
    return warnings


def _solo_score(board: Board) -> PlayerScore:
    """Solo: the values written down as rows were completed, plus 1 per cleared burrow."""
    values = board.solo_values or ()
    categories, details = score_board(board)
    total = sum(values) + categories["cleared_burrows"]
    details["solo"] = {
        "values": list(values),
        "rows_completed": len(details["full_rows"]),
        "mark": solo_mark(total),
        "board": board.layout,
        "good": SOLO_GOOD,
        "outstanding": SOLO_OUTSTANDING,
    }
    solo_categories = {
        "full_rows": sum(values),
        "partial_row": 0,
        "cleared_burrows": categories["cleared_burrows"],
        "picnic": 0,
    }
    return PlayerScore(board.name, solo_categories, details)


def _rising_solo_values(board: Board) -> list[str]:
    """The signpost's values only go down as the solo game goes on ("очки, получаемые в
    каждом ходу, уменьшаются"; rows completed in one turn write one value several times):
    a value above the one before it was written down or typed wrong. The sum does not
    depend on the order, so this is a warning, not a refusal."""
    values = board.solo_values or ()
    return [
        f"player {board.name!r}: solo value #{i + 1} ({later}) is more than #{i} ({earlier}); "
        "the signpost's values only go down as the game goes on"
        for i, (earlier, later) in enumerate(itertools.pairwise(values), start=1)
        if later > earlier
    ]


def solo_mark(total: int) -> str | None:
    """The rulebook's solo goals: 140 is a good result, 150 an outstanding one."""
    if total >= SOLO_OUTSTANDING:
        return "outstanding"
    if total >= SOLO_GOOD:
        return "good"
    return None


def campaign(totals: Sequence[int]) -> dict[str, Any]:
    """The solo campaign: 4 games on 4 different boards, aiming at 600 points in all."""
    if len(totals) > 4:
        raise ValueError(f"a campaign has 4 games, not {len(totals)}")
    total = sum(totals)
    return {
        "games": list(totals),
        "total": total,
        "target": CAMPAIGN_TARGET,
        "reached": len(totals) == 4 and total >= CAMPAIGN_TARGET,
    }


def campaigns(games: Sequence[tuple[int, str | None]]) -> list[dict[str, Any]]:
    """One player's solo games, in playing order, as campaigns of 4 (the last may be under way).

    Rulebook, "Кампания": play 4 games on 4 different mountain boards, aiming at 600 points
    in all. Scorepad does not ask whether a solo game belongs to a campaign: it counts every
    solo game, four to a campaign. Each game is ``(total, board)``, ``board`` the name of its
    board side's layout (``None`` when unknown). Each campaign is :func:`campaign`'s dict
    plus ``boards``, ``to_go`` (points still needed for 600, 0 once there) and ``repeated``
    (boards played twice in it; the invented example layout stands for no printed side, so
    it never counts as a repeat).
    """
    example = example_layout().name
    out = []
    for start in range(0, len(games), 4):
        chunk = games[start : start + 4]
        totals = [total for total, _board in chunk]
        named = [b for _total, b in chunk if b is not None and b != example]
        entry = campaign(totals)
        entry["boards"] = [board for _total, board in chunk]
        entry["to_go"] = max(0, CAMPAIGN_TARGET - entry["total"])
        entry["repeated"] = sorted({b for b in named if named.count(b) > 1})
        out.append(entry)
    return out


def score(table: Table) -> Result:
    """Score one scoring phase (or a solo game); ``winners`` is the phase winner."""
    warnings = _table_warnings(table)
    if table.solo:
        board = table.players[0]
        player = _solo_score(board)
        rows_completed = player.details["solo"]["rows_completed"]
        if len(board.solo_values or ()) != rows_completed:
            written = counted(
                len(board.solo_values or ()), "solo value written down", "solo values written down"
            )
            if board.orientation == "horizontal":
                lines = counted(
                    rows_completed,
                    "column is complete from the left",
                    "columns are complete from the left",
                )
                each = "one value is written per completed column"
            else:
                lines = counted(
                    rows_completed,
                    "row is complete from the bottom",
                    "rows are complete from the bottom",
                )
                each = "one value is written per completed row"
            warnings.append(f"player {board.name!r}: {written} but {lines}; {each}")
        warnings += _rising_solo_values(board)
        return rank("spring-meadow", [player], warnings=warnings)
    names = [b.name for b in table.players]
    seats = seats_from_active(names, table.active) if table.active else None
    scores = []
    for board in table.players:
        categories, details = score_board(board)
        if board.name == table.active:
            categories["picnic"] = PICNIC_POINTS
            details["picnic"] = True
        if seats is not None:
            details["seats_from_active"] = seats[board.name]
        scores.append(PlayerScore(board.name, categories, details))
    tiebreaks = []
    if seats is not None:
        # The active player named: "(2 vs 1)" then plainly counts seats from someone.
        label = f"seats counter-clockwise from active player {table.active}"
        tiebreaks.append(TieBreak(label, seats))
    return rank("spring-meadow", scores, tiebreaks, warnings)


CATEGORIES = {
    "full_rows": "Full rows",
    "partial_row": "First incomplete row",
    "cleared_burrows": "Cleared burrows",
    "picnic": "Picnic",
}
#: A solo game's rows: ``full_rows`` holds the values written down (formats.md keeps the
#: four keys), and no incomplete row or picnic ever scores.
SOLO_CATEGORIES = {"full_rows": "Values written down", "cleared_burrows": "Cleared burrows"}


def shown_categories(result: Result) -> Mapping[str, str]:
    """The score table's rows: a solo game's own, else the phase's four."""
    solo = len(result.players) == 1 and "solo" in result.players[0].details
    return SOLO_CATEGORIES if solo else CATEGORIES


GAME = Game(
    name="spring-meadow",
    title="Spring Meadow",
    categories=CATEGORIES,
    parse=parse,
    dump=dump,
    score=score,
    shown=shown_categories,
)


# ---------------------------------------------------------------------------- the ledger


@dataclass(frozen=True)
class PhaseResult:
    """One scoring phase of a game: its result, the pins after it, the marmots it began with."""

    number: int
    table: Table
    result: Result
    #: Marmots put on the previous phase winner's cleared burrows before this phase.
    marmots_placed: Mapping[str, tuple[Square, ...]]
    pins: Mapping[str, int]

    @property
    def winners(self) -> tuple[str, ...]:
        return self.result.winners


@dataclass(frozen=True)
class Ledger:
    """A game of Spring Meadow: its phases, the hiking pins and the game winner(s)."""

    phases: tuple[PhaseResult, ...]
    pins: Mapping[str, int]
    #: Players with 2 pins; empty while the game goes on.
    winners: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    def game_result(self) -> Result | None:
        """The game's result once it is over (None while it goes on): the last phase's
        scores, ranked by hiking pins ("Первый игрок, который зарабатывает свою вторую
        Походную булавку, выигрывает игру!"), the ledger's winners, its warnings. The
        board after that phase is not the game's result: the winner's cleared burrows are
        marmots on it and the picnic tile has moved, which can turn a close phase."""
        if not self.finished:
            return None
        last = self.phases[-1].result
        players = tuple(
            replace(p, rank=1 + sum(n > self.pins[p.name] for n in self.pins.values()))
            for p in last.players
        )
        return replace(
            last,
            players=players,
            winners=self.winners,
            warnings=self.warnings,
            tiebreaks=(),
            extra={**last.extra, "pins": dict(self.pins), "phases": len(self.phases)},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "spring-meadow",
            "phases": [
                {
                    "phase": p.number,
                    "marmots_placed": {
                        name: [list(s) for s in squares]
                        for name, squares in p.marmots_placed.items()
                    },
                    "pins": dict(p.pins),
                    **p.result.to_json(),
                }
                for p in self.phases
            ],
            "pins": dict(self.pins),
            "winners": list(self.winners),
            "finished": self.finished,
            "warnings": list(self.warnings),
        }


def is_game_file(doc: Any) -> bool:
    """Whether a JSON document is meant as a game file (:func:`read_game_file`): a list
    whose first entry is a Spring Meadow board file. Any other list is no board file."""
    first = doc[0] if isinstance(doc, list) and doc else None
    return isinstance(first, dict) and first.get("game") == "spring-meadow"


def read_game_file(doc: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Spring Meadow *game file*: a JSON list of board files, each recorded scoring phase
    in playing order, and last the board as it stands (what the web app's export saves for
    a game with recorded phases; a plain board file is one phase). Returns the phases and
    the board, checked as the game's next phase (the same players in the same seats, tiles
    never moved, marmots never gone; after the game's last phase, no phase follows but
    the board as it stands), the board with the winners' marmots in place (a ``c`` written
    where one must be is an ``m``). Raises BoardError."""
    phases, _ledger, followed = _read_game(doc)
    return phases, doc[-1] if followed is None else dump(followed.phases[-1].table)


def score_game_file(doc: Any) -> tuple[Result, Ledger | None]:
    """A game file's result (:func:`read_game_file`): the game's own once a player has 2
    pins (:meth:`Ledger.game_result`), else the board as it stands scored as the phase
    that follows the recorded ones; and the ledger of its recorded phases (None without
    any)."""
    _phases, ledger, followed = _read_game(doc)
    if ledger is None or followed is None:  # one board file in a list (a solo game too)
        return score(parse(doc[-1])), None
    if ledger.finished:
        return cast(Result, ledger.game_result()), ledger
    return followed.phases[-1].result, ledger


def _read_game(doc: Any) -> tuple[list[dict[str, Any]], Ledger | None, Ledger | None]:
    """:func:`read_game_file`'s checks: the phases, their ledger, and the ledger that
    follows them with the board as it stands (its last phase; None without phases)."""
    if not isinstance(doc, list) or not doc:
        raise BoardError(["game file: a list of Spring Meadow board files, the board last"])
    for n, board in enumerate(doc, start=1):
        if not isinstance(board, dict) or board.get("game") != "spring-meadow":
            raise BoardError([f"game file, entry {n}: not a Spring Meadow board file"])
    *phases, current = doc
    if not phases:
        parse(current)
        return [], None, None
    ledger = score_game(phases)
    return phases, ledger, _play([parse(p) for p in [*phases, current]], board_last=True)


def score_game(phases: Sequence[Table | Mapping[str, Any]]) -> Ledger:
    """Score a game as a ledger of phases (board files or parsed tables, in playing order).

    Rules: the phase winner takes a hiking pin and puts marmots on all its cleared burrows,
    so those squares are marmots in every later phase (a ``c`` recorded there becomes ``m``);
    the first player with 2 pins wins the game and no phase follows. A shared phase win
    (no active player known) gives each tied player a pin. Tiles never move and marmots
    never leave, so a square may only change as ``_LATER_CODES`` allows.
    """
    if not phases:
        raise BoardError(["a game needs at least one scoring phase"])
    return _play([p if isinstance(p, Table) else parse(p) for p in phases])


def _play(tables: list[Table], board_last: bool = False) -> Ledger:
    """:func:`score_game` of parsed phases; with ``board_last`` the last table is the board
    as it stands after them, which may follow the game's end (and is scored as a phase)."""
    problems = _ledger_shape_problems(tables)
    if problems:
        raise BoardError(problems)
    pins = dict.fromkeys((b.name for b in tables[0].players), 0)
    marmots: dict[str, set[Square]] = {name: set() for name in pins}
    results: list[PhaseResult] = []
    warnings: list[str] = []
    previous: Table | None = None
    for number, table in enumerate(tables, start=1):
        after_the_end = board_last and number == len(tables)
        if any(count >= PINS_TO_WIN for count in pins.values()) and not after_the_end:
            raise BoardError(
                [f"phase {number}: the game ended after phase {number - 1} (first to 2 pins)"]
            )
        placed: dict[str, tuple[Square, ...]] = {}
        if previous is not None:
            for name in results[-1].winners:
                placed[name] = tuple(_squares_with(_board(previous, name).rows, _CLEARED))
                marmots[name].update(placed[name])
            table = _with_marmots(table, marmots)
            _check_history(previous, table, number)
        result = score(table)
        for name in result.winners:
            pins[name] += 1
        if len(result.winners) > 1:
            warnings.append(
                f"phase {number}: no active player recorded, so "
                f"{', '.join(result.winners)} share the win and each takes a pin"
            )
        warnings += [f"phase {number}: {w}" for w in result.warnings]
        results.append(PhaseResult(number, table, result, placed, dict(pins)))
        previous = table
    winners = tuple(name for name, count in pins.items() if count >= PINS_TO_WIN)
    return Ledger(tuple(results), dict(pins), winners, tuple(warnings))


_CLEARED = frozenset({CLEARED})


def _board(table: Table, name: str) -> Board:
    return next(b for b in table.players if b.name == name)


def _ledger_shape_problems(tables: Sequence[Table]) -> list[str]:
    """Every phase has the same players, in the same seats, on the same boards."""
    first = tables[0]
    problems = []
    if first.solo or len(first.players) < 2:
        problems.append("a solo game has no scoring phases; score it as one board file")
    for number, table in enumerate(tables[1:], start=2):
        if [b.name for b in table.players] != [b.name for b in first.players]:
            problems.append(f"phase {number}: the players or their seats differ from phase 1")
            continue
        for b, b1 in zip(table.players, first.players, strict=True):
            if b.orientation != b1.orientation:
                problems.append(
                    f"phase {number}, player {b.name!r}: the board is {b.orientation} but was "
                    f"{b1.orientation} in phase 1; a board is not turned during a game"
                )
    return problems


def board_after(game: Ledger, name: str) -> tuple[str, ...]:
    """A player's board as the last recorded phase left it: that phase's board, and a
    marmot on each of its cleared burrows if the player won it ("Победитель должен поместить
    сурков поверх всех очищенных Нор"). The board can only go on from there."""
    last = game.phases[-1]
    rows = _board(last.table, name).rows
    return tuple(row.replace(CLEARED, MARMOT) for row in rows) if name in last.winners else rows


def can_follow(before: str, now: str) -> bool:
    """Whether square code ``now`` can follow ``before`` in a later phase: tiles never move
    and marmots never leave (``_LATER_CODES``)."""
    return now in _LATER_CODES[before]


def _with_marmots(table: Table, marmots: Mapping[str, set[Square]]) -> Table:
    """Show the marmots a phase winner put on its cleared burrows, if recorded as cleared."""
    boards = []
    for board in table.players:
        grid = [list(row) for row in board.rows]
        for r, c in marmots[board.name]:
            if grid[r][c] == CLEARED:
                grid[r][c] = MARMOT
        boards.append(replace(board, rows=tuple("".join(row) for row in grid)))
    return replace(table, players=tuple(boards))


def _check_history(previous: Table, table: Table, number: int) -> None:
    """Between two phases tiles never move and marmots never leave (``_LATER_CODES``)."""
    problems = []
    for before, board in zip(previous.players, table.players, strict=True):
        for r, row in enumerate(before.rows):
            for c, old in enumerate(row):
                new = board.rows[r][c]
                if not can_follow(old, new):
                    problems.append(
                        f"phase {number}, player {board.name!r}, square ({r}, {c}): "
                        f"{SQUARE_CODES[old]} {old!r} in phase {number - 1} cannot become "
                        f"{SQUARE_CODES[new]} {new!r}: tiles never move and marmots never leave"
                    )
    if problems:
        raise BoardError(problems)
