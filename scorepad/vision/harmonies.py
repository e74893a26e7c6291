"""``recognize_harmonies(image_bytes, side=None)``: a phone photo of a Harmonies personal
board to the board file's ``cells`` (formats.md, "Recognising a photo"), every hex with a
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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
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

WORK_SIDE = 2000  # long side of the decoded photo we work on
PPM = 4.0  # pixels per mm of the re-projected board


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


@cache
def board_spec(side: str) -> boards.BoardSpec:
    """The fixed print of a side (margins, title band) for finding it in a photo."""
    b = board_print(side)
    return boards.BoardSpec(side, b.width, b.height, MARGIN, HEADER, BAND)


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
    """:func:`locate` for the side the table plays; when no board of that side is found,
    a board of the other side in the photo is named in the refusal (a table set to side A
    and a board turned to side B would otherwise hear only "no board found")."""
    try:
        return locate(photo, side, read)
    except PhotoError as refused:
        if side is None:
            raise
        other = "B" if side == "A" else "A"
        try:
            locate(photo, other, read)
        except PhotoError:
            raise refused from None
        raise PhotoError(
            f"the board in the photo is side {other}, but this table plays side {side}: "
            f"photograph side {side} or start a table for side {other}"
        ) from None


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
    profile: np.ndarray | None = None  # the foot-edge profile (see read_hex)
    probes: np.ndarray | None = None  # where the profile looked: steps x arc x in/out x xy
    outline: np.ndarray | None = None  # per step, share of probes on a printed hex outline


class Plane:
    """The photo re-projected onto the board plane (z = 0), at PPM pixels per mm, divided
    by the board's cream, with bilinear sampling at board millimetres."""

    def __init__(self, photo: np.ndarray, located: boards.Found) -> None:
        board = board_print(located.spec.name)
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

    @property
    def pixels_per_mm(self) -> float:
        """The photo's resolution on the board (pixels per mm, near the board's centre)."""
        h = self.camera.plane(0)
        c = np.array(
            [
                [self.board.width / 2, self.board.height / 2],
                [self.board.width / 2 + 1, self.board.height / 2],
            ]
        )
        p = boards.apply(h, c)
        return float(np.linalg.norm(p[1] - p[0]))

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
        return np.asarray(np.median(bright, axis=0) / CREAM * 255 + 1e-3, np.float32)

    def sample(self, points_mm: np.ndarray) -> np.ndarray:
        """Colours (cream = 100) at board millimetres, any leading shape."""
        shape = points_mm.shape[:-1]
        p = points_mm.reshape(-1, 2).astype(np.float32) * PPM - 0.5
        n = len(p)
        cols = 1024
        rows = -(-n // cols)
        grid = np.zeros((rows * cols, 2), np.float32)
        grid[:n] = p
        source = self.image
        # One two-channel map, as it lies (two strided halves were each copied first);
        # the stubs do not know that the second map may be left out.
        out = cv2.remap(  # type: ignore[call-overload]
            source,
            grid.reshape(rows, cols, 2),
            None,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return np.asarray(out).reshape(-1, source.shape[2])[:n].reshape(*shape, source.shape[2])


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
    # One remap for the three (the same bilinear samples, a third of the calls).
    seen = plane.sample(np.concatenate([inner, outer, disc], axis=1))
    ci, co, cd = np.split(seen, [len(_RING), 2 * len(_RING)], axis=1)
    contrast = boards.colour_distance(ci, co).mean(axis=1)
    median = _median(cd.transpose(0, 2, 1))[:, None, :]
    spread = _median(boards.colour_distance(cd, median))
    ring_spread = _median(boards.colour_distance(ci, median))
    return np.asarray(contrast - 1.0 * spread - 0.5 * ring_spread)


def _median(values: np.ndarray) -> np.ndarray:
    """``np.median`` over the last axis, the same values (the middle one, or the mean of
    the middle two in the array's precision) at a third of its cost: the circle search
    takes medians of a few hundred short rows per hex."""
    n = values.shape[-1]
    if n % 2:
        return np.partition(values, n // 2, axis=-1)[..., n // 2]
    part = np.partition(values, (n // 2 - 1, n // 2), axis=-1)
    return np.asarray((part[..., n // 2 - 1] + part[..., n // 2]) / 2, values.dtype)


def _log_colour(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log chromaticity, log brightness) of cream-relative colours (cream = 100)."""
    logs = np.log(np.maximum(colour, 2.0) / 100.0)
    light = logs.mean(axis=-1)
    return logs - light[..., None], light


_OUTLINE_CHROMA = _log_colour(np.array((150, 128, 98), np.float32) / CREAM * 100)[0]
#: Heights (in tokens) at which the foot's edge is probed, and the probe's arc.
FOOT_STEPS = np.arange(0.0, 4.01, 0.25)
_ARC = np.radians([-45.0, -22.5, 0.0, 22.5, 45.0])


_RAYS = np.linspace(0, 2 * math.pi, 48, endpoint=False)
_RAY_DIRS = np.column_stack([np.cos(_RAYS), np.sin(_RAYS)])


def fit_top(
    plane: Plane, approx: np.ndarray, colour: np.ndarray, radius: float
) -> tuple[np.ndarray, float, float]:
    """The top face's circle to a fraction of a millimetre: along 48 rays from the rough
    centre, where the colour stops being the top's (chromaticity and brightness: the side
    band below is the same hue but shaded); a robust circle through those edge points.
    Returns the centre, the radius and the share of rays that found the edge."""
    radii = np.arange(radius * 0.72, radius * 1.3, 0.2)
    pts = approx + _RAY_DIRS[:, None, :] * radii[None, :, None]
    chroma, light = _log_colour(plane.sample(pts))
    t_chroma, t_light = _log_colour(colour)
    d2 = ((chroma - t_chroma) ** 2).sum(-1) / 0.1**2 + (light - t_light) ** 2 / 0.12**2
    # Within two standard deviations of the top's colour; a golden cube standing on the
    # top counts as top too (rays pass through it to the rim).
    gold = ((chroma - _GOLD_CHROMA) ** 2).sum(-1) < 0.15**2
    like = (d2 < 4.0) | gold
    # The first sample (going out) that leaves the top's colour for good (two in a row).
    out = ~like[:, 1:] & ~like[:, :-1]
    first = np.argmax(out, axis=1)
    found = out.any(axis=1) & like[:, 0] & (first > 0)
    edge = radii[np.clip(first, 0, len(radii) - 1)] + 0.1
    points = (approx + _RAY_DIRS * edge[:, None])[found]
    if len(points) < 12:
        return approx, radius, float(found.mean())
    keep = np.ones(len(points), bool)
    centre, r = approx, radius
    for _ in range(4):
        centre, r = _circle_fit(points[keep])
        resid = np.abs(np.linalg.norm(points - centre, axis=1) - r)
        new = resid < max(0.5, 2.5 * float(np.median(resid[keep])))
        if new.sum() < 12 or (new == keep).all():
            break
        keep = new
    if np.linalg.norm(centre - approx) > 7 or abs(r - radius) > 2:
        return approx, radius, float(found.mean())
    return centre, float(r), float(keep.sum()) / len(_RAYS)


def _circle_fit(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares circle (Kasa): centre and radius."""
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones(len(x))])
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    r = math.sqrt(max(sol[2] + cx * cx + cy * cy, 1e-6))
    return np.array([cx, cy]), r


#: How far below the best circle's score (contrast units; tops and footprints score about
#: 15-30) a circle further along the lift line may score and still be taken for the top.
TOP_PEAK_SLACK = 6.0


def highest_peak(profile: np.ndarray) -> int:
    """The index of the top's circle along the lift line (``profile``: the best circle
    score at each step away from the nadir): the furthest local maximum scoring within
    ``TOP_PEAK_SLACK`` of the best. A stack's own footprint on the board is a circle of
    nearly the top's size, lower on the line, and its rim against the cream often
    contrasts more than a grey top's against its shaded side: the best score alone took it
    for the top on 15 % of grey stacks with parallax to spare (``docs/vision-boards.md``,
    known limits)."""
    padded = np.concatenate([[-np.inf], profile, [-np.inf]])
    peaks = (profile >= padded[:-2]) & (profile >= padded[2:])
    peaks &= profile >= np.nanmax(profile) - TOP_PEAK_SLACK
    found = np.flatnonzero(peaks)
    return int(found[-1]) if len(found) else int(np.nanargmax(profile))


#: A golden cube seen at an angle covers this share of a top's disc or more: its own
#: colour is then left out of the top's (when what remains is no golden hue itself).
CUBE_COVER = 0.3
#: How far (log chromaticity) a colour lies from the golden cubes' to count as golden, and
#: how far what remains must lie to be another colour (yellow tops lie 0.25 from it,
#: brown 0.36, the others 0.85 or more). A cube's shaded faces lie further than its top:
#: 0.15 left 27 of 36 such top colours wrong on validation photos, 0.25 left 9 (on 1 200
#: validation photos: 10 top colours and 33 stacks more right, one cube fewer).
GOLD_NEAR = 0.25
GOLD_APART = 0.6


def top_colour(disc: np.ndarray) -> np.ndarray:
    """The top face's colour from samples over its disc: their median, then the mean of
    those near it. A golden cube on the top, seen at an angle, can cover half the disc
    and more (its faces towards the camera too); its samples are then left out, or a blue
    top under it read as the cube's colour (grey or green to the top model: 23 of the 58
    top colours wrong on 800 validation photos)."""
    chroma, _ = _log_colour(disc)
    gold = np.linalg.norm(chroma - _GOLD_CHROMA, axis=-1) < GOLD_NEAR
    if gold.mean() >= CUBE_COVER and (~gold).sum() >= 5:
        rest = disc[~gold]
        if np.linalg.norm(_log_colour(np.median(rest, axis=0))[0] - _GOLD_CHROMA) > GOLD_APART:
            disc = rest
    colour = np.median(disc, axis=0)
    core = disc[np.linalg.norm(disc - colour, axis=1) < 25]
    return np.asarray(core.mean(axis=0) if len(core) >= 5 else colour)


def read_hex(plane: Plane, h: Hex, force_top: np.ndarray | None = None) -> HexReading:
    """What one hex shows (module docstring, step 3): the top circle, its colour, and the
    foot-edge profile: for a column of 0 to 4 tokens under this top, where its foot's near
    rim would be, and what lies just inside and just outside that rim."""
    cam = plane.camera
    zc = cam.height
    nadir = cam.nadir
    centre = np.array(plane.board.centres[h])
    to_c = centre - nadir
    dist = float(np.linalg.norm(to_c))
    u = to_c / dist if dist > 1e-6 else np.array([1.0, 0.0])
    v = np.array([-u[1], u[0]])

    def lift(z: float) -> float:
        return zc / max(zc - z, 1.0)

    # The top circle: lifted by 0.5..3.5 tokens, off the hex centre by up to 3 mm.
    lo = dist * (lift(0.5 * TOKEN_THICKNESS) - 1) - 3
    hi = dist * (lift(3.5 * TOKEN_THICKNESS) - 1) + 3
    along = np.arange(lo, hi + 0.01, 0.5)
    across = np.arange(-3, 3.01, 0.5)
    cands = (centre + along[:, None, None] * u + across[None, :, None] * v).reshape(-1, 2)
    radius = TOKEN_RADIUS * lift(2 * TOKEN_THICKNESS)
    scores = circle_scores(plane, cands, radius).reshape(len(along), len(across))
    i = highest_peak(scores.max(axis=1))
    best = centre + along[i] * u + across[int(np.argmax(scores[i]))] * v
    step = np.arange(-0.5, 0.51, 0.125)
    fine = best + np.stack(np.meshgrid(step, step), -1).reshape(-1, 2)
    fscores = circle_scores(plane, fine, radius)
    top = fine[int(np.argmax(fscores))]
    circle = float(fscores.max())
    colour = top_colour(plane.sample(top + _DISC * TOKEN_RADIUS * 0.8))
    top, top_radius, rim_share = fit_top(plane, top, colour, radius)
    # Again from the better centre: its rays now all start inside the top face.
    top, top_radius, rim_share = fit_top(plane, top, colour, radius)
    if force_top is not None:
        top = force_top
    cube = cube_evidence(plane, top, colour)
    # The apparent lift: how far the top sits from the hex centre, along the line from
    # the nadir (where height moves it) and across it (where only placement does).
    offset = top - centre
    per_token = max(dist * (lift(TOKEN_THICKNESS) - 1), 1e-3)

    # The foot-edge profile, along the line from the top towards the nadir.
    to_top = top - nadir
    ut = to_top / max(float(np.linalg.norm(to_top)), 1e-6)
    vt = np.array([-ut[1], ut[0]])
    ks = np.array([lift(j * TOKEN_THICKNESS) for j in FOOT_STEPS])
    feet = nadir + to_top[None, :] / ks[:, None]  # S x 2
    rim_dir = -np.cos(_ARC)[:, None] * ut + np.sin(_ARC)[:, None] * vt  # A x 2
    inner = feet[:, None, :] + rim_dir[None] * (TOKEN_RADIUS - 0.8)
    outer = feet[:, None, :] + rim_dir[None] * (TOKEN_RADIUS + 0.8)
    ci, co = plane.sample(inner), plane.sample(outer)
    t_chroma, t_light = _log_colour(colour)
    profile = []
    for c in (ci, co):
        chroma, light = _log_colour(c)
        board = np.sqrt(np.minimum((chroma**2).sum(-1), ((chroma - _OUTLINE_CHROMA) ** 2).sum(-1)))
        like_top = np.sqrt(((chroma - t_chroma) ** 2).sum(-1))
        profile += [
            np.median(board, axis=1),
            np.median(light, axis=1),
            np.median(like_top, axis=1),
            np.median(light - t_light, axis=1),
        ]
    edge = np.linalg.norm(ci - co, axis=2)
    profile.append(np.median(edge, axis=1))
    parallax = float(np.linalg.norm(to_top)) / zc
    pixels = float(np.linalg.norm(feet[0] - feet[4])) * plane.pixels_per_mm
    band, band_ratio = side_bands(plane, top, 2)
    return HexReading(
        h,
        top,
        circle,
        0.0,
        0.0,
        colour,
        band,
        band_ratio,
        cube["odd"],
        parallax,
        {
            "pixels_per_token": pixels,
            "radius": top_radius,
            "rim": rim_share,
            "lift": float(offset @ u),
            "across": float(offset @ v),
            "lift_tokens": float(np.clip(offset @ u / per_token, -6, 8)),
            "per_token": per_token,
            **cube,
        },
        np.concatenate(profile).astype(np.float32),
        np.stack([inner, outer], axis=2).astype(np.float32),
        np.stack(
            [outline_near(plane.board.side, inner), outline_near(plane.board.side, outer)],
            axis=1,
        ).astype(np.float32),
    )


@cache
def _outline_distance(side: str) -> np.ndarray:
    """Distance (mm) from every point of the board plane to the nearest printed hex
    outline, at PPM pixels per mm."""
    board = board_print(side)
    w, h = int(board.width * PPM), int(board.height * PPM)
    lines = np.full((h, w), 255, np.uint8)
    for hx in board.centres:
        pts = np.array(board.layout.corners(hx)) * PPM - 0.5
        cv2.polylines(lines, [np.round(pts).astype(np.int32)], True, 0, 1)
    return cv2.distanceTransform(lines, cv2.DIST_L2, 3).astype(np.float32) / PPM


def outline_near(side: str, points: np.ndarray) -> np.ndarray:
    """For probes (steps x arc x 2, mm): per step, the share lying within 1.2 mm of a
    printed hex outline (a thin brown line that can pass for a token's edge)."""
    dist = _outline_distance(side)
    p = points.reshape(-1, 2) * PPM - 0.5
    rows = np.clip(np.round(p[:, 1]).astype(int), 0, dist.shape[0] - 1)
    cols = np.clip(np.round(p[:, 0]).astype(int), 0, dist.shape[1] - 1)
    near = (dist[rows, cols] < 1.2).reshape(points.shape[:2])
    return np.asarray(near.mean(axis=1), float)


_GRID = np.stack(np.meshgrid(np.arange(-10, 10.1, 1.0), np.arange(-10, 10.1, 1.0)), -1).reshape(
    -1, 2
)
_GRID = _GRID[np.hypot(_GRID[:, 0], _GRID[:, 1]) <= 10.0]
_GOLD_CHROMA = np.array([0.47, 0.25, -0.72])  # log chromaticity of the golden cubes on cream


def cube_evidence(plane: Plane, top: np.ndarray, colour: np.ndarray) -> dict[str, float]:
    """What else stands on the top face: on a 1 mm grid over its inner part, the share of
    points unlike the top's colour, of golden points, of light neutral points (the spirit
    cube), and how strongly those points cluster (a cube is one compact patch)."""
    pts = plane.sample(top + _GRID)
    chroma, light = _log_colour(pts)
    t_chroma, t_light = _log_colour(colour)
    d = np.sqrt(((chroma - t_chroma) ** 2).sum(-1) / 0.1**2 + (light - t_light) ** 2 / 0.15**2)
    odd = d > 3
    gold = ((chroma - _GOLD_CHROMA) ** 2).sum(-1) < 0.12**2
    white = (np.abs(chroma).max(-1) < 0.06) & (light > t_light + 0.25)
    if odd.sum() >= 2:
        spread = float(np.linalg.norm(_GRID[odd] - _GRID[odd].mean(axis=0), axis=1).mean())
    else:
        spread = 10.0
    return {
        "odd": float(odd.mean()),
        "gold": float((gold & odd).mean()),
        "white": float((white & odd).mean()),
        "cube_spread": spread / 10,
        "cube_contrast": float(np.percentile(d, 90)) / 10,
    }


_BAND_ARC = np.radians([-50.0, -30.0, -10.0, 10.0, 30.0, 50.0])


def side_bands(plane: Plane, top: np.ndarray, tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """For a column of ``tokens`` under this top: the colour of the lowest token's side and
    its ratio to the top token's side, seen on the side facing the camera (same facets, so
    their shading cancels in the ratio). Returns (colour, log ratio)."""
    cam = plane.camera
    zc = cam.height
    nadir = cam.nadir
    to_top = top - nadir
    ut = to_top / max(float(np.linalg.norm(to_top)), 1e-6)
    vt = np.array([-ut[1], ut[0]])
    foot = nadir + to_top * (zc - tokens * TOKEN_THICKNESS) / zc
    rim = foot + TOKEN_RADIUS * (-np.cos(_BAND_ARC)[:, None] * ut + np.sin(_BAND_ARC)[:, None] * vt)
    colours = []
    for z in (0.5 * TOKEN_THICKNESS, (tokens - 0.5) * TOKEN_THICKNESS):
        k = zc / (zc - z)
        # A little inside the rim: the side's own pixels, not its outline.
        colours.append(np.median(plane.sample(nadir + (rim - nadir) * k + ut * 0.3), axis=0))
    low, high = colours
    ratio = np.log(np.maximum(low, 2.0)) - np.log(np.maximum(high, 2.0))
    return low, ratio


def features(r: HexReading) -> dict[str, np.ndarray]:
    """The numbers each learned model sees for one hex: ``top`` (the top face's colour and
    how circle-like it is), ``height`` (the foot-edge profile and how well height can be
    seen here), ``under`` (the lowest token's side band and ``lower_side``), ``cube``
    (what stands on top)."""
    chroma, light = _log_colour(r.colour)
    assert r.profile is not None and r.band is not None and r.band_ratio is not None
    band_chroma, band_light = _log_colour(r.band)
    sc = r.scores
    geometry = [
        r.parallax,
        sc["pixels_per_token"] / 10,
        sc["radius"] - TOKEN_RADIUS,
        sc["rim"],
        sc["lift"],
        sc["across"],
        sc["lift_tokens"],
        math.log(sc["per_token"]),
    ]
    top = np.concatenate([chroma, [light, r.circle / 100, r.cube, sc["rim"]]])
    cube = [sc["gold"], sc["white"], sc["cube_spread"], sc["cube_contrast"]]
    assert r.outline is not None
    return {
        "top": top.astype(np.float32),
        "height": np.concatenate(
            [r.profile, r.outline.ravel(), geometry, chroma, [light], cube[:3], [r.cube]]
        ).astype(np.float32),
        "under": np.concatenate(
            [band_chroma, [band_light], r.band_ratio, geometry[:2], lower_side(r.profile), top[:4]]
        ).astype(np.float32),
        "cube": np.concatenate([top, cube, geometry[:2]]).astype(np.float32),
    }


#: Foot-edge steps (quarter tokens) on the lower token's side of a two-token building.
LOWER_SIDE = slice(4, 10)


def lower_side(profile: np.ndarray) -> np.ndarray:
    """What the foot-edge probes inside the rim see between one and two and a quarter
    tokens down (the lower token's side of a two-token building: like the top or not,
    board-like or not, how bright) and the edges there: what lies under a red top."""
    steps = profile.reshape(PROFILE_CHANNELS, len(FOOT_STEPS))[:, LOWER_SIDE]
    return np.concatenate([steps[:4].ravel(), steps[8]])


def photo_context(readings: list[HexReading], top_model: boards.Mlp) -> dict[Hex, np.ndarray]:
    """What each hex's height reading needs from the rest of the photo.

    * Occlusion: which of its foot-edge probes fall on another hex's top (a taller stack
      nearer the camera's nadir leans over this stack's foot), per height step, inside and
      outside the rim.
    * Calibration: the apparent lift, in tokens, of the blue and yellow tops (always one
      token high) across the photo; it corrects a camera height measured poorly."""
    tops = np.array([r.top_centre for r in readings])
    radii = np.array([r.scores["radius"] for r in readings]) + 0.3
    colours = np.array([features(r)["top"] for r in readings])
    p = top_model.probabilities(colours)
    index = {c: i for i, c in enumerate(top_model.classes)}
    single = p[:, index["blue"]] + p[:, index["yellow"]] > 0.9
    lifts = np.array([r.scores["lift_tokens"] for r in readings])
    calibration = [
        float(np.median(lifts[single])) if single.any() else 1.0,
        min(int(single.sum()), 10) / 10,
    ]
    out = {}
    for i, r in enumerate(readings):
        assert r.probes is not None
        probes = r.probes.reshape(-1, 2)
        d = np.linalg.norm(probes[:, None, :] - tops[None, :, :], axis=2)
        d[:, i] = np.inf
        hidden = (d < radii[None, :]).any(axis=1).reshape(r.probes.shape[:3])
        occluded = hidden.mean(axis=1)  # steps x (inside, outside)
        out[r.hex] = np.concatenate([occluded.ravel(), calibration]).astype(np.float32)
    return out


#: Colours whose stacks come in more than one height, and the heights they come in.
HEIGHTS: dict[str, tuple[int, ...]] = {
    "blue": (1,),
    "yellow": (1,),
    "grey": (1, 2, 3),
    "green": (1, 2, 3),
    "brown": (1, 2),
    "red": (1, 2),
}
TOP_CLASSES = (*COLOURS, "empty")
UNDER_RED = ("brown", "grey", "red")
MODEL_FILE = Path(__file__).parent / "models" / "harmonies_model.npz"


@dataclass(frozen=True)
class Models:
    top: boards.Mlp
    height: boards.Mlp
    under: boards.Mlp
    cube: boards.Mlp
    flag_below: float
    foot: boards.Mlp | None = None  # is the foot at this candidate height (foot_window)?
    foot_weight: float = 0.0  # its share in the pooled height probabilities


@cache
def load_models() -> Models:
    """The trained models (``tools/vision/train_harmonies.py``)."""
    with np.load(MODEL_FILE) as data:
        arrays = {k: data[k] for k in data.files}
    foot = boards.Mlp(arrays, "foot") if "foot.layers" in arrays else None
    return Models(
        boards.Mlp(arrays, "top"),
        boards.Mlp(arrays, "height"),
        boards.Mlp(arrays, "under"),
        boards.Mlp(arrays, "cube"),
        float(arrays["flag_below"]),
        foot,
        float(arrays["foot_weight"]) if foot is not None else 0.0,
    )


#: The foot-edge profile's channels per height step (``read_hex``): four inside the rim
#: (board-likeness, brightness, likeness to the top, brightness against the top), the
#: same four outside, and the edge across the rim.
PROFILE_CHANNELS = 9
#: Height steps each side of a candidate foot that ``foot_window`` shows its model.
WINDOW = np.arange(-3, 4)


def height_parts(h: np.ndarray, context: np.ndarray) -> dict[str, np.ndarray]:
    """The height measurements of N hexes (rows of ``features()["height"]`` and of
    ``photo_context``) by name, so that the foot cues can be read step by step."""
    n, s = len(h), len(FOOT_STEPS)
    c = PROFILE_CHANNELS
    geometry = h[:, (c + 2) * s : (c + 2) * s + 8]
    return {
        "profile": h[:, : c * s].reshape(n, c, s),
        "outline": h[:, c * s : (c + 2) * s].reshape(n, s, 2),
        "geometry": geometry,
        "lift_tokens": geometry[:, 6],
        "occluded": context[:, : 2 * s].reshape(n, s, 2),
        "calibration": context[:, 2 * s :],
    }


def foot_signals(parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per height step, how much the probes look like a foot's rim there: a token's side
    inside, the board outside (by colour, by brightness, by likeness to the top) and the
    edge between them. Probes on another hex's top count for nothing."""
    p = parts["profile"]
    signals = {
        "chroma": p[:, 0] - p[:, 4],
        "light": p[:, 5] - p[:, 1],
        "edge": p[:, 8] / 50,
        "top": p[:, 6] - p[:, 2],
    }
    seen = 1 - parts["occluded"][:, :, 1]
    out = {}
    for name, sig in signals.items():
        sig = sig * seen
        sig[:, :2] = 0  # the top's own rim
        out[name] = sig
    return out


def foot_cues(h: np.ndarray, context: np.ndarray) -> np.ndarray:
    """Where the foot's rim shows, read out of the profile for the height model (N x 33):
    per signal, the step (in tokens) where it is strongest and its weighted centre, and
    for 1, 2 and 3 tokens how it stands out from the steps half a token either side; and
    the apparent lift relative to the photo's one-token tops."""
    parts = height_parts(h, context)
    steps = FOOT_STEPS
    out = []
    for sig in foot_signals(parts).values():
        strongest = steps[sig[:, 2:].argmax(axis=1) + 2]
        w = np.maximum(sig - np.median(sig, axis=1, keepdims=True), 0)
        w[:, :2] = 0
        centre = (w * steps).sum(axis=1) / np.maximum(w.sum(axis=1), 1e-6)
        out += [strongest, centre]
        for k in (1, 2, 3):
            i = 4 * k
            around = np.maximum(sig[:, i - 2], sig[:, min(i + 2, len(steps) - 1)])
            out += [sig[:, i] - around, sig[:, i - 1 : i + 2].max(axis=1) - sig[:, 2:].max(axis=1)]
    out.append(parts["lift_tokens"] - parts["calibration"][:, 0])
    return np.column_stack(out).astype(np.float32)


def foot_window(h: np.ndarray, context: np.ndarray, colour: np.ndarray, k: int) -> np.ndarray:
    """What the foot model sees for a candidate height of ``k`` tokens (N hexes): the
    profile, printed outlines and occlusion at the steps around that foot, the geometry,
    the apparent lift less ``k`` (alone and against the photo's one-token tops), the
    colour on top and ``k``. One model for every height: a foot looks alike at any."""
    parts = height_parts(h, context)
    n = len(h)
    idx = np.clip(4 * k + WINDOW, 0, len(FOOT_STEPS) - 1)
    lift = parts["lift_tokens"]
    return np.concatenate(
        [
            parts["profile"][:, :, idx].reshape(n, -1),
            parts["outline"][:, idx].reshape(n, -1),
            parts["occluded"][:, idx].reshape(n, -1),
            parts["geometry"],
            (lift - k)[:, None],
            (lift - parts["calibration"][:, 0] + 1 - k)[:, None],
            parts["calibration"],
            colour,
            np.repeat(np.eye(3)[[k - 1]], n, axis=0),
        ],
        axis=1,
    ).astype(np.float32)


def colour_flags(top: str) -> list[bool]:
    """Which of the colours that come in several heights is on top."""
    return [top == c for c in ("grey", "green", "brown", "red")]


def height_inputs(h: np.ndarray, context: np.ndarray, top: str, cues: np.ndarray) -> np.ndarray:
    """The height model's input for N hexes: the measurements, what the rest of the photo
    says (``photo_context``), which colour is on top and where the foot's rim shows
    (``foot_cues``). Training and recognition both build it here."""
    flags = np.repeat(np.array([colour_flags(top)], np.float32), len(h), axis=0)
    return np.concatenate([h, context, flags, cues], axis=1)


def height_input(f: dict[str, np.ndarray], top: str, context: np.ndarray) -> np.ndarray:
    """``height_inputs`` for one hex."""
    h, c = f["height"][None], context[None]
    return height_inputs(h, c, top, foot_cues(h, c))[0]


#: The top colours that come in several heights (the others are always one token).
SEVERAL = tuple(c for c in COLOURS if len(HEIGHTS[c]) > 1)


def foot_table(h: np.ndarray, context: np.ndarray, top: str, foot: boards.Mlp) -> np.ndarray:
    """P(height) of N hexes over the heights ``top`` comes in (N x heights), from the foot
    model: its score at each candidate foot, made a distribution (softmax of the logits)."""
    n, heights = len(h), HEIGHTS[top]
    flags = np.repeat(np.array([colour_flags(top)], np.float32), n, axis=0)
    windows = np.concatenate([foot_window(h, context, flags, k) for k in heights])
    p = np.clip(foot.probabilities(windows)[:, 1], 1e-9, 1 - 1e-9)
    logits = (np.log(p) - np.log1p(-p)).reshape(len(heights), n).T
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def foot_probabilities(
    f: dict[str, np.ndarray], top: str, context: np.ndarray, foot: boards.Mlp
) -> np.ndarray:
    """``foot_table`` for one hex."""
    return foot_table(f["height"][None], context[None], top, foot)[0]


def height_table(h: np.ndarray, context: np.ndarray, models: Models) -> dict[str, np.ndarray]:
    """For N hexes (rows of ``features()["height"]`` and of ``photo_context``) and each
    colour in ``SEVERAL``: P(height) over the heights it comes in (N x heights), the height
    model's answer pooled (weighted geometric mean) with the foot model's. All hexes of a
    photo go through each model at once (one call per colour, not per hex)."""
    cues = foot_cues(h, context)
    index = {c: i for i, c in enumerate(models.height.classes)}
    out = {}
    for top in SEVERAL:
        hp = models.height.probabilities(height_inputs(h, context, top, cues))
        p = hp[:, [index[str(j)] for j in HEIGHTS[top]]] + 1e-12
        p /= p.sum(axis=1, keepdims=True)
        if models.foot is not None and models.foot_weight > 0:
            q = foot_table(h, context, top, models.foot) + 1e-12
            w = models.foot_weight
            p = np.exp((1 - w) * np.log(p) + w * np.log(q))
            p /= p.sum(axis=1, keepdims=True)
        out[top] = p
    return out


def hex_heights(table: dict[str, np.ndarray], i: int) -> dict[str, dict[int, float]]:
    """Hex ``i``'s row of a ``height_table``: colour -> height -> probability."""
    return {
        top: {j: float(v) for j, v in zip(HEIGHTS[top], p[i], strict=True)}
        for top, p in table.items()
    }


def height_probabilities(
    f: dict[str, np.ndarray], top: str, models: Models, context: np.ndarray
) -> dict[int, float]:
    """P(height) of one hex over the heights ``top`` comes in (``height_table``)."""
    return hex_heights(height_table(f["height"][None], context[None], models), 0)[top]


def stack_probabilities(
    f: dict[str, np.ndarray],
    models: Models,
    context: np.ndarray,
    row: dict[str, dict[int, float]] | None = None,
) -> tuple[dict[tuple[str, ...], float], float]:
    """Every legal stack (and the empty hex) with its probability, and the probability of a
    cube. The legal stacks tie the three models together: a stack is its top colour, its
    height (fixed for blue and yellow), and for a two-token building what lies under it.
    ``row``: this hex's row of the photo's ``height_table``, when already computed."""
    if row is None:
        row = hex_heights(height_table(f["height"][None], context[None], models), 0)
    top_p = dict(zip(models.top.classes, models.top.probabilities(f["top"])[0], strict=True))
    out: dict[tuple[str, ...], float] = {(): top_p.get("empty", 0.0)}
    under = dict(zip(models.under.classes, models.under.probabilities(f["under"])[0], strict=True))
    for colour in COLOURS:
        pc = top_p.get(colour, 0.0)
        heights = HEIGHTS[colour]
        if len(heights) == 1:
            out[(colour,)] = pc
            continue
        hmap = row[colour]
        for stack in LEGAL_STACKS:
            if stack[-1] != colour:
                continue
            ph = hmap.get(len(stack), 0.0)
            if colour == "red" and len(stack) == 2:
                ph *= under.get(stack[0], 0.0)
            out[stack] = pc * ph
    norm = sum(out.values()) or 1.0
    cube = float(models.cube.probabilities(f["cube"])[0][1])
    return {k: v / norm for k, v in out.items()}, cube


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
    return _log_colour(ref)[0]


def shows_tokens(readings: list[HexReading], share: float = MIN_TOKEN_SHARE) -> bool:
    """Whether the board found holds Harmonies tokens: ``share`` of its hexes show a
    token's top. Any light printed sheet with a dark band across its top passes
    ``find_board``; this is what tells a Harmonies board from it (an empty board has
    nothing to score anyway). A hex shows a top when three things hold:

    * the top's circle fit found the rim on ``TOKEN_RIM`` of its rays;
    * the circle's radius is at least ``TOP_MIN_RADIUS`` (a top is never smaller than the
      token, being lifted towards the camera; where the fit gave up, ``fit_top`` reports a
      two-token top's radius, so this passes);
    * its colour's log chromaticity is within ``TOP_MAX_CHROMA`` of a token colour or the
      empty print (a Sunflower Valley sheet's drawings and background, divided by a
      "cream" that is not the board's, mostly are not).

    The rim alone let 19 of 97 such sheets (VALIDATION, 3 MP) through, with a rim on up
    to 0.61 of their hexes; with the size and colour they show at most 0.17, real boards
    at least 0.60."""
    rims = np.array([r.scores["rim"] for r in readings])
    radii = np.array([r.scores["radius"] for r in readings])
    chroma = _log_colour(np.array([r.colour for r in readings], np.float32))[0]
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
    found a top's rim (``fit_top``). An outline off by a few millimetres at a corner still
    shows tokens, but their rims less clearly. Of 7 fair fits (0.72-0.8) that moving the
    outline changed on VALIDATION photos, the move raised it in the 5 that it brought
    onto the board (by 0.01-0.3) and lowered it in the 2 that it took off (by 0.02-0.03)."""
    return float(np.mean([r.scores["rim"] for r in readings]))


def analyse(image_bytes: bytes, side: str | None = None) -> Recognition:
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
    table = height_table(np.stack([f["height"] for f in feats]), contexts, models)
    stacks, cubes, p = {}, {}, {}
    for i, (r, f) in enumerate(zip(readings, feats, strict=True)):
        probs, cube = stack_probabilities(f, models, context[r.hex], hex_heights(table, i))
        best = max(probs, key=lambda s: probs[s])
        stacks[r.hex] = best
        cubes[r.hex] = bool(best) and cube >= 0.5
        # The hex is right when its stack and its cube are: both must be sure.
        p[r.hex] = probs[best] * (max(cube, 1 - cube) if best else 1.0)
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
    )


def recognize_harmonies(image_bytes: bytes, side: str | None = None) -> dict[str, Any]:
    """The board in the photo as ``{"game", "side", "player": {"cells"}, "confidence",
    "seconds"}`` (formats.md, "Recognising a photo"). Raises PhotoError (one line) for a
    file that is not a usable image or shows no Harmonies board."""
    return analyse(image_bytes, side).to_json()


__all__ = ["COLOURS", "recognize_harmonies"]
