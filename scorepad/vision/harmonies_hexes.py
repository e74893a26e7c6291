"""Reading one hex of a Harmonies board on the photo re-projected onto the board plane
(``harmonies.py``, step 3): the top's circle, the foot's rim along the line to the nadir,
the colours of the top and of the side band below it, a cube on top, and the stack patch
(the stack as an image for the stack network).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from scorepad.hexgrid import Hex
from scorepad.vision import boards
from scorepad.vision.camera import apply
from scorepad.vision.fastmath import colour_distance, median
from scorepad.vision.harmonies_print import (
    CREAM,
    HEADER,
    MARGIN,
    PPM,
    TOKEN_RADIUS,
    TOKEN_THICKNESS,
    board_print,
)


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
    patch: np.ndarray | None = None  # the stack in polar form (stack_patch)


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
        # cream = 100; in place (the same float32 values as rect / white * 100)
        self.image = np.multiply(np.divide(rect, self.white, out=rect), 100, out=rect)

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
        p = apply(h, c)
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
    # The ring inside, the ring outside and the disc, sampled in one remap (the same
    # bilinear samples, a third of the calls).
    pattern = np.concatenate([_RING * (radius - 1.0), _RING * (radius + 1.2), _DISC * radius])
    seen = plane.sample(centres[:, None, :] + pattern)
    ci, co, cd = np.split(seen, [len(_RING), 2 * len(_RING)], axis=1)
    contrast = colour_distance(ci, co).mean(axis=1)
    typical = median(cd.transpose(0, 2, 1))[:, None, :]
    spread = median(colour_distance(cd, typical))
    ring_spread = median(colour_distance(ci, typical))
    return np.asarray(contrast - 1.0 * spread - 0.5 * ring_spread)


def log_colour(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log chromaticity, log brightness) of cream-relative colours (cream = 100)."""
    logs = np.log(np.maximum(colour, 2.0) / 100.0)
    light = logs.mean(axis=-1)
    return logs - light[..., None], light


_OUTLINE_CHROMA = log_colour(np.array((150, 128, 98), np.float32) / CREAM * 100)[0]
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
    chroma, light = log_colour(plane.sample(pts))
    t_chroma, t_light = log_colour(colour)
    d2 = ((chroma - t_chroma) ** 2).sum(-1) / 0.1**2 + (light - t_light) ** 2 / 0.12**2
    # Within two standard deviations of the top's colour; a golden cube standing on the
    # top counts as top too (rays pass through it to the rim).
    gold = ((chroma - GOLD_CHROMA) ** 2).sum(-1) < 0.15**2
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
    chroma, _ = log_colour(disc)
    gold = np.linalg.norm(chroma - GOLD_CHROMA, axis=-1) < GOLD_NEAR
    if gold.mean() >= CUBE_COVER and (~gold).sum() >= 5:
        rest = disc[~gold]
        if np.linalg.norm(log_colour(np.median(rest, axis=0))[0] - GOLD_CHROMA) > GOLD_APART:
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
    t_chroma, t_light = log_colour(colour)
    profile = []
    for c in (ci, co):
        chroma, light = log_colour(c)
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
    reading = HexReading(
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
    reading.patch = stack_patch(plane, reading)
    return reading


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
GOLD_CHROMA = np.array([0.47, 0.25, -0.72])  # log chromaticity of the golden cubes on cream


def cube_evidence(plane: Plane, top: np.ndarray, colour: np.ndarray) -> dict[str, float]:
    """What else stands on the top face: on a 1 mm grid over its inner part, the share of
    points unlike the top's colour, of golden points, of light neutral points (the spirit
    cube), and how strongly those points cluster (a cube is one compact patch)."""
    pts = plane.sample(top + _GRID)
    chroma, light = log_colour(pts)
    t_chroma, t_light = log_colour(colour)
    d = np.sqrt(((chroma - t_chroma) ** 2).sum(-1) / 0.1**2 + (light - t_light) ** 2 / 0.15**2)
    odd = d > 3
    gold = ((chroma - GOLD_CHROMA) ** 2).sum(-1) < 0.12**2
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


#: The stack patch (``stack_patch``): angles around the side facing the camera, and radial
#: steps in units of one token's lift (at least ``PATCH_UNIT_MIN`` mm) from the top's rim.
PATCH_ANGLES = np.radians(np.linspace(-100.0, 100.0, 32))
PATCH_STEPS = np.linspace(-1.5, 5.0, 32, endpoint=False)
PATCH_UNIT_MIN = 0.75


def lift_per_token(r: HexReading) -> float:
    """mm of image lift per token of height at this hex's top (on the board plane)."""
    return r.parallax * TOKEN_THICKNESS


def stack_patch(plane: Plane, r: HexReading) -> np.ndarray:
    """The stack seen from its top's centre towards the nadir, in polar form (steps x angles
    x 3, log of the cream-relative colour): row ``t`` lies ``t`` tokens' lift beyond the
    top's rim, so a foot ``k`` tokens down traces the same curve at every parallax."""
    top = r.top_centre
    to_top = top - plane.camera.nadir
    ut = to_top / max(float(np.linalg.norm(to_top)), 1e-6)
    vt = np.array([-ut[1], ut[0]])
    dirs = -np.cos(PATCH_ANGLES)[:, None] * ut + np.sin(PATCH_ANGLES)[:, None] * vt
    unit = max(lift_per_token(r), PATCH_UNIT_MIN)
    radii = r.scores["radius"] + PATCH_STEPS * unit
    pts = top + radii[:, None, None] * dirs[None, :, :]
    return np.asarray(np.log(np.maximum(plane.sample(pts), 2.0) / 100.0), np.float32)
