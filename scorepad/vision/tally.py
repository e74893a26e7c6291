"""The residents tally of a Sunflower Valley sheet (rules digest, "Residents": 2 per house,
the starting house included, + 1 per super sunflower; players tick one box per resident as
they draw). The tally is a row of small printed boxes below the hex grid, ticked from the
left with a pencil stroke.

The recogniser reads it for two things: the board file's ``residents`` (the tally the
scoring checks against the drawing) and a count of super sunflowers the sheet should
hold, which settles the sunflower / super sunflower split where the drawings alone cannot
(:func:`settle_split`).

Positions are in the rectified sheet (``sheet.SHEET_WIDTH`` wide): the print puts the
boxes' top edge ``ROW_Y`` from the top, the first box ``FIRST_X`` from the left, boxes
``BOX`` wide every ``PITCH``; the row and the boxes are searched around those, as the
sheet's corners are found to a few pixels only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorepad.vision import model as symbols

BOXES = 20
ROW_Y, FIRST_X = 1008.0, 48.0
BOX, PITCH = 30.4, 35.2
SEARCH_Y, SEARCH_X = 36, 14
BOX_RANGE = (26, 35)  # box heights tried (pixels)
PITCH_RANGE = (33.0, 36.4)
BAND_MARGIN = 8  # rows of sheet read beyond the searched band (for the blurs)


#: A box is ticked when its rising diagonal is darker than its falling one by more than
#: TICK (darkness, 0..1). VALIDATION photos 3000-3299: on ticked boxes 1 % below 0.016,
#: on blank ones 1 % above 0.012; 295 of the 300 tallies counted right at 0.014.
TICK = 0.014


@dataclass(frozen=True)
class Tally:
    """What the tally shows: the ticked boxes (a run from the left) and how plainly: the
    margin, in ticks, by which that count beats the next best."""

    count: int
    margin: float
    marks: tuple[float, ...]  # each box's tick strength, left to right


def read_tally(sheet: np.ndarray) -> Tally:
    """The residents ticked on a rectified sheet's tally."""
    band_top = int(ROW_Y) - SEARCH_Y - BAND_MARGIN
    dark = darkness(sheet[band_top : int(ROW_Y + BOX) + SEARCH_Y + BAND_MARGIN])
    top, box = find_row(dark, SEARCH_Y + BAND_MARGIN)
    left, pitch = find_boxes(dark, top, box)
    marks = tick_strengths(dark, top, left, pitch, box)
    count, margin = count_ticks(marks)
    return Tally(count, margin, tuple(round(float(m), 4) for m in marks))


def count_ticks(marks: np.ndarray) -> tuple[int, float]:
    """The run of ticked boxes from the left that the marks fit best, and by how much
    (in ticks) it beats any other run. Each box adds its strength above TICK, capped at
    two ticks either way, so a smudge a few blank boxes past the run cannot pull the
    count out to it, nor one faint tick inside the run cut it short."""
    gain = np.clip(marks, -TICK, 3 * TICK) - TICK
    fit = np.concatenate([[0.0], np.cumsum(gain)])
    count = int(np.argmax(fit))
    other = np.delete(fit, count).max()
    return count, float((fit[count] - other) / TICK)


def darkness(sheet: np.ndarray) -> np.ndarray:
    """How much darker than the nearby paper each pixel is (0 paper, 1 black): pencil and
    print alike, under uneven light."""
    grey = cv2.cvtColor(sheet, cv2.COLOR_RGB2GRAY).astype(np.float32)
    paper = cv2.GaussianBlur(cv2.dilate(grey, np.ones((15, 15), np.uint8)), (0, 0), 5)
    return np.clip(1.0 - grey / np.maximum(paper, 1.0), 0.0, 1.0)


def find_row(dark: np.ndarray, row_y: float) -> tuple[float, float]:
    """The boxes' top edge and height: the pair of horizontal lines, a box apart, darkest
    across the sheet within ``SEARCH_Y`` of ``row_y``, where the print puts them."""
    y0 = int(row_y) - SEARCH_Y
    band = dark[y0 : int(row_y + BOX) + SEARCH_Y + 2, int(FIRST_X) : int(FIRST_X + BOXES * PITCH)]
    rows = band.mean(axis=1)
    best = (-1.0, 0, 0)
    for b in range(*BOX_RANGE):
        score = rows[:-b] + rows[b:]
        y = int(np.argmax(score))
        if score[y] > best[0]:
            best = (float(score[y]), y, b)
    return float(y0 + best[1]), float(best[2])


def find_boxes(dark: np.ndarray, top: float, box: float) -> tuple[float, float]:
    """The first box's left edge and the boxes' pitch: vertical lines a box apart,
    repeating along the row."""
    cols = dark[int(top) : int(top + box) + 1].mean(axis=0)
    xs = np.arange(len(cols), dtype=np.float64)
    pitches = np.arange(*PITCH_RANGE, 0.1)[:, None, None]
    starts = np.arange(FIRST_X - SEARCH_X, FIRST_X + SEARCH_X + 0.5, 0.5)[None, :, None]
    left = starts + np.arange(BOXES) * pitches  # (pitch, start, box)
    score = (np.interp(left, xs, cols) + np.interp(left + box, xs, cols)).sum(axis=2)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(starts[0, j, 0]), float(pitches[i, 0, 0])


def tick_strengths(
    dark: np.ndarray, top: float, left: float, pitch: float, box: float
) -> np.ndarray:
    """Per box, how much darker its rising diagonal (the tick, lower left to upper right)
    is than its falling one: print, shading and blur darken both alike."""
    soft = cv2.GaussianBlur(dark, (0, 0), 1.2)
    t = np.linspace(0.12, 0.88, 21)
    t = t[np.abs(t - 0.5) > 0.14]  # the two diagonals cross in the middle
    out = []
    for k in range(BOXES):
        x = left + k * pitch + (0.1 + 0.8 * t) * box
        rising = soft[np.round(top + (0.9 - 0.8 * t) * box).astype(int), np.round(x).astype(int)]
        falling = soft[np.round(top + (0.1 + 0.8 * t) * box).astype(int), np.round(x).astype(int)]
        out.append(float(rising.mean() - falling.mean()))
    return np.array(out)


def settle_split(
    probs: np.ndarray, ticked: int | None, slip: float | None, miscount: tuple[float, ...] = ()
) -> tuple[np.ndarray, np.ndarray | None]:
    """The sunflower / super sunflower split settled by the tally (rules digest,
    "Residents": 2 per house + 1 per super sunflower). The houses read leave the tally's
    count of super sunflowers; each sunflower-like hex's P(super) is conditioned on the
    sheet holding that many (a Poisson-binomial over the split's own probabilities). The
    tally is doubted two ways (:func:`count_weights`): ``miscount`` weighs a count off by
    one, two... (a tick missed or added by the player or the reading, a house misread),
    ``slip`` a tally that says nothing. A count no labelling meets changes nothing; a full
    tally only says "at least". ``probs`` are one sheet's class probabilities
    (``model.CLASSES``) after the split. Returns them settled, and the ``probs`` given when
    the tally settled them (None when it did not)."""
    if ticked is None or slip is None:
        return probs, None
    sun, sup = symbols.CLASSES.index("sunflower"), symbols.CLASSES.index("super-sunflower")
    mountain = symbols.CLASSES.index("mountain")
    land = probs[:, mountain] < 0.5
    best_item = symbols.best_items(probs)
    rows = np.flatnonzero(land & np.isin(best_item, (sun, sup)))
    houses = int((land & (best_item == symbols.CLASSES.index("house"))).sum())
    supers, full = ticked - 2 * houses, ticked >= BOXES
    if not len(rows) or supers > len(rows) or (supers < 0 and not full):
        return probs, None
    family = probs[rows, sun] + probs[rows, sup]
    share = probs[rows, sup] / np.maximum(family, 1e-12)
    settled = given_count(share, count_weights(len(rows), supers, full, slip, miscount))
    out = probs.copy()
    out[rows, sup] = family * settled
    out[rows, sun] = family * (1 - settled)
    return out, probs


def count_weights(
    n: int, supers: int, full: bool, slip: float, miscount: tuple[float, ...] = ()
) -> np.ndarray:
    """How much each number 0..n of super sunflowers on the sheet agrees with the tally's
    ``supers``: 1 for that count (for a ``full`` tally, that count or more), ``miscount[k-1]``
    for a count off by k, and ``slip`` added to every count (the tally says nothing)."""
    c = np.arange(n + 1)
    if full:
        return (c >= supers) + slip
    off = np.abs(c - supers)
    weights = (off == 0).astype(np.float64)
    for k, weight in enumerate(miscount, 1):
        weights += weight * (off == k)
    return weights + slip


def given_count(p: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """P(each event) for independent events of probabilities ``p`` when the number that
    happen, 0..len(p), is weighed by ``weights`` (Bayes: the count's likelihood)."""
    total = counts(p) @ weights
    joint = np.array([p[i] * (counts(np.delete(p, i)) @ weights[1:]) for i in range(len(p))])
    return np.asarray(joint / total)


def counts(p: np.ndarray) -> np.ndarray:
    """The distribution of the number of independent events of probabilities ``p``."""
    dist = np.ones(1)
    for q in p:
        dist = np.convolve(dist, [1 - q, q])
    return dist
