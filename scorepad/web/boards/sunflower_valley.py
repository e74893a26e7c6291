"""Sunflower Valley editor: the sheet from its layout, a palette of drawings, and the why.

A tap puts the selected drawing in a hex (``sunflower_valley`` validates the result);
tapping a rail with the same rail tool again turns it through that kind's legal
orientations in :data:`scorepad.games.sunflower_valley.RAIL_ORIENTATIONS` order. The board
draws the engine's evidence: a line from each sheep to its paired house, unpaired houses
ringed, each mountain's points, and the areas this player took.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Set
from typing import Any

from flask_babel import gettext, ngettext  # type: ignore[import-untyped]
from markupsafe import Markup, escape

from scorepad.boardfile import BoardError
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import (
    FLAT_NAMES,
    Hex,
    Orientation,
    column_places,
    neighbor,
    oddq_to_axial,
    opposite,
    side_gap,
)
from scorepad.render.palette import AREA_FILLS, MOUNTAIN_FILL, area_fills
from scorepad.scoring import Result
from scorepad.web import db, doubts
from scorepad.web.boards import (
    EditRefused,
    Tool,
    cell_name,
    int_field,
    place_name,
    tapped_hex,
    unknown_change,
    with_player_copy,
)
from scorepad.web.svg import canvas
from scorepad.web.vocab import EXAMPLE_SHEET, N_, NP_, Words, joined, sentence, term, words

NAME = sv.NAME
MODULE = "sunflower_valley"
PAPER = True
#: Shown under the photo button (docs/vision.md, "Limits").
PHOTO_TIP = N_("Photograph the whole sheet, flat, on a table darker than the paper.")
MAX_PLAYERS = sv.MAX_PLAYERS
TOOLS = (
    Tool("house", N_("House")),
    Tool("sheep", N_("Sheep")),
    Tool("sunflower", N_("Sunflower")),
    Tool("super-sunflower", N_("Super sunflower")),
    Tool("straight", N_("Straight rail")),
    Tool("curve", N_("Curved rail")),
    Tool("eraser", N_("Eraser")),
)
ITEMS = {"house", "sheep", "sunflower", "super-sunflower"}
STRAIGHTS = tuple(s for s in sv.RAIL_ORIENTATIONS if side_gap(*s) == 3)
CURVES = tuple(s for s in sv.RAIL_ORIENTATIONS if side_gap(*s) != 3)
EXAMPLE = "example"
EXPRESS_SIZES = range(2, 7)

#: Every area also has a pattern (``templates/_sprites.html``), so no area is told apart by
#: its colour alone; names that are not colour words take the patterns in turn.
AREA_PATTERNS = {
    name: f"pat-{name}"
    for name in ("blue", "green", "orange", "red", "purple", "yellow", "pink", "brown", "grey")
} | {"gray": "pat-grey"}
FALLBACK_PATTERNS = tuple(AREA_PATTERNS.values())[:9]


# --- new table ---------------------------------------------------------------------------------


def layout_choices() -> list[tuple[str, str]]:
    """(value, label) of every sheet layout a new table can use, the bundled example first."""
    choices = [(EXAMPLE, EXAMPLE_SHEET)]
    choices += [(f"db:{lay.id}", lay.name) for lay in db.list_layouts(NAME)]
    return choices


def load_layout(choice: str) -> dict[str, Any]:
    if choice == EXAMPLE:
        return sv.example_layout()
    if choice.startswith("db:"):
        try:
            return db.get_layout(choice[3:], NAME).data
        except db.NotFound:
            pass
    raise EditRefused(gettext("Choose one of the listed sheet layouts."))


def options_context() -> dict[str, Any]:
    return {
        "layouts": layout_choices(),
        "express": [(n, n * n) for n in EXPRESS_SIZES],
    }


def new_table(form: Mapping[str, str], names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    layout = load_layout(form.get("layout", EXAMPLE))
    problems = layout_errors(layout)
    if problems:
        raise EditRefused(
            gettext(
                "The layout “%(name)s” is not usable yet: %(why)s",
                name=layout.get("name"),
                why=sentence(problems[0]),
            )
        )
    doc = {
        "game": NAME,
        "options": table_rules(form),
        "players": [{"name": name, "cells": sv.blank_sheet(layout)} for name in names],
    }
    return doc, {"layout": layout["name"]}


# --- taps and fields ---------------------------------------------------------------------------


def tap(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> dict[str, Any]:
    tool = form.get("tool", "")
    if tool not in {t.key for t in TOOLS}:
        raise EditRefused(gettext("Pick a drawing from the palette first."))
    q, r = tapped_hex(form)
    new, sheet = with_player_copy(doc, player)
    cell = next((c for c in sheet["cells"] if (c["q"], c["r"]) == (q, r)), None)
    if cell is None:
        raise EditRefused(gettext("Hex (%(q)s, %(r)s) is not on this sheet.", q=q, r=r))
    if cell.get("mountain"):
        raise EditRefused(gettext("That hex is a mountain: nothing can be drawn on it."))
    cell.pop("sides", None)
    if tool == "eraser":
        cell.pop("item", None)
    elif tool in ITEMS:
        cell["item"] = tool
    else:
        cell["sides"] = list(_next_track(doc, player, (q, r), tool))
        cell["item"] = "rail"
    return new


def _next_track(
    doc: dict[str, Any], player: int, at: tuple[int, int], tool: str
) -> tuple[int, int]:
    """The next track of the tool's kind when the hex already has one (a tap turns it);
    else the one of that kind that goes on from the most neighbouring rails (a track's end
    on a side where the neighbour's track ends too), the first of the kind on a tie: a
    railway drawn hex after hex takes one tap a hex, where one down a column of flat-top
    hexes took three each (north-south is the third straight)."""
    kind = STRAIGHTS if tool == "straight" else CURVES
    cells = {(c["q"], c["r"]): c for c in doc["players"][player]["cells"]}
    old = cells[at]
    sides = tuple(old.get("sides") or ())
    if old.get("item") == "rail" and sides in kind:
        return kind[(kind.index(sides) + 1) % len(kind)]
    here = Hex(*at)

    def joined(side: int) -> bool:
        step = neighbor(here, side)
        there = cells.get((step.q, step.r))
        return bool(there and there.get("item") == "rail" and opposite(side) in there["sides"])

    return max(kind, key=lambda track: sum(joined(side) for side in track))


def table_rules(
    form: Mapping[str, str], current: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The table's options from a form: the variant and the Valley Express table (the
    new-table form's, or the editor's "Table rules" once the table is started, with the
    ``current`` table)."""
    variant = form.get("variant", "standard")
    if variant not in ("standard", "kids"):
        raise EditRefused(gettext("Variant: choose standard or kids."))
    express = {
        str(n): int_field(
            form,
            f"express_{n}",
            0,
            999,
            gettext("Valley Express, %(n)s settlements", n=n),
            current=(current or {}).get(str(n)),
        )
        for n in EXPRESS_SIZES
    }
    return {"variant": variant, "valley_express": express}


def set_field(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The residents tally written on the paper sheet (blank: not given), or the table's
    rules (variant, Valley Express table: the host's, like every shared option)."""
    if form.get("action") == "table_rules":
        options = dict(doc.get("options") or {})
        rule_fields = {"variant", *(f"express_{n}" for n in EXPRESS_SIZES)}
        changed = form.get("changed")
        if changed in rule_fields:
            # The form sends every rule; "changed" (static/live.js) names the one the host
            # changed, and only it is read: another box still holding a refused value
            # ("2.5") would refuse this change with its message. The others are the rules
            # as the editor shows them.
            shown = rules_context(options)
            form = {
                "variant": shown["variant"],
                **{f"express_{n}": str(points) for n, points in shown["express"]},
                changed: form.get(changed, ""),
            }
        rules = table_rules(form, options.get("valley_express"))
        # Sizes the form does not list (an imported table's) are kept.
        rules["valley_express"] = {
            **(options.get("valley_express") or {}),
            **rules["valley_express"],
        }
        return {**doc, "options": {**options, **rules}}, meta
    if form.get("action"):
        raise unknown_change(form)
    new, sheet = with_player_copy(doc, player)
    if "residents" in form:
        if not form["residents"].strip():
            sheet.pop("residents", None)
        else:
            sheet["residents"] = int_field(
                form, "residents", 0, 999, gettext("Residents tally"), sheet.get("residents")
            )
    return new, meta


# --- photos ------------------------------------------------------------------------------------


def photo_hints(doc: Mapping[str, Any], player: int) -> dict[str, Any]:
    """The sheet's own layout (areas and mountains), so the photo is read onto it."""
    cells = sv.blank_sheet(doc["players"][player])  # the sheet with its drawings left out
    return {"layout": {"name": "this table's sheet", "cells": cells}}


def from_photo(
    doc: dict[str, Any], meta: Mapping[str, Any], player: int, found: Mapping[str, Any]
) -> dict[str, Any]:
    """The player's sheet as the photo shows it, its residents tally too when the photo's
    was read (else the one typed in is kept)."""
    new, sheet = with_player_copy(doc, player)
    sheet["cells"] = copy.deepcopy(found["player"]["cells"])
    if "residents" in found["player"]:
        sheet["residents"] = found["player"]["residents"]
    return new


def photo_note(
    before: Mapping[str, Any], after: sv.Table, player: int, found: Mapping[str, Any]
) -> tuple[str, bool]:
    """What the photo made of the sheet's residents tally, for the message after it, and
    whether that is a warning: the ticks read (and the value typed in that they replaced),
    or that the tally could not be read; a warning when the drawing as read gives another
    number (rules digest, "Residents": 2 per house + 1 per super sunflower), as the tally
    is what players check the drawing against. ``before`` is the board file the photo
    changed, ``after`` the table it made (as the edit parsed it)."""
    read = found["player"].get("residents")
    if read is None:
        if found.get("sheet_doubted"):
            return "", False
        return gettext(
            "The residents tally could not be read from the photo; type it in the residents "
            "box to have it checked against the drawing."
        ), False
    said = [
        ngettext(
            "The residents tally reads %(num)d tick.",
            "The residents tally reads %(num)d ticks.",
            read,
        )
    ]
    typed = before["players"][player].get("residents")
    if typed is not None and typed != read:
        said.append(gettext("It replaces the %(n)s typed in (Undo brings it back).", n=typed))
    drawn = sv.Tallies.of(after.players[player]).residents
    if drawn != read:
        said.append(
            ngettext(
                "The drawing gives %(num)d resident: count the ticks on the paper, then "
                "correct the residents box or the drawing.",
                "The drawing gives %(num)d residents: count the ticks on the paper, then "
                "correct the residents box or the drawing.",
                drawn,
            )
        )
    return " ".join(said), drawn != read


# --- drawing -----------------------------------------------------------------------------------


def area_patterns(doc: Mapping[str, Any]) -> dict[str, str]:
    """The pattern id of every area: its colour's, or the next one not yet used."""
    names = sorted({c["area"] for p in doc["players"] for c in p["cells"] if c.get("area")})
    patterns = {
        name: AREA_PATTERNS[name.lower()] for name in names if name.lower() in AREA_PATTERNS
    }
    spare = (p for p in FALLBACK_PATTERNS * 4 if p not in patterns.values())
    for name in names:
        if name not in patterns:
            patterns[name] = next(spare, FALLBACK_PATTERNS[0])
    return patterns


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
    fills = area_fills(doc)
    patterns = area_patterns(doc)
    places = column_places(hexes)
    w = words()
    cells = []
    for c in sheet["cells"]:
        h = Hex(c["q"], c["r"])
        cx, cy = cv.center(h)
        cells.append(
            {
                "q": h.q,
                "r": h.r,
                "points": cv.points(h),
                "x": cx,
                "y": cy,
                "fill": MOUNTAIN_FILL
                if c.get("mountain")
                else fills.get(c.get("area", ""), "#eee"),
                "pattern": "" if c.get("mountain") else patterns.get(c.get("area", ""), ""),
                "mountain": bool(c.get("mountain")),
                "area": c.get("area"),
                "item": c.get("item"),
                "track": cv.track(h, *c["sides"]) if c.get("item") == "rail" else None,
                "label": _cell_label(w, c, place_name(w, places, h)),
            }
        )
    details = result.players[player].details if result else {}
    why = explain(cv, sheet, details)
    labels = {(c["q"], c["r"]): c["label"] for c in cells}  # the list of cells to check
    notes = _score_notes(w, details, lambda h: place_name(w, places, h))
    for c in cells:
        c["label"] += notes.get((c["q"], c["r"]), "")
    marked = evidence(why, highlight)
    doubtful = doubts.flagged(meta, player)
    why["rivals"] = area_rivals(result.extra.get("areas", {}) if result else {}, sheet["name"])
    return {
        "doubts": doubts.listed(meta, player, labels),
        "canvas": cv,
        "cells": cells,
        "why": why,
        "fills": fills,
        "patterns": patterns,
        "marked": marked,
        "sheet": sheet,
        "render_cells": lambda tappable: render_cells(cells, marked, tappable, doubtful),
        "rules": rules_context(doc.get("options") or {}),
    }


def area_rivals(majorities: Mapping[str, Any], name: str) -> dict[str, str]:
    """What settles each area this player did not take (rule C, across the table): who
    takes it with how many sunflowers, or the tie at the top that gives it to nobody; a
    sheet checked alone does not show the others' counts."""
    rivals = {}
    for area, found in majorities.items():
        counts = found["counts"]
        top = max(counts.values(), default=0)
        if found["winner"] == name or len(counts) < 2 or not top:
            continue
        if found["winner"]:
            rivals[area] = gettext("%(name)s %(n)s", name=found["winner"], n=top)
        else:
            leaders = [p for p, n in counts.items() if n == top]
            rivals[area] = gettext("%(names)s tied at %(n)s: nobody", names=joined(leaders), n=top)
    return rivals


def rules_context(options: Mapping[str, Any]) -> dict[str, Any]:
    """The table's rules as the editor shows them: the variant and the Valley Express
    points of each group size as the engine scores them (``sv.express_points``: an
    imported table's missing size takes the largest entry below it, no table n → n²)."""
    try:
        parsed = sv.Options.model_validate(dict(options))
    except ValueError:  # the engine names the problem above the board
        parsed = sv.Options()
    return {
        "variant": parsed.variant,
        "express": [(n, sv.express_points(parsed, n)) for n in EXPRESS_SIZES],
    }


def rule_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The table's rules that differ between two option sets, as they score (undo and redo
    say them): each Valley Express size, then the variant."""
    old, new = rules_context(before), rules_context(after)
    said = [
        gettext("Valley Express, %(n)s settlements: %(a)s → %(b)s.", n=n, a=a, b=b)
        for (n, a), (_n, b) in zip(old["express"], new["express"], strict=True)
        if a != b
    ]
    if old["variant"] != new["variant"]:
        names = {"kids": gettext("Kids"), "standard": gettext("Standard")}
        said.append(
            gettext("Variant: %(a)s → %(b)s.", a=names[old["variant"]], b=names[new["variant"]])
        )
    return said


def _score_notes(
    w: Words, details: Mapping[str, Any], place: Callable[[Hex], str]
) -> dict[tuple[int, int], str]:
    """What the explanation layer draws on a hex (hidden from screen readers: its bare
    numbers and lines mean nothing read alone), said in the hex's name instead: which house
    a sheep is paired with and how, a house without sheep's -5, a mountain's points (rules
    digest A, B and D)."""
    notes: dict[tuple[int, int], str] = {}
    for pair in details.get("pairs", []):
        house, sheep, via = Hex(*pair["house"]), Hex(*pair["sheep"]), w.term(pair.get("via", ""))
        if pair.get("gate") and Hex(*pair["gate"]) != house:
            gate = place(Hex(*pair["gate"]))
            via = w.gettext("%(via)s, by the house at %(gate)s", via=via, gate=gate)
        notes[sheep] = w.gettext(
            "; paired with the house at %(place)s (%(via)s)", place=place(house), via=via
        )
        notes[house] = w.gettext(
            "; paired with the sheep at %(place)s (%(via)s)", place=place(sheep), via=via
        )
    for q, r in details.get("unpaired_houses", []):
        notes[(q, r)] = w.gettext("; no sheep: −5")
    for m in details.get("mountains", []):
        notes[tuple(m["hex"])] = w.ngettext("; %(num)d point", "; %(num)d points", m["points"])
    return notes


def render_cells(
    cells: list[dict[str, Any]],
    marked: set[tuple[int, int]],
    tappable: bool,
    doubtful: Set[tuple[int, int]] = frozenset(),
) -> Markup:
    """The sheet's hexes as SVG, built here rather than in Jinja: a tap re-renders them all."""
    out = []
    for c in sorted(cells, key=lambda c: (c["q"], c["r"]) in doubtful):  # doubted on top
        q, r, x, y = c["q"], c["r"], c["x"], c["y"]
        classes = "cell" + (" mountain" if c["mountain"] else "")
        classes += " marked" if (q, r) in marked else ""
        classes += " doubt" if (q, r) in doubtful else ""
        tap = ' data-tap role="button" tabindex="0"' if tappable else ' role="img"'
        item = "mountain" if c["mountain"] else (c["item"] or "")
        pattern = (
            f'<polygon class="pat" points="{c["points"]}" fill="url(#{escape(c["pattern"])})"/>'
            if c["pattern"]
            else ""
        )
        if c["mountain"]:
            glyph = (
                f'<use href="#g-mountain" x="{x - 14:.1f}" y="{y - 14:.1f}" '
                'width="28" height="28"/>'
            )
        elif c["item"] == "rail":
            glyph = (
                f'<path d="{c["track"]}" fill="none" stroke="#8a5a2b" stroke-width="9" '
                f'stroke-dasharray="3 4"/><path d="{c["track"]}" fill="none" stroke="#333" '
                'stroke-width="3.5"/>'
            )
        elif c["item"]:
            glyph = (
                f'<use href="#g-{escape(c["item"])}" x="{x - 16:.1f}" y="{y - 16:.1f}" '
                'width="32" height="32"/>'
            )
        else:
            glyph = ""
        out.append(
            f'<g class="{classes}" data-q="{q}" data-r="{r}"{tap} data-item="{escape(item)}" '
            f'aria-label="{escape(cell_name(c["label"], (q, r) in marked, (q, r) in doubtful))}">'
            f'<polygon points="{c["points"]}" fill="{escape(c["fill"])}"/>{pattern}{glyph}</g>'
        )
    return Markup("".join(out))


#: The compass names of a flat-top hex's sides (the editor draws every sheet flat-top,
#: north up), for a screen reader: a rail "from north-west to south" rather than the board
#: file's side numbers.
_COMPASS = {"N": N_("north"), "NE": N_("north-east"), "SE": N_("south-east"),
            "S": N_("south"), "SW": N_("south-west"), "NW": N_("north-west")}  # fmt: skip


def _side_word(w: Words, side: int) -> str:
    return w.gettext(_COMPASS[FLAT_NAMES[side]])


def _cell_label(w: Words, c: Mapping[str, Any], place: str) -> str:
    """What a screen reader says for a hex: where (``place``), its area, what is drawn on it."""
    if c.get("mountain"):
        return w.gettext("%(place)s: mountain", place=place)
    item = c.get("item")
    area = w.term(c.get("area"), "area")
    if item == "rail":
        return w.gettext(
            "%(place)s, %(area)s: rail from %(a)s to %(b)s",
            place=place,
            area=area,
            a=_side_word(w, c["sides"][0]),
            b=_side_word(w, c["sides"][1]),
        )
    what = w.term(item) if item else w.gettext("empty")
    return w.gettext("%(place)s, %(area)s: %(what)s", place=place, area=area, what=what)


def explain(cv: Any, sheet: Mapping[str, Any], details: Mapping[str, Any]) -> dict[str, Any]:
    """Lines, rings and numbers to draw over the sheet from the engine's ``details``."""
    pairs = []
    for p in details.get("pairs", []):
        route = " ".join("{:.1f},{:.1f}".format(*cv.center(Hex(*h))) for h in sv.pair_route(p))
        hx, hy = cv.center(Hex(*p["house"]))
        pairs.append({"route": route, "via": p.get("via", ""), "x": hx, "y": hy})
    unpaired = [
        dict(zip(("x", "y"), cv.center(Hex(*h)), strict=True))
        for h in details.get("unpaired_houses", [])
    ]
    mountains = []
    for m in details.get("mountains", []):
        x, y = cv.center(Hex(*m["hex"]))
        mountains.append({"x": x, "y": y, "points": m["points"], "hex": m["hex"]})
    areas = details.get("areas", {})
    taken = {name for name, a in areas.items() if a.get("taken")}
    taken_cells = [cv.points(Hex(c["q"], c["r"])) for c in sheet["cells"] if c.get("area") in taken]
    drawn = [(c["q"], c["r"], c.get("item"), c.get("area")) for c in sheet["cells"]]
    # Railway runs: those of two or more hexes join settlements for the Valley Express
    # (rules digest F); a one-hex link only carries sheep to a linked settlement (A).
    express_runs = [
        " ".join("{:.1f},{:.1f}".format(*cv.center(Hex(*h))) for h in run)
        for g in details.get("valley_express", [])
        for run in g.get("runs", [])
    ]
    short_links = [
        dict(zip(("x", "y"), cv.center(Hex(*link["run"][0])), strict=True))
        for link in details.get("links", [])
        if len(link["run"]) == 1
    ]
    loose_ends = [
        dict(zip(("x", "y"), cv.side_point(Hex(q, r), side), strict=True))
        for q, r, side in details.get("loose_ends", [])
    ]
    return {
        "loose_ends": loose_ends,
        "express_runs": express_runs,
        "short_links": short_links,
        "taken_sunflowers": [
            [q, r] for q, r, item, area in drawn if item in sv.SUNFLOWERS and area in taken
        ],
        "resident_hexes": [
            [q, r] for q, r, item, _ in drawn if item in ("house", "super-sunflower")
        ],
        "pairs": pairs,
        "unpaired": unpaired,
        "mountains": mountains,
        "areas": areas,
        "taken": sorted(taken),
        "taken_cells": taken_cells,
        "residents": details.get("residents", {}),
        "express": details.get("valley_express", []),
        "settlements": details.get("settlements", []),
        "houses": [p["house"] for p in details.get("pairs", [])],
        "sheep": [p["sheep"] for p in details.get("pairs", [])],
        "unpaired_hexes": details.get("unpaired_houses", []),
        "mountain_hexes": [m["hex"] for m in details.get("mountains", []) if m["points"]],
        "mountain_sunflowers": [
            s for m in details.get("mountains", []) for s in m.get("sunflowers", [])
        ],
    }


def evidence(why: Mapping[str, Any], category: str | None) -> set[tuple[int, int]]:
    """The hexes that explain one category, for "check a paper sheet"."""

    def hexes(items: Any) -> set[tuple[int, int]]:
        return {(int(h[0]), int(h[1])) for h in items}

    if category == "houses_with_sheep":
        return hexes(why["houses"]) | hexes(why["sheep"])
    if category == "houses_without_sheep":
        return hexes(why["unpaired_hexes"])
    if category == "mountains":
        return hexes(why["mountain_hexes"]) | hexes(why["mountain_sunflowers"])
    if category == "residents":
        return hexes(why["resident_hexes"])
    if category == "valley_express":  # the points go by settlements linked: show them too
        return hexes(
            h
            for g in why["express"]
            for part in ("runs", "settlements")
            for hs in g[part]
            for h in hs
        )
    if category == "sunflower_majority":
        return hexes(why["taken_sunflowers"])
    return set()


# --- layouts -----------------------------------------------------------------------------------

AREA_NAMES = ("blue", "green", "orange", "red", "purple")
#: The other colours a printed sheet may use: a layout read from a photo names its areas
#: by their printed colour (``vision.cells.COLOUR_WORDS``), and each must be paintable to
#: correct a hex (a pink area could only be painted over in one of the five before).
MORE_AREA_NAMES = ("yellow", "pink", "brown", "grey")
_AREA_LABELS = (
    NP_("area", "Blue"),
    NP_("area", "Green"),
    NP_("area", "Orange"),
    NP_("area", "Red"),
    NP_("area", "Purple"),
    NP_("area", "Yellow"),
    NP_("area", "Pink"),
    NP_("area", "Brown"),
    NP_("area", "Grey"),
)
LAYOUT_TOOLS = (
    *(
        Tool(name, label, AREA_FILLS[name], icon=f"area-{name}", context=context)
        for name, (context, label) in zip(AREA_NAMES + MORE_AREA_NAMES, _AREA_LABELS, strict=True)
    ),
    Tool("mountain", N_("Mountain")),
    Tool("eraser", N_("Remove hex")),
)
#: The empty canvas a layout is painted on: 7 printed columns of 6 hexes (odd-q).
CANVAS = tuple(oddq_to_axial(col, row) for col in range(7) for row in range(6))
AREA_SIZE = 5
MOUNTAINS = 5


def example_layout_doc() -> dict[str, Any]:
    return sv.example_layout()


def blank_layout(name: str, start: Mapping[str, Any] | None = None) -> dict[str, Any]:
    cells = copy.deepcopy(list(start["cells"])) if start else []
    return {"name": name, "cells": cells}


def layout_tap(data: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    tool = form.get("tool", "")
    if tool not in {t.key for t in LAYOUT_TOOLS}:
        raise EditRefused(gettext("Pick an area colour, a mountain or the eraser first."))
    h = Hex(*tapped_hex(form))
    cells = [c for c in data["cells"] if (c["q"], c["r"]) != tuple(h)]
    if h not in CANVAS and len(cells) == len(data["cells"]):
        raise EditRefused(gettext("Hex (%(q)s, %(r)s) is outside the canvas.", q=h.q, r=h.r))
    if tool == "mountain":
        cells.append({"q": h.q, "r": h.r, "mountain": True})
    elif tool != "eraser":
        cells.append({"q": h.q, "r": h.r, "area": tool})
    cells.sort(key=lambda c: (c["q"], c["r"]))
    return {**data, "cells": cells}


def layout_errors(data: Mapping[str, Any]) -> list[str]:
    """The engine's problems with a layout document (a table cannot use it)."""
    try:
        sv.parse_layout(dict(data))
    except BoardError as err:
        return err.problems
    return []


def layout_problems(data: Mapping[str, Any]) -> list[str]:
    """The engine's problems with the layout, then counts that differ from a printed sheet."""
    if not data.get("cells"):  # a new layout: the engine's words would be a board file's
        return [
            gettext(
                "Nothing painted yet: paint %(areas)s colour areas of %(size)s hexes and "
                "%(mountains)s mountains.",
                areas=len(AREA_NAMES),
                size=AREA_SIZE,
                mountains=MOUNTAINS,
            )
        ]
    errors = layout_errors(data)
    if errors:
        return errors
    counts: dict[str, int] = {}
    for c in data["cells"]:
        key = "mountain" if c.get("mountain") else c["area"]
        counts[key] = counts.get(key, 0) + 1
    notes = []
    areas = {k: n for k, n in counts.items() if k != "mountain"}
    if len(areas) != len(AREA_NAMES):
        notes.append(
            ngettext(
                "%(num)d colour area painted; a printed sheet has %(want)s",
                "%(num)d colour areas painted; a printed sheet has %(want)s",
                len(areas),
                want=len(AREA_NAMES),
            )
        )
    notes += [
        ngettext(
            "area %(area)s has %(num)d hex; a printed sheet has %(want)s in each area",
            "area %(area)s has %(num)d hexes; a printed sheet has %(want)s in each area",
            n,
            area=term(k, "area"),
            want=AREA_SIZE,
        )
        for k, n in sorted(areas.items())
        if n != AREA_SIZE
    ]
    if counts.get("mountain", 0) != MOUNTAINS:
        notes.append(
            ngettext(
                "%(num)d mountain painted; a printed sheet has %(want)s",
                "%(num)d mountains painted; a printed sheet has %(want)s",
                counts.get("mountain", 0),
                want=MOUNTAINS,
            )
        )
    return [str(n) for n in notes]


def layout_board(
    data: Mapping[str, Any], doubtful: Set[tuple[int, int]] = frozenset()
) -> dict[str, Any]:
    """The layout canvas; ``doubtful`` hexes (just read from a photo) are outlined."""
    painted = {(c["q"], c["r"]): c for c in data["cells"]}
    hexes = sorted(set(CANVAS) | {Hex(q, r) for q, r in painted})
    cv = canvas(hexes, Orientation.FLAT)
    places = column_places(hexes)
    w = words()
    cells = []
    for h in hexes:
        c = painted.get((h.q, h.r))
        cx, cy = cv.center(h)
        fill, pattern = "#f1f1ee", ""
        if c is not None:
            fill = MOUNTAIN_FILL if c.get("mountain") else AREA_FILLS.get(c["area"], "#ddd")
            pattern = "" if c.get("mountain") else AREA_PATTERNS.get(c["area"], "")
        cells.append(
            {
                "q": h.q,
                "r": h.r,
                "points": cv.points(h),
                "x": cx,
                "y": cy,
                "fill": fill,
                "pattern": pattern,
                "mountain": bool(c and c.get("mountain")),
                "painted": c is not None,
                "doubt": (h.q, h.r) in doubtful,
                "label": _layout_label(w, place_name(w, places, h), c),
            }
        )
    return {"canvas": cv, "cells": cells}


def _layout_label(w: Words, place: str, c: Mapping[str, Any] | None) -> str:
    if c is None:
        return w.gettext("%(place)s: not on the sheet", place=place)
    if c.get("mountain"):
        return w.gettext("%(place)s: mountain", place=place)
    return w.gettext("%(place)s: %(area)s", place=place, area=w.term(c["area"], "area"))
