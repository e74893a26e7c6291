"""``recognize_harmonies(image_bytes, side=None, whole=False)``: a phone photo of a Harmonies
personal board to the board file's ``cells`` (formats.md, "Recognising a photo"), every hex with a
probability, the uncertain ones flagged.

1. **The board.** Light printed rectangles are found in the photo (``boards.py``), each is
   tried in its four turns and as side A or B: the side whose proportions fit (A is nearly
   square, B wide) and the turn that puts the printed title band on top win. Its edges are
   then refined to a fraction of a pixel. A "board" on which fewer than 35 % of the hexes
   show a token's round top, of a token's size and colour (``shows_tokens``), is refused:
   a Sunflower Valley sheet, light with a dark band on top, would otherwise pass for side A.
2. **The camera.** The board's outline is a plane homography; with the focal length it
   implies (or a phone's usual one when the view is nearly frontal) it gives the camera's
   pose: the point of the board below the lens (the *nadir*) and the lens's height.
3. **Every hex.** The photo is re-projected onto the board plane. There a token's top at
   height ``z`` is an exact circle, lifted away from the nadir by the factor
   ``k = Zc / (Zc - z)`` (central projection). For each hex we find the top's circle, then,
   along the line to the nadir, the near rim of the stack's foot: the two give the height.
   Stacks of known height (blue and yellow are always one token) calibrate the scale.
4. **Colours and stacks.** Colours are divided by the board's own printed cream (which
   takes out warm or cold light and exposure). The legal stacks (``LEGAL_STACKS``) turn
   top colour, height and, for a two-token building, the colour seen in the side band,
   into one answer with a probability; an animal cube is something else standing on top.
5. **The view.** A photo taken so nearly straight down that heights hardly show
   (``STRAIGHT_DOWN``) is marked ``"straight_down": true``, so that the app can suggest
   another photo, at an angle, with fewer heights left to check.
6. **Whole turns.** Every turn places 3 tokens, so a board between turns holds a multiple
   of 3: given that (``whole``, as the app asks), each hex takes its most probable stack
   among the boards that hold one (``harmonies_turns``), and its probability with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from scorepad.games.harmonies import COLOURS, board_hexes
from scorepad.hexgrid import Hex
from scorepad.vision import boards
from scorepad.vision.decode import PhotoError, decode, outline_fractions
from scorepad.vision.harmonies_hexes import HexReading, Plane, log_colour, read_hex
from scorepad.vision.harmonies_print import REFERENCE, TOKEN_RADIUS, WORK_SIDE, board_spec
from scorepad.vision.harmonies_stacks import (
    features,
    height_table,
    hex_heights,
    load_models,
    photo_context,
    stack_probabilities,
)
from scorepad.vision.harmonies_turns import most_probable, whole_turns

# --- 1. the board --------------------------------------------------------------------------


def locate(
    photo: np.ndarray, side: str | None = None, read: BoardReader | None = None
) -> boards.Found:
    """The board, its side and turn, and the camera (module docstring, steps 1 and 2).
    ``read`` reads the hexes of the outlines the finder asks about (one per photo: the
    recognition then reads the board it returns without reading it again)."""
    read = read or BoardReader(photo)
    specs = [board_spec(s) for s in ([side] if side else ["A", "B"])]
    # Stacks lean over the margins: a fair fit is a board found where it lies; and they
    # hide so much of the print that a poorer fit is the board when its hexes hold tokens.
    return boards.find_board(
        photo,
        specs,
        "Harmonies",
        deep_below=boards.HIDDEN_MARGINS_RETRY_BELOW,
        confirm=lambda found: shows_tokens(read(found), CONFIRM_TOKEN_SHARE),
        prefer=lambda found: rim_evidence(read(found)),
        accept=lambda found: shows_tokens(read(found)),
    )


def locate_side(
    photo: np.ndarray, side: str | None, read: BoardReader | None = None
) -> boards.Found:
    """:func:`locate` for the side the table plays; a board of the other side in the photo
    is named in the refusal (a table set to side A and a board turned to side B would
    otherwise hear only "no board found", or be read as side A). The other side is looked
    for when no board of the table's side is found, and when the one found is doubtful
    (:func:`side_doubtful`): then it is refused if the other side's outline shows the
    tokens better (:func:`fits_better`)."""
    read = read or BoardReader(photo)
    try:
        found = locate(photo, side, read)
    except PhotoError as refused:
        if side is None:
            raise
        try:
            locate(photo, other_side(side), read)
        except PhotoError:
            raise refused from None
        raise WrongSide(side) from None
    if side is None or not side_doubtful(found, read(found)):
        return found
    try:
        theirs = locate(photo, other_side(side), read)
    except PhotoError:
        return found
    if fits_better(read(theirs), read(found)):
        raise WrongSide(side)
    return found


def other_side(side: str) -> str:
    """The other side of the board."""
    return "B" if side == "A" else "A"


class WrongSide(PhotoError):
    """A photo of the other side of the board than the table's; ``shown`` names the side in
    the photo (the web app points a table whose boards are all empty at its side switch)."""

    def __init__(self, side: str) -> None:
        self.side = side
        self.shown = other_side(side)
        super().__init__(
            f"the board in the photo is side {self.shown}, but this table plays side {side}: "
            f"photograph side {side} or start a table for side {self.shown}"
        )

    def __reduce__(self) -> tuple[type[WrongSide], tuple[str]]:
        # Made again from the table's side (its args hold the message), e.g. when a
        # recognition in a worker process is refused.
        return (WrongSide, (self.side,))


#: How far (mm, the 90th percentile over the hexes, :func:`off_centre`) the tops may lie
#: across the line to the nadir from their hexes' centres before a board found for the
#: table's side is doubted (:func:`side_doubtful`). Tokens lie within a few millimetres of
#: their hex's centre; a board of the other side framed as the table's puts the printed
#: hexes between them. On 300 VALIDATION photos (seeds 130 000-130 299, 3 MP), each read
#: for a table of its own side and of the other: boards of the table's side came out at
#: 0.98-3.08 (3 above 2.75), the 52 boards of the other side silently read as the table's
#: at 2.42-8.43 (one, 130 065, below 2.75); chosen on the first 150 photos, it held on the
#: last 150. On 150 fresh ones (130 400-130 549) it fired on none of the 150 boards of the
#: table's side, and all 150 of the other side were refused naming it (before: 19 read
#: silently as the table's side, 18 doubted, 17 refused as showing no tokens).
OFF_CENTRE_TOPS = 2.75


def off_centre(readings: list[HexReading]) -> float:
    """How far off their hexes' centres the tops lie (mm): the 90th percentile, over the
    hexes, of the top's offset across the line to the nadir (along it a stack's height
    moves it; across only the token's placement does)."""
    return float(np.percentile([abs(r.scores["across"]) for r in readings], 90))


def side_doubtful(found: boards.Found, readings: list[HexReading]) -> bool:
    """Whether a board found for the table's side may be the other side's
    (:data:`OFF_CENTRE_TOPS`), or was found only by its tokens (``boards.Found.confirmed``:
    21 of the 73 boards of the other side taken for the table's in the photos above, none of
    the 300 boards of the table's own side)."""
    return found.confirmed or off_centre(readings) > OFF_CENTRE_TOPS


def fits_better(theirs: list[HexReading], ours: list[HexReading]) -> bool:
    """Whether the other side's board shows the tokens better than the table's: it shows
    tokens (:func:`shows_tokens`), its tops lie nearer their hexes' centres
    (:func:`off_centre`) and more of their rims show (:func:`rim_evidence`). In the photos
    above (``OFF_CENTRE_TOPS``) both held on every board of the other side taken for the
    table's, and neither on any board of the table's side for which the other side's
    search found a board (101 of 300)."""
    return (
        shows_tokens(theirs)
        and off_centre(theirs) < off_centre(ours)
        and rim_evidence(theirs) > rim_evidence(ours)
    )


# --- the whole photo -------------------------------------------------------------------------


@dataclass
class Recognition:
    side: str
    readings: list[HexReading]
    stacks: dict[Hex, tuple[str, ...]]
    cubes: dict[Hex, bool]
    p: dict[Hex, float]
    located: boards.Found
    seconds: float
    flag_below: float
    #: The board's corners as fractions of the photo's size (``outline_fractions``).
    outline: list[list[float]] = field(default_factory=list)

    @property
    def board_doubted(self) -> bool:
        """Whether the board was found only by the tokens on its hexes, its outline fitting
        the print poorly (``boards.Found.confirmed``): every hex is then flagged."""
        return self.located.confirmed

    @property
    def straight_down(self) -> bool:
        """Whether the photo was taken from so nearly straight above that heights hardly
        show (:data:`STRAIGHT_DOWN`): the app then suggests a photo at an angle."""
        return float(np.median([r.parallax for r in self.readings])) < STRAIGHT_DOWN

    def to_json(self) -> dict[str, Any]:
        cells = []
        confidence = []
        for h in sorted(self.stacks):
            cell: dict[str, Any] = {"q": h.q, "r": h.r, "stack": list(self.stacks[h])}
            if self.cubes[h]:
                cell["cube"] = True
            cells.append(cell)
            p = self.p[h]
            confidence.append(
                {"q": h.q, "r": h.r, "p": round(p, 3), "flagged": bool(p < self.flag_below)}
            )
        found: dict[str, Any] = {
            "game": "harmonies",
            "side": self.side,
            "player": {"cells": cells},
            "confidence": confidence,
            "seconds": round(self.seconds, 3),
        }
        if self.straight_down:  # extensions of the formats.md shape
            found["straight_down"] = True
        if self.board_doubted:
            found["board_doubted"] = True
        if self.outline:
            found["outline"] = self.outline
        return found


#: A stack's height shows only through parallax (step 3): how far a top is lifted in the
#: image per mm of height, which grows with the camera's tilt from straight down (median
#: over a board's hexes 0.16 at 5 degrees of tilt, 0.23 at 10, 0.30 at 15, 0.40 at 20).
#: On 399 VALIDATION photos (seeds 101 400-101 799, 3 MP, tilts 0-40 degrees) the 123
#: boards whose median fell below 0.25 had 86.3 % of their stacks right and 11.1 hexes
#: flagged per board, the other 276 boards 96.7 % and 3.8: a photo below it is worth taking
#: again at an angle, as a seated player sees the board.
STRAIGHT_DOWN = 0.25


#: A hex shows a token's top when its circle fit found the rim on this share of its rays,
#: the circle is at least a token's size and its colour is a token's (``shows_tokens``).
TOKEN_RIM = 0.6
#: On the board plane a token's top is a circle of at least TOKEN_RADIUS (more when it is
#: lifted towards the camera: ``k`` of step 3); at 1 MP a yellow top's fit comes out up to
#: 0.8 mm small. Round drawings on a Sunflower Valley sheet found as a board often fit
#: circles of 11-11.5 mm.
TOP_MIN_RADIUS = TOKEN_RADIUS - 0.8
#: The most a top's log chromaticity may differ from the nearest of the REFERENCE colours
#: (tokens and the empty print). On synthetic boards 99.5 % of the tops are within 0.27.
TOP_MAX_CHROMA = 0.3
#: The share of a board's hexes that must show a token's top. On 200 VALIDATION synthetic
#: boards (end of game, a few hexes empty; 3 MP) it never fell below 0.60; on the 97 of
#: 120 Sunflower Valley VALIDATION sheets that the board finder took for side A (3 MP) it
#: never rose above 0.17 (with the rim alone, as before, up to 0.61).
MIN_TOKEN_SHARE = 0.35
#: The share that confirms a board fitting its print too poorly to be taken on the print
#: alone (``locate``): of 200 VALIDATION boards (3 MP) 99 % show 0.60 or more, 95 % 0.68
#: (boards hidden enough to fit poorly show more: VALIDATION 101 924, 0.91); a Sunflower
#: Valley VALIDATION sheet (51) framed as side A at a fit of 0.56 showed 0.43.
CONFIRM_TOKEN_SHARE = 0.65
#: The factor on every hex's probability of a board found that way (flagged all over): the
#: print did not vouch for the outline, and another outline, even the other side's, can
#: also land on enough tokens.
DOUBTED_BOARD = 0.3


@cache
def _reference_chroma() -> np.ndarray:
    """Log chromaticity of the REFERENCE colours as ``Plane.image`` shows them."""
    ref = np.array(list(REFERENCE.values()), np.float32) * 100 / 255
    return log_colour(ref)[0]


def shows_tokens(readings: list[HexReading], share: float = MIN_TOKEN_SHARE) -> bool:
    """Whether the board found holds Harmonies tokens: ``share`` of its hexes show a
    token's top. Any light printed sheet with a dark band across its top passes
    ``find_board``; this is what tells a Harmonies board from it (an empty board has
    nothing to score anyway). A hex shows a top when three things hold:

    * the top's circle fit found the rim on ``TOKEN_RIM`` of its rays;
    * the circle's radius is at least ``TOP_MIN_RADIUS`` (a top is never smaller than the
      token, being lifted towards the camera; where the fit gave up,
      ``harmonies_hexes.fit_top`` reports a two-token top's radius, so this passes);
    * its colour's log chromaticity is within ``TOP_MAX_CHROMA`` of a token colour or the
      empty print (a Sunflower Valley sheet's drawings and background, divided by a
      "cream" that is not the board's, mostly are not).

    The rim alone let 19 of 97 such sheets (VALIDATION, 3 MP) through, with a rim on up
    to 0.61 of their hexes; with the size and colour they show at most 0.17, real boards
    at least 0.60."""
    rims = np.array([r.scores["rim"] for r in readings])
    radii = np.array([r.scores["radius"] for r in readings])
    chroma = log_colour(np.array([r.colour for r in readings], np.float32))[0]
    near = np.linalg.norm(chroma[:, None, :] - _reference_chroma()[None], axis=2).min(axis=1)
    tops = (rims >= TOKEN_RIM) & (radii >= TOP_MIN_RADIUS) & (near <= TOP_MAX_CHROMA)
    return bool(np.mean(tops) >= share)


def read_board(photo: np.ndarray, found: boards.Found) -> list[HexReading]:
    """Every hex of a board found in the photo (decoded at ``WORK_SIDE``)."""
    plane = Plane(photo, found)
    return [read_hex(plane, h) for h in board_hexes(found.spec.name)]


class BoardReader:
    """:func:`read_board` for one photo, each outline read once: the board finder's
    ``prefer`` rates the outline it keeps, ``confirm`` looks at a poor one, and the
    recognition then reads the one found (about 0.1 s a read)."""

    def __init__(self, photo: np.ndarray) -> None:
        self.photo = photo
        self._read: dict[bytes, list[HexReading]] = {}

    def __call__(self, found: boards.Found) -> list[HexReading]:
        cam = found.camera
        key = found.spec.name.encode() + b"".join(
            np.ascontiguousarray(a, np.float64).tobytes()
            for a in (found.corners, cam.K, cam.R, cam.centre)
        )
        if key not in self._read:
            self._read[key] = read_board(self.photo, found)
        return self._read[key]


def has_tokens(photo: np.ndarray, found: boards.Found, share: float = MIN_TOKEN_SHARE) -> bool:
    """Whether a board found in the photo (decoded at ``WORK_SIDE``) holds tokens on
    ``share`` of its hexes (:func:`shows_tokens`): what tells a Harmonies board
    photographed for another game."""
    return shows_tokens(read_board(photo, found), share)


def rim_evidence(readings: list[HexReading]) -> float:
    """How well the hexes' tops show where the board is: the mean share of the rays that
    found a top's rim (``harmonies_hexes.fit_top``). An outline off by a few millimetres at
    a corner still shows tokens, but their rims less clearly. Of 7 fair fits (0.72-0.8)
    that moving the outline changed on VALIDATION photos, the move raised it in the 5 that
    it brought onto the board (by 0.01-0.3) and lowered it in the 2 that it took off (by
    0.02-0.03)."""
    return float(np.mean([r.scores["rim"] for r in readings]))


def analyse(image_bytes: bytes, side: str | None = None, whole: bool = False) -> Recognition:
    """The board in the photo, read hex by hex; ``whole``: as a board between turns, its
    token count a multiple of 3 (step 6)."""
    start = time.perf_counter()
    if side is not None and side not in ("A", "B"):
        raise PhotoError(f"unknown board side {side!r}; Harmonies boards have sides A and B")
    photo = decode(image_bytes, WORK_SIDE)
    read = BoardReader(photo)
    located = locate_side(photo, side, read)
    readings = read(located)
    if not shows_tokens(readings):
        raise PhotoError(
            "no Harmonies board found in the photo: what looks like a board shows no "
            "tokens on its hexes (photograph a Harmonies board with its tokens)"
        )
    models = load_models()
    context = photo_context(readings, models.top)
    feats = [features(r) for r in readings]
    contexts = np.stack([context[r.hex] for r in readings])
    net_input = (np.stack([f["patch"] for f in feats]), np.stack([f["net_side"] for f in feats]))
    table = height_table(np.stack([f["height"] for f in feats]), contexts, models, net_input)
    read = [
        stack_probabilities(f, models, context[r.hex], hex_heights(table, i))
        for i, (r, f) in enumerate(zip(readings, feats, strict=True))
    ]
    chosen, sure = (whole_turns if whole else most_probable)([probs for probs, _cube in read])
    stacks, cubes, p = {}, {}, {}
    for r, (_probs, cube), best, p_best in zip(readings, read, chosen, sure, strict=True):
        stacks[r.hex] = best
        cubes[r.hex] = bool(best) and cube >= 0.5
        # The hex is right when its stack and its cube are: both must be sure.
        p[r.hex] = p_best * (max(cube, 1 - cube) if best else 1.0)
        if located.confirmed:
            p[r.hex] *= DOUBTED_BOARD
    return Recognition(
        located.spec.name,
        readings,
        stacks,
        cubes,
        p,
        located,
        time.perf_counter() - start,
        models.flag_below,
        outline_fractions(located.corners, photo),
    )


def recognize_harmonies(
    image_bytes: bytes, side: str | None = None, whole: bool = False
) -> dict[str, Any]:
    """The board in the photo as ``{"game", "side", "player": {"cells"}, "confidence",
    "seconds"}`` (formats.md, "Recognising a photo"); ``whole``: read as a board holding a
    whole number of turns' tokens (step 6). Raises PhotoError (one line) for a file that
    is not a usable image or shows no Harmonies board."""
    return analyse(image_bytes, side, whole).to_json()


__all__ = ["COLOURS", "recognize_harmonies"]
