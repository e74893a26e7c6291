"""The Seasons catalogue (package data) and the card picker's forgiving name search."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from scorepad.games import seasons_cards as sc


def names(query: str, limit: int = 10) -> list[str]:
    return [c.name for c in sc.search_cards(query, limit=limit)]


def test_the_catalogue_holds_all_95_cards_by_set() -> None:
    # Rules digest: 50 base, 20 Enchanted Kingdom, 21 + Replica Path of Destiny, 3 promos.
    assert len(sc.CARDS) == 95
    assert Counter(c.set for c in sc.CARDS.values()) == {
        "Base": 50,
        "Enchanted Kingdom": 20,
        "Path of Destiny": 22,
        "Promo": 3,
    }
    assert all(card_id == c.id for card_id, c in sc.CARDS.items())
    assert {c.type for c in sc.CARDS.values()} == {"Magic item", "Familiar"}
    assert list(sc.CARDS) == sorted(sc.CARDS)


#: The card list that came with the rules (``../shared/rules``); the package carries a copy.
SOURCE = Path(__file__).resolve().parents[2] / "shared" / "rules" / "seasons-cards.csv"


def test_every_card_is_as_the_rules_card_list_prints_it() -> None:
    # A card's type decides the Sealed Chest (any familiar blocks it) and its prestige is
    # counted for every player: each of the 95 rows, field by field.
    rows = list(csv.DictReader(SOURCE.open(encoding="utf-8")))
    assert len(rows) == len(sc.CARDS)
    for row in rows:
        card = sc.card(int(row["id"]))
        printed = (row["set"], row["name"], row["type"], int(row["prestige"]))
        assert (card.set, card.name, card.type, card.prestige) == printed, row["id"]
        assert card.end_of_game_text == row["end_of_game_relevant_text"], row["id"]


@pytest.mark.parametrize(
    ("card_id", "name", "prestige"),
    [
        (19, "Ragfield’s Helm", 10),
        (45, "Lantern of Xidit", 24),
        (46, "Sealed Chest of Urm", 10),
        (112, "Jewel of the Ancients", 10),
        (210, "Eolis’s Replicator", 7),
        (222, "Replica", 7),
        (42, "Cursed Treatise of Arus", -10),
        (50, "Damned Soul of Onys", -5),
        (22, "Runic Cube of Eolis", 30),
    ],
)
def test_cards_carry_their_printed_prestige(card_id: int, name: str, prestige: int) -> None:
    card = sc.card(card_id)
    assert (card.name, card.prestige) == (name, prestige)


def test_the_end_of_game_cards_are_the_ones_the_digest_names() -> None:
    assert sc.card(sc.RAGFIELDS_HELM).end_of_game_text.startswith("At the end of the game")
    assert sc.card(sc.LANTERN_OF_XIDIT).name == "Lantern of Xidit"
    assert sc.card(sc.SEALED_CHEST_OF_URM).name == "Sealed Chest of Urm"
    assert sc.card(sc.JEWEL_OF_THE_ANCIENTS).name == "Jewel of the Ancients"
    assert sc.card(sc.EOLIS_REPLICATOR).name == "Eolis’s Replicator"
    assert sc.card(sc.REPLICA).is_magic_item
    assert not sc.card(10).is_magic_item  # Syllas the Faithful, a familiar


def test_an_unknown_id_is_a_readable_key_error() -> None:
    with pytest.raises(KeyError, match="no Seasons card has id 999"):
        sc.card(999)


def test_search_ignores_case_and_apostrophes() -> None:
    for query in ["Ragfield’s Helm", "ragfield's helm", "RAGFIELDS HELM", "ragfield`s  helm"]:
        assert names(query)[0] == "Ragfield’s Helm"


def test_search_matches_partial_words_in_any_order() -> None:
    assert names("helm rag") == ["Ragfield’s Helm"]
    assert names("ragf") == ["Ragfield’s Helm", "Servant of Ragfield", "Orb of Ragfield"]
    assert "Pendant of Ragnor" in names("rag")
    assert names("amu air") == ["Amulet of Air"]
    assert names("eolis") == ["Eolis’s Replicator", "Runic Cube of Eolis", "Statue of Eolis"]


def test_search_puts_the_best_matches_first() -> None:
    # An exact name, then names starting with the query, then word matches.
    assert names("lantern") == ["Lantern of Xidit", "Mesodae’s Lantern"]
    assert names("amulet of air")[0] == "Amulet of Air"
    assert names("io") == ["Io’s Transmuter", "Io’s Minion", "Purse of Io"]


def test_search_ignores_hyphens_and_accents_and_matches_inside_words() -> None:
    assert names("chrono ring") == ["Chrono-Ring"]
    assert names("chronoring") == ["Chrono-Ring"]
    assert names("Éolis replicator") == ["Eolis’s Replicator"]
    assert names("field") == ["Ragfield’s Helm", "Servant of Ragfield", "Orb of Ragfield"]


def test_search_finds_a_card_by_id() -> None:
    assert names("19") == ["Ragfield’s Helm"]
    assert names(" 222 ") == ["Replica"]


def test_search_forgives_a_near_miss_when_nothing_else_matches() -> None:
    assert names("ragfeild helm")[0] == "Ragfield’s Helm"
    assert names("lantren of xidit")[0] == "Lantern of Xidit"


def test_search_finds_nothing_for_blank_or_foreign_queries() -> None:
    assert names("") == []
    assert names("   '-") == []
    assert names("qqqqzzzz") == []


def test_search_respects_the_limit() -> None:
    assert len(sc.search_cards("amulet", limit=3)) == 3
    assert sc.search_cards("amulet", limit=0) == []
    assert len(sc.search_cards("of", limit=100)) > 10
