"""Spring Meadow as a whole game (the ledger of phases) and the solo game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorepad.boardfile import BoardError
from scorepad.cli import main
from scorepad.games import spring_meadow as sm

NAMES = ("Anna", "Boris", "Clara")


def rows_for(full: int, partial: int, codes: dict[tuple[int, int], str] | None = None) -> list[str]:
    """A vertical board: ``full`` full rows at the bottom, ``partial`` squares of the next."""
    grid = [["."] * 10 for _ in range(15)]
    for line in range(1, full + 1):
        grid[15 - line] = ["#"] * 10
    if full < 15:
        grid[14 - full][:partial] = ["#"] * partial
    for (r, c), code in (codes or {}).items():
        grid[r][c] = code
    return ["".join(row) for row in grid]


def phase(active: str | None, *boards: list[str]) -> dict[str, Any]:
    options = {} if active is None else {"active": active}
    players = [
        {"name": name, "orientation": "vertical", "rows": rows}
        for name, rows in zip(NAMES, boards, strict=False)
    ]
    return {"game": "spring-meadow", "options": options, "players": players}


# Boris wins phase 1 with two cleared burrows; in phase 2 he recorded one of them as still
# cleared (it must hold his marmot now) and the other with its marmot.
PHASE_1 = phase(
    "Anna",
    rows_for(1, 0, {(0, 0): "o"}),  # 10 + picnic 2 = 12
    rows_for(1, 5, {(14, 0): "c", (3, 5): "c"}),  # 10 + 5 + 2 cleared = 17
    rows_for(1, 3),  # 13
)
PHASE_2 = phase(
    "Boris",
    rows_for(2, 5, {(0, 0): "c"}),  # 20 + 5 + 1 cleared = 26
    rows_for(2, 4, {(14, 0): "c", (3, 5): "m"}),  # 20 + 4 + picnic 2; 27 if (14, 0) scored
    rows_for(2, 1),  # 21
)
PHASE_3_BOARDS = (
    rows_for(3, 2, {(0, 0): "c"}),  # 32: Anna won phase 2, her burrow holds a marmot now
    rows_for(3, 5, {(14, 0): "c", (3, 5): "m"}),  # 35
    rows_for(3, 0),  # 30 + picnic 2
)
PHASE_3 = phase("Clara", *PHASE_3_BOARDS)
#: A board of another table (a fourth player) after phase 3's.
FOUR_PLAYERS = {
    "game": "spring-meadow",
    "players": [
        *phase(None, *PHASE_3_BOARDS)["players"],
        {"name": "Dasha", "orientation": "vertical", "rows": rows_for(3, 0)},
    ],
}


def test_a_phase_winner_puts_marmots_on_its_cleared_burrows_for_the_next_phase() -> None:
    # "Победитель должен поместить сурков поверх всех очищенных Нор."
    ledger = sm.score_game([PHASE_1, PHASE_2])
    first, second = ledger.phases
    assert first.winners == ("Boris",)
    assert first.marmots_placed == {}
    assert second.marmots_placed == {"Boris": ((3, 5), (14, 0))}
    boris = second.result.player("Boris")
    assert boris.categories["cleared_burrows"] == 0
    assert boris.total == 26
    assert sorted(boris.details["marmots"]) == [[3, 5], [14, 0]]
    # Without the marmot Boris would have 27 and win; with it he ties Anna, and Anna wins:
    # the active player (Boris) is the nearest counter-clockwise and loses a tie.
    assert second.result.player("Anna").total == 26
    assert second.winners == ("Anna",)


def test_pins_are_counted_and_the_first_to_two_wins_the_game() -> None:
    # "Игрок, который первым заработал вторую Походную булавку, побеждает в игре."
    ledger = sm.score_game([PHASE_1, PHASE_2, PHASE_3])
    assert [p.winners for p in ledger.phases] == [("Boris",), ("Anna",), ("Boris",)]
    assert [dict(p.pins) for p in ledger.phases] == [
        {"Anna": 0, "Boris": 1, "Clara": 0},
        {"Anna": 1, "Boris": 1, "Clara": 0},
        {"Anna": 1, "Boris": 2, "Clara": 0},
    ]
    assert ledger.winners == ("Boris",)
    assert ledger.finished
    third = ledger.phases[2]
    assert third.marmots_placed == {"Anna": ((0, 0),)}
    assert third.result.player("Anna").total == 32
    # Boris's earlier marmots stay, even where he still wrote 'c'.
    assert third.result.player("Boris").categories["cleared_burrows"] == 0


def test_a_game_in_progress_has_no_winner() -> None:
    ledger = sm.score_game([PHASE_1])
    assert ledger.winners == ()
    assert not ledger.finished
    assert ledger.pins == {"Anna": 0, "Boris": 1, "Clara": 0}
    assert ledger.game_result() is None


def test_a_game_file_is_its_phases_then_the_board() -> None:
    phases, current = sm.read_game_file([PHASE_1, PHASE_2, PHASE_3])
    assert phases == [PHASE_1, PHASE_2]
    # The board as it stands, the earlier winners' marmots in place: Anna won phase 2
    # with the cleared burrow (0, 0), which PHASE_3 still writes 'c'.
    assert current["players"][0]["rows"][0][0] == "m"
    assert current["players"][1]["rows"][14][0] == "m"  # Boris's, from phase 1
    assert sm.read_game_file([PHASE_1]) == ([], PHASE_1)
    # After the game's last phase only the board as it stands follows.
    over = sm.read_game_file([PHASE_1, PHASE_2, PHASE_3, PHASE_3])
    assert len(over[0]) == 3


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ({}, "game file: a list of Spring Meadow board files"),
        ([], "game file: a list of Spring Meadow board files"),
        ([PHASE_1, {"game": "seasons"}], "game file, entry 2: not a Spring Meadow board file"),
        ([PHASE_2, PHASE_1, PHASE_3], "phase 2"),  # marmots cannot leave, tiles never move
        ([PHASE_1, PHASE_2, PHASE_3, FOUR_PLAYERS], "phase 4: the players or their seats differ"),
        ([PHASE_1, PHASE_2, PHASE_1], "phase 3"),  # the board: tiles moved back
        ([PHASE_1, PHASE_2, PHASE_3, PHASE_3, PHASE_3], "phase 4: the game ended"),
    ],
)
def test_a_bad_game_file_is_refused(doc: Any, problem: str) -> None:
    with pytest.raises(BoardError) as err:
        sm.read_game_file(doc)
    assert err.value.problems[0].startswith(problem)


def test_the_command_scores_a_game_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps([PHASE_1, PHASE_2, PHASE_3, PHASE_3]))
    assert main(["score", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"] == ["Boris"] and out["ledger"]["pins"]["Boris"] == 2
    assert main(["score", str(path), "--format", "text"]) == 0
    text = capsys.readouterr().out
    phases = "Phases:\n  1: Boris\n  2: Anna\n  3: Boris"
    assert f"The table above: phase 3, the game's last\n{phases}" in text
    assert text.rstrip().endswith("Game won by Boris (2 pins)")
    # In progress: the board as it stands scores as the current phase.
    path.write_text(json.dumps([PHASE_1, PHASE_2]))
    assert main(["score", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"] == ["Anna"] and out["ledger"]["finished"] is False
    path.write_text(json.dumps([solo([12], rows_for(1, 0))]))  # one board in a list
    assert main(["score", str(path)]) == 0
    assert "ledger" not in json.loads(capsys.readouterr().out)
    path.write_text(json.dumps([PHASE_2, PHASE_1, PHASE_2]))  # marmots cannot leave
    assert main(["score", str(path)]) == 2
    assert capsys.readouterr().err.startswith("scorepad: ")


def test_the_game_result_is_the_last_phase_ranked_by_pins() -> None:
    # Phase 3: Boris 35, Clara 32 (30 + picnic), Anna 32; pins Boris 2, Anna 1, Clara 0.
    ledger = sm.score_game([PHASE_1, PHASE_2, PHASE_3])
    final = ledger.game_result()
    assert final is not None
    assert final.winners == ("Boris",)
    assert {p.name: (p.total, p.rank) for p in final.players} == {
        "Anna": (32, 2),
        "Boris": (35, 1),
        "Clara": (32, 3),
    }
    assert final.extra["pins"] == {"Anna": 1, "Boris": 2, "Clara": 0}
    assert final.tiebreaks == ()  # the phase's tie-break is not the game's


def test_pins_rank_the_game_even_against_the_last_phases_points() -> None:
    # Anna wins phases 1 and 3; in phase 3 Clara (25) outscores Boris (22), but Boris holds
    # a pin from phase 2 and Clara none: the game ranks Anna, Boris, Clara by pins.
    game = [
        phase("Clara", rows_for(1, 0), rows_for(0, 3), rows_for(0, 2)),
        phase("Anna", rows_for(1, 1), rows_for(2, 0), rows_for(0, 4)),
        phase("Boris", rows_for(3, 0), rows_for(2, 0), rows_for(2, 5)),
    ]
    final = sm.score_game(game).game_result()
    assert final is not None and final.winners == ("Anna",)
    assert {p.name: (p.total, p.rank) for p in final.players} == {
        "Anna": (30, 1),
        "Boris": (22, 2),
        "Clara": (25, 3),
    }


def test_no_phase_follows_the_game_winner() -> None:
    with pytest.raises(BoardError, match="phase 4: the game ended after phase 3"):
        sm.score_game([PHASE_1, PHASE_2, PHASE_3, PHASE_3])


def test_tiles_never_move_between_phases() -> None:
    boris = rows_for(2, 4, {(14, 0): "c", (3, 5): "m"})
    later = phase("Boris", rows_for(0, 0, {(0, 0): "o"}), boris, rows_for(2, 1))
    with pytest.raises(BoardError) as err:
        sm.score_game([PHASE_1, later])
    assert err.value.problems[0] == (
        "phase 2, player 'Anna', square (14, 0): covered '#' in phase 1 cannot become "
        "snow '.': tiles never move and marmots never leave"
    )
    assert len(err.value.problems) == 10


def test_marmots_never_leave() -> None:
    anna = rows_for(2, 0, {(0, 0): "o"})
    later = phase("Anna", anna, rows_for(2, 0, {(3, 5): "o"}), rows_for(2, 0))
    with pytest.raises(BoardError, match=r"square \(3, 5\): cleared burrow 'c' in phase 1"):
        sm.score_game([PHASE_1, later])


def test_every_phase_has_the_same_players_and_boards() -> None:
    two = phase("Anna", rows_for(2, 0), rows_for(2, 0))
    with pytest.raises(BoardError, match="players or their seats differ"):
        sm.score_game([PHASE_1, two])
    turned = phase("Boris", rows_for(2, 5), rows_for(2, 4), rows_for(2, 1))
    turned["players"][2]["orientation"] = "horizontal"
    turned["players"][2]["rows"] = ["#" * 15] * 10
    with pytest.raises(BoardError, match="'Clara': the board is horizontal but was vertical"):
        sm.score_game([PHASE_1, turned])


def test_a_shared_phase_win_gives_each_tied_player_a_pin() -> None:
    tied = phase(None, rows_for(2, 0), rows_for(2, 0), rows_for(1, 0))
    ledger = sm.score_game([tied])
    assert ledger.phases[0].winners == ("Anna", "Boris")
    assert ledger.pins == {"Anna": 1, "Boris": 1, "Clara": 0}
    assert "share the win" in ledger.warnings[0]
    again = phase(None, rows_for(3, 0), rows_for(3, 0), rows_for(1, 0))
    assert sm.score_game([tied, again]).winners == ("Anna", "Boris")


def test_a_ledger_needs_phases_of_a_multiplayer_game() -> None:
    with pytest.raises(BoardError, match="at least one scoring phase"):
        sm.score_game([])
    solo = {"game": "spring-meadow", "players": [{"name": "Anna", "rows": rows_for(1, 0)}]}
    with pytest.raises(BoardError, match="a solo game has no scoring phases"):
        sm.score_game([solo])


def test_the_ledger_accepts_parsed_tables_and_reports_json() -> None:
    ledger = sm.score_game([sm.parse(PHASE_1), PHASE_2])
    out = ledger.to_json()
    assert [p["phase"] for p in out["phases"]] == [1, 2]
    assert out["phases"][1]["marmots_placed"] == {"Boris": [[3, 5], [14, 0]]}
    assert out["phases"][1]["winners"] == ["Anna"]
    assert out["pins"] == {"Anna": 1, "Boris": 1, "Clara": 0}
    assert out["winners"] == []
    assert out["finished"] is False


# ------------------------------------------------------------------ solo


def solo(values: list[int], rows: list[str], **extra: Any) -> dict[str, Any]:
    player = {"name": "Anna", "orientation": "vertical", "rows": rows, "solo_values": values}
    player.update(extra)
    return {"game": "spring-meadow", "players": [player]}


def test_solo_scores_the_written_values_plus_cleared_burrows() -> None:
    # "подсчитайте очки, которые вы записали, и добавьте 1 ПО за каждую очищенную нору"
    rows = rows_for(3, 4, {(0, 0): "c", (5, 5): "c", (6, 6): "m"})
    result = sm.score(sm.parse(solo([10, 9, 9], rows)))
    player = result.players[0]
    assert player.categories == {
        "full_rows": 28,
        "partial_row": 0,
        "cleared_burrows": 2,
        "picnic": 0,
    }
    assert player.total == 30
    assert player.details["solo"]["values"] == [10, 9, 9]
    assert player.details["solo"]["rows_completed"] == 3
    assert player.details["solo"]["mark"] is None
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("total", "mark"),
    [
        (0, None),
        (139, None),
        (140, "good"),
        (149, "good"),
        (150, "outstanding"),
        (170, "outstanding"),
    ],
)
def test_solo_marks(total: int, mark: str | None) -> None:
    # "набор 140 очков – это хороший результат. Набор 150 очков - это необычайное достижение."
    assert sm.solo_mark(total) == mark


def test_a_solo_board_file_gets_its_mark() -> None:
    values = [12, 12, 11, 11, 10, 10, 10, 9, 9, 9, 8, 8, 8, 7, 4]
    rows = rows_for(15, 0)
    rows[0] = "c" + rows[0][1:]
    rows[1] = "c" + rows[1][1:]
    result = sm.score(sm.parse(solo(values, rows)))
    assert result.players[0].total == 140
    assert result.players[0].details["solo"]["mark"] == "good"


def test_solo_values_not_matching_the_completed_rows_are_warned_about() -> None:
    result = sm.score(sm.parse(solo([10, 9], rows_for(3, 0))))
    assert result.warnings == (
        "player 'Anna': 2 solo values written down but 3 rows are complete from the bottom; "
        "one value is written per completed row",
    )
    # A horizontal board counts columns from the left, and the warning says so.
    columns = ["###" + "." * 12] * 10
    result = sm.score(sm.parse(solo([10, 9], columns, orientation="horizontal")))
    assert result.warnings == (
        "player 'Anna': 2 solo values written down but 3 columns are complete from the left; "
        "one value is written per completed column",
    )


def test_the_solo_values_warning_says_each_count_in_its_form() -> None:
    """It read "1 solo values written down but 1 rows are complete": each count agrees now."""

    def warning(values: int, rows: int, orientation: str = "vertical") -> str:
        board = rows_for(rows, 0)
        if orientation == "horizontal":
            board = ["#" * rows + "." * (15 - rows)] * 10
        doc = solo([9] * values, board, orientation=orientation)
        (said,) = sm.score(sm.parse(doc)).warnings
        return said

    assert warning(1, 2) == (
        "player 'Anna': 1 solo value written down but 2 rows are complete from the bottom; "
        "one value is written per completed row"
    )
    assert warning(2, 1).startswith(
        "player 'Anna': 2 solo values written down but 1 row is complete from the bottom; "
    )
    assert warning(5, 0).startswith(
        "player 'Anna': 5 solo values written down but 0 rows are complete from the bottom; "
    )
    assert warning(0, 1, "horizontal") == (
        "player 'Anna': 0 solo values written down but 1 column is complete from the left; "
        "one value is written per completed column"
    )
    assert warning(2, 5, "horizontal").startswith(
        "player 'Anna': 2 solo values written down but 5 columns are complete from the left; "
    )


def test_solo_values_that_rise_are_warned_about() -> None:
    # "очки, получаемые в каждом ходу, уменьшаются": a value above the one before it was
    # written down or typed wrong; the sum stands (it does not depend on the order).
    result = sm.score(sm.parse(solo([5, 12, 12, 13], rows_for(4, 0))))
    assert result.players[0].total == 42
    assert result.warnings == (
        "player 'Anna': solo value #2 (12) is more than #1 (5); the signpost's values only go "
        "down as the game goes on",
        "player 'Anna': solo value #4 (13) is more than #3 (12); the signpost's values only go "
        "down as the game goes on",
    )


def test_solo_values_written_twice_in_one_turn_are_no_warning() -> None:
    # "Вполне возможно полное закрытие нескольких рядов за один ход. В этом случае просто
    # запишите очки несколько раз."
    result = sm.score(sm.parse(solo([12, 12, 12, 9], rows_for(4, 0))))
    assert result.players[0].total == 45
    assert result.warnings == ()


def test_a_solo_game_on_a_horizontal_board_counts_columns_from_the_left() -> None:
    rows = ["#" * 2 + "." * 13 for _ in range(10)]  # columns 1 and 2 full
    rows[3] = "c#" + "." * 13
    doc = solo([11, 10], rows, orientation="horizontal")
    player = sm.score(sm.parse(doc)).players[0]
    assert player.details["solo"]["rows_completed"] == 2
    assert player.total == 22


def test_solo_values_are_checked() -> None:
    with pytest.raises(BoardError) as err:
        sm.parse(solo([-1, *[1] * 15], rows_for(0, 0)))
    assert "player 'Anna', solo value #1: -1 is negative" in err.value.problems
    assert "player 'Anna': 16 solo values; at most 15 rows can be completed" in err.value.problems
    doc = solo([10], rows_for(1, 0))
    doc["players"].append({"name": "Boris", "rows": rows_for(1, 0)})
    with pytest.raises(BoardError, match="'solo_values' are for a solo game"):
        sm.parse(doc)
    doc = solo([10], rows_for(1, 0))
    doc["options"] = {"active": "Anna"}
    with pytest.raises(BoardError, match="a solo game has no scoring phase"):
        sm.parse(doc)


def test_a_lone_player_without_solo_values_scores_a_phase() -> None:
    doc = {"game": "spring-meadow", "players": [{"name": "Anna", "rows": rows_for(1, 4)}]}
    result = sm.score(sm.parse(doc))
    assert result.players[0].total == 14
    assert "solo" not in result.players[0].details


def test_the_campaign_aims_at_600_over_four_boards() -> None:
    # "Сыграйте в 4 игры с 4 различными планшетами Гор. Конечная цель кампании - 600 очков."
    assert sm.campaign([150, 140, 160, 150])["reached"] is True
    assert sm.campaign([150, 140, 160, 149]) == {
        "games": [150, 140, 160, 149],
        "total": 599,
        "target": 600,
        "reached": False,
    }
    assert sm.campaign([200, 200, 200])["reached"] is False
    with pytest.raises(ValueError, match="4 games"):
        sm.campaign([150] * 5)


def test_solo_games_make_campaigns_of_four() -> None:
    # Every solo game counts, four to a campaign, in playing order; the last is under way.
    example = sm.example_layout().name
    games = [(150, "Side 1"), (140, "Side 2"), (160, "Side 3"), (150, "Side 4"), (145, None)]
    first, second = sm.campaigns(games)
    assert first == {
        "games": [150, 140, 160, 150],
        "total": 600,
        "target": 600,
        "reached": True,
        "boards": ["Side 1", "Side 2", "Side 3", "Side 4"],
        "to_go": 0,
        "repeated": [],
    }
    assert (second["games"], second["reached"], second["to_go"]) == ([145], False, 455)
    assert sm.campaigns([]) == []
    # "4 различными планшетами": a board side played twice is named; unknown boards and the
    # invented example layout stand for no printed side and are never a repeat.
    again = [(140, "Side 1"), (150, example), (150, "Side 1"), (170, example)]
    (only,) = sm.campaigns(again)
    assert only["repeated"] == ["Side 1"] and only["reached"] is True
    (unknown,) = sm.campaigns([(100, None), (100, None), (100, None), (100, None)])
    assert unknown["repeated"] == [] and unknown["to_go"] == 200


def test_a_solo_game_names_its_board_side() -> None:
    doc = solo([10], rows_for(1, 0))
    assert sm.score(sm.parse(doc)).players[0].details["solo"]["board"] is None
    side = {**sm.dump_layout(sm.example_layout()), "name": "Side 5"}
    board = sm.fill_row(sm.empty_board("vertical", sm.parse_layout(side)), "vertical", 1)
    doc = solo([10], list(board), layout="Side 5")
    doc["options"] = {"layouts": [side]}
    assert sm.score(sm.parse(doc)).players[0].details["solo"]["board"] == "Side 5"


def test_a_solo_game_shows_its_own_rows() -> None:
    # The solo score is the values written down plus cleared burrows (formats.md keeps the
    # four keys, full_rows holding the values); its table shows only what can score.
    result = sm.score(sm.parse(solo([10, 9], rows_for(2, 0))))
    assert dict(sm.GAME.categories_of(result)) == {
        "full_rows": "Values written down",
        "cleared_burrows": "Cleared burrows",
    }
    assert set(result.players[0].categories) == set(sm.GAME.categories)
    assert sm.GAME.categories_of(sm.score(sm.parse(PHASE_1))) == sm.GAME.categories


def test_solo_round_trips() -> None:
    doc = solo([10, 9], rows_for(2, 0))
    table = sm.parse(doc)
    assert sm.parse(sm.dump(table)) == table
    assert sm.dump(table)["players"][0]["solo_values"] == [10, 9]
