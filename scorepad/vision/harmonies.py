"""``recognize_harmonies(image_bytes, side=None)``: a phone photo of a Harmonies personal
board to the board file's ``cells`` (formats.md, "Recognising a photo"), every hex with a
probability, the uncertain ones flagged.

1. **The board.** Light printed rectangles are found in the photo (``boards.py``), each is
   tried in its four turns and as side A or B: the side whose proportions fit (A is nearly
   square, B wide) and the turn that puts the printed title band on top win. Its edges are
   then refined to a fraction of a pixel.
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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import cv2
import numpy as np

from scorepad.games.harmonies import COLOURS, LEGAL_STACKS, board_hexes
from scorepad.hexgrid import Hex, Layout, Orientation, bounding_box
from scorepad.vision import boards
from scorepad.vision.decode import PhotoError, decode

#: The printed board, in millimetres (``docs/vision-boards.md``, "The boards we print").
HEX_SIZE = 17.5  # centre to corner of a printed hex space
TOKEN_RADIUS = 12.5
TOKEN_THICKNESS = 6.0
CUBE_SIDE = 7.0
MARGIN = 12.0  # plain border left, right and below the hexes
HEADER = 22.0  # border above the hexes, holding the title band
BAND = (3.0, 17.0)  # the title band's top and bottom, from the board's top edge

#: Colours of the printed board and of the tokens, relative to the board's cream (what a
#: photo shows after dividing by the cream around the hexes). Measured on the components.
CREAM = np.array((232, 224, 203), np.float32)
REFERENCE: dict[str, tuple[int, int, int]] = {
    "blue": (45, 110, 190),
    "grey": (128, 130, 132),
    "brown": (118, 74, 42),
    "green": (52, 135, 60),
    "yellow": (232, 196, 48),
    "red": (192, 48, 42),
    "empty": (244, 238, 222),
}

WORK_SIDE = 2000
PPM = 4.0  # pixels per mm of the re-projected board
FLAG_BELOW = 0.9


@dataclass(frozen=True)
class BoardPrint:
    """Where things are printed on one side of the board (mm, origin top-left)."""

    side: str
    width: float
    height: float
    centres: dict[Hex, tuple[float, float]]
    layout: Layout

    @property
    def aspect(self) -> float:
        return self.width / self.height


@cache
def board_print(side: str) -> BoardPrint:
    """The printed geometry of board side ``"A"`` or ``"B"``: flat-top hexes in columns."""
    hexes = board_hexes(side)
    unit = Layout(Orientation.FLAT, HEX_SIZE)
    x0, y0, x1, y1 = bounding_box(unit, hexes)
    layout = Layout(Orientation.FLAT, HEX_SIZE, (MARGIN - x0, HEADER - y0))
    centres = {h: layout.to_pixel(h) for h in hexes}
    return BoardPrint(side, x1 - x0 + 2 * MARGIN, y1 - y0 + MARGIN + HEADER, centres, layout)


# --- 1. the board --------------------------------------------------------------------------


@dataclass
class Located:
    """The board found in the photo: its side, corners (top-left first) and camera."""

    side: str
    corners: np.ndarray  # photo pixels: top-left, top-right, bottom-right, bottom-left
    camera: boards.Camera
    focal_measured: bool
    score: float


def _corners_mm(board: BoardPrint) -> np.ndarray:
    return np.array([[0, 0], [board.width, 0], [board.width, board.height], [0, board.height]])


_VERIFY_PPM = 1.5


@cache
def _print_template(side: str) -> tuple[np.ndarray, np.ndarray]:
    """The board's fixed print around the hexes as a grey template at ``_VERIFY_PPM``
    (light margins, dark title band) and the mask of where it applies."""
    board = board_print(side)
    ppm = _VERIFY_PPM
    w, h = int(board.width * ppm), int(board.height * ppm)
    template = np.ones((h, w), np.float32)
    template[int(BAND[0] * ppm) : int(BAND[1] * ppm), int(3 * ppm) : w - int(3 * ppm)] = 0
    mask = np.ones((h, w), np.uint8)
    # The hexes and whatever stands on them are not part of the fixed print.
    mask[
        int((HEADER - 2) * ppm) : h - int((MARGIN - 2) * ppm),
        int((MARGIN - 2) * ppm) : w - int((MARGIN - 2) * ppm),
    ] = 0
    mask[: int(1 * ppm)] = mask[-int(1 * ppm) :] = 0
    mask[:, : int(1 * ppm)] = mask[:, -int(1 * ppm) :] = 0
    return template, mask.astype(bool)


def _band_score(
    image: np.ndarray, quad: np.ndarray, board: BoardPrint, factor: float, rim: bool = True
) -> float:
    """How well the photo inside ``quad`` (top-left first) matches the board's fixed print
    (margins and title band): normalised correlation, 1 for a perfect match. With ``rim``,
    the thin light rim above the band must be as light as the margins too (a dark table
    next to the board would otherwise pass for the band); that needs a precise outline."""
    template, mask = _print_template(board.side)
    h, w = template.shape
    dst = (quad * factor).astype(np.float32)
    src = (_corners_mm(board) * _VERIFY_PPM).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    rect = cv2.warpPerspective(image, m, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA)
    full = cv2.cvtColor(rect, cv2.COLOR_RGB2GRAY).astype(np.float32)
    grey = full[mask]
    t = template[mask]
    g = grey - grey.mean()
    tt = t - t.mean()
    ncc = float(g @ tt / max(float(np.linalg.norm(g) * np.linalg.norm(tt)), 1e-6))
    if not rim:
        return ncc
    ppm = _VERIFY_PPM
    strip = full[int(1.0 * ppm) : int(2.4 * ppm), int(6 * ppm) : w - int(6 * ppm)]
    light = float(np.median(grey[t > 0.5]))
    dark = float(np.median(grey[t < 0.5]))
    shortfall = (light - float(np.median(strip))) / max(light - dark, 10.0)
    return ncc - max(0.0, shortfall - 0.25)


def locate(photo: np.ndarray, side: str | None = None) -> Located:
    """The board, its side and turn, and the camera (module docstring, steps 1 and 2).

    Rough outlines are scored cheaply on a small copy (print correlation and proportions);
    the best few are refined to sub-pixel edges and scored again, rim included."""
    size = (photo.shape[1], photo.shape[0])
    factor = 640 / max(size)
    small = cv2.resize(photo, (round(size[0] * factor), round(size[1] * factor)), cv2.INTER_AREA)
    sides = [side] if side else ["A", "B"]
    rough_scores: list[tuple[float, str, np.ndarray]] = []
    for rough in boards.board_outlines(photo):
        for quad in _with_band_variants(rough):
            for turn in range(4):
                q = np.roll(quad, -turn, axis=0)
                for s in sides:
                    board = board_print(s)
                    aspect = _aspect_error(q, board, size)
                    if aspect > 0.3:
                        continue
                    score = _band_score(small, q, board, factor, rim=False) - aspect
                    rough_scores.append((score, s, q))
    rough_scores.sort(key=lambda t: -t[0])
    lab = cv2.cvtColor(photo, cv2.COLOR_RGB2LAB).astype(np.float32)
    best: tuple[float, str, np.ndarray] | None = None
    for score, s, q in rough_scores[:6]:
        if score < 0.3:
            break
        fine = boards.refine_outline(photo, boards.refine_outline(photo, q, lab), lab)
        board = board_print(s)
        value = _band_score(photo, fine, board, 1.0) - _aspect_error(fine, board, size)
        if best is None or value > best[0]:
            best = (value, s, fine)
    if best is None or best[0] < 0.5:
        raise boards.no_board("Harmonies")
    score, s, fine = best
    board = board_print(s)
    h = cv2.getPerspectiveTransform(_corners_mm(board).astype(np.float32), fine.astype(np.float32))
    focal = boards.estimate_focal(h, size, aspect_known=True)
    camera = boards.pose(h, boards.intrinsics(focal or boards.default_focal(size), size), size)
    return Located(s, fine, camera, focal is not None, score)


def _aspect_error(quad: np.ndarray, board: BoardPrint, size: tuple[int, int]) -> float:
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    focal = boards.estimate_focal(h, size, aspect_known=False) or boards.default_focal(size)
    return abs(math.log(boards.aspect_of(quad, focal, size) / board.aspect))


def _with_band_variants(quad: np.ndarray) -> list[np.ndarray]:
    """The outline, and the outline grown past each edge by a title band's depth (the
    light-region search often stops at the dark band)."""
    out = [quad]
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    for grow in (0.105, 0.125):
        for edge in range(4):
            pts = unit.astype(np.float64).copy()
            # Edge i runs from corner i to corner i+1; push both outwards.
            normal = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[edge]
            for c in (edge, (edge + 1) % 4):
                pts[c] += np.array(normal) * grow
            out.append(boards.apply(m, pts))
    return out


# --- 3. every hex --------------------------------------------------------------------------


@dataclass
class HexReading:
    """What the photo shows on one hex (before the legal stacks are applied)."""

    hex: Hex
    top_centre: np.ndarray  # mm on the board plane image
    circle: float  # how clearly a token's top circle shows
    z: float  # estimated height of the top (mm)
    z_sigma: float
    colour: np.ndarray  # top colour relative to the cream
    band: np.ndarray | None  # colour of the side band just below the top token, if seen
    band_ratio: np.ndarray | None
    cube: float  # share of the top covered by something else
    parallax: float  # mm of image lift per mm of height here (how well height can be seen)
    scores: dict[str, float] = field(default_factory=dict)


class Plane:
    """The photo re-projected onto the board plane (z = 0), at PPM pixels per mm, divided
    by the board's cream, with bilinear sampling at board millimetres."""

    def __init__(self, photo: np.ndarray, located: Located) -> None:
        board = board_print(located.side)
        self.board = board
        self.camera = located.camera
        w, h = int(board.width * PPM), int(board.height * PPM)
        to_px = np.array([[PPM, 0, -0.5], [0, PPM, -0.5], [0, 0, 1.0]])
        m = located.camera.plane(0) @ np.linalg.inv(to_px)
        rect = cv2.warpPerspective(
            photo, m, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR
        ).astype(np.float32)
        self.white = self._cream(rect)
        self.image = rect / self.white * 100  # cream = 100
        self.rgb = rect

    def _cream(self, rect: np.ndarray) -> np.ndarray:
        """The printed cream, measured on the bottom and side margins."""
        b = self.board
        parts = []
        for x0, y0, x1, y1 in (
            (4, b.height - MARGIN + 3, b.width - 4, b.height - 3),
            (3, HEADER + 3, MARGIN - 3, b.height - MARGIN),
            (b.width - MARGIN + 3, HEADER + 3, b.width - 3, b.height - MARGIN),
        ):
            parts.append(
                rect[int(y0 * PPM) : int(y1 * PPM), int(x0 * PPM) : int(x1 * PPM)].reshape(-1, 3)
            )
        pixels = np.concatenate(parts)
        bright = pixels[pixels.sum(axis=1) >= np.percentile(pixels.sum(axis=1), 30)]
        return np.median(bright, axis=0) / CREAM * 255 + 1e-3

    def sample(self, points_mm: np.ndarray) -> np.ndarray:
        """Colours (cream = 100) at board millimetres, any leading shape."""
        shape = points_mm.shape[:-1]
        p = points_mm.reshape(-1, 2) * PPM - 0.5
        out = cv2.remap(
            self.image,
            p[:, 0].astype(np.float32).reshape(1, -1),
            p[:, 1].astype(np.float32).reshape(1, -1),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return out.reshape(*shape, 3)


_ANGLES = np.linspace(0, 2 * math.pi, 36, endpoint=False)
_RING = np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)])
_DISC = np.array(
    [(0.0, 0.0)]
    + [(r * math.cos(a), r * math.sin(a)) for r in (0.3, 0.55, 0.75) for a in _ANGLES[::3]]
)


def circle_scores(plane: Plane, centres: np.ndarray, radius: float) -> np.ndarray:
    """For candidate top centres (N x 2, mm): contrast across a circle of ``radius``
    minus the spread of colours inside it (a token's top is one colour)."""
    inner = centres[:, None, :] + _RING * (radius - 1.0)
    outer = centres[:, None, :] + _RING * (radius + 1.2)
    disc = centres[:, None, :] + _DISC * radius
    ci, co, cd = plane.sample(inner), plane.sample(outer), plane.sample(disc)
    contrast = np.linalg.norm(ci - co, axis=2).mean(axis=1)
    median = np.median(cd, axis=1, keepdims=True)
    spread = np.median(np.linalg.norm(cd - median, axis=2), axis=1)
    ring_spread = np.median(np.linalg.norm(ci - median, axis=2), axis=1)
    return np.asarray(contrast - 1.0 * spread - 0.5 * ring_spread)


def read_hex(plane: Plane, h: Hex) -> HexReading:
    """Top circle, height, colours and cube evidence of one hex (module docstring, step 3)."""
    cam = plane.camera
    zc = cam.height
    nadir = cam.nadir
    centre = np.array(plane.board.centres[h])
    to_c = centre - nadir
    dist = float(np.linalg.norm(to_c))
    u = to_c / dist if dist > 1e-6 else np.array([1.0, 0.0])
    v = np.array([-u[1], u[0]])

    def lift(z: float) -> float:
        return zc / (zc - z)

    # Candidate top centres: lifted by 0.5..3.5 tokens, off the hex centre by up to 3 mm.
    lo = dist * (lift(0.5 * TOKEN_THICKNESS) - 1) - 3
    hi = dist * (lift(3.5 * TOKEN_THICKNESS) - 1) + 3
    along = np.arange(lo, hi + 0.01, 0.5)
    across = np.arange(-3, 3.01, 0.5)
    grid = centre + along[:, None, None] * u + across[None, :, None] * v
    cands = grid.reshape(-1, 2)
    radius = TOKEN_RADIUS * lift(2 * TOKEN_THICKNESS)
    scores = circle_scores(plane, cands, radius)
    best = cands[int(np.argmax(scores))]
    # Refine in quarter millimetres.
    fine = best + np.stack(
        np.meshgrid(np.arange(-0.5, 0.51, 0.125), np.arange(-0.5, 0.51, 0.125)), -1
    ).reshape(-1, 2)
    fscores = circle_scores(plane, fine, radius)
    top = fine[int(np.argmax(fscores))]
    circle = float(fscores.max())

    # The foot: along the line from the top towards the nadir, the near rim of the base.
    heights = np.arange(0.3 * TOKEN_THICKNESS, 3.7 * TOKEN_THICKNESS, 0.2)
    to_top = top - nadir
    feet = nadir + to_top[None, :] / np.array([lift(z) for z in heights])[:, None]
    toward = -to_top / max(float(np.linalg.norm(to_top)), 1e-6)
    arc = np.array(
        [
            (
                math.cos(a) * toward[0] - math.sin(a) * toward[1],
                math.sin(a) * toward[0] + math.cos(a) * toward[1],
            )
            for a in np.linspace(-1.1, 1.1, 15)
        ]
    )
    inside = feet[:, None, :] + arc * (TOKEN_RADIUS - 0.9)
    outside = feet[:, None, :] + arc * (TOKEN_RADIUS + 1.1)
    ci, co = plane.sample(inside), plane.sample(outside)
    creamy = np.linalg.norm(co / np.maximum(co.mean(axis=2, keepdims=True), 1) - 1, axis=2)
    foot_scores = (np.linalg.norm(ci - co, axis=2) * np.exp(-4 * creamy)).mean(axis=1)
    k = int(np.argmax(foot_scores))
    z = float(heights[k])
    parallax = dist / zc  # image lift (mm on the plane) per mm of height, near z = 0
    z_sigma = 0.35 / max(parallax, 1e-3)

    disc = plane.sample(top + _DISC * TOKEN_RADIUS * 0.85)
    colour = np.median(disc, axis=0)
    far = np.linalg.norm(disc - colour, axis=1) > 25
    return HexReading(
        h,
        top,
        circle,
        z,
        z_sigma,
        colour,
        None,
        None,
        float(far.mean()),
        parallax,
        {"foot": float(foot_scores[k])},
    )


# --- 4. stacks ---------------------------------------------------------------------------


def colour_probabilities(colour: np.ndarray) -> dict[str, float]:
    """Top colour (or the empty hex's print) from the cream-relative colour."""
    c = np.log(np.maximum(colour, 1.0))
    scores = {}
    for name, ref in REFERENCE.items():
        r = np.log(np.maximum(np.array(ref, np.float32) / CREAM * 100, 1.0))
        d = c - r
        chroma = d - d.mean()
        scores[name] = -float(chroma @ chroma) / (2 * 0.08**2) - float(d.mean()) ** 2 / (
            2 * 0.25**2
        )
    best = max(scores.values())
    total = sum(math.exp(s - best) for s in scores.values())
    return {k: math.exp(s - best) / total for k, s in scores.items()}


def stack_probabilities(reading: HexReading) -> dict[tuple[str, ...], float]:
    """Every legal stack (and the empty hex) with its probability."""
    colours = colour_probabilities(reading.colour)
    out: dict[tuple[str, ...], float] = {(): colours["empty"]}
    sigma = math.hypot(reading.z_sigma, 0.8)
    for stack in LEGAL_STACKS:
        height = len(stack) * TOKEN_THICKNESS
        like = math.exp(-((reading.z - height) ** 2) / (2 * sigma**2))
        out[stack] = colours[stack[-1]] * like
    total = sum(out.values()) or 1.0
    return {k: v / total for k, v in out.items()}


# --- the whole photo -------------------------------------------------------------------------


@dataclass
class Recognition:
    side: str
    readings: list[HexReading]
    stacks: dict[Hex, tuple[str, ...]]
    cubes: dict[Hex, bool]
    p: dict[Hex, float]
    located: Located
    seconds: float

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
                {"q": h.q, "r": h.r, "p": round(p, 3), "flagged": bool(p < FLAG_BELOW)}
            )
        return {
            "game": "harmonies",
            "side": self.side,
            "player": {"cells": cells},
            "confidence": confidence,
            "seconds": round(self.seconds, 3),
        }


def analyse(image_bytes: bytes, side: str | None = None) -> Recognition:
    start = time.perf_counter()
    if side is not None and side not in ("A", "B"):
        raise PhotoError(f"unknown board side {side!r}; Harmonies boards have sides A and B")
    photo = decode(image_bytes, WORK_SIDE)
    located = locate(photo, side)
    plane = Plane(photo, located)
    readings = [read_hex(plane, h) for h in board_hexes(located.side)]
    stacks, cubes, p = {}, {}, {}
    for r in readings:
        probs = stack_probabilities(r)
        best = max(probs, key=lambda s: probs[s])
        stacks[r.hex] = best
        cubes[r.hex] = bool(best) and r.cube > 0.08
        p[r.hex] = probs[best]
    return Recognition(
        located.side, readings, stacks, cubes, p, located, time.perf_counter() - start
    )


def recognize_harmonies(image_bytes: bytes, side: str | None = None) -> dict[str, Any]:
    """The board in the photo as ``{"game", "side", "player": {"cells"}, "confidence",
    "seconds"}`` (formats.md, "Recognising a photo"). Raises PhotoError (one line) for a
    file that is not a usable image or shows no Harmonies board."""
    return analyse(image_bytes, side).to_json()


__all__ = ["COLOURS", "recognize_harmonies"]
