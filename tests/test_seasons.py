"""Seasons final prestige, from the rules digest's "Seasons" section, part by part."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorepad import games
from scorepad.boardfile import BoardError
from scorepad.cli import main
from scorepad.games import seasons
from scorepad.scoring import Result

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("Anna", "Boris", "Clara", "Dmitri")


def doc(*players: dict[str, Any]) -> dict[str, Any]:
    named = []
    for i, p in enumerate(players):
        player = {"name": NAMES[i], "crystals": 0}
        player.update(p)
        named.append(player)
    return {"game": "seasons", "players": named}


def scored(*players: dict[str, Any]) -> Result:
    return seasons.score(seasons.parse(doc(*players)))


def effects(result: Result, name: str = "Anna") -> list[dict[str, Any]]:
    return list(result.player(name).details["end_of_game"])


def problems(*players: dict[str, Any]) -> list[str]:
    with pytest.raises(BoardError) as err:
        seasons.parse(doc(*players))
    return err.value.problems


# ------------------------------------------------------------------ the formats.md example


def test_the_formats_example_player() -> None:
    # 120 crystals; Helm 10 + Lantern 24 + Amulet of Earth 6; Helm +20 (3 cards vs 0),
    # Lantern 3 × 3; 1 bonus −5; 2 cards in hand −10.
    anna = {
        "crystals": 120,
        "cards_in_play": [19, 45, 3],
        "bonuses_used": 1,
        "cards_in_hand": 2,
        "energy_in_reserve": 3,
        "jewel_energy": 0,
        "replicas": 0,
        "ability_token": None,
    }
    result = scored(anna, {"crystals": 100})
    assert dict(result.player("Anna").categories) == {
        "crystals": 120,
        "cards": 40,
        "end_of_game_cards": 29,
        "bonuses": -5,
        "cards_in_hand": -10,
        "ability_token": 0,
    }
    assert result.player("Anna").total == 174
    assert result.winners == ("Anna",)


def test_every_card_in_play_is_listed_with_its_prestige() -> None:
    result = scored({"cards_in_play": [42, 50, 22]})
    details = result.player("Anna").details
    assert [(c["id"], c["name"], c["prestige"]) for c in details["cards"]] == [
        (42, "Cursed Treatise of Arus", -10),
        (50, "Damned Soul of Onys", -5),
        (22, "Runic Cube of Eolis", 30),
    ]
    assert result.player("Anna").categories["cards"] == 15


def test_crystals_count_one_point_each() -> None:
    assert scored({"crystals": 87}).player("Anna").total == 87


# ------------------------------------------------------------------ Ragfield's Helm


def test_helm_gives_20_with_strictly_more_cards_than_each_opponent() -> None:
    result = scored(
        {"cards_in_play": [19, 1, 2]}, {"cards_in_play": [3, 4]}, {"cards_in_play": [5]}
    )
    (helm,) = effects(result)
    assert helm["points"] == 20
    assert helm["why"] == "3 cards in play, more than each opponent (Boris 2, Clara 1)"


def test_helm_with_a_tie_for_most_cards_gives_nothing() -> None:
    # "if you have more power cards in play than each of your opponents": equal is not more.
    result = scored({"cards_in_play": [19, 1, 2]}, {"cards_in_play": [19, 4, 5]})
    for name in ("Anna", "Boris"):
        (helm,) = effects(result, name)
        assert helm["points"] == 0
        assert result.player(name).categories["end_of_game_cards"] == 0
    assert effects(result)[0]["why"] == "3 cards in play, not more than Boris 3"


def test_helm_fails_against_any_opponent_with_as_many_cards() -> None:
    result = scored(
        {"cards_in_play": [19, 1, 2, 3]}, {"cards_in_play": [5]}, {"cards_in_play": [6, 7, 8, 9]}
    )
    assert effects(result)[0]["points"] == 0
    assert "Clara 4" in effects(result)[0]["why"]


def test_replicas_count_as_cards_in_play_for_the_helm() -> None:
    # A Replica is a magic item in play, for the Helm of its owner and of its opponents.
    anna = {"cards_in_play": [19, 210], "replicas": 1}
    assert effects(scored(anna, {"cards_in_play": [1, 2]}))[0]["points"] == 20
    boris = {"cards_in_play": [210], "replicas": 2}
    assert effects(scored(anna, boris))[0]["points"] == 0


def test_each_copy_of_the_helm_scores() -> None:
    result = scored({"cards_in_play": [19, 19]}, {"cards_in_play": [1]})
    assert result.player("Anna").categories["end_of_game_cards"] == 40


# ------------------------------------------------------------------ Lantern, Chest, Jewel


@pytest.mark.parametrize(("energy", "points"), [(0, 0), (1, 3), (5, 15), (7, 21)])
def test_lantern_gives_3_per_energy_in_reserve(energy: int, points: int) -> None:
    result = scored({"cards_in_play": [45], "energy_in_reserve": energy})
    (lantern,) = effects(result)
    assert (lantern["card"], lantern["points"]) == (45, points)
    assert lantern["why"] == f"{energy} energy in reserve × 3"


def test_two_lanterns_each_count_the_reserve() -> None:
    result = scored({"cards_in_play": [45, 45], "energy_in_reserve": 4})
    assert result.player("Anna").categories["end_of_game_cards"] == 24


def test_sealed_chest_gives_20_with_only_magic_items_in_play() -> None:
    (chest,) = effects(scored({"cards_in_play": [46, 1, 22]}))
    assert (chest["points"], chest["why"]) == (20, "only magic items in play")


def test_sealed_chest_gives_nothing_with_a_familiar_in_play() -> None:
    (chest,) = effects(scored({"cards_in_play": [46, 1, 10]}))
    assert chest["points"] == 0
    assert chest["why"] == "familiars in play: Syllas the Faithful"


def test_each_copy_of_the_sealed_chest_scores() -> None:
    result = scored({"cards_in_play": [46, 46, 1]}, {"cards_in_play": [2]})
    assert [e["points"] for e in effects(result)] == [20, 20]
    assert result.player("Anna").categories["end_of_game_cards"] == 40


def test_replicas_are_magic_items_for_the_sealed_chest() -> None:
    result = scored({"cards_in_play": [46, 210], "replicas": 2})
    assert [e["points"] for e in effects(result)] == [20, 14]


@pytest.mark.parametrize(("energy", "points"), [(0, -10), (2, -10), (3, 35), (5, 35)])
def test_jewel_gives_35_with_three_energy_on_it_else_minus_10(energy: int, points: int) -> None:
    (jewel,) = effects(scored({"cards_in_play": [112], "jewel_energy": energy}))
    assert (jewel["card"], jewel["points"]) == (112, points)
    assert jewel["why"] == f"{energy} energy on the Jewel (3 needed)"


@pytest.mark.parametrize(("energy", "total"), [(0, -20), (3, 25), (5, 25), (6, 70), (9, 70)])
def test_two_jewels_share_the_recorded_energy(energy: int, total: int) -> None:
    result = scored({"cards_in_play": [112, 112], "jewel_energy": energy})
    assert result.player("Anna").categories["end_of_game_cards"] == total
    assert len(effects(result)) == 2
    assert any("two Jewels" in w for w in result.warnings) == bool(energy)


def test_replicas_are_worth_7_each() -> None:
    result = scored({"cards_in_play": [210], "replicas": 3})
    anna = result.player("Anna")
    assert anna.categories["cards"] == 7  # the Replicator's own prestige
    assert effects(result) == [
        {"card": 222, "name": "Replica", "points": 21, "why": "Replicas: 3 × 7"}
    ]
    assert anna.details["cards_in_play"] == 4


def test_cards_without_an_end_of_game_effect_add_none() -> None:
    assert effects(scored({"cards_in_play": [1, 10, 106, 42]})) == []


# ------------------------------------------------------------------ bonuses, hand, tokens


@pytest.mark.parametrize(("used", "points"), [(0, 0), (1, -5), (2, -12), (3, -20)])
def test_the_bonus_track(used: int, points: int) -> None:
    result = scored({"bonuses_used": used})
    assert result.player("Anna").categories["bonuses"] == points
    assert result.player("Anna").details["bonuses_used"] == used


@pytest.mark.parametrize("hand", [0, 1, 4])
def test_each_card_in_hand_costs_5(hand: int) -> None:
    anna = scored({"cards_in_hand": hand}).player("Anna")
    assert anna.categories["cards_in_hand"] == -5 * hand
    assert anna.details["cards_in_hand"]["each"] == -5


@pytest.mark.parametrize("hand", [0, 1, 4])
def test_ability_token_5_makes_each_card_in_hand_worth_3(hand: int) -> None:
    anna = scored({"cards_in_hand": hand, "ability_token": 5}).player("Anna")
    assert anna.categories["cards_in_hand"] == 3 * hand
    assert anna.categories["ability_token"] == 0
    assert anna.details["ability_token"] == {"token": 5, "points": 0}


# The digest's list, as printed there.
DIGEST_TOKENS = (
    "1 → −5, 2 → +6, 3 → −5, 4 → +10, 5 → 0, 6 → 0, 7 → −6, 8 → +18, 9 → −5, 10 → +3, "
    "11 → +9, 12 → 0, 13 → −5, 14 → +3, 15 → +10, 16 → +5, 17 → +9, 18 → +9"
)
TOKENS = {
    int(token): int(value.replace("−", "-"))
    for token, value in re.findall(r"(\d+) → ([−+]?\d+)", DIGEST_TOKENS)
}


@pytest.mark.parametrize("token", sorted(TOKENS))
def test_every_ability_token(token: int) -> None:
    anna = scored({"ability_token": token, "cards_in_hand": 1}).player("Anna")
    assert anna.categories["ability_token"] == TOKENS[token]
    assert anna.categories["cards_in_hand"] == (3 if token == 5 else -5)
    assert anna.details["ability_token"] == {"token": token, "points": TOKENS[token]}


def test_no_ability_token_is_worth_nothing() -> None:
    anna = scored({}).player("Anna")
    assert anna.categories["ability_token"] == 0
    assert anna.details["ability_token"] is None
    assert len(TOKENS) == 18


# ------------------------------------------------------------------ totals and ties


def test_a_total_can_be_negative() -> None:
    # 0 crystals, Cursed Treatise −10, Jewel 10 − 10, 3 bonuses −20, 2 cards −10, token 7 −6.
    result = scored(
        {"cards_in_play": [42, 112], "bonuses_used": 3, "cards_in_hand": 2, "ability_token": 7},
        {"crystals": 0},
    )
    assert result.player("Anna").total == -46
    assert [p.rank for p in result.players] == [2, 1]


def test_a_tie_goes_to_more_cards_in_play() -> None:
    result = scored({"crystals": 30, "cards_in_play": [23]}, {"crystals": 30})
    assert result.player("Anna").total == result.player("Boris").total == 30
    assert result.winners == ("Anna",)
    assert result.tiebreaks == ("tied on 30 points: Anna ahead of Boris on cards in play (1 vs 0)",)
    # The breakdown's row is the cards' prestige: named apart from the count that breaks
    # the tie (both read "Cards in play": "44" beside "5 vs 4" during a dispute).
    assert "cards in play" not in seasons.GAME.categories["cards"].lower()


def test_replicas_count_in_the_tie_break() -> None:
    anna = {"crystals": 20, "cards_in_play": [210, 24], "replicas": 1}  # 7 + 0 + 7 = 34
    boris = {"crystals": 34, "cards_in_play": [23, 25]}
    result = scored(anna, boris)
    assert result.player("Anna").total == result.player("Boris").total == 34
    assert result.winners == ("Anna",)


def test_players_still_tied_share_the_rank() -> None:
    result = scored({"crystals": 50}, {"crystals": 50}, {"crystals": 60})
    assert [p.rank for p in result.players] == [2, 2, 1]
    assert "share" in result.tiebreaks[0] or "still tied" in result.tiebreaks[0]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 300),
    st.lists(st.sampled_from([1, 10, 19, 42, 45, 46, 112]), max_size=6, unique=True),
    st.integers(0, 3),
    st.integers(0, 6),
    st.integers(0, 7),
)
def test_a_card_left_in_hand_always_costs_5(
    crystals: int, cards: list[int], bonuses: int, hand: int, energy: int
) -> None:
    anna = {
        "crystals": crystals,
        "cards_in_play": cards,
        "bonuses_used": bonuses,
        "cards_in_hand": hand,
        "energy_in_reserve": energy,
        "jewel_energy": 3 if 112 in cards else 0,
    }
    before = scored(anna, {"crystals": 1}).player("Anna")
    after = scored({**anna, "cards_in_hand": hand + 1}, {"crystals": 1}).player("Anna")
    assert after.total == before.total - 5
    assert before.total == sum(before.categories.values())


# ------------------------------------------------------------------ validation


def test_unknown_card_ids_are_errors() -> None:
    assert problems({"cards_in_play": [1, 99]}) == [
        "player 'Anna', 'cards_in_play' item 2: 99 is not a Seasons card id"
    ]


def test_a_replica_is_counted_not_listed() -> None:
    assert problems({"cards_in_play": [222]}) == [
        "player 'Anna', 'cards_in_play' item 1: a Replica is counted in 'replicas', "
        "not listed as a card"
    ]


def test_more_than_two_copies_of_a_card_at_the_table_is_an_error() -> None:
    assert problems({"cards_in_play": [19, 19]}, {"cards_in_play": [19]}) == [
        "card 19 (Ragfield’s Helm): 3 copies in play ('Anna' ×2, 'Boris' ×1); the box has 2"
    ]
    assert problems({"cards_in_play": [7, 7, 7]})[0].startswith("card 7 (Temporal Boots): 3")
    seasons.parse(doc({"cards_in_play": [19]}, {"cards_in_play": [19]}))


@pytest.mark.parametrize("used", [-1, 4])
def test_bonuses_outside_0_to_3_are_errors(used: int) -> None:
    assert problems({"bonuses_used": used}) == [
        f"player 'Anna', 'bonuses_used': {used}; the bonus track allows 0 to 3 bonuses"
    ]


@pytest.mark.parametrize(
    "key", ["crystals", "cards_in_hand", "energy_in_reserve", "jewel_energy", "replicas"]
)
def test_negative_counts_are_errors(key: str) -> None:
    player = {"cards_in_play": [112], key: -2}
    assert f"player 'Anna', {key!r}: -2 is negative" in problems(player)


def test_energy_on_the_jewel_needs_the_jewel_in_play() -> None:
    assert problems({"jewel_energy": 3}) == [
        "player 'Anna', 'jewel_energy': 3 energy on the Jewel of the Ancients, "
        "but the Jewel is not in play"
    ]


def test_the_reserve_holds_at_most_seven_energy() -> None:
    # "В резерве энергии игрока никогда не может быть больше 7 жетонов."
    (problem,) = problems({"energy_in_reserve": 8})
    assert problem == (
        "player 'Anna', 'energy_in_reserve': 8; this energy reserve holds at most 7 tokens "
        "(7, 10 with a Bespelled Grimoire, 1 less for each Mesodae's Lantern or Statue of "
        "Eolis in play)"
    )
    seasons.parse(doc({"energy_in_reserve": 7}))


def test_the_bespelled_grimoire_extends_the_reserve_to_ten() -> None:
    # Card 18: "You can now store up to 10 energy tokens."
    seasons.parse(doc({"energy_in_reserve": 10, "cards_in_play": [18]}))
    (problem,) = problems({"energy_in_reserve": 11, "cards_in_play": [18]})
    assert "holds at most 10 tokens" in problem
    # A second Grimoire stores no more.
    assert problems({"energy_in_reserve": 11, "cards_in_play": [18, 18]})


@pytest.mark.parametrize(
    ("cards", "limit"),
    [([106], 6), ([107], 6), ([106, 107], 5), ([107, 107], 5), ([18, 106], 9), ([18, 106, 107], 8)],
)
def test_mesodaes_lantern_and_the_statue_of_eolis_shrink_the_reserve(
    cards: list[int], limit: int
) -> None:
    # Cards 106 and 107: "Your energy reserve is decreased by 1."
    assert seasons.reserve_limit(cards) == limit
    seasons.parse(doc({"energy_in_reserve": limit, "cards_in_play": cards}))
    (problem,) = problems({"energy_in_reserve": limit + 1, "cards_in_play": cards})
    assert f"holds at most {limit} tokens" in problem


@pytest.mark.parametrize("token", [0, 19])
def test_ability_tokens_are_1_to_18(token: int) -> None:
    assert problems({"ability_token": token}) == [
        f"player 'Anna', 'ability_token': {token}; special-ability tokens are 1 to 18"
    ]


def test_the_table_has_one_to_four_unique_players() -> None:
    assert problems() == ["players: a table needs at least one player"]
    too_many = doc({}, {}, {}, {})
    too_many["players"].append({"name": "Eva", "crystals": 0})
    with pytest.raises(BoardError, match=r"5 players; Seasons is for 2 to 4 \(one player is"):
        seasons.parse(too_many)
    same = doc({}, {})
    same["players"][1]["name"] = "Anna"
    with pytest.raises(BoardError, match="names must be unique"):
        seasons.parse(same)


def test_types_and_keys_are_strict() -> None:
    text = "\n".join(problems({"crystals": True, "gold": 3}))
    assert "player 'Anna', 'crystals'" in text
    assert "unknown key 'gold'" in text
    bad = doc({})
    del bad["players"][0]["crystals"]
    with pytest.raises(BoardError, match="missing required key 'crystals'"):
        seasons.parse(bad)


def test_every_problem_is_reported_at_once() -> None:
    found = problems({"cards_in_play": [99], "bonuses_used": 5, "replicas": -1})
    assert len(found) == 3


# ------------------------------------------------------------------ warnings


def test_replicas_without_the_replicator_are_warned_about() -> None:
    result = scored({"replicas": 1}, {})
    assert result.warnings == (
        "player 'Anna': 1 counted as Replicas but no Eolis's Replicator in play; "
        "check that the Replicator left play after making them",
    )


def test_ios_minions_holder_gains_no_crystals_from_end_of_game_cards() -> None:
    # Card 218: "You may no longer gain crystals." The Helm's, Lantern's and Chest's crystals
    # are gains; the Jewel's -10 is a loss and still counts, a Replica's 7 is its prestige.
    result = scored(
        {"cards_in_play": [218, 19, 45, 112], "energy_in_reserve": 2, "replicas": 1}, {}
    )
    assert result.warnings == (
        "player 'Anna': 1 counted as Replicas but no Eolis's Replicator in play; "
        "check that the Replicator left play after making them",
    )
    by_card = {e["card"]: e for e in effects(result)}
    assert by_card[45] == {
        "card": 45,
        "name": "Lantern of Xidit",
        "points": 0,
        "why": "2 energy in reserve × 3; Io's Minion: its holder gains no crystals",
    }
    assert by_card[19]["points"] == 0 and by_card[19]["why"].endswith("gains no crystals")
    assert by_card[112]["points"] == -10 and "Minion" not in by_card[112]["why"]
    assert by_card[222]["points"] == 7
    assert result.player("Anna").categories["end_of_game_cards"] == -3


def test_ios_minion_keeps_nothing_from_a_full_jewel() -> None:
    result = scored({"cards_in_play": [218, 112], "jewel_energy": 3}, {})
    (jewel,) = effects(result)
    assert jewel["points"] == 0
    # Without the Minion the same Jewel gains its 35.
    (jewel,) = effects(scored({"cards_in_play": [112], "jewel_energy": 3}, {}))
    assert jewel["points"] == 35


def test_a_player_alone_is_warned_about() -> None:
    result = scored({"cards_in_play": [19]})
    assert result.warnings == ("Seasons is for 2 to 4 players; scored for one player alone",)
    (helm,) = effects(result)
    # "more power cards in play than each of your opponents" holds with no opponent at all.
    assert (helm["points"], helm["why"]) == (20, "1 card in play and no opponent")  # not "1 cards"


def test_an_ordinary_table_has_no_warnings() -> None:
    assert scored({"cards_in_play": [19, 45]}, {"cards_in_play": [46]}).warnings == ()


# ------------------------------------------------------------------ files and the command


def test_dump_round_trips() -> None:
    table = seasons.parse(doc({"cards_in_play": [112, 3], "jewel_energy": 4, "ability_token": 2}))
    assert seasons.parse(seasons.dump(table)) == table


def test_an_empty_options_object_is_accepted() -> None:
    with_options = {**doc({}), "options": {}}
    assert seasons.parse(with_options) == seasons.parse(doc({}))
    with pytest.raises(BoardError, match="unknown key 'variant'"):
        seasons.parse({**doc({}), "options": {"variant": "x"}})


def test_the_example_table_scores_as_read_by_hand() -> None:
    data = json.loads((ROOT / "examples" / "seasons.json").read_text(encoding="utf-8"))
    game, table = games.parse(data)
    assert game is seasons.GAME
    result = seasons.score(table)
    # Anna: 112 + (10+24+9+14+30+2+6) + Lantern 4×3 (her Helm fails: Boris has 6 cards
    # and a Replica, 7 like her) − 5 (1 bonus) − 5 (1 card in hand) = 209.
    # Boris: 150 + (10+10+8+8+10+7) + Chest 20 + Jewel 35 + Replica 7 − 12 + token 8 (+18) = 271.
    # Clara: 180 + (16+12+8−10+8) + 3 cards in hand × 3 with token 5 = 223.
    assert {p.name: p.total for p in result.players} == {"Anna": 209, "Boris": 271, "Clara": 223}
    assert result.winners == ("Boris",)
    assert effects(result)[0]["why"] == "7 cards in play, not more than Boris 7"
    assert result.warnings == ()


def test_the_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(ROOT / "examples" / "seasons.json"), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "End-of-game cards" in out
    assert "Winner: Boris" in out


def test_the_command_rejects_a_bad_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc({"cards_in_play": [500]})), encoding="utf-8")
    assert main(["score", str(path)]) == 2
    assert "player 'Anna'" in capsys.readouterr().err


def test_the_editor_helpers_are_exposed() -> None:
    assert seasons.card(19).name == "Ragfield’s Helm"
    assert seasons.search_cards("helm")[0].id == 19
    assert len(seasons.CARDS) == 95
    assert dict(seasons.BONUS_TRACK) == {0: 0, 1: -5, 2: -12, 3: -20}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 300) | st.text("ab", max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text("abc", max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_bad_input_never_crashes(data: st.DataObject) -> None:
    doc: Any = json.loads((ROOT / "examples" / "seasons.json").read_text(encoding="utf-8"))
    node = doc
    path = data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=4))
    for step in path:
        children = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = children[step % len(children)]
        child = node[key]
        if not isinstance(child, dict | list) or not child or step % 3 == 0:
            node[key] = data.draw(JSON_VALUES)
            break
        node = child
    try:
        seasons.score(seasons.parse(doc))
    except BoardError as err:
        assert err.problems
