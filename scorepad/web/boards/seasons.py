"""Seasons editor: crystals, bonuses, cards in hand, energy, the ability token, cards in play.

Seasons has no board to tap: each player's "board" is a short form saved on every change
and a list of the power cards in play, added by searching their names
(:func:`scorepad.games.seasons.search_cards`). The explanation lists each card's printed
prestige and each end-of-game effect with the sentence saying why it scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad.games import seasons as ss
from scorepad.games.seasons_cards import JEWEL_OF_THE_ANCIENTS, REPLICA
from scorepad.scoring import Result
from scorepad.web.boards import EditRefused, Tool, int_field, unknown_change, with_player_copy
from scorepad.web.vocab import N_

NAME = "seasons"
MODULE = "seasons"
PAPER = False
MAX_PLAYERS = ss.MAX_PLAYERS
TOOLS: tuple[Tool, ...] = ()
MAX_CARDS_IN_PLAY = 40

#: Editable counts: key → (label, low, high).
COUNTS: dict[str, tuple[str, int, int]] = {
    "crystals": (N_("Crystals"), 0, 9999),
    "bonuses_used": (N_("Bonuses used"), 0, max(ss.BONUS_TRACK)),
    "cards_in_hand": (N_("Cards in hand"), 0, 60),
    "energy_in_reserve": (N_("Energy in reserve"), 0, ss.RESERVE_LIMIT),
    "jewel_energy": (N_("Energy on Jewel of the Ancients"), 0, 30),
    "replicas": (N_("Replicas"), 0, 30),
}


def count_bounds(sorcerer: Mapping[str, Any]) -> dict[str, tuple[str, int, int]]:
    """:data:`COUNTS` for this player: the reserve holds what the cards in play allow
    (``seasons.reserve_limit``: 7, 10 with a Bespelled Grimoire, less with Mesodae's
    Lantern or the Statue of Eolis); energy on the
    Jewel of the Ancients is asked for only once the Jewel is in play (or the sheet has
    some: the engine refuses it without the Jewel, and a field typed first, top to bottom,
    would be refused and cleared)."""
    in_play = sorcerer.get("cards_in_play", [])
    bounds = dict(COUNTS)
    label, low, _high = COUNTS["energy_in_reserve"]
    bounds["energy_in_reserve"] = (label, low, ss.reserve_limit(in_play))
    if JEWEL_OF_THE_ANCIENTS not in in_play and not sorcerer.get("jewel_energy"):
        del bounds["jewel_energy"]
    return bounds


def options_context() -> dict[str, Any]:
    return {}


def new_table(form: Mapping[str, str], names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    players = [
        {"name": n, "crystals": 0, "cards_in_play": [], **dict.fromkeys(list(COUNTS)[1:], 0)}
        | {"ability_token": None}
        for n in names
    ]
    return {"game": NAME, "players": players}, {}


def tap(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> dict[str, Any]:
    raise EditRefused(gettext("Seasons has no board to tap: use the fields."))


def set_field(
    doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    new, sorcerer = with_player_copy(doc, player)
    in_play: list[int] = sorcerer.setdefault("cards_in_play", [])
    action = form.get("action", "")
    if action == "counts":
        # The form sends every field; "changed" (static/live.js) names the one the player
        # changed, and only it is read: another field still holding a refused value would
        # refuse this change with its message.
        changed = form.get("changed")
        for key, (label, low, high) in count_bounds(sorcerer).items():
            if key in form and changed in (None, key):
                sorcerer[key] = int_field(
                    form, key, low, high, gettext(label), current=sorcerer.get(key)
                )
        if "ability_token" in form and changed in (None, "ability_token"):
            raw = form["ability_token"]
            top = max(ss.ABILITY_TOKENS)
            sorcerer["ability_token"] = (
                int_field(form, "ability_token", 1, top, gettext("Ability token")) if raw else None
            )
    elif action == "add_card":
        card_id = int_field(form, "card", 0, 10**6, gettext("Card"))
        if card_id == REPLICA:  # the engine counts them in "replicas", never listed
            raise EditRefused(gettext("Replicas are counted in the “Replicas” field below."))
        if card_id not in ss.CARDS:
            raise EditRefused(gettext("There is no power card %(card)s.", card=card_id))
        if len(in_play) >= MAX_CARDS_IN_PLAY:
            raise EditRefused(gettext("At most %(n)s cards in play.", n=MAX_CARDS_IN_PLAY))
        in_play.append(card_id)
        _check_reserve(sorcerer)
    elif action == "remove_card":
        if not in_play:
            raise EditRefused(gettext("There is no card in play to remove."))
        in_play.pop(int_field(form, "index", 0, len(in_play) - 1, gettext("Card")))
        if JEWEL_OF_THE_ANCIENTS not in in_play:  # its energy leaves play with it
            sorcerer["jewel_energy"] = 0
        _check_reserve(sorcerer)
    else:
        raise unknown_change(form)
    return new, meta


def _check_reserve(sorcerer: Mapping[str, Any]) -> None:
    """Refuse a card change that leaves more energy in reserve than the cards now allow
    (taking a Bespelled Grimoire away, putting a Statue of Eolis into play)."""
    limit = ss.reserve_limit(sorcerer.get("cards_in_play", []))
    if sorcerer.get("energy_in_reserve", 0) > limit:
        raise EditRefused(
            gettext(
                "With these cards in play the reserve holds at most %(n)s energy: lower "
                "“Energy in reserve” first.",
                n=limit,
            )
        )


def search(query: str) -> list[dict[str, Any]]:
    """Cards whose names match what the player typed (a few letters are enough)."""
    if len(query.strip()) < 2:
        return []
    # At most 12 shown (the templates then say "12 or more"); a Replica is a count (its
    # own field), not a card to add.
    found = ss.search_cards(query, limit=13)
    return [c.to_json() for c in found if c.id != REPLICA][:12]


def board(
    doc: dict[str, Any],
    meta: dict[str, Any],
    player: int,
    result: Result | None,
    highlight: str | None = None,
) -> dict[str, Any]:
    sorcerer = doc["players"][player]
    details = result.players[player].details if result else {}
    cards = []
    for i, card_id in enumerate(sorcerer.get("cards_in_play", [])):
        card = ss.CARDS.get(card_id)
        cards.append(
            {
                "index": i,
                "id": card_id,
                "name": card.name if card else gettext("card %(card)s", card=card_id),
                "prestige": card.prestige if card else 0,
                "type": card.type if card else "",
            }
        )
    return {
        "sheet": sorcerer,
        "counts": [
            (key, gettext(label), low, high, sorcerer.get(key, 0))
            for key, (label, low, high) in count_bounds(sorcerer).items()
        ],
        "tokens": sorted(ss.ABILITY_TOKENS.items()),
        "cards": cards,
        "details": details,
        "bonus_points": ss.BONUS_TRACK,
        "highlight": highlight,
        "marked": set(),
    }
