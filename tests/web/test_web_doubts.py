"""The cells a photo left in doubt, as kept in a table's metadata (``scorepad.web.doubts``)."""

from __future__ import annotations

from scorepad.web import doubts

META = {"layout": "A", "photos": {"1": {"id": "p1", "check": [[0, 1], [2, -1], [3, 3]]}}}


def test_a_new_photo_replaces_the_players_doubts_only() -> None:
    meta = doubts.with_photo(META, 0, "p2", [[5, 5]])
    assert doubts.flagged(meta, 0) == {(5, 5)}
    assert doubts.flagged(meta, 1) == {(0, 1), (2, -1), (3, 3)}
    assert meta["layout"] == "A" and META["photos"].keys() == {"1"}  # the input is untouched
    assert doubts.photo_of(meta, 0)["id"] == "p2"


def test_checking_cells() -> None:
    one = doubts.checked(META, 1, {(2, -1)})
    assert doubts.flagged(one, 1) == {(0, 1), (3, 3)}
    assert doubts.checked(META, 1, {(9, 9)}) is META  # nothing to change: the same metadata
    assert doubts.flagged(doubts.checked(META, 1, None), 1) == set()
    assert doubts.photo_of(doubts.checked(META, 1, None), 1)["id"] == "p1"  # the photo stays
    assert doubts.checked(META, 0, None) is META  # a player without a photo


def test_the_cells_a_tap_names() -> None:
    assert doubts.tapped_cells({"q": "2", "r": "-1", "tool": "house"}) == {(2, -1)}
    assert doubts.tapped_cells({"row": "4", "col": "7"}) == {(4, 7)}
    assert doubts.tapped_cells({"squares": "1,2;1,3;x"}) == {(1, 2), (1, 3)}
    assert doubts.tapped_cells({"line": "3"}) == set()
    assert doubts.tapped_cells({"q": "a", "r": ""}) == set()
    # Form numbers are ASCII digits: int() alone would take "1_0" as 10 and "٣" as 3.
    assert doubts.tapped_cells({"squares": "1_0,2;٣,1;1,2,3;-1,+4"}) == {(-1, 4)}


def test_listed_least_sure_first_with_labels() -> None:
    labels = {(0, 1): "hex 0,1", (3, 3): "hex 3,3"}  # (2, -1) is no longer on the board
    listed = doubts.listed(META, 1, labels)
    assert [(d["a"], d["b"], d["label"]) for d in listed] == [(0, 1, "hex 0,1"), (3, 3, "hex 3,3")]
    assert doubts.listed({}, 1, labels) == []
    assert doubts.photo_of({"photos": {"1": "junk"}}, 1) == {}
