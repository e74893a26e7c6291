"""The ``scorepad score`` command (``shared/formats.md``, "The command line").

Exit 0 with the result as JSON (default) or as an aligned table (``--format text``); exit 2
with exactly one line on stderr for unreadable or invalid input, never a traceback. The real
processes (``python -m scorepad`` and the ``scorepad`` console script) run in parallel once per
test session; the in-process :func:`main` covers the same inputs quickly.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorepad import games
from scorepad.boardfile import MAX_BOARD_BYTES
from scorepad.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sunflower-valley.json"
SCRIPT = Path(sys.executable).parent / "scorepad"

#: Sunflower Valley's category keys as formats.md lists them.
SUNFLOWER_CATEGORIES = {
    "houses_with_sheep",
    "houses_without_sheep",
    "sunflower_majority",
    "mountains",
    "residents",
    "valley_express",
}


def sheet(name: str, *cells: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "cells": list(cells) or [{"q": 0, "r": 0, "area": "a", "item": "house"}]}


def sunflower(*players: dict[str, Any], **top: Any) -> bytes:
    doc = {"game": "sunflower-valley", "players": list(players), **top}
    return json.dumps(doc).encode()


#: Bad inputs: file content (or a special path), and a fragment the one-line message must hold.
BAD_INPUTS: dict[str, tuple[bytes | str, str]] = {
    "missing file": ("<missing>", "cannot read"),
    "directory": ("<directory>", "cannot read"),
    "malformed JSON": (b'{"game": "sunflower-valley",\n "players": [}', "line 2 column"),
    "empty input": (b"", "board file is empty"),
    "only whitespace": (b"  \n\n", "board file is empty"),
    "JSON array": (b"[]", "JSON object"),
    "JSON string": (b'"sunflower-valley"', "JSON object"),
    "JSON null": (b"null", "JSON object"),
    "unknown game": (b'{"game": "chess", "players": []}', "unknown game 'chess'"),
    "missing game": (b'{"players": [{"name": "Anna"}]}', "missing 'game'"),
    "game not a string": (b'{"game": 1, "players": []}', "'game' is a game's name in quotes"),
    "duplicate key": (b'{"game": "sunflower-valley", "game": "harmonies"}', "appears twice"),
    "unknown key": (
        sunflower(sheet("Anna", {"q": 0, "r": 0, "area": "a", "colour": "red"})),
        "player 'Anna', cell (0, 0): unknown key 'colour'",
    ),
    "duplicate cell": (
        sunflower(sheet("Anna", {"q": 1, "r": 2, "area": "a"}, {"q": 1, "r": 2, "area": "b"})),
        "player 'Anna', cell (1, 2): listed twice",
    ),
    "illegal rail": (
        sunflower(sheet("Anna", {"q": 0, "r": 0, "area": "a", "item": "rail", "sides": [4, 5]})),
        "player 'Anna', cell (0, 0): rail sides 4 and 5 are neighbouring sides",
    ),
    "duplicate names": (sunflower(sheet("Anna"), sheet("Anna")), "player 'Anna': two players"),
    "no players": (sunflower(), "players"),
    "binary garbage": (bytes(range(256)) * 8, "not UTF-8"),
    "NUL bytes": (b"\x00" * 64, "not a board file"),
    "deep nesting": (b"[" * 200_000, "nested too deeply"),
    "too large": (b" " * (MAX_BOARD_BYTES + 1), "too large"),
    "number too long": (b'{"game": ' + b"7" * 5000 + b"}", "has 5000 digits (at most 15)"),
}


#: The bad inputs also run as real processes: every stage that can fail (reading the file,
#: decoding, JSON, the game lookup, validation) once. Each process costs about a second (scipy),
#: so the in-process tests below cover the rest of BAD_INPUTS.
PROCESS_CASES = [
    "missing file",
    "directory",
    "malformed JSON",
    "empty input",
    "JSON array",
    "unknown game",
    "illegal rail",
    "binary garbage",
    "number too long",
]


def bad_path(case: str, folder: Path) -> str:
    content, _ = BAD_INPUTS[case]
    if content == "<missing>":
        return str(folder / "no-such-board.json")
    if content == "<directory>":
        return str(folder)
    assert isinstance(content, bytes)
    path = folder / (case.replace(" ", "-") + ".json")
    path.write_bytes(content)
    return str(path)


def assert_one_line_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("scorepad: ")
    assert fragment in lines[0]


# --- real processes, run in parallel once --------------------------------------------------


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    folder = tmp_path_factory.mktemp("boards")
    example = EXAMPLE.read_bytes()
    # Each way in is run once: python -m and the console script, a file and standard input.
    jobs: dict[str, tuple[list[str], bytes]] = {
        "module json": ([sys.executable, "-m", "scorepad", "score", str(EXAMPLE)], b""),
        "script text": ([str(SCRIPT), "score", str(EXAMPLE), "--format", "text"], b""),
        "stdin json": ([str(SCRIPT), "score", "-"], example),
        "stdin garbage": ([str(SCRIPT), "score", "-"], bytes(range(128, 256))),
    }
    for case in PROCESS_CASES:
        jobs[case] = ([str(SCRIPT), "score", bad_path(case, folder)], b"")

    def run(job: tuple[list[str], bytes]) -> Run:
        argv, stdin = job
        done = subprocess.run(argv, input=stdin, capture_output=True, cwd=folder, timeout=120)
        return Run(done.returncode, done.stdout.decode(), done.stderr.decode())

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(jobs, pool.map(run, jobs.values()), strict=True))


def expected_result() -> dict[str, Any]:
    """The example's result as the library computes it."""
    return games.score_text(EXAMPLE.read_bytes()).to_json()


def test_console_script_is_installed() -> None:
    assert SCRIPT.exists(), f"{SCRIPT} missing: install the package (python3 tasks.py test)"


@pytest.mark.parametrize("job", ["module json", "stdin json"])
def test_example_scores_as_json(runs: dict[str, Run], job: str) -> None:
    run = runs[job]
    assert run.code == 0, run.err
    assert run.err == ""
    doc = json.loads(run.out)
    assert_result_shape(doc)
    assert doc == expected_result()


def test_example_scores_as_text(runs: dict[str, Run]) -> None:
    run = runs["script text"]
    assert run.code == 0, run.err
    assert run.err == ""
    assert_text_table(run.out, expected_result())


@pytest.mark.parametrize("case", PROCESS_CASES)
def test_bad_input_exits_2_with_one_line(runs: dict[str, Run], case: str) -> None:
    run = runs[case]
    assert_one_line_error(run.code, run.out, run.err, BAD_INPUTS[case][1])


def test_garbage_on_stdin(runs: dict[str, Run]) -> None:
    run = runs["stdin garbage"]
    assert_one_line_error(run.code, run.out, run.err, "not UTF-8")


# --- the result document --------------------------------------------------------------------


def assert_result_shape(doc: dict[str, Any]) -> None:
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert doc["game"] == "sunflower-valley"
    assert {"game", "players", "winners", "warnings"} <= set(doc)
    assert [p["name"] for p in doc["players"]] == [p["name"] for p in example["players"]]
    assert set(games.get("sunflower-valley").categories) == SUNFLOWER_CATEGORIES
    for p in doc["players"]:
        assert {"name", "total", "rank", "categories", "details"} <= set(p)
        assert set(p["categories"]) == SUNFLOWER_CATEGORIES
        assert all(type(v) is int for v in p["categories"].values())
        assert p["total"] == sum(p["categories"].values())
        assert isinstance(p["details"], dict)
        for pair in p["details"]["pairs"]:
            assert len(pair["house"]) == len(pair["sheep"]) == 2
        assert isinstance(p["details"]["unpaired_houses"], list)
        assert "residents" in p["details"]
    totals = [p["total"] for p in doc["players"]]
    ranks = [p["rank"] for p in doc["players"]]
    assert 1 in ranks
    assert all(1 <= r <= len(ranks) for r in ranks)
    # A higher total never ranks behind a lower one; the tie-break only orders equal totals.
    for a, b in zip(totals, ranks, strict=True):
        for c, d in zip(totals, ranks, strict=True):
            if a > c:
                assert b < d
    assert doc["winners"] == [p["name"] for p in doc["players"] if p["rank"] == 1]
    assert all(isinstance(w, str) and "\n" not in w for w in doc["warnings"])


def assert_text_table(text: str, result: dict[str, Any]) -> None:
    game = games.get(result["game"])
    lines = text.splitlines()
    assert lines[0] == game.title
    names = [p["name"] for p in result["players"]]
    header = lines[2]
    # Each player's column ends where the name ends in the header: values are right-aligned.
    ends, start = [], 0
    for name in names:
        at = header.index(name, start)
        ends.append(at + len(name))
        start = ends[-1]
    rows = {
        **{
            label: [p["categories"][key] for p in result["players"]]
            for key, label in game.categories.items()
        },
        "Total": [p["total"] for p in result["players"]],
        "Rank": [p["rank"] for p in result["players"]],
    }
    by_label = {line.split("  ")[0].rstrip(): line for line in lines[3:] if line.strip()}
    for label, values in rows.items():
        assert label in by_label, label
        line = by_label[label]
        width = max(len(label) for label in rows)
        assert line[:width].rstrip() == label
        for end, value in zip(ends, values, strict=True):
            cell = str(value)
            assert line[end - len(cell) : end] == cell, (label, line)
            assert line[end : end + 1] in ("", " ")
            assert line[end - len(cell) - 1] == " "
    winners = result["winners"]
    winner_line = ("Winners: " if len(winners) > 1 else "Winner: ") + ", ".join(winners)
    assert winner_line in lines
    for sentence in result["tiebreaks"]:
        assert f"Tie-break: {sentence}" in lines
    for warning in result["warnings"]:
        assert f"Warning: {warning}" in lines


# --- in process -------------------------------------------------------------------------------


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code = main(["score", *argv])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    yield feed


def test_main_json(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, str(EXAMPLE))
    assert (run.code, run.err) == (0, "")
    doc = json.loads(run.out)
    assert_result_shape(doc)
    assert doc == expected_result()


def test_main_text(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, str(EXAMPLE), "--format", "text")
    assert (run.code, run.err) == (0, "")
    assert_text_table(run.out, expected_result())


def test_main_reads_standard_input(capsys: pytest.CaptureFixture[str], stdin: Any) -> None:
    stdin(EXAMPLE.read_bytes())
    run = run_main(capsys, "-")
    assert run.code == 0
    assert json.loads(run.out) == expected_result()


def test_main_text_names_every_shared_winner(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Two identical sheets tie on every tie-break: both win and the line says "Winners".
    board = tmp_path / "tie.json"
    board.write_bytes(sunflower(sheet("Anna"), sheet("Boris")))
    run = run_main(capsys, str(board), "--format", "text")
    assert run.code == 0
    assert "Winners: Anna, Boris" in run.out.splitlines()
    result = json.loads(run_main(capsys, str(board)).out)
    assert result["winners"] == ["Anna", "Boris"]
    assert_text_table(run.out, result)


def test_main_keeps_unicode_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    board = tmp_path / "names.json"
    board.write_bytes(sunflower(sheet("Ärni"), sheet("Вера")))
    run = run_main(capsys, str(board))
    assert run.code == 0
    assert '"Вера"' in run.out
    assert [p["name"] for p in json.loads(run.out)["players"]] == ["Ärni", "Вера"]


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_main_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str) -> None:
    run = run_main(capsys, bad_path(case, tmp_path))
    assert_one_line_error(run.code, run.out, run.err, BAD_INPUTS[case][1])


@pytest.mark.parametrize("case", ["malformed JSON", "binary garbage", "illegal rail"])
def test_main_bad_standard_input(capsys: pytest.CaptureFixture[str], stdin: Any, case: str) -> None:
    content = BAD_INPUTS[case][0]
    assert isinstance(content, bytes)
    stdin(content)
    run = run_main(capsys, "-")
    assert_one_line_error(run.code, run.out, run.err, BAD_INPUTS[case][1])


def test_main_text_format_fails_the_same_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = run_main(capsys, bad_path("duplicate names", tmp_path), "--format", "text")
    assert_one_line_error(run.code, run.out, run.err, "two players")


def test_closed_standard_input_is_one_line_not_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scorepad", "score", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        # the child's descriptor 0 closed, as a shell's "<&-" leaves it
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 2
    assert proc.stderr.decode() == "scorepad: cannot read standard input: it is closed\n"


def test_unreadable_standard_input_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    with open(tmp_path / "out", "wb") as write_only:  # "0>file": open for writing only
        proc = subprocess.run(
            [sys.executable, "-m", "scorepad", "score", "-"],
            stdin=write_only,
            capture_output=True,
            check=False,
        )
    assert proc.returncode == 2
    assert proc.stderr.decode() == "scorepad: cannot read standard input: Bad file descriptor\n"


def test_endless_input_is_cut_at_the_size_limit() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scorepad", "score", "-"],
        input=b" " * (3 * 1024 * 1024),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == "scorepad: board file is too large (over 2000 kB)"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_result_that_cannot_be_written_is_one_line_not_a_traceback() -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "seasons.json"
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "scorepad", "score", str(example)],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert proc.returncode == 1
    said = proc.stderr.decode()
    assert said == "scorepad: cannot write the result: No space left on device\n", said
