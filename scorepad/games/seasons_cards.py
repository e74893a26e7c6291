"""The Seasons power cards: the 95-card catalogue, look-up by id and a forgiving name search.

The catalogue is ``scorepad/data/seasons-cards.csv``, a copy of
``shared/rules/seasons-cards.csv`` (rules digest, "Seasons": 50 base cards, 20 Enchanted
Kingdom, 21 + Replica Path of Destiny, 3 promos, with printed prestige).

Helpers for a card picker:

- ``CARDS``: every card by id (read-only mapping, in id order); ``card(id)``: one card,
  ``KeyError`` naming the id when there is none.
- ``search_cards(query, limit=10)``: cards whose name matches ``query`` forgivingly: case,
  accents, apostrophes (straight or curly) and hyphens are ignored, words may be partial
  and in any order ("ragfield", "RAGFIELDS HELM", "helm rag"), 4 or more letters also match
  inside a name ("chronoring", "field"), a card id
  finds that card, and a near miss ("ragfeild") still finds it when nothing else does.
  Best matches first; a blank query finds nothing.
"""

from __future__ import annotations

import csv
import difflib
import io
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

MAGIC_ITEM = "Magic item"
FAMILIAR = "Familiar"

#: Card ids with an end-of-game effect (rules digest, "Seasons").
RAGFIELDS_HELM = 19
LANTERN_OF_XIDIT = 45
SEALED_CHEST_OF_URM = 46
JEWEL_OF_THE_ANCIENTS = 112
EOLIS_REPLICATOR = 210
#: The Replica card: counted by a player's ``replicas``, never listed among cards in play.
REPLICA = 222
#: Cards whose text sizes the energy reserve (checked, not scored): the Grimoire "You can
#: now store up to 10 energy tokens"; Mesodae's Lantern and the Statue of Eolis "Your
#: energy reserve is decreased by 1" (the cards' texts, as on Board Game Arena).
BESPELLED_GRIMOIRE = 18
MESODAES_LANTERN = 106
STATUE_OF_EOLIS = 107
#: "You may no longer gain crystals" (``seasons-cards.csv``): its holder's end-of-game
#: crystal gains score nothing.
IOS_MINION = 218


@dataclass(frozen=True)
class Card:
    """One power card as printed: its prestige counts at the end of the game."""

    id: int
    set: str
    name: str
    type: str
    prestige: int
    end_of_game_text: str = ""

    @property
    def is_magic_item(self) -> bool:
        return self.type == MAGIC_ITEM

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "set": self.set,
            "name": self.name,
            "type": self.type,
            "prestige": self.prestige,
        }


def _load() -> Mapping[int, Card]:
    text = (
        resources.files("scorepad").joinpath("data/seasons-cards.csv").read_text(encoding="utf-8")
    )
    cards = {}
    for row in csv.DictReader(io.StringIO(text)):
        # The Sealed Chest reads the type: a card of neither kind would be a silent error.
        if row["type"] not in (MAGIC_ITEM, FAMILIAR):
            raise ValueError(f"Seasons card {row['id']}: unknown type {row['type']!r}")
        card = Card(
            id=int(row["id"]),
            set=row["set"],
            name=row["name"],
            type=row["type"],
            prestige=int(row["prestige"]),
            end_of_game_text=row["end_of_game_relevant_text"],
        )
        cards[card.id] = card
    return MappingProxyType(dict(sorted(cards.items())))


CARDS: Mapping[int, Card] = _load()


def card(card_id: int) -> Card:
    """The card with this id; ``KeyError`` with a readable message when there is none."""
    try:
        return CARDS[card_id]
    except KeyError:
        raise KeyError(f"no Seasons card has id {card_id}") from None


_APOSTROPHES = re.compile(r"['’‘`ʼ´]")
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def normalize(text: str) -> str:
    """Lower case without accents or apostrophes; other punctuation becomes a space."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()
    plain = _APOSTROPHES.sub("", plain)
    return " ".join(_NOT_WORD.sub(" ", plain).split())


_MIN_INSIDE = 4
_INDEX = {c.id: normalize(c.name) for c in CARDS.values()}


def _tier(query: str, words: list[str], card_id: int) -> int | None:
    """How well a card matches (lower is better), or ``None`` for no match."""
    name = _INDEX[card_id]
    name_words = name.split()
    if query == str(card_id):
        return 0
    if name == query:
        return 1
    if name.startswith(query):
        return 2
    if all(any(w.startswith(q) for w in name_words) for q in words):
        return 3
    squashed = query.replace(" ", "")
    # Inside words only for longer queries: "io" would otherwise find "Avaricious".
    if len(squashed) >= _MIN_INSIDE and squashed in name.replace(" ", ""):
        return 4
    return None


def search_cards(query: str, limit: int = 10) -> list[Card]:
    """Cards matching ``query`` best first (see the module docstring for what matches)."""
    wanted = normalize(query)
    if not wanted or limit <= 0:
        return []
    words = wanted.split()
    found = []
    for card_id in CARDS:
        tier = _tier(wanted, words, card_id)
        if tier is not None:
            found.append((tier, card_id))
    if not found:
        # A near miss of the whole name ("ragfeild helm"), or of one of its words.
        squashed = wanted.replace(" ", "")
        for card_id, name in _INDEX.items():
            candidates = [name.replace(" ", ""), *name.split()]
            if difflib.get_close_matches(squashed, candidates, n=1, cutoff=0.75):
                found.append((5, card_id))
    found.sort()
    return [CARDS[card_id] for _, card_id in found[:limit]]
