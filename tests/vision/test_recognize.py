"""End to end: photo bytes to the formats.md shape, with and without a layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorepad.boardfile import BoardError
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import Hex
from scorepad.vision import cli, synth
from scorepad.vision.decode import PhotoError
from scorepad.vision.recognize import OtherBoard, recognize, recognize_layout

INDICES = (0, 1, 2)


@pytest.fixture(scope="module")
def results(photo):
    return {i: recognize(photo(i).jpeg) for i in INDICES}


def test_result_has_exactly_the_contract_shape(results):
    for result in results.values():
        # The contract's shape; "outline" (the sheet's corners) and "sheet_doubted" are our
        # extensions without a layout.
        assert {"game", "player", "confidence", "seconds", "outline"} <= set(result)
        extensions = {"outline", "sheet_doubted"}
        assert set(result) <= {"game", "player", "confidence", "seconds"} | extensions
        assert result["game"] == "sunflower-valley"
        # The player part of a board file: its cells, and the paper's residents tally
        # when the photo shows it plainly (a board file's own optional field).
        assert set(result["player"]) <= {"cells", "residents"}
        assert isinstance(result["seconds"], float) and result["seconds"] > 0
        cells = {(c["q"], c["r"]) for c in result["player"]["cells"]}
        assert cells == {(c["q"], c["r"]) for c in result["confidence"]}
        for c in result["confidence"]:
            assert set(c) == {"q", "r", "p", "flagged"}
            assert 0.0 <= c["p"] <= 1.0


def test_the_residents_tally_is_read_as_ticked(results, photo):
    for i, result in results.items():
        assert result["player"]["residents"] == photo(i).tally


def test_recognised_cells_are_a_valid_board_file(results):
    for result in results.values():
        table = sv.parse({"game": sv.NAME, "players": [{"name": "Anna", **result["player"]}]})
        sv.score(table)  # scores without error


def test_cells_match_the_drawn_sheet(photo, results):
    total = synth.Grade()
    for i, result in results.items():
        total.add(synth.grade(result, photo(i)))
    assert total.cells == 90
    assert total.right >= 0.9 * total.cells
    # Cells we got wrong are, nearly all, the ones we asked the player to check.
    assert total.silent <= 2


def test_hexes_a_doubted_sheet_misses_are_counted_apart_among_the_silent(photo):
    truth = photo(0)
    cells = [c for h, c in truth.truth_cells().items() if (h.q, h.r) != (0, 0)][:20]
    reading = {
        "player": {"cells": cells},
        "confidence": [{"q": c["q"], "r": c["r"], "p": 0.5, "flagged": True} for c in cells],
    }
    plain = synth.grade(reading, truth, with_layout=True)
    doubted = synth.grade({**reading, "sheet_doubted": True}, truth, with_layout=True)
    missed = plain.cells - len(cells)
    assert plain.silent == doubted.silent == missed and plain.missed_on_doubted == 0
    assert doubted.missed_on_doubted == missed and doubted.flagged == plain.flagged == 20


def test_areas_are_named_consistently_by_colour(photo, results):
    for i, result in results.items():
        truth = photo(i).truth_cells()
        names: dict[str, set[str]] = {}
        for c in result["player"]["cells"]:
            if "area" in c and "area" in truth[Hex(c["q"], c["r"])]:
                names.setdefault(truth[Hex(c["q"], c["r"])]["area"], set()).add(c["area"])
        # Each printed area gets one name: a colour word (the synthetic print's own word).
        assert all(len(v) == 1 for v in names.values())
        assert sum(k in v for k, v in names.items()) >= 4


def test_layout_constrains_names_mountains_and_coordinates(photo):
    s = photo(0)
    layout = {
        "name": "Our sheet",
        "cells": [
            {
                "q": c["q"] + 2,
                "r": c["r"] - 1,
                **({"mountain": True} if c.get("mountain") else {"area": "a" + c["area"]}),
            }
            for c in s.layout["cells"]
        ],
    }
    result = recognize(s.jpeg, layout=layout)
    want = {(c["q"], c["r"]): c for c in layout["cells"]}
    got = {(c["q"], c["r"]): c for c in result["player"]["cells"]}
    assert set(got) == set(want)
    for key, c in got.items():
        assert c.get("area") == want[key].get("area")
        assert c.get("mountain", False) == want[key].get("mountain", False)
    # The sheet is printed as its own layout says (the contract's extension for the app).
    assert result["layout_differences"] == 0


def test_other_games_are_refused_clearly(photo):
    with pytest.raises(PhotoError, match="not supported"):
        recognize(photo(0).jpeg, game="seasons")


def other_game_photo(game: str, photo) -> bytes:
    from scorepad.vision import meadow_synth, render3d

    if game == "harmonies":
        return render3d.sample(render3d.VALIDATION, 3, megapixels=1.0).jpeg
    if game == "spring-meadow":
        return meadow_synth.sample(meadow_synth.VALIDATION, 2, megapixels=1.0).jpeg
    return photo(0).jpeg


SHOWN = {
    "sunflower-valley": "a Sunflower Valley sheet",
    "harmonies": "a Harmonies board",
    "spring-meadow": "a Spring Meadow board",
}


@pytest.mark.parametrize(
    ("shown", "game"),
    [pytest.param(a, b, id=f"{a}-at-{b}") for a in SHOWN for b in SHOWN if a != b],
)
def test_another_games_board_is_named(shown, game, photo):
    message = f"the photo shows {SHOWN[shown]}, not {SHOWN[game]}"
    with pytest.raises(OtherBoard, match=message):
        recognize(other_game_photo(shown, photo), game=game)


def test_another_games_board_is_named_with_a_layout_too(photo):
    harmonies_board = other_game_photo("harmonies", photo)
    message = "shows a Harmonies board, not a Sunflower Valley sheet"
    with pytest.raises(PhotoError, match=message):  # fitted onto the layout, it passed before
        recognize(harmonies_board, layout=sv.example_layout())
    with pytest.raises(PhotoError, match=message):
        recognize_layout(harmonies_board)
    with pytest.raises(PhotoError, match="shows a Harmonies board, not a Spring Meadow board"):
        recognize_layout(harmonies_board, game="spring-meadow")


def test_a_sheet_is_never_taken_for_another_games_board(photo):
    from scorepad.vision.decode import decode
    from scorepad.vision.recognize import WORK_SIDE, board_shown

    sheet = decode(photo(0).jpeg, WORK_SIDE)
    assert board_shown(sheet, ["harmonies", "spring-meadow"]) is None
    assert board_shown(sheet, ["harmonies"]) is None
    assert board_shown(sheet, ["spring-meadow"]) is None


def test_looks_like_sheet_wants_thirty_hexes_five_mountains_outlined(photo):
    from scorepad.vision.recognize import WELL_OUTLINED, analyse, looks_like_sheet

    readings = analyse(photo(0).jpeg).readings
    assert looks_like_sheet(readings, WELL_OUTLINED)
    assert not looks_like_sheet(readings, WELL_OUTLINED - 0.01)
    assert not looks_like_sheet(readings[1:], 1.0)
    plain = next(r for r in readings if not r.mountain)
    plain.mountain = True  # six mountains
    assert not looks_like_sheet(readings, 1.0)


def test_a_grid_without_a_mountain_that_is_no_sheet_is_refused(photo):
    from dataclasses import replace

    from scorepad.vision.recognize import (
        FULL_SHEET,
        WELL_OUTLINED,
        NoSheet,
        analyse,
        refuse_no_sheet,
    )

    readings = analyse(photo(0).jpeg).readings
    flat = [replace(r, mountain=False) for r in readings]
    refuse_no_sheet(readings, 0.5)  # mountains read: a sheet, however badly outlined
    refuse_no_sheet(flat, WELL_OUTLINED)  # none, but outlined all round: doubted, not refused
    with pytest.raises(NoSheet, match="no sheet found in the photo"):
        refuse_no_sheet(flat, WELL_OUTLINED - 0.01)
    many = flat * 3  # a fine texture's lattice: 90 hexes, well outlined
    assert len(many) > 2 * FULL_SHEET
    with pytest.raises(NoSheet):
        refuse_no_sheet(many, 1.0)


def _no_sheet_picture() -> bytes:
    """Dark and light blobs on a fine texture: the grid search finds lattices of 100-odd
    hexes there, none with a mountain (a photo of a cat did the same)."""
    import io

    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(7)
    blobs = rng.random((12, 16, 3))
    picture = np.kron(blobs, np.ones((100, 100, 1))) * 160 + rng.random((1200, 1600, 3)) * 95
    out = io.BytesIO()
    Image.fromarray(picture.astype(np.uint8)).save(out, "JPEG", quality=90)
    return out.getvalue()


def test_a_picture_of_no_sheet_is_refused_not_read_all_doubted():
    # Before: 30 cells fitted onto the layout, all doubted, replacing the player's board.
    with pytest.raises(PhotoError, match="no sheet found in the photo"):
        recognize(_no_sheet_picture(), layout=sv.example_layout())


def test_the_grid_search_stops_trying_past_its_cpu_budget(monkeypatch):
    # Each outline tried refined lattices of 100-odd hexes: 20-40 s of CPU on such photos.
    from scorepad.vision import recognize as rec
    from scorepad.vision.decode import decode

    photo = decode(_no_sheet_picture(), rec.WORK_SIDE)
    tried = []
    real = rec.sheet_grid

    class SecondOutline(Exception):
        pass

    def counted(*args):
        tried.append(args[-1])  # the deadline handed down
        if len(tried) == 2:
            raise SecondOutline  # all this test needs to know; the rest costs seconds
        return real(*args)

    monkeypatch.setattr(rec, "sheet_grid", counted)
    # A budget the first grid fits in on a slow machine (the default, 4 s of the thread's
    # CPU, it outran once in a full run there): a second outline is tried.
    monkeypatch.setattr(rec, "LOCATE_SECONDS", 20.0)
    with pytest.raises(SecondOutline):
        rec.locate(photo)
    tried.clear()
    monkeypatch.setattr(rec, "LOCATE_SECONDS", 0.0)
    rec.locate(photo)
    assert len(tried) == 1  # the first grid kept, no other outline tried


def test_a_harmonies_layout_is_refused_clearly():
    # A Harmonies board has fixed sides: its cells went to blank_sheet, which raised KeyError.
    with pytest.raises(PhotoError, match="no layout to read"):
        recognize_layout(b"any photo bytes at all", game="harmonies")


def test_cli_reads_a_harmonies_board(tmp_path, capsys):
    from scorepad.vision import render3d

    shot = render3d.sample(render3d.VALIDATION, 3, megapixels=1.0)
    path = tmp_path / "board.jpg"
    path.write_bytes(shot.jpeg)
    argv = ["recognize", str(path), "--game", "harmonies", "--side", shot.state.side]
    assert run_cli(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "harmonies" and out["side"] == shot.state.side
    assert len(out["player"]["cells"]) == len(shot.state.cells())


def test_cli_reads_a_harmonies_board_as_whole_turns(tmp_path, capsys):
    from scorepad.games.harmonies import board_hexes
    from scorepad.vision import render3d

    # VALIDATION photo 64 (1 MP): 36 tokens; read hex by hex, one stack comes out a token
    # short (35), which no number of turns gives.
    shot = render3d.sample(render3d.VALIDATION, 64, megapixels=1.0)
    path = tmp_path / "board.jpg"
    path.write_bytes(shot.jpeg)
    truth = {(c["q"], c["r"]): c["stack"] for c in shot.state.cells()}
    counts, right = [], []
    for extra in ([], ["--whole-turns"]):
        argv = ["recognize", str(path), "--game", "harmonies", "--side", "A", *extra]
        assert shot.state.side == "A" and run_cli(argv) == 0
        cells = json.loads(capsys.readouterr().out)["player"]["cells"]
        assert len(cells) == len(board_hexes("A"))
        counts.append(sum(len(c["stack"]) for c in cells))
        right.append(sum(truth[c["q"], c["r"]] == c["stack"] for c in cells))
    # Hex by hex a count no number of turns gives; as whole turns a whole one, no hex worse.
    assert counts[0] % 3 and not counts[1] % 3 and right[1] >= right[0]


@pytest.mark.parametrize("option", [["--side", "A"], ["--whole-turns"]])
def test_cli_refuses_harmonies_options_for_another_game(tmp_path, capsys, option):
    path = tmp_path / "sheet.jpg"
    path.write_bytes(b"not read")
    assert run_cli(["recognize", str(path), "--game", "sunflower-valley", *option]) == 2
    assert "are for Harmonies boards" in capsys.readouterr().err


def test_cli_refuses_a_layout_for_a_harmonies_board(tmp_path, capsys):
    path, layout = tmp_path / "board.jpg", tmp_path / "layout.json"
    path.write_bytes(b"not read")
    layout.write_text("{}")
    assert run_cli(["recognize", str(path), "--game", "harmonies", "--layout", str(layout)]) == 2
    assert "a Harmonies board has no layout" in capsys.readouterr().err


def run_cli(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="scorepad")
    sub = parser.add_subparsers(dest="command", required=True)
    cli.add_parser(sub)
    return cli.run(parser.parse_args(argv))


def test_cli_prints_the_json(tmp_path, photo, capsys):
    path = tmp_path / "sheet.jpg"
    path.write_bytes(photo(1).jpeg)
    assert run_cli(["recognize", str(path), "--game", "sunflower-valley"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "sunflower-valley" and out["player"]["cells"]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not an image at all, just some text" * 3, "not a JPEG, PNG or WebP"),
        (None, "cannot read the photo"),
    ],
)
def test_cli_bad_files_exit_2_with_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "photo.jpg"
    if content is not None:
        path.write_bytes(content)
    assert run_cli(["recognize", str(path), "--game", "sunflower-valley"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_bad_layout_exits_2(tmp_path, photo, capsys):
    path = tmp_path / "sheet.jpg"
    path.write_bytes(photo(1).jpeg)
    layout = tmp_path / "layout.json"
    layout.write_text('{"name": "x", "cells": [{"q": 0, "r": 0}]}')
    assert (
        run_cli(["recognize", str(path), "--game", "sunflower-valley", "--layout", str(layout)])
        == 2
    )
    err = capsys.readouterr().err
    assert "area" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1, 2]", "is not a JSON object"),
        ('"x"', "is not a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"name": "x", "cells": [{"q": 1' + "0" * 5000 + ', "r": 0}]}', "5001 digits"),
        ('{"name": "x", "name": "y"}', "appears twice"),
        ("", "layout file is empty"),
    ],
)
def test_cli_a_layout_that_is_no_layout_exits_2_with_one_line(tmp_path, capsys, text, message):
    # A list, deep nesting or a 5 000-digit number gave a traceback (exit 1).
    path, layout = tmp_path / "sheet.jpg", tmp_path / "layout.json"
    path.write_bytes(b"not read")
    layout.write_text(text)
    argv = ["recognize", str(path), "--game", "sunflower-valley", "--layout", str(layout)]
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"scorepad: the layout {layout}") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("layout", [[1, 2], "x", 3])
def test_a_layout_that_is_not_an_object_is_a_board_error(layout):
    # dict(layout) raised TypeError or ValueError from the API.
    with pytest.raises(BoardError, match="the layout is not a JSON object"):
        recognize(b"not read", layout=layout)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_cli_endless_photo_is_refused_at_the_size_limit(capsys):
    # The whole input was read before the 40 MB limit was checked: /dev/zero took all memory.
    assert run_cli(["recognize", "/dev/zero", "--game", "harmonies"]) == 2
    assert capsys.readouterr().err == "scorepad: /dev/zero: the photo is too large (over 40 MB)\n"


def test_a_faint_small_blurred_sheet_is_read():
    """VALIDATION photo 23 860 (blur 2.0, thin light pencil, a small sheet): its drawings
    read as empty hexes until the faint pencil was raised (15 hexes wrong, now 3)."""
    s = synth.sample(synth.VALIDATION, 23_860)
    result = recognize(s.jpeg, layout={"name": "faint", "cells": s.layout["cells"]})
    graded = synth.grade(result, s, with_layout=True)
    assert graded.cells - graded.right <= 5 and graded.silent == 0


def test_the_sheets_outline_is_given_as_shares_of_the_photo():
    """The web app crops the evidence photo to it: the sheet's corners, as fractions of
    the upright photo's width and height, at whatever scale the photo was decoded."""
    import io

    from PIL import Image

    s = synth.sample(synth.VALIDATION, 23_860)
    outline = recognize(s.jpeg)["outline"]
    width, height = Image.open(io.BytesIO(s.jpeg)).size
    truth = [(x / width, y / height) for x, y in s.corners]
    assert len(outline) == 4
    for x, y in outline:
        assert min(abs(x - tx) + abs(y - ty) for tx, ty in truth) < 0.02
