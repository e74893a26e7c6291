"""Spring Meadow editor: paint the 10 × 15 board by tapping or dragging, fill whole lines.

The board starts from its layout (the layout's burrows pre-marked open). A drag paints every
square it crosses with the selected state in one request; the "fill" targets beside each
counted line cover all of its snow squares (:func:`scorepad.games.spring_meadow.fill_row`).
"Clear" puts a square back as the layout printed it (snow, or an open burrow).

A game is a ledger of scoring phases: "Record phase N" keeps the phase's board file in
the table's metadata, gives the phase winner a pin and puts marmots on its cleared burrows;
the results page shows the ledger (:func:`scorepad.games.spring_meadow.score_game`).

A table started for one player is a solo game (rulebook, "Solo вариант"; ``is_solo``): no
phases and no picnic; the player types the value written down for each row (on a horizontal
board, column) completed (``solo_values``), and the score is their sum plus the cleared
burrows, with the rulebook's marks (140 good, 150 outstanding). Each player's board side is
their own (``set_board_side``), and once a player has 2 pins every screen shows the game's
result (``final_result``).

The board draws the evidence: full counted rows shaded, the counting row outlined, rows that
are full but above the counting row hatched, cleared burrows marked +1.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace
from functools import lru_cache
from typing import Any

from flask import g
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]

from scorepad.boardfile import BoardError
from scorepad.games import spring_meadow as sm
from scorepad.scoring import Result
from scorepad.web import db, doubts
from scorepad.web.boards import (
    EditRefused,
    Tool,
    unknown_change,
    whole_number,
    whole_pair,
    with_player_copy,
)
from scorepad.web.vocab import EXAMPLE_BOARD, N_, Words, sentence, words

NAME = sm.GAME.name
MODULE = "spring_meadow"
PAPER = False
#: Shown under the photo button (docs/vision-boards.md, "Known limits").
PHOTO_TIP = N_("Photograph the whole board, on a table darker than the board.")
MAX_PLAYERS = sm.MAX_PLAYERS
SQUARE = 26
FILL_GAP = 6
SQUARE_FILLS = {
    sm.SNOW: "#f3f7fa",
    sm.COVERED: "#7db36a",
    sm.OPEN: "#f3f7fa",
    sm.CLEARED: "#7db36a",
    sm.MARMOT: "#7db36a",
}
#: Each square state has its own shape (``sq-*`` in ``templates/_sprites.html``): grass on
#: covered squares, a ring for an open burrow, a disc with a plus for a cleared one, a face
#: for a marmot, a snowflake on snow.
TOOLS = (
    Tool(sm.COVERED, N_("Covered"), SQUARE_FILLS[sm.COVERED], icon="sq-covered"),
    Tool(sm.CLEARED, N_("Cleared burrow"), "#b07a3c", icon="sq-cleared"),
    Tool(sm.MARMOT, N_("Marmot"), "#6b4423", icon="sq-marmot"),
    Tool(sm.OPEN, N_("Open burrow"), "#d8c3a5", icon="sq-open"),
    Tool(sm.SNOW, N_("Snow"), SQUARE_FILLS[sm.SNOW], icon="sq-snow"),
    Tool("clear", N_("Clear (as printed)"), "#ffffff", icon="sq-clear"),
)
EXAMPLE = "example"
MAX_SQUARES_PER_DRAG = 150
#: The largest value a solo game's field takes: the signpost's values are printed around
#: the tourist map, well below it (the engine only refuses negative values).
MAX_SOLO_VALUE = 99
#: A board file is one scoring phase: its winner takes a pin, the game goes on.
WINNER_LABEL = N_("Phase winner")


# --- new table ---------------------------------------------------------------------------------


def layout_choices() -> list[tuple[str, str]]:
    choices = [(EXAMPLE, EXAMPLE_BOARD)]
    choices += [(f"db:{lay.id}", lay.name) for lay in db.list_layouts(NAME)]
    return choices


def load_layout(choice: str) -> dict[str, Any]:
    if choice == EXAMPLE:
        return sm.dump_layout(sm.example_layout())
    if choice.startswith("db:"):
        try:
            return db.get_layout(choice[3:], NAME).data
        except db.NotFound:
            pass
    raise EditRefused(gettext("Choose one of the listed board layouts."))


def options_context() -> dict[str, Any]:
    return {"layouts": layout_choices(), "orientations": sm.ORIENTATIONS}


def _usable(layout_doc: Any) -> sm.Layout:
    """A chosen layout, or the engine's first objection to it for the player."""
    try:
        return sm.parse_layout(layout_doc)
    except BoardError as err:
        raise EditRefused(
            gettext("That layout is not usable yet: %(why)s", why=sentence(err.problems[0]))
        ) from None


def _orientation(value: str) -> sm.Orientation:
    if value not in sm.ORIENTATIONS:
        raise EditRefused(gettext("Orientation: choose vertical or horizontal."))
    return value


def new_table(form: Mapping[str, str], names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    layout = _usable(load_layout(form.get("layout", EXAMPLE)))
    orientation = _orientation(form.get("orientation", "vertical"))
    rows = list(sm.empty_board(orientation, layout))
    players: list[dict[str, Any]] = [
        {"name": n, "orientation": orientation, "layout": layout.name, "rows": list(rows)}
        for n in names
    ]
    if len(players) == 1:  # one player plays the solo game: values written down, no phases
        players[0]["solo_values"] = []
    doc = {"game": NAME, "options": {"layouts": [sm.dump_layout(layout)]}, "players": players}
    return doc, {"phases": []}


def is_solo(doc: Mapping[str, Any]) -> bool:
    """Whether the table is a solo game, as the engine decides it: one player with
    ``solo_values`` (every one-player table started here has them; an imported board
    file of one player without them is one phase of a larger game, as it scores)."""
    players = doc["players"]
    return len(players) == 1 and players[0].get("solo_values") is not None


# --- taps and fields ---------------------------------------------------------------------------


def _printed_burrows(
    doc: Mapping[str, Any], board: Mapping[str, Any]
) -> frozenset[tuple[int, int]]:
    """The squares the player's layout prints as burrows, in the board's orientation."""
    lay = _layout_doc(doc, board.get("layout"))
    try:
        return sm.parse_layout(lay).burrows_for(board.get("orientation", "vertical"))
    except BoardError:  # no such layout, or a broken one: the engine says which
        return frozenset()


def _check_burrows(
    tool: str, squares: list[tuple[int, int]], burrows: frozenset[tuple[int, int]]
) -> None:
    """Burrow states only on the layout's burrows, and never snow on one (rules digest,
    Spring Meadow): said in the board's words before the engine names codes and squares.
    Without a known layout (``burrows`` empty) the engine alone decides."""
    if not burrows:
        return
    one = len(squares) == 1
    if tool in (sm.OPEN, sm.CLEARED, sm.MARMOT) and any(sq not in burrows for sq in squares):
        raise EditRefused(
            gettext("There is no burrow on that square: burrows are printed on the board.")
            if one
            else gettext("Some of those squares have no burrow: burrows are printed on the board.")
        )
    if tool == sm.SNOW and any(sq in burrows for sq in squares):
        raise EditRefused(
            gettext("That square is a burrow: it is open, cleared, has a marmot or is covered.")
            if one
            else gettext(
                "Some of those squares are burrows: a burrow is open, cleared, has a marmot or "
                "is covered."
            )
        )


def _squares(raw: str, rows: int, cols: int) -> list[tuple[int, int]]:
    found = []
    for part in raw.split(";")[:MAX_SQUARES_PER_DRAG]:
        square = whole_pair(part)
        if square is None:
            raise EditRefused(gettext("That drag did not land on the board."))
        row, col = square
        if not (0 <= row < rows and 0 <= col < cols):
            raise EditRefused(
                gettext("Square (%(row)s, %(col)s) is not on the board.", row=row, col=col)
            )
        found.append((row, col))
    return found


def refuse_edit(meta: Mapping[str, Any]) -> None:
    """Once a player has 2 pins the game is over: its boards are its last phase's (a tap,
    a field or a photo is refused: ``boards.refuse_edit`` asks here)."""
    game = ledger(meta)
    if game is not None and game.finished:
        raise EditRefused(
            gettext("The game is over: %(names)s has 2 pins.", names=", ".join(game.winners))
        )


#: The states of a burrow a drag of tiles passes over (an open, cleared or marmot burrow).
_BURROW_CODES = frozenset({sm.OPEN, sm.CLEARED, sm.MARMOT})


def tap(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> dict[str, Any]:
    new, board = with_player_copy(doc, player)
    orientation = board.get("orientation", "vertical")
    if form.get("line"):
        line = whole_number(form["line"])
        try:
            rows = None if line is None else sm.fill_row(board["rows"], orientation, line)
        except ValueError:
            rows = None
        if rows is None:
            raise EditRefused(
                gettext("There is no counted line “%(line)s”.", line=form["line"][:12])
            )
        _keep_history(meta, board["name"], board["rows"], list(rows))
        board["rows"] = list(rows)
        return new
    tool = form.get("tool", "")
    if tool not in {t.key for t in TOOLS}:
        raise EditRefused(gettext("Pick a square state from the palette first."))
    if "squares" in form:
        squares = _squares(form["squares"], len(board["rows"]), len(board["rows"][0]))
    else:
        squares = _squares(
            f"{form.get('row', '')},{form.get('col', '')}",
            len(board["rows"]),
            len(board["rows"][0]),
        )
    burrows = _printed_burrows(doc, board)
    _check_burrows(tool, squares, burrows)
    grid = [list(row) for row in board["rows"]]
    # A drag of tiles over a burrow leaves it as it is, as filling a line does: covering a
    # burrow costs a marmot (rule "Норы"), a choice made square by square, by a tap.
    spared = _BURROW_CODES if tool == sm.COVERED and len(squares) > 1 else frozenset()
    for row, col in squares:
        if tool == "clear":
            grid[row][col] = sm.OPEN if (row, col) in burrows else sm.SNOW
        elif grid[row][col] not in spared:
            grid[row][col] = tool
    drawn = ["".join(row) for row in grid]
    _keep_history(meta, board["name"], board["rows"], drawn)
    board["rows"] = drawn
    return new


def photo_hints(doc: Mapping[str, Any], player: int) -> dict[str, Any]:
    """The player's burrow layout, so burrows are looked for only where it prints them."""
    layout = _layout_doc(doc, doc["players"][player].get("layout"))
    return {"layout": layout} if layout is not None else {}


def from_photo(
    doc: dict[str, Any], meta: Mapping[str, Any], player: int, found: Mapping[str, Any]
) -> dict[str, Any]:
    """The player's board as the photo shows it, in the orientation the photo shows. After a
    recorded phase a square the photo reads as going back (a tile lifted, a marmot read as
    a cleared burrow) keeps the code that phase left: the ledger is the record."""
    new, board = with_player_copy(doc, player)
    board["orientation"] = found["player"]["orientation"]
    rows = list(found["player"]["rows"])
    after = _board_after(meta, board["name"])
    if after is not None:
        if board["orientation"] != doc["players"][player].get("orientation", "vertical"):
            raise EditRefused(
                gettext(
                    "The photo shows the board turned the other way: a board is not turned "
                    "once a scoring phase is recorded. Photograph it as it lies."
                )
            )
        rows = [
            "".join(now if sm.can_follow(was, now) else was for was, now in zip(a, b, strict=True))
            for a, b in zip(after, rows, strict=True)
        ]
    board["rows"] = rows
    return new


def _board_after(meta: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    """The player's board as the last recorded phase left it (None before the first)."""
    game = ledger(meta)
    return sm.board_after(game, name) if game is not None else None


def _keep_history(
    meta: Mapping[str, Any], name: str, before: Sequence[str], rows: Sequence[str]
) -> None:
    """After a recorded phase, a change may only go on from the board it left: tiles never
    move and marmots never leave (the rule the ledger checks: ``sm.can_follow``)."""
    after = _board_after(meta, name)
    if after is None or [len(r) for r in after] != [len(r) for r in rows]:
        return  # a board turned since (a table from before this check): the ledger says so
    phase = len(meta.get("phases", []))
    for was_row, old_row, new_row in zip(after, before, rows, strict=True):
        for was, old, new in zip(was_row, old_row, new_row, strict=True):
            if new == old or sm.can_follow(was, new):
                continue
            if was == sm.MARMOT:
                raise EditRefused(
                    gettext(
                        "A marmot sits on that burrow since phase %(n)s: marmots never leave.",
                        n=phase,
                    )
                )
            raise EditRefused(
                gettext(
                    "A tile lay on that square when phase %(n)s was recorded: tiles never move.",
                    n=phase,
                )
            )


def set_field(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The picnic tile (active player), recording the phase in the ledger, or a solo
    game's values written down."""
    new = copy.deepcopy(doc)
    action = form.get("action", "")
    if action == "solo_values":
        return set_solo_values(new, form), meta
    if action == "board_side":
        if meta.get("phases"):
            raise EditRefused(
                gettext("A board's side cannot change once a scoring phase is recorded.")
            )
        return set_board_side(new, player, form), meta
    if action == "active":
        active = form.get("active", "")
        names = [p["name"] for p in new["players"]]
        if active and active not in names:
            raise EditRefused(gettext("The picnic tile goes to one of the players."))
        options = new.setdefault("options", {})
        if active:
            options["active"] = active
        else:
            options.pop("active", None)
        return new, meta
    if action == "record_phase":
        return record_phase(new, meta)
    raise unknown_change(form)


def set_board_side(doc: dict[str, Any], player: int, form: Mapping[str, str]) -> dict[str, Any]:
    """One player's board side (its burrow layout) and the way it lies: each player has a
    board of their own, its burrows where that side prints them. The tiles stay where they
    are; the old side's burrows not on the new one become snow, the new side's burrows
    show open (the state of a burrow on both is kept). Turning a board with tiles on it is
    refused: its squares would not be where the player sees them. A side new to the table
    joins its layouts (a shared option: the host's, like the picker); none is removed (an
    imported table's spare layout stays) unless the table would carry more than the engine
    takes (``sm.MAX_LAYOUTS``): then those no board is on go."""
    board = doc["players"][player]
    orientation = _orientation(form.get("orientation") or board.get("orientation", "vertical"))
    choice = form.get("layout", "")
    layout_doc = load_layout(choice) if choice else _layout_doc(doc, board.get("layout"))
    if layout_doc is None:
        raise EditRefused(gettext("Choose one of the listed board layouts."))
    layout = _usable(layout_doc)
    layouts = doc.setdefault("options", {}).setdefault("layouts", [])
    known = _layout_doc(doc, layout.name)
    if known is not None and sm.parse_layout(known) != layout:
        raise EditRefused(
            gettext(
                "Another layout called “%(name)s” is already used at this table.",
                name=layout.name,
            )
        )
    old_burrows = _printed_burrows(doc, board)
    if orientation != board.get("orientation", "vertical"):
        if any(
            code in (sm.COVERED, sm.CLEARED, sm.MARMOT) for row in board["rows"] for code in row
        ):
            raise EditRefused(
                gettext("Turn the board before placing tiles on it: its squares would move.")
            )
        board["rows"] = list(sm.empty_board(orientation, layout))
    else:
        burrows = layout.burrows_for(orientation)
        board["rows"] = [
            "".join(
                _on_side(code, (r, c) in old_burrows, (r, c) in burrows)
                for c, code in enumerate(row)
            )
            for r, row in enumerate(board["rows"])
        ]
    if known is None:
        layouts.append(layout_doc)
    board["layout"], board["orientation"] = layout.name, orientation
    if len(layouts) > sm.MAX_LAYOUTS:  # spare layouts give way to the sides boards are on
        used = {p.get("layout") for p in doc["players"]}
        layouts[:] = [lay for lay in layouts if lay.get("name") in used]
    return doc


def _on_side(code: str, was_burrow: bool, is_burrow: bool) -> str:
    """A square's state when the board's side changes (:func:`set_board_side`)."""
    if code == sm.COVERED or was_burrow == is_burrow:
        return code
    return sm.OPEN if is_burrow else sm.SNOW


def _layout_doc(doc: Mapping[str, Any], name: str | None) -> dict[str, Any] | None:
    """The table's layout called ``name``, if it knows one."""
    for lay in doc.get("options", {}).get("layouts", []):
        if lay.get("name") == name:
            return dict(lay)
    return None


def side_choices(doc: Mapping[str, Any], player: int) -> list[dict[str, Any]]:
    """The board sides a player can pick (the new-table form's), the board's own first
    when the list does not name it (a layout deleted since, or one imported)."""
    name = doc["players"][player].get("layout")
    own = _layout_doc(doc, name)
    choices: list[dict[str, Any]] = []
    for value, label in layout_choices():
        # The board's own side only if it is that very layout: one repainted since, or
        # another of the same name, would be refused as a different side of that name.
        same = _choice_name(value, label) == name and not any(c["selected"] for c in choices)
        choices.append({"value": value, "label": label, "selected": same and _same(value, own)})
    if name and not any(c["selected"] for c in choices):
        choices.insert(0, {"value": "", "label": name, "selected": True})  # the table's copy
    return choices


def _same(choice: str, layout_doc: Mapping[str, Any] | None) -> bool:
    """Whether a listed layout is the one the table keeps (its burrows, by value)."""
    try:
        return layout_doc is not None and _usable(load_layout(choice)) == _usable(layout_doc)
    except EditRefused:
        return False


def _choice_name(value: str, label: str) -> str:
    """The layout name a choice of :func:`layout_choices` gives a board."""
    return sm.example_layout().name if value == EXAMPLE else label


#: The ``value_<i>`` fields a solo game has: one per line of the board.
_LINE_INDICES = frozenset(str(i) for i in range(sm.LINES))


def set_solo_values(doc: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    """A solo game's values, one per completed row in the order the rows were completed
    (fields ``value_0``, ``value_1``, ...); blank fields at the end are rows whose value is
    not typed yet, a blank one before a typed one is refused."""
    if not is_solo(doc):
        raise EditRefused(gettext("Only a solo game has values written down."))
    beyond = [k for k in form if k.startswith("value_") and k[6:] not in _LINE_INDICES]
    if any(form[k].strip() for k in beyond):  # only a script sends them: say so, drop nothing
        raise EditRefused(
            gettext("A solo game has at most %(n)s values: one per row or column.", n=sm.LINES)
        )
    typed = [form.get(f"value_{i}", "").strip() for i in range(sm.LINES)]
    while typed and not typed[-1]:
        typed.pop()
    kept = doc["players"][0].get("solo_values") or []  # an import's may pass the form's bound
    columns = doc["players"][0].get("orientation") == "horizontal"  # lines are columns
    values = []
    for i, text in enumerate(typed, start=1):
        if not text:
            missing = (
                N_("Column %(n)s has no value: type the values in the order the columns were "
                   "completed.")
                if columns
                else N_("Row %(n)s has no value: type the values in the order the rows were "
                        "completed.")
            )  # fmt: skip
            raise EditRefused(gettext(missing, n=i))
        value = whole_number(text)
        unchanged = i <= len(kept) and value == kept[i - 1]
        if value is None or value < 0 or (value > MAX_SOLO_VALUE and not unchanged):
            wrong = (
                N_("Column %(n)s: “%(text)s” is not a signpost value (a whole number from 0 to "
                   "%(most)s).")
                if columns
                else N_("Row %(n)s: “%(text)s” is not a signpost value (a whole number from 0 "
                        "to %(most)s).")
            )  # fmt: skip
            raise EditRefused(gettext(wrong, n=i, text=text[:12], most=MAX_SOLO_VALUE))
        values.append(value)
    doc["players"][0]["solo_values"] = values
    doc.get("options", {}).pop("active", None)  # a solo game has no picnic
    return doc


def record_phase(
    doc: dict[str, Any], meta: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keep this phase in the ledger; the winner's cleared burrows get marmots for the next."""
    if len(doc["players"]) == 1:
        raise EditRefused(
            gettext(
                "A solo game has no scoring phases: it scores the values written down and the "
                "cleared burrows."
            )
        )
    phases = [*meta.get("phases", []), copy.deepcopy(doc)]
    try:
        after = sm.score_game(phases)
    except BoardError as err:
        raise EditRefused(
            gettext("This phase cannot follow the last one: %(why)s", why=sentence(err.problems[0]))
        ) from None
    winners = set(after.phases[-1].winners)
    names = ", ".join(after.phases[-1].winners)
    g.edit_note = ngettext(  # said by the editor's answer (editor.edit)
        "Phase %(phase)s recorded: %(names)s takes a hiking pin.",
        "Phase %(phase)s recorded: %(names)s take a hiking pin each.",
        len(winners),
        phase=len(phases),
        names=names,
    )
    for board in doc["players"]:  # the winners' marmots go onto their cleared burrows
        board["rows"] = list(sm.board_after(after, board["name"]))
    doc.get("options", {}).pop("active", None)
    return doc, {**meta, "phases": phases}


def final_result(doc: Mapping[str, Any], meta: Mapping[str, Any]) -> Result | None:
    """The game's result once a player has 2 pins (:meth:`sm.Ledger.game_result`): every
    screen then shows the last phase and the game's winner, not the board as it stands
    after it (marmots placed, the picnic tile moved)."""
    game = ledger(meta)
    return game.game_result() if game is not None else None


def in_progress(meta: Mapping[str, Any], result: Result) -> Result:
    """The board as it stands, scored as the phase being played, with the game's pins so
    far (``extra["pins_so_far"]``, ``extra["phase"]``): its leader leads that phase only,
    and every screen says whose pins lead the game (a phase's winner, overtaken on the
    board after it, was named nowhere but in the ledger)."""
    game = ledger(meta)
    if game is None or game.finished:
        return result
    extra = {**result.extra, "pins_so_far": dict(game.pins), "phase": len(game.phases) + 1}
    return replace(result, extra=extra)


def ledger(meta: Mapping[str, Any]) -> sm.Ledger | None:
    """The game's ledger of recorded phases (None before the first, or when they do not
    follow each other). A page asks for it once per board and for the result: scored once."""
    phases = meta.get("phases") or []
    # A copy: the cached one is shared by every request (its results hold plain dicts).
    return copy.deepcopy(_ledger(json.dumps(phases, sort_keys=True))) if phases else None


@lru_cache(maxsize=32)
def _ledger(phases: str) -> sm.Ledger | None:
    try:
        return sm.score_game(json.loads(phases))
    except BoardError:
        return None


# --- drawing -----------------------------------------------------------------------------------


def board(
    doc: dict[str, Any],
    meta: dict[str, Any],
    player: int,
    result: Result | None,
    highlight: str | None = None,
) -> dict[str, Any]:
    game = ledger(meta)
    if game is not None and game.finished:
        doc = meta["phases"][-1]  # the game's result is its last phase (final_result)
    sheet = doc["players"][player]
    orientation = sheet.get("orientation", "vertical")
    rows = sheet["rows"]
    burrows = _printed_burrows(doc, sheet)
    w = words()
    states = {code: w.term(name) for code, name in sm.SQUARE_CODES.items()}
    squares = [
        _square(r, c, code, code in sm.BURROW_CODES, (r, c) in burrows,
                square_label(w, orientation, r, c, states.get(code, code)))
        for r, line in enumerate(rows)
        for c, code in enumerate(line)
    ]  # fmt: skip
    width, height = len(rows[0]) * SQUARE, len(rows) * SQUARE
    details = result.players[player].details if result else {}
    fill_targets = [
        {"line": n, **_fill_target(orientation, n, width, height)} for n in range(1, sm.LINES + 1)
    ]
    why = _why(orientation, details, solo=is_solo(doc))
    extra_w, extra_h = (
        (SQUARE + FILL_GAP, 0) if orientation == "vertical" else (0, SQUARE + FILL_GAP)
    )
    labels = {(sq["row"], sq["col"]): sq["label"] for sq in squares}
    return {
        "squares": squares,
        "doubtful": doubts.flagged(meta, player),
        "doubts": doubts.listed(meta, player, labels),
        "view_box": f"-2 -2 {width + extra_w + 4} {height + extra_h + 4}",
        "size": SQUARE,
        "fill_targets": fill_targets,
        "why": why,
        "marked": evidence(orientation, rows, details, highlight),
        "sheet": sheet,
        "orientation": orientation,
        "active": doc.get("options", {}).get("active"),
        "names": [p["name"] for p in doc["players"]],
        "ledger": game,
        "phases": len(meta.get("phases", [])),
        "solo": solo_context(doc, details, result.players[player].total if result else 0)
        if is_solo(doc)
        else None,
        # Only the editor's fields show them (a query of the stored layouts): asked then.
        "sides": lambda: side_choices(doc, player),
    }


def solo_context(doc: Mapping[str, Any], details: Mapping[str, Any], total: int) -> dict[str, Any]:
    """A solo game's fields and legend: one field per row completed from the bottom (and
    per value typed beyond them), the sum, and how far the engine's ``total`` is from the
    marks."""
    values = list(doc["players"][0].get("solo_values") or [])
    rows = len(details.get("full_rows", []))
    return {
        "columns": doc["players"][0].get("orientation") == "horizontal",  # lines are columns
        "written": values,
        "fields": [
            {"row": i + 1, "value": values[i] if i < len(values) else None}
            for i in range(min(max(rows, len(values)), sm.LINES))
        ],
        "rows": rows,
        "sum": sum(values),
        "mark": (details.get("solo") or {}).get("mark"),  # the engine's (None unscored)
        "to_good": max(sm.SOLO_GOOD - total, 0),
        "to_outstanding": max(sm.SOLO_OUTSTANDING - total, 0),
        "most": MAX_SOLO_VALUE,
    }


def square_place(orientation: sm.Orientation, row: int, col: int) -> dict[str, int]:
    """Where a player finds a square on the board: its counted line (1 = the bottom row, or
    the left column when horizontal: the numbers printed beside the board) and its place
    along that line (from the left on a row, from the top on a column)."""
    line, n = sm.square_line(orientation, (row, col))
    return {"line": line, "n": n}


def square_label(w: Words, orientation: sm.Orientation, row: int, col: int, state: str) -> str:
    """A square named the way a player finds it (:func:`square_place`), for the list of
    squares to check and for screen readers."""
    place = square_place(orientation, row, col)
    if orientation == "vertical":
        text = N_("line %(line)s, square %(n)s from the left: %(state)s")
    else:
        text = N_("line %(line)s, square %(n)s from the top: %(state)s")
    return w.gettext(text, state=state, **place)


def _line_box(orientation: str, line: int) -> dict[str, int]:
    squares = sm.line_squares(orientation, line)
    rows = [r for r, _ in squares]
    cols = [c for _, c in squares]
    return {
        "x": min(cols) * SQUARE,
        "y": min(rows) * SQUARE,
        "w": (max(cols) - min(cols) + 1) * SQUARE,
        "h": (max(rows) - min(rows) + 1) * SQUARE,
        "line": line,
    }


def _fill_target(orientation: str, line: int, width: int, height: int) -> dict[str, int]:
    box = _line_box(orientation, line)
    if orientation == "vertical":
        return {"x": width + FILL_GAP, "y": box["y"], "w": SQUARE, "h": SQUARE}
    return {"x": box["x"], "y": height + FILL_GAP, "w": SQUARE, "h": SQUARE}


def evidence(
    orientation: str, rows: Sequence[str], details: Mapping[str, Any], category: str | None
) -> set[tuple[int, int]]:
    if category == "full_rows":
        return {s for n in details.get("full_rows", []) for s in sm.line_squares(orientation, n)}
    if category == "partial_row" and details.get("counting_row"):  # its squares that count
        line = sm.line_squares(orientation, details["counting_row"])
        return {(r, c) for r, c in line if rows[r][c] in sm.COVERED_CODES}
    if category == "cleared_burrows":
        return {(int(r), int(c)) for r, c in details.get("cleared_burrows", [])}
    return set()


# --- burrow layouts ----------------------------------------------------------------------------

LAYOUT_TOOLS = (
    Tool(sm.OPEN, N_("Burrow"), "#b07a3c", icon="sq-open"),
    Tool(sm.SNOW, N_("No burrow"), SQUARE_FILLS[sm.SNOW], icon="sq-snow"),
)


def example_layout_doc() -> dict[str, Any]:
    return sm.dump_layout(sm.example_layout())


def blank_layout(name: str, start: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if start:
        return {**copy.deepcopy(dict(start)), "name": name}
    return {"name": name, "orientation": "vertical", "rows": list(sm.empty_board("vertical"))}


def layout_tap(data: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    tool = form.get("tool", "")
    if tool not in (sm.OPEN, sm.SNOW):
        raise EditRefused(gettext("Pick Burrow or No burrow first."))
    rows = data["rows"]
    raw = form.get("squares") or f"{form.get('row', '')},{form.get('col', '')}"
    grid = [list(row) for row in rows]
    for row, col in _squares(raw, len(rows), len(rows[0])):
        grid[row][col] = tool
    return {**data, "rows": ["".join(row) for row in grid]}


def layout_problems(data: Mapping[str, Any]) -> list[str]:
    try:
        layout = sm.parse_layout(dict(data))
    except BoardError as err:
        return err.problems
    return sm.layout_warnings(layout)


def _square(r: int, c: int, code: str, burrow: bool, printed: bool, label: str) -> dict[str, Any]:
    """One square as the board's SVG draws it (the game's board and the layout grid)."""
    return {
        "key": (r, c),
        "row": r,
        "col": c,
        "x": c * SQUARE,
        "y": r * SQUARE,
        "code": code,
        "fill": SQUARE_FILLS.get(code, "#eee"),
        "burrow": burrow,
        "printed": printed,
        "label": label,
    }


def _why(orientation: sm.Orientation, details: Mapping[str, Any], solo: bool) -> dict[str, Any]:
    """What the board outlines to explain its score: the full lines, the lines full but not
    counted, the first incomplete line (none in a solo game) and the cleared burrows."""
    lines = {n: _line_box(orientation, n) for n in range(1, sm.LINES + 1)}
    return {
        "full": [lines[n] for n in details.get("full_rows", [])],
        "not_counted": [lines[n] for n in details.get("full_rows_not_counted", [])],
        "counting": None if solo else lines.get(details.get("counting_row") or 0),
        "counting_row": details.get("counting_row"),
        "counting_covered": details.get("counting_row_covered"),
        "cleared": [
            {"x": c * SQUARE + SQUARE - 6.5, "y": r * SQUARE + 6.5}  # a badge's centre
            for r, c in details.get("cleared_burrows", [])
        ],
        "counting_name": details.get("counting", "rows from the bottom"),
        "full_count": len(details.get("full_rows", [])),
        "picnic": details.get("picnic"),
    }


def layout_board(
    data: Mapping[str, Any], doubtful: Set[tuple[int, int]] = frozenset()
) -> dict[str, Any]:
    """The burrow layout grid; ``doubtful`` squares (just read from a photo) are outlined."""
    rows = data["rows"]
    orientation = data.get("orientation", "vertical")
    w = words()
    burrow, none = w.gettext("burrow"), w.gettext("no burrow")
    squares = [
        _square(r, c, code, code == sm.OPEN, False,
                square_label(w, orientation, r, c, burrow if code == sm.OPEN else none))
        for r, line in enumerate(rows)
        for c, code in enumerate(line)
    ]  # fmt: skip
    width, height = len(rows[0]) * SQUARE, len(rows) * SQUARE
    return {
        "squares": squares,
        "view_box": f"-2 -2 {width + 4} {height + 4}",
        "size": SQUARE,
        "marked": set(),
        "doubtful": doubtful,
    }
