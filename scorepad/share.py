"""Sharing a scored table: a CSV sheet and a plain-text recap for a chat.

Pure functions of a :class:`~scorepad.scoring.Result`; the PNG results card lives in
``scorepad.render`` (it needs Pillow).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping

from scorepad import games
from scorepad.scoring import Result
from scorepad.wording import counted


def labels(result: Result) -> dict[str, str]:
    """English column labels: ``rank``, ``player``, ``total``, every category key, and
    ``pins`` for a Spring Meadow game won on hiking pins (its ranks go by them)."""
    game = games.get(result.game)
    pinned = bool(pins_of(result))
    label = {"rank": "Rank (by pins)" if pinned else "Rank", "player": "Player", "total": "Total"}
    return {**label, **game.categories_of(result), **({"pins": "Pins"} if pinned else {})}


def pins_of(result: Result) -> Mapping[str, int]:
    """A Spring Meadow game's hiking pins by player, which rank it; empty for every other
    result (a phase, another game)."""
    pins: Mapping[str, int] = result.extra.get("pins") or {}
    return pins


def pins_so_far(result: Result) -> Mapping[str, int]:
    """The hiking pins of a Spring Meadow game still going on (a web table with recorded
    phases, scored as the phase being played): the standing is its phase's, the game is
    won on pins. Empty for every other result."""
    pins: Mapping[str, int] = result.extra.get("pins_so_far") or {}
    return pins


def pinned(pins: Mapping[str, int]) -> str:
    """ "Clara 1, Boris 1": the players holding pins, in seating order."""
    return ", ".join(f"{name} {n}" for name, n in pins.items() if n)


def to_csv(result: Result, names: Mapping[str, str] | None = None, delimiter: str = ",") -> str:
    """One row per player in seating order: rank (none for a player alone, as the results
    show none), name, every category, total, and the pins of a game won on them.

    ``names`` replaces the English column labels of :func:`labels` (the web app passes them
    in the player's language), ``delimiter`` the comma (spreadsheets set to a language
    whose decimal mark is the comma, Russian and Ukrainian among them, split on ";").
    """
    shown = games.get(result.game).categories_of(result)
    label = {**labels(result), **(names or {})}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", delimiter=delimiter)
    pins = pins_of(result)
    ranked = len(result.players) > 1
    writer.writerow([*([label["rank"]] if ranked else []), label["player"],
                     *(label[k] for k in shown), label["total"],
                     *([label["pins"]] if pins else [])])  # fmt: skip
    for p in result.players:
        cats = [p.categories[k] for k in shown]
        writer.writerow([*([p.rank] if ranked else []), _safe_cell(p.name), *cats, p.total,
                         *([pins[p.name]] if pins else [])])  # fmt: skip
    return out.getvalue()


def _safe_cell(text: str) -> str:
    """Keep spreadsheets from running a player's name as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def headline(result: Result, final: bool = True) -> str:
    """ "Sunflower Valley: Vera wins with 32 points" ("Anna scores 36 points (solo)" alone);
    a game still going on (not ``final``) is led, not won, and before anyone scores has
    "no points yet"."""
    game = games.get(result.game)
    if len(result.players) == 1:
        only = result.players[0]
        return f"{game.title}: {only.name} scores {_points(only.total)} (solo)"
    if not final and not result.anything_scored:
        return f"{game.title}: no points yet"
    winners = " & ".join(result.winners)
    best = max(p.total for p in result.players)
    shared = len(result.winners) > 1
    if final:
        verb = "share the win" if shared else "wins"
    else:
        verb = "share the lead" if shared else "leads"
    return f"{game.title}: {winners} {verb} with {_points(best)}"


def _points(n: int) -> str:
    return counted(n, "point", "points")


def recap(
    result: Result,
    final: bool = True,
    *,
    head: str | None = None,
    term: Callable[[str], str] = str,
    tiebreak: Callable[[str], str] = "Tie-break: {}".format,
) -> str:
    """A short recap to paste into a chat: winner (or, ``final`` false, the leader),
    standings with categories, tie-breaks. The web app passes the first line, the category
    labels' and the tie-break lines' wording in the player's language."""
    game = games.get(result.game)
    lines = [headline(result, final) if head is None else head, ""]
    short = {k: term(label).split(". ", 1)[-1] for k, label in game.categories_of(result).items()}
    for p in sorted(result.players, key=lambda p: (p.rank, p.name)):
        parts = ", ".join(f"{short[k]} {v:+d}" for k, v in p.categories.items() if v and k in short)
        lines.append(f"{p.rank}. {p.name}: {p.total}" + (f" ({parts})" if parts else ""))
    if pins := pins_of(result):  # the order above is by them
        named = ", ".join(f"{name} {n}" for name, n in pins.items())
        lines.append(f"{term(labels(result)['pins'])}: {named}")
    elif pins := pins_so_far(result):  # the order above is this phase's; the game's is by them
        lines.append(f"{term('Pins' if final else 'Pins so far')}: {pinned(pins)}")
    lines.extend(closing_lines(result, term, tiebreak))
    return "\n".join(lines) + "\n"


def closing_lines(
    result: Result,
    term: Callable[[str], str] = str,
    tiebreak: Callable[[str], str] = "Tie-break: {}".format,
) -> list[str]:
    """The lines under the standings (the recap's, the results card's): the variant
    played, then the tie-breaks, in the wording ``term`` and ``tiebreak`` give."""
    variant = variant_line(result, term)
    return [*([variant] if variant else []), *(tiebreak(t) for t in result.tiebreaks)]


def variant_line(result: Result, term: Callable[[str], str] = str) -> str | None:
    """ "Variant: Kids" for a Sunflower Valley game played with the kids' rule (fewer sheep
    pair, so its scores are not comparable with the standard game's); None otherwise."""
    if result.extra.get("variant") != "kids":
        return None
    return f"{term('Variant')}: {term('Kids')}"
