"""The residents tally (rules digest, "Residents": 2 per house + 1 per super sunflower):
ticked by the player, read from the photo, and settling the sunflower split."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorepad.hexgrid import Hex
from scorepad.vision import model as symbols
from scorepad.vision import synth
from scorepad.vision.decode import decode
from scorepad.vision.recognize import WORK_SIDE, locate
from scorepad.vision.sheet import SHEET_HEIGHT, SHEET_WIDTH
from scorepad.vision.tally import (
    BOXES,
    TICK,
    count_ticks,
    count_weights,
    given_count,
    read_tally,
    settle_split,
)

SUN = symbols.CLASSES.index("sunflower")
SUPER = symbols.CLASSES.index("super-sunflower")
HOUSE = symbols.CLASSES.index("house")
SHEEP = symbols.CLASSES.index("sheep")
MOUNTAIN = symbols.CLASSES.index("mountain")


def drawing_of(houses: int, supers: int, sunflowers: int = 0) -> dict:
    items = ["house"] * houses + ["super-sunflower"] * supers + ["sunflower"] * sunflowers
    return {Hex(i, 0): (item, (-1, -1)) for i, item in enumerate(items)}


def test_the_players_tally_counts_two_per_house_and_one_per_super_sunflower():
    kept = [synth.kept_tally(drawing_of(3, 2, 4), seed) for seed in range(400)]
    right = kept.count(8) / len(kept)
    assert 0.8 < right < 0.9  # most players keep it right (synth.TALLY_SLIPS)
    assert all(2 <= k <= 10 for k in kept)  # off by two at most, or stopped partway


def test_the_tally_has_no_room_past_its_last_box():
    full = [synth.kept_tally(drawing_of(12, 3), seed) for seed in range(50)]
    assert max(full) == BOXES and full.count(BOXES) > 40  # 27 residents: a few stopped
    assert {synth.kept_tally(drawing_of(0, 0), seed) for seed in range(50)} <= {0, 1, 2}


def printed_with_tally(seed: int, houses: int, supers: int) -> synth.PrintedSheet:
    layout = synth.random_layout(seed)
    cells = [c for c in layout["cells"] if not c.get("mountain")]
    items = ["house"] * houses + ["super-sunflower"] * supers
    drawing = {Hex(c["q"], c["r"]): (item, (-1, -1)) for c, item in zip(cells, items, strict=False)}
    return synth.render_sheet(layout, drawing, synth.Style.of(seed), SHEET_WIDTH, seed)


@pytest.mark.parametrize(
    ("seed", "houses", "supers"),
    [(100_011, 0, 0), (100_012, 1, 0), (100_013, 3, 1), (100_014, 5, 3), (100_015, 9, 3)],
)
def test_the_ticks_are_counted_on_a_flat_sheet(seed, houses, supers):
    sheet = printed_with_tally(seed, houses, supers)
    image = cv2.resize(sheet.image, (SHEET_WIDTH, SHEET_HEIGHT), interpolation=cv2.INTER_AREA)
    read = read_tally(image)
    assert read.count == sheet.extras["tally"]
    assert len(read.marks) == BOXES


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 5])
def test_the_ticks_are_counted_in_a_photo(photo, index):
    sample = photo(index)
    rectified, _grid = locate(decode(sample.jpeg, WORK_SIDE))
    assert read_tally(rectified.image).count == sample.tally


def test_the_count_is_the_run_of_ticks_from_the_left():
    tick, blank = 4 * TICK, 0.0
    assert count_ticks(np.array([tick] * 5 + [blank] * 15))[0] == 5
    assert count_ticks(np.zeros(BOXES))[0] == 0
    assert count_ticks(np.full(BOXES, tick))[0] == BOXES
    # A faint tick inside the run does not end it; a smudge well past it does not extend it.
    faint = np.array([tick, tick, 0.5 * TICK, tick, tick] + [blank] * 15)
    assert count_ticks(faint)[0] == 5
    smudge = np.array([tick] * 4 + [blank] * 6 + [tick] + [blank] * 9)
    assert count_ticks(smudge)[0] == 4


def test_a_plain_count_beats_the_others_by_a_wide_margin():
    clear = count_ticks(np.array([4 * TICK] * 6 + [0.0] * 14))
    unsure = count_ticks(np.array([4 * TICK] * 6 + [1.1 * TICK] + [0.0] * 13))
    assert clear[1] > 0.9 > 0.2 > unsure[1]


def test_given_count_is_the_count_when_the_tally_is_trusted():
    p = np.array([0.9, 0.6, 0.5, 0.2, 0.1])
    allowed = np.zeros(len(p) + 1, bool)
    allowed[2] = True
    settled = given_count(p, allowed.astype(float))
    assert settled.sum() == pytest.approx(2.0)
    assert list(np.argsort(-settled)) == [0, 1, 2, 3, 4]  # the order is the split's
    assert given_count(p, allowed + 1e12) == pytest.approx(p)  # a tally that says nothing


def test_count_weights_doubt_the_tally_by_how_far_a_count_is_from_it():
    assert list(count_weights(5, 2, False, 0.0)) == [0, 0, 1, 0, 0, 0]
    assert count_weights(5, 2, False, 0.01, (0.1, 0.02)) == pytest.approx(
        [0.03, 0.11, 1.01, 0.11, 0.03, 0.01]
    )
    assert list(count_weights(4, 2, True, 0.0, (0.1,))) == [0, 0, 1, 1, 1]  # "at least"


def test_given_count_by_brute_force():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 6)
    allowed = np.zeros(7, bool)
    allowed[[2, 3]] = True
    outcomes = np.array([[(k >> i) & 1 for i in range(6)] for k in range(64)], bool)
    weight = np.prod(np.where(outcomes, p, 1 - p), axis=1)
    keep = allowed[outcomes.sum(axis=1)]
    want = (weight[keep, None] * outcomes[keep]).sum(axis=0) / weight[keep].sum()
    assert given_count(p, allowed.astype(float)) == pytest.approx(want)


def sheet_probs(rows: list[tuple[int, float]]) -> np.ndarray:
    """Class probabilities of a sheet: (class, P(super) within the family) per hex."""
    probs = np.zeros((len(rows), len(symbols.CLASSES)))
    for i, (cls, share) in enumerate(rows):
        if cls in (SUN, SUPER):
            probs[i, SUPER], probs[i, SUN] = 0.98 * share, 0.98 * (1 - share)
            probs[i, HOUSE] = 0.02
        else:
            probs[i, cls] = 1.0
    return probs


def test_the_tally_settles_which_sunflower_is_super():
    # Two houses (4 residents) and four sunflowers the split is unsure of: a tally of 5
    # leaves one super sunflower, the likeliest one.
    others = [(HOUSE, 0.0), (HOUSE, 0.0), (SHEEP, 0.0), (MOUNTAIN, 0.0)]
    probs = sheet_probs([*others, (SUN, 0.55), (SUN, 0.45), (SUN, 0.4), (SUN, 0.35)])
    settled, drawn = settle_split(probs, 5, 1e-4)
    assert drawn is probs
    share = settled[4:, SUPER] / (settled[4:, SUPER] + settled[4:, SUN])
    assert share.sum() == pytest.approx(1.0, abs=1e-3)
    assert share[0] == share.max()
    assert settled[4:, SUPER] + settled[4:, SUN] == pytest.approx(0.98)  # the family kept
    assert settled[:4] == pytest.approx(probs[:4])
    none, _ = settle_split(probs, 4, 1e-4)  # the houses alone: no super sunflower
    assert none[4:, SUPER].max() < 0.01


def test_a_tally_nothing_on_the_sheet_can_meet_changes_nothing():
    probs = sheet_probs([(HOUSE, 0), (SUN, 0.6), (SUN, 0.3)])
    for ticked, slip in (
        (1, 1e-4),  # fewer than the house's 2
        (9, 1e-4),  # more than the sheet could hold
        (None, 1e-4),  # no tally read
        (3, None),  # a model without the tally's fit
    ):
        settled, drawn = settle_split(probs, ticked, slip)
        assert settled is probs and drawn is None


def test_a_tally_off_by_one_gives_way_to_drawings_that_plainly_disagree():
    # A house (2) and three sunflowers the drawings plainly read as two super and one
    # plain; the tally of 3 says one super. Without a miscount weight it picks the
    # likelier of the two; with one, the drawings keep both (the player missed a tick).
    probs = sheet_probs([(HOUSE, 0), (SUN, 0.995), (SUN, 0.99), (SUN, 0.01)])
    strict, _ = settle_split(probs, 3, 1e-3)
    assert strict[1, SUPER] > strict[1, SUN] and strict[2, SUPER] < strict[2, SUN]
    lenient, _ = settle_split(probs, 3, 1e-3, (0.1, 0.01))
    assert lenient[1, SUPER] > lenient[1, SUN] and lenient[2, SUPER] > lenient[2, SUN]
    # Where the drawings are unsure, the tally still settles the count.
    unsure = sheet_probs([(HOUSE, 0), (SUN, 0.7), (SUN, 0.6), (SUN, 0.3)])
    settled, _ = settle_split(unsure, 3, 1e-3, (0.1, 0.01))
    share = settled[1:, SUPER] / (settled[1:, SUPER] + settled[1:, SUN])
    assert share[0] > 0.5 > share[1]
    assert share.sum() == pytest.approx(1, abs=0.1)


def test_a_full_tally_says_at_least():
    probs = sheet_probs([(HOUSE, 0)] * 9 + [(SUN, 0.6), (SUN, 0.5), (SUN, 0.1)])
    settled, _ = settle_split(probs, BOXES, 1e-4)  # 18 for the houses: 2 or more super
    share = settled[9:, SUPER] / (settled[9:, SUPER] + settled[9:, SUN])
    assert share[0] > 0.9 and share[1] > 0.9
