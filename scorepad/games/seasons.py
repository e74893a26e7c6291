"""Seasons: final prestige with the evidence for every part of it.

Rules: ``shared/rules/README.md``, section "Seasons" (the rulebook's scoring pages are
missing; the digest names its sources); board file: ``shared/formats.md``, section
"Seasons". How we read the rules is in ``docs/seasons.md``.

Final prestige = crystals + printed prestige of the cards in play + end-of-game card
effects (Ragfield's Helm, Lantern of Xidit, Sealed Chest of Urm, Jewel of the Ancients,
Replicas) + the bonus track + cards in hand + the used special-ability token. Tie-break:
more cards in play (Replicas included).

Helpers for an editor: ``CARDS``, ``card(id)`` and ``search_cards(query, limit=...)`` (the
catalogue, re-exported from :mod:`scorepad.games.seasons_cards`), ``BONUS_TRACK``,
``ABILITY_TOKENS`` (token → prestige), ``reserve_limit(cards)``, ``COPIES_PER_CARD``.

``details`` of each player in a result: ``cards`` (each card in play: ``id``, ``set``,
``name``, ``type``, ``prestige``), ``replicas``, ``cards_in_play`` (the tie-break count,
Replicas included), ``end_of_game`` (each effect: ``card``, ``name``, ``points``, ``why``),
``bonuses_used``, ``cards_in_hand`` (``count``, ``each``, ``why``), ``ability_token``
(``token`` and ``points``, or ``None``), ``energy_in_reserve``, ``jewel_energy``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from scorepad.boardfile import BoardError, Model, unique_names, validate
from scorepad.games import Game
from scorepad.games.seasons_cards import (
    BESPELLED_GRIMOIRE,
    CARDS,
    EOLIS_REPLICATOR,
    IOS_MINION,
    JEWEL_OF_THE_ANCIENTS,
    LANTERN_OF_XIDIT,
    MESODAES_LANTERN,
    RAGFIELDS_HELM,
    REPLICA,
    SEALED_CHEST_OF_URM,
    STATUE_OF_EOLIS,
    Card,
    card,
    search_cards,
)
from scorepad.scoring import PlayerScore, Result, TieBreak, rank
from scorepad.wording import counted

__all__ = ["CARDS", "GAME", "Card", "Sorcerer", "Table", "card", "search_cards"]

MAX_PLAYERS = 4
#: The box holds two copies of every power card.
COPIES_PER_CARD = 2
#: "В резерве энергии игрока никогда не может быть больше 7 жетонов."
RESERVE_LIMIT = 7
#: The reserve with a Bespelled Grimoire in play ("You can now store up to 10 energy tokens").
GRIMOIRE_RESERVE_LIMIT = 10
#: Bonuses used → prestige (the bonus track of the individual board).
BONUS_TRACK: Mapping[int, int] = {0: 0, 1: -5, 2: -12, 3: -20}
CARD_IN_HAND = -5
#: With Enchanted Kingdom token 5 a card in hand earns this instead (the token is worth 0).
CARD_IN_HAND_TOKEN_5 = 3
HAND_TOKEN = 5
#: A used special-ability token (Enchanted Kingdom 1–12, Path of Destiny 13–18) → prestige.
ABILITY_TOKENS: Mapping[int, int] = {
    1: -5,
    2: 6,
    3: -5,
    4: 10,
    5: 0,
    6: 0,
    7: -6,
    8: 18,
    9: -5,
    10: 3,
    11: 9,
    12: 0,
    13: -5,
    14: 3,
    15: 10,
    16: 5,
    17: 9,
    18: 9,
}
HELM_BONUS = 20
LANTERN_PER_ENERGY = 3
CHEST_BONUS = 20
JEWEL_FULL = 35
JEWEL_SHORT = -10
JEWEL_ENERGY_NEEDED = 3
REPLICA_PRESTIGE = 7


@dataclass(frozen=True)
class Sorcerer:
    """One player at the end of the game."""

    name: str
    crystals: int
    cards_in_play: tuple[int, ...] = ()
    bonuses_used: int = 0
    cards_in_hand: int = 0
    energy_in_reserve: int = 0
    jewel_energy: int = 0
    replicas: int = 0
    ability_token: int | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(CARDS[i] for i in self.cards_in_play)

    @property
    def in_play(self) -> int:
        """Power cards in play: a Replica is a magic item in play (rules digest)."""
        return len(self.cards_in_play) + self.replicas


@dataclass(frozen=True)
class Table:
    """The players in seating order."""

    players: tuple[Sorcerer, ...]


class _PlayerDoc(Model):
    name: str
    crystals: int
    cards_in_play: list[int] = Field(default_factory=list)
    bonuses_used: int = 0
    cards_in_hand: int = 0
    energy_in_reserve: int = 0
    jewel_energy: int = 0
    replicas: int = 0
    ability_token: int | None = None


class _OptionsDoc(Model):
    """Seasons has no table options; an empty ``options`` object is accepted."""


class _TableDoc(Model):
    game: Literal["seasons"]
    options: _OptionsDoc = Field(default_factory=_OptionsDoc)
    players: list[_PlayerDoc]


_COUNTS = ("crystals", "cards_in_hand", "energy_in_reserve", "jewel_energy", "replicas")


def _player_problems(p: _PlayerDoc) -> list[str]:
    """What the rules make impossible for one player's numbers and cards."""
    label = f"player {p.name!r}"
    problems = [
        f"{label}, {key!r}: {getattr(p, key)} is negative" for key in _COUNTS if getattr(p, key) < 0
    ]
    if p.bonuses_used not in BONUS_TRACK:
        problems.append(
            f"{label}, 'bonuses_used': {p.bonuses_used}; the bonus track allows 0 to 3 bonuses"
        )
    if p.ability_token is not None and p.ability_token not in ABILITY_TOKENS:
        problems.append(
            f"{label}, 'ability_token': {p.ability_token}; special-ability tokens are 1 to 18"
        )
    for i, card_id in enumerate(p.cards_in_play):
        where = f"{label}, 'cards_in_play' item {i + 1}"
        if card_id == REPLICA:
            problems.append(f"{where}: a Replica is counted in 'replicas', not listed as a card")
        elif card_id not in CARDS:
            problems.append(f"{where}: {card_id} is not a Seasons card id")
    if p.jewel_energy > 0 and JEWEL_OF_THE_ANCIENTS not in p.cards_in_play:
        problems.append(
            f"{label}, 'jewel_energy': {p.jewel_energy} energy on the Jewel of the Ancients, "
            "but the Jewel is not in play"
        )
    limit = reserve_limit(p.cards_in_play)
    if p.energy_in_reserve > limit:
        problems.append(
            f"{label}, 'energy_in_reserve': {p.energy_in_reserve}; this energy reserve holds "
            f"at most {limit} tokens (7, 10 with a Bespelled Grimoire, 1 less for each "
            "Mesodae's Lantern or Statue of Eolis in play)"
        )
    return problems


def reserve_limit(cards_in_play: Sequence[int]) -> int:
    """How many energy tokens a player's reserve holds: 7 ("никогда не может быть больше 7
    жетонов"), 10 with a Bespelled Grimoire in play, 1 less for each Mesodae's Lantern or
    Statue of Eolis in play ("Your energy reserve is decreased by 1"; the cards' texts)."""
    base = GRIMOIRE_RESERVE_LIMIT if BESPELLED_GRIMOIRE in cards_in_play else RESERVE_LIMIT
    shrunk = sum(1 for c in cards_in_play if c in (MESODAES_LANTERN, STATUE_OF_EOLIS))
    return max(0, base - shrunk)


def _copies_problems(players: Sequence[_PlayerDoc]) -> list[str]:
    """The box has two copies of each card, so the whole table holds at most two."""
    holders: dict[int, list[str]] = {}
    for p in players:
        for card_id in p.cards_in_play:
            holders.setdefault(card_id, []).append(p.name)
    problems = []
    for card_id, names in sorted(holders.items()):
        if len(names) > COPIES_PER_CARD and card_id in CARDS:
            who = ", ".join(f"{n!r} ×{c}" for n, c in Counter(names).items())
            problems.append(
                f"card {card_id} ({CARDS[card_id].name}): {len(names)} copies in play "
                f"({who}); the box has {COPIES_PER_CARD}"
            )
    return problems


def parse(doc: Any) -> Table:
    """Validate a Seasons board file; every problem is listed in one :class:`BoardError`."""
    model = validate(_TableDoc, doc)
    problems = unique_names([p.name for p in model.players])
    if not model.players:  # one player is scored, with a warning (score)
        problems.append("players: a table needs at least one player")
    elif len(model.players) > MAX_PLAYERS:
        problems.append(
            f"players: {len(model.players)} players; Seasons is for 2 to {MAX_PLAYERS} "
            "(one player is scored alone)"
        )
    for p in model.players:
        problems += _player_problems(p)
    problems += _copies_problems(model.players)
    if problems:
        raise BoardError(problems)
    return Table(
        tuple(
            Sorcerer(
                name=p.name,
                crystals=p.crystals,
                cards_in_play=tuple(p.cards_in_play),
                bonuses_used=p.bonuses_used,
                cards_in_hand=p.cards_in_hand,
                energy_in_reserve=p.energy_in_reserve,
                jewel_energy=p.jewel_energy,
                replicas=p.replicas,
                ability_token=p.ability_token,
            )
            for p in model.players
        )
    )


def dump(table: Table) -> dict[str, Any]:
    """The board file of ``table`` (round-trips through :func:`parse`)."""
    return {
        "game": "seasons",
        "players": [
            {
                "name": s.name,
                "crystals": s.crystals,
                "cards_in_play": list(s.cards_in_play),
                "bonuses_used": s.bonuses_used,
                "cards_in_hand": s.cards_in_hand,
                "energy_in_reserve": s.energy_in_reserve,
                "jewel_energy": s.jewel_energy,
                "replicas": s.replicas,
                "ability_token": s.ability_token,
            }
            for s in table.players
        ],
    }


# ---------------------------------------------------------------------------- end of game


def _effect(card_id: int, points: int, why: str) -> dict[str, Any]:
    name = "Replica" if card_id == REPLICA else CARDS[card_id].name
    return {"card": card_id, "name": name, "points": points, "why": why}


def _helm(s: Sorcerer, others: Sequence[Sorcerer]) -> dict[str, Any]:
    """Ragfield's Helm: +20 with strictly more power cards in play than each opponent."""
    mine = counted(s.in_play, "card in play", "cards in play")
    beaten = [o for o in others if o.in_play >= s.in_play]
    if not others:
        return _effect(RAGFIELDS_HELM, HELM_BONUS, f"{mine} and no opponent")
    listed = ", ".join(f"{o.name} {o.in_play}" for o in (beaten or others))
    if beaten:
        return _effect(RAGFIELDS_HELM, 0, f"{mine}, not more than {listed}")
    return _effect(RAGFIELDS_HELM, HELM_BONUS, f"{mine}, more than each opponent ({listed})")


def _lantern(s: Sorcerer) -> dict[str, Any]:
    """Lantern of Xidit: +3 per energy token in reserve."""
    points = LANTERN_PER_ENERGY * s.energy_in_reserve
    return _effect(LANTERN_OF_XIDIT, points, f"{s.energy_in_reserve} energy in reserve × 3")


def _chest(s: Sorcerer) -> dict[str, Any]:
    """Sealed Chest of Urm: +20 if only magic items are in play (Replicas are magic items)."""
    familiars = [c.name for c in s.cards if not c.is_magic_item]
    if familiars:
        return _effect(SEALED_CHEST_OF_URM, 0, "familiars in play: " + ", ".join(familiars))
    return _effect(SEALED_CHEST_OF_URM, CHEST_BONUS, "only magic items in play")


def _jewels(s: Sorcerer, copies: int) -> list[dict[str, Any]]:
    """Jewel of the Ancients: +35 with 3 or more energy on it, else −10.

    ``jewel_energy`` is the energy on the player's Jewel; with both copies in play the file
    cannot say how it is split, so each full 3 is given to one Jewel (the best split).
    """
    energy = s.jewel_energy
    full = min(copies, energy // JEWEL_ENERGY_NEEDED)
    left = energy - JEWEL_ENERGY_NEEDED * full
    effects = []
    for n in range(copies):
        if copies == 1:
            why = f"{energy} energy on the Jewel (3 needed)"
        elif n < full:
            why = f"3 of the {energy} energy on the two Jewels"
        else:
            why = f"{left} of the {energy} energy left for this Jewel (3 needed)"
        points = JEWEL_FULL if n < full else JEWEL_SHORT
        effects.append(_effect(JEWEL_OF_THE_ANCIENTS, points, why))
    return effects


def end_of_game(s: Sorcerer, others: Sequence[Sorcerer]) -> list[dict[str, Any]]:
    """Every end-of-game effect of a player's cards, each copy on its own, with its reason."""
    copies = Counter(s.cards_in_play)
    effects = []
    effects += [_helm(s, others) for _ in range(copies[RAGFIELDS_HELM])]
    effects += [_lantern(s) for _ in range(copies[LANTERN_OF_XIDIT])]
    effects += [_chest(s) for _ in range(copies[SEALED_CHEST_OF_URM])]
    effects += _jewels(s, copies[JEWEL_OF_THE_ANCIENTS])
    if IOS_MINION in copies:
        effects = [_no_gain(e) for e in effects]
    if s.replicas:  # a Replica's 7 is its printed prestige, not crystals gained
        effects.append(
            _effect(REPLICA, REPLICA_PRESTIGE * s.replicas, f"Replicas: {s.replicas} × 7")
        )
    return effects


def _no_gain(effect: dict[str, Any]) -> dict[str, Any]:
    """Io's Minion: "You may no longer gain crystals" (``seasons-cards.csv``), so an
    end-of-game card's crystals are not gained by its holder; a Jewel's −10 still counts
    (a loss, not a gain), as on Board Game Arena."""
    if effect["points"] <= 0:
        return effect
    why = f"{effect['why']}; Io's Minion: its holder gains no crystals"
    return {**effect, "points": 0, "why": why}


def _hand(s: Sorcerer) -> dict[str, Any]:
    """−5 per power card still in hand; +3 each instead with ability token 5."""
    if s.ability_token == HAND_TOKEN:
        why = "ability token 5: +3 per card in hand instead of −5"
        return {"count": s.cards_in_hand, "each": CARD_IN_HAND_TOKEN_5, "why": why}
    return {"count": s.cards_in_hand, "each": CARD_IN_HAND, "why": "−5 per card in hand"}


def score_player(s: Sorcerer, others: Sequence[Sorcerer]) -> PlayerScore:
    """One player's final prestige by category, with the evidence."""
    effects = end_of_game(s, others)
    hand = _hand(s)
    token = s.ability_token
    token_points = ABILITY_TOKENS[token] if token is not None else 0
    categories = {
        "crystals": s.crystals,
        "cards": sum(c.prestige for c in s.cards),
        "end_of_game_cards": sum(e["points"] for e in effects),
        "bonuses": BONUS_TRACK[s.bonuses_used],
        "cards_in_hand": hand["count"] * hand["each"],
        "ability_token": token_points,
    }
    details = {
        "cards": [c.to_json() for c in s.cards],
        "replicas": s.replicas,
        "cards_in_play": s.in_play,
        "end_of_game": effects,
        "bonuses_used": s.bonuses_used,
        "cards_in_hand": hand,
        "ability_token": None if token is None else {"token": token, "points": token_points},
        "energy_in_reserve": s.energy_in_reserve,
        "jewel_energy": s.jewel_energy,
    }
    return PlayerScore(s.name, categories, details)


def _warnings(table: Table) -> list[str]:
    """What the rules allow but is unusual enough to check at the table."""
    warnings = []
    if len(table.players) == 1:
        warnings.append("Seasons is for 2 to 4 players; scored for one player alone")
    for s in table.players:
        label = f"player {s.name!r}"
        if s.replicas and EOLIS_REPLICATOR not in s.cards_in_play:
            warnings.append(
                f"{label}: {s.replicas} counted as Replicas but no Eolis's Replicator in play; "
                "check that the Replicator left play after making them"
            )
        if s.cards_in_play.count(JEWEL_OF_THE_ANCIENTS) > 1 and s.jewel_energy:
            warnings.append(
                f"{label}: two Jewels of the Ancients share {s.jewel_energy} energy in the "
                "file; each full 3 was counted on one Jewel"
            )
    return warnings


def score(table: Table) -> Result:
    """Final prestige of every player; ties are broken by more cards in play."""
    scores = [score_player(s, [o for o in table.players if o is not s]) for s in table.players]
    tiebreak = TieBreak("cards in play", {s.name: s.in_play for s in table.players})
    return rank("seasons", scores, [tiebreak], _warnings(table))


GAME = Game(
    name="seasons",
    title="Seasons",
    categories={
        "crystals": "Crystals",
        # The cards in play's printed prestige; their count is the tie-break.
        "cards": "Card prestige",
        "end_of_game_cards": "End-of-game cards",
        "bonuses": "Bonus track",
        "cards_in_hand": "Cards in hand",
        "ability_token": "Ability token",
    },
    parse=parse,
    dump=dump,
    score=score,
)
