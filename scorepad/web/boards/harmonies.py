"""Harmonies editor: side A or B, tokens stacked by taps, cubes, animal cards and the spirit.

A colour tap puts that token on top of the hex's stack through
:func:`scorepad.games.harmonies.place_token`, which refuses illegal stacks with a short
sentence (shown inline, nothing stored). "Remove top" takes the top token off; "Cube" puts a
cube on the hex or takes it away. Animal cards are picked with their point tracks shown, so
players recognise them whatever their edition calls the animal.

The board draws each stack as concentric rings (bottom token outermost, top token in the
middle) and the engine's evidence: the longest river (side A) or the islands (side B),
each scoring tree, mountain and building with its points, and the fields that score.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad.boardfile import BoardError
from scorepad.games import harmonies as hm
from scorepad.hexgrid import Hex, Orientation, column_places
from scorepad.scoring import Result
from scorepad.web import doubts
from scorepad.web.boards import (
    EditRefused,
    Tool,
    int_field,
    place_name,
    tapped_hex,
    unknown_change,
    with_player_copy,
)
from scorepad.web.svg import canvas
from scorepad.web.vocab import N_, NP_, Words, card_name, sentence, words

NAME = "harmonies"
MODULE = "harmonies"
PAPER = False
#: Shown under the photo button: heights show through parallax only, so a photo at an angle
#: reads them best (scorepad.vision.harmonies.STRAIGHT_DOWN).
PHOTO_TIP = N_(
    "Photograph the whole board at an angle, as you see it from your seat: the heights of "
    "the stacks show best that way."
)
MAX_PLAYERS = 4
TOKEN_FILLS = {
    "blue": "#3d8bd9",
    "grey": "#8d8d8d",
    "brown": "#8b5a2b",
    "green": "#3a9a4a",
    "yellow": "#f2cf3a",
    "red": "#d2452f",
}
_TOKEN_LABELS = {
    "blue": NP_("token", "Blue"),
    "grey": NP_("token", "Grey"),
    "brown": NP_("token", "Brown"),
    "green": NP_("token", "Green"),
    "yellow": NP_("token", "Yellow"),
    "red": NP_("token", "Red"),
}
TOOLS = (
    *(
        Tool(
            colour,
            _TOKEN_LABELS[colour][1],
            TOKEN_FILLS[colour],
            icon=f"tok-{colour}",
            context="token",
        )
        for colour in hm.COLOURS
    ),
    Tool("remove", N_("Remove top")),
    Tool("cube", N_("Cube")),
)
#: Not a palette tool: the "other height" button beside a hex a photo left in doubt.
CYCLE = "cycle"
RING_RADII = (23.0, 16.0, 9.0)
#: Each token also shows its glyph (``tok-glyph-<colour>`` in ``templates/_sprites.html``):
#: the top token's in the middle, the tokens below on their ring, so colour is never the
#: only clue. Sizes per stack height, top token first.
GLYPH_SIZES = {1: (26.0,), 2: (20.0, 7.0), 3: (12.0, 6.5, 7.0)}
SPIRITS = tuple(sorted(hm.SPIRIT_CARDS))


def options_context() -> dict[str, Any]:
    return {"sides": ("A", "B")}


def new_table(form: Mapping[str, str], names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    side = form.get("side", "A")
    if side not in ("A", "B"):
        raise EditRefused(gettext("Board side: choose A or B."))
    cells = [{"q": h.q, "r": h.r, "stack": []} for h in hm.board_hexes(side)]
    doc = {
        "game": NAME,
        "options": {"side": side},
        "players": [{"name": n, "cells": copy.deepcopy(cells), "animals": []} for n in names],
    }
    return doc, {}


# --- taps and fields ---------------------------------------------------------------------------


def tap(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> dict[str, Any]:
    tool = form.get("tool", "")
    if tool not in {t.key for t in TOOLS} | {CYCLE}:
        raise EditRefused(gettext("Pick a token colour, Remove top or Cube first."))
    q, r = tapped_hex(form)
    new, sheet = with_player_copy(doc, player)
    cell = next((c for c in sheet["cells"] if (c["q"], c["r"]) == (q, r)), None)
    if cell is None:
        raise EditRefused(gettext("Hex (%(q)s, %(r)s) is not on this board.", q=q, r=r))
    stack = list(cell.get("stack", []))
    if tool == CYCLE:
        cell["stack"] = list(next_stack(stack))
    elif tool == "cube":
        if cell.get("cube"):
            cell.pop("cube")
        elif not stack:  # a cube is placed on the habitat its card shows
            raise EditRefused(gettext("That hex is empty: a cube goes on a token."))
        else:
            cell["cube"] = True
    elif tool == "remove":
        if not stack:
            raise EditRefused(gettext("That hex is empty: there is no token to remove."))
        if cell.get("cube") and len(stack) == 1:  # the engine: "... and this hex is empty"
            raise EditRefused(
                gettext(
                    "A cube lies on that token: take the cube off first (tap it with Cube), "
                    "then remove the token."
                )
            )
        cell["stack"] = stack[:-1]
    else:
        try:
            cell["stack"] = list(hm.place_token(stack, tool))
        except ValueError as err:  # "green cannot go on blue: nothing may lie on blue"
            why = sentence(str(err))
            raise EditRefused(f"{why[:1].upper()}{why[1:]}.") from None
    return new


def next_stack(stack: list[str]) -> tuple[str, ...]:
    """The next legal stack with the same top token (another height, or what is under red):
    one tap cycles through what a photo may have misjudged."""
    if not stack:
        return ()
    same_top = [s for s in hm.LEGAL_STACKS if s[-1] == stack[-1]]
    at = same_top.index(tuple(stack)) if tuple(stack) in same_top else -1
    return same_top[(at + 1) % len(same_top)]


def photo_hints(doc: Mapping[str, Any], player: int) -> dict[str, Any]:
    """The table's board side, so the photo is read as that side, and a whole number of
    turns: every turn places 3 tokens, and a board is scored between turns."""
    return {"side": doc.get("options", {}).get("side"), "whole": True}


def from_photo(
    doc: dict[str, Any], meta: Mapping[str, Any], player: int, found: Mapping[str, Any]
) -> dict[str, Any]:
    """The player's hexes as the photo shows them (cards are kept)."""
    new, board = with_player_copy(doc, player)
    board["cells"] = copy.deepcopy(found["player"]["cells"])
    return new


def set_field(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Animal cards (add, cubes, remove) and the spirit card, one action per request."""
    new, board = with_player_copy(doc, player)
    animals: list[dict[str, int]] = board.setdefault("animals", [])
    action = form.get("action", "")
    actions = ("spirit", "add_animal", "remove_animal", "cubes", "cubes_from_board", "side")
    if action not in actions:
        raise unknown_change(form)  # before the card it would otherwise refuse
    if action == "side":
        return switched_side(doc, form.get("side", "")), meta
    if action == "cubes_from_board":
        for animal, n in zip(animals, cubes_on_board(doc, player), strict=True):
            animal["cubes"] = n
        return new, meta
    if action == "spirit":
        raw = form.get("spirit", "")
        if not raw:
            board.pop("spirit", None)
        else:
            card = int_field(form, "spirit", SPIRITS[0], SPIRITS[-1], gettext("Spirit card"))
            _refuse_held(_spirits_held_elsewhere(doc, player), card, SPIRIT_HELD)
            board["spirit"] = {"card": card, "placed": form.get("placed") == "on"}
        return new, meta
    card = int_field(form, "card", 1, max(hm.ANIMAL_CARDS), gettext("Animal card"))
    if card not in hm.ANIMAL_CARDS:
        raise EditRefused(gettext("Animal card %(card)s does not exist.", card=card))
    held = next((a for a in animals if a["card"] == card), None)
    if action == "add_animal":
        if held is not None:
            raise EditRefused(gettext("Animal card %(card)s is already on this board.", card=card))
        _refuse_held(_cards_held_elsewhere(doc, player), card, ANIMAL_HELD)
        animals.append({"card": card, "cubes": 0})
    elif action == "remove_animal":
        if held is None:
            raise EditRefused(gettext("Animal card %(card)s is not on this board.", card=card))
        animals.remove(held)
    else:  # cubes
        if held is None:
            raise EditRefused(gettext("Animal card %(card)s is not on this board.", card=card))
        track = hm.ANIMAL_CARDS[card].track
        label = gettext("Cubes on card %(card)s", card=card)
        held["cubes"] = int_field(form, "cubes", 0, len(track), label)
    return new, meta


def cubes_on_board(doc: Mapping[str, Any], player: int) -> list[int]:
    """Each of the player's animal cards' cubes as the board shows them: a cube leaves its
    card for a hex where the card's pattern is matched, so the board's cubes are the cards'
    counts. Every card is claimed full and the engine's largest assignment of the board's
    cubes to the cards' patterns (``harmonies_cards.assign_cubes``) counts them, on the
    player's board alone (another's problems are not this one's). A cube two cards could
    take goes to one of them, for the player to move with the card's list; a placed
    spirit's cube (it matches no pattern the engine checks) is one of the board's cubes, so
    when the cards would take every cube one is left to it, from the last card holding any."""
    board = copy.deepcopy(dict(doc["players"][player]))
    animals = board.get("animals", [])
    for held in animals:
        card = hm.ANIMAL_CARDS.get(held["card"])
        held["cubes"] = len(card.track) if card else 0
    try:
        table = hm.parse({**doc, "players": [board]})
        details = hm.score(table).players[0].details
    except BoardError as err:
        raise EditRefused(sentence(err.problems[0])) from None
    assigned = {a["card"]: len(a["assigned_cubes"]) for a in details.get("animals", [])}
    counts = [assigned.get(held["card"], 0) for held in animals]
    spirit = board.get("spirit") or {}
    cubes = sum(bool(c.get("cube")) for c in board.get("cells", []))
    if spirit.get("placed") and counts and sum(counts) >= cubes:
        last = max((i for i, n in enumerate(counts) if n), default=None)
        if last is not None:
            counts[last] -= 1
    return counts


def all_empty(doc: Mapping[str, Any]) -> bool:
    """Whether no board of the table holds anything yet (tokens, cubes, cards, a spirit)."""
    return not any(
        c.get("stack") or c.get("cube") for p in doc["players"] for c in p.get("cells", [])
    ) and not any(p.get("animals") or p.get("spirit") for p in doc["players"])


def rule_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The board side, when it differs between two option sets (undo and redo say it)."""
    a, b = before.get("side", "A"), after.get("side", "A")
    return [] if a == b else [gettext("Board side: %(a)s → %(b)s.", a=a, b=b)]


def switched_side(doc: Mapping[str, Any], side: str) -> dict[str, Any]:
    """The table turned to board side ``side`` while its boards are empty: a table started
    for the wrong side (a photo of the other side is refused by name) need not be started
    again, its names retyped and its seats joined again. Every board at once: all players
    play the same side. With anything on a board, refused (its hexes would not fit)."""
    if side not in ("A", "B"):
        raise EditRefused(gettext("Board side: choose A or B."))
    if not all_empty(doc):
        raise EditRefused(gettext("The board side can be changed only while every board is empty."))
    cells = [{"q": h.q, "r": h.r, "stack": []} for h in hm.board_hexes(side)]
    players = [{**p, "cells": copy.deepcopy(cells)} for p in doc["players"]]
    return {**doc, "options": {**doc.get("options", {}), "side": side}, "players": players}


ANIMAL_HELD = N_(
    "Animal card %(card)s is already in front of %(name)s: the box has one of each card."
)
SPIRIT_HELD = N_(
    "Spirit card %(card)s is already in front of %(name)s: the box has one of each card."
)


def _refuse_held(holders: Mapping[int, str], card: int, message: str) -> None:
    """Refuse a card another player holds (``holders``: card → name): the box has one of
    each card."""
    if card in holders:
        raise EditRefused(gettext(message, card=card, name=holders[card]))


def _spirits_held_elsewhere(doc: Mapping[str, Any], player: int) -> dict[int, str]:
    """Spirit cards in front of the other players: card → holder's name."""
    return {
        p["spirit"]["card"]: p.get("name", "")
        for i, p in enumerate(doc.get("players", []))
        if i != player and isinstance(p.get("spirit"), Mapping)
    }


def _cards_held_elsewhere(doc: Mapping[str, Any], player: int) -> dict[int, str]:
    """Animal cards in front of the other players: card → holder's name."""
    return {
        a["card"]: p.get("name", "")
        for i, p in enumerate(doc.get("players", []))
        if i != player
        for a in p.get("animals", [])
    }


# --- drawing -----------------------------------------------------------------------------------


def card_label(w: Words, card_id: int) -> str:
    card = hm.ANIMAL_CARDS[card_id]
    name = w.term(card_name(card.names[0]))
    return f"#{card_id} {name} · {'-'.join(str(t) for t in card.track)}"


def board(
    doc: dict[str, Any],
    meta: dict[str, Any],
    player: int,
    result: Result | None,
    highlight: str | None = None,
) -> dict[str, Any]:
    sheet = doc["players"][player]
    hexes = [Hex(c["q"], c["r"]) for c in sheet["cells"]]
    cv = canvas(hexes, Orientation.FLAT)
    places = column_places(hexes)
    w = words()
    cells: list[dict[str, Any]] = []
    for c in sheet["cells"]:
        h = Hex(c["q"], c["r"])
        x, y = cv.center(h)
        stack = c.get("stack", [])
        rings = [
            {"r": RING_RADII[i] if len(stack) > 1 else 20.0, "fill": TOKEN_FILLS.get(t, "#ccc")}
            for i, t in enumerate(stack[:3])
        ]
        glyphs = _glyphs(stack[:3], x, y)
        cells.append(
            {
                "q": h.q,
                "r": h.r,
                "x": x,
                "y": y,
                "points": cv.points(h),
                "rings": rings,
                "glyphs": glyphs,
                "cube": bool(c.get("cube")),
                "stack": "-".join(stack),
                "label": _cell_label(w, place_name(w, places, h), stack, bool(c.get("cube"))),
            }
        )
    details = result.players[player].details if result else {}
    why = explain(cv, details)
    animals = [
        {
            "card": a["card"],
            "cubes": a["cubes"],
            "label": card_label(w, a["card"]),
            "track": hm.ANIMAL_CARDS[a["card"]].track,
        }
        for a in sheet.get("animals", [])
    ]
    held = {a["card"] for a in animals} | set(_cards_held_elsewhere(doc, player))
    spirits_held = _spirits_held_elsewhere(doc, player)
    labels = {(c["q"], c["r"]): c["label"] for c in cells}  # the list of cells to check
    notes = _score_notes(w, details)  # after the list of cells to check: for screen readers
    for c in cells:
        c["label"] += notes.get((c["q"], c["r"]), "")
    doubtful = doubts.flagged(meta, player)
    return {
        "side_choice": (doc.get("options") or {}).get("side", "A") if all_empty(doc) else None,
        "doubtful": doubtful,
        "doubts": doubts.listed(meta, player, labels),
        "cycle": CYCLE,
        "canvas": cv,
        "cells": sorted(cells, key=lambda c: (c["q"], c["r"]) in doubtful),  # doubted on top
        "why": why,
        "marked": evidence(details, highlight),
        "sheet": sheet,
        "side": doc.get("options", {}).get("side", "A"),
        "animals": animals,
        "catalogue": [
            (cid, card_label(w, cid)) for cid in sorted(hm.ANIMAL_CARDS) if cid not in held
        ],
        "spirits": [
            (cid, w.term(hm.SPIRIT_CARDS[cid])) for cid in SPIRITS if cid not in spirits_held
        ],
        "spirit": sheet.get("spirit"),
        "suns": solo_suns(details.get("suns"), result.players[player].total if result else 0),
    }


def solo_suns(suns: Mapping[str, int] | None, total: int) -> dict[str, Any] | None:
    """A solo game's suns (``details.suns``) and what earned them, in the player's words:
    the score's band, side A, the spirit (rules digest, Harmonies solo)."""
    if not suns:
        return None
    floors = [floor for floor, _ in hm.SUN_BANDS]
    reached = [floor for floor in floors if total >= floor]
    if not reached:
        parts = [gettext("none for a score below %(low)s", low=floors[-1])]
    elif reached[0] == floors[0]:
        parts = [gettext("%(n)s for %(low)s points or more", n=suns["from_score"], low=floors[0])]
    else:
        low = reached[0]
        high = floors[floors.index(low) - 1] - 1
        parts = [
            gettext("%(n)s for %(low)s–%(high)s points", n=suns["from_score"], low=low, high=high)
        ]
    if suns["side_bonus"]:
        parts.append(gettext("+1 for side A"))
    if suns["spirit_bonus"] == 2:
        parts.append(gettext("+2 for playing without a spirit"))
    elif suns["spirit_bonus"] == 1:
        parts.append(gettext("+1 for the spirit played"))
    return {"suns": suns["suns"], "why": ", ".join(parts)}


def _glyphs(stack: list[str], x: float, y: float) -> list[dict[str, Any]]:
    """Where each token's glyph goes: the top one centred, each one below on its own ring."""
    n = len(stack)
    found = []
    for i, colour in enumerate(stack):
        size = GLYPH_SIZES[n][n - 1 - i]
        gy = y if i == n - 1 else y - (RING_RADII[i] + RING_RADII[i + 1]) / 2
        found.append(
            {
                "href": f"tok-glyph-{colour}",
                "x": round(x - size / 2, 1),
                "y": round(gy - size / 2, 1),
                "size": size,
            }
        )
    return found


def _cell_label(w: Words, place: str, stack: list[str], cube: bool) -> str:
    """What a screen reader says for a hex: where (``place``), its stack bottom to top (said
    so when it has more than one token), and the cube."""
    tokens = "-".join(w.term(t, "token") for t in stack)
    if len(stack) > 1:
        label = w.gettext("%(place)s: %(stack)s, from the bottom up", place=place, stack=tokens)
    elif stack:
        label = w.gettext("%(place)s: %(stack)s", place=place, stack=tokens)
    else:
        label = w.gettext("%(place)s: empty", place=place)
    return label + w.gettext(", cube") if cube else label


def _at(cv: Any, hx: list[int]) -> tuple[float, float]:
    x, y = cv.center(Hex(hx[0], hx[1]))
    return x, y


def _score_notes(w: Words, details: Mapping[str, Any]) -> dict[tuple[int, int], str]:
    """What the explanation layer draws on a hex (hidden from screen readers: its bare
    numbers mean nothing read alone), said in the hex's name instead: the points of a tree,
    mountain or building, and the island a hex belongs to (side B)."""
    notes: dict[tuple[int, int], str] = {}
    for key in ("trees", "mountains", "buildings"):
        for item in details.get(key, []):
            points = item["points"]
            notes[tuple(item["hex"])] = w.ngettext("; %(num)d point", "; %(num)d points", points)
    for n, island in enumerate(details.get("islands", []), start=1):
        for q, r in island["hexes"]:
            notes[(q, r)] = notes.get((q, r), "") + w.gettext("; island I%(n)s", n=n)
    return notes


def explain(cv: Any, details: Mapping[str, Any]) -> dict[str, Any]:
    """Numbers and lines over the board from the engine's evidence."""
    labels = []
    for key, kind in (("trees", "tree"), ("mountains", "mountain"), ("buildings", "building")):
        for item in details.get(key, []):
            x, y = _at(cv, item["hex"])
            labels.append({"x": x, "y": y, "points": item["points"], "kind": kind})
    fields: list[str] = []
    for group in details.get("fields", []):
        if group["points"]:
            fields.extend(cv.points(Hex(*h)) for h in group["hexes"])
    river = details.get("longest_river") or {}
    path = " ".join("{},{}".format(*_at(cv, h)) for h in river.get("path", []))
    islands = [
        {"x": _at(cv, g["hexes"][0])[0], "y": _at(cv, g["hexes"][0])[1], "n": i + 1}
        for i, g in enumerate(details.get("islands", []))
    ]
    # Which card each cube scores for (the engine's assignment of cubes to cards).
    cube_cards = {
        tuple(h): a["card"] for a in details.get("animals", []) for h in a["assigned_cubes"]
    }
    return {
        "cube_cards": cube_cards,
        "labels": labels,
        "fields": fields,
        "river": path,
        "river_length": river.get("length"),
        "river_points": river.get("points"),
        "islands": islands,
        "animals": details.get("animals", []),
        "spirit": details.get("spirit"),
    }


def evidence(details: Mapping[str, Any], category: str | None) -> set[tuple[int, int]]:
    def hexes(items: Any) -> set[tuple[int, int]]:
        return {(int(h[0]), int(h[1])) for h in items}

    if category in ("trees", "mountains", "buildings"):
        return hexes(i["hex"] for i in details.get(category, []) if i["points"])
    if category == "fields":
        return hexes(h for g in details.get("fields", []) if g["points"] for h in g["hexes"])
    if category == "water":
        river = details.get("longest_river") or {}
        return hexes(river.get("path", [])) | hexes(
            h for g in details.get("islands", []) for h in g["hexes"]
        )
    if category == "animals":
        return hexes(h for a in details.get("animals", []) for h in a["assigned_cubes"])
    if category == "spirit":  # the stacks or groups the spirit's effect paid for
        spirit = details.get("spirit") or {}
        counted = (
            [i for i in spirit.get("counted", []) if i["points"]] if spirit.get("placed") else []
        )
        return hexes(h for i in counted for h in ([i["hex"]] if "hex" in i else i["hexes"]))
    return set()
