"""Finding the hex grid on the upright sheet without knowing its layout.

The printed hexes have dark outlines. Their outline map repeats on the hex lattice, so its
autocorrelation peaks at the six nearest centre-to-centre vectors: their length gives the hex
size, their angle the orientation (vertical neighbours: flat-top; horizontal: pointy-top) and
any small leftover rotation. The lattice's origin is the shift that puts the side midpoints of
every hex on the outlines and the centres off them. Hexes whose outline is printed all round
are the sheet's cells; their axial coordinates come from :mod:`scorepad.hexgrid` (the leftmost
hex of the top row is (0, 0), the convention of the bundled example layout).

All hex geometry goes through :class:`scorepad.hexgrid.Layout`; this module only adds the
rotation and shift between the layout's pixel plane and the sheet image.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import cv2
import numpy as np
from scipy.optimize import minimize

from scorepad.hexgrid import Hex, Layout, Orientation, components, hexes_within, neighbors
from scorepad.vision.decode import PhotoError

#: Where the grid may lie on the rectified sheet (fractions of its height): below the
#: header band, above the residents tally.
GRID_TOP, GRID_BOTTOM = 0.1, 0.86
MIN_SIZE, MAX_SIZE = 35.0, 110.0  # hex size (centre to corner) in rectified pixels
SHEET_HEXES = 30  # a sheet's printed hexes, in one compact block
#: A grid that is not a clean sheet but has this many hexes is polished (:func:`polish`).
POLISH_FROM = 12
LATTICE_TRIES = 3  # autocorrelation readings tried when the first gives no clean sheet
#: Mean outline support below which a grid is doubted: on 400 validation photos every
#: correctly found grid had at least 0.95, the wrongly found ones with 30 hexes 0.63-0.77.
WELL_FOUND = 0.9
#: Outline support (share of sides) of a hex outlined (nearly) all round: never dropped as
#: one of a group's extra hexes (:func:`drop_extras`).
WHOLE_OUTLINE = 5 / 6
#: A hex next to a group short of 30 joins it when its print fill (share of its inner
#: points on print colour) is above RECOVER_FILL and at least RECOVER_SIDES sides are outlined.
RECOVER_FILL, RECOVER_SIDES = 0.85, 2
#: ... or when it is outlined all round and this many of its six neighbours are in the group.
ENCLOSED = 5
#: ... or when print colour fills it all over and this many of its neighbours are in the
#: group, however faint its outline (one side at least).
FILLED, FILLED_BESIDE = 0.95, 2
#: ... or when it holds print colour (PAPER_FILL: a mountain's white peaks leave less than
#: RECOVER_FILL) and half its sides are outlined and half its neighbours in the group.
HALF = 3
#: Every printed hex is filled (an area's colour or a mountain): a hex whose inner points
#: are bare paper is not one, however outlined it looks (on a blurred sheet the outline
#: map's noise floor passes blank paper as outlined).
PAPER_FILL = 0.3
#: Print colour: channels differing by this much, relative to the paper's white.
PRINT_CHROMA = 0.05
#: A grid whose hexes are this uneven in colour inside (:func:`colour_spread`) is off the
#: print: its lattice sits on the printed hexes' corners, each of its hexes holding parts
#: of three printed ones. On a sheet rectified with a strip of a checked cloth, such a
#: lattice (the checks' edges and the print's outlines in step) outscored the right one
#: and was even taken as a clean sheet (VALIDATION 30 204, 30 258, 30 308). The grids
#: found on the print of VALIDATION 30 000-30 399 and 20 000-20 799 had spreads up to
#: 9.7 (1 200 photos); those off it 14-21 (docs/vision.md, step 3).
OFF_PRINT = 12.0

V = TypeVar("V")


def normalise_hexes(hexes: Mapping[Hex, V], orientation: Orientation) -> dict[Hex, V]:
    """Shift coordinates so the leftmost hex of the top row is (0, 0)."""
    grid = Layout(orientation, 1.0)
    top = min(round(grid.to_pixel(h)[1], 3) for h in hexes)
    row = [h for h in hexes if round(grid.to_pixel(h)[1], 3) == top]
    first = min(row, key=lambda h: grid.to_pixel(h)[0])
    return {Hex(h.q - first.q, h.r - first.r): v for h, v in hexes.items()}


@dataclass(frozen=True)
class Lattice:
    """A hex lattice on the sheet image: ``homography`` maps the layout's pixel plane
    (``Layout(orientation, size)``, origin 0) to sheet-image pixels."""

    orientation: Orientation
    size: float
    homography: np.ndarray

    @classmethod
    def similar(
        cls, orientation: Orientation, size: float, theta: float, shift: tuple[float, float]
    ) -> Lattice:
        c, s = math.cos(theta), math.sin(theta)
        m = np.array([[c, -s, shift[0]], [s, c, shift[1]], [0, 0, 1.0]])
        return cls(orientation, size, m)

    @property
    def layout(self) -> Layout:
        return Layout(self.orientation, self.size)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Layout-plane pixels (..., 2) to sheet-image pixels."""
        pts = np.asarray(points, float)
        flat = pts.reshape(-1, 2)
        out = cv2.perspectiveTransform(flat[None].astype(np.float64), self.homography)[0]
        return out.reshape(pts.shape)

    def centre(self, h: Hex) -> tuple[float, float]:
        x, y = self.to_image(np.array([self.layout.to_pixel(h)]))[0]
        return float(x), float(y)

    def patch_map(self, h: Hex, crop: int, span: float) -> np.ndarray:
        """3x3 map from a ``crop`` x ``crop`` patch (covering ``span`` hex sizes, centred on
        ``h``, axis-aligned with the layout) to the sheet image (for WARP_INVERSE_MAP)."""
        cx, cy = self.layout.to_pixel(h)
        k = span * self.size / crop
        patch = np.array(
            [
                [k, 0, cx - span * self.size / 2 + k / 2],
                [0, k, cy - span * self.size / 2 + k / 2],
                [0, 0, 1],
            ]
        )
        return self.homography @ patch


def outline_map(sheet: np.ndarray) -> np.ndarray:
    """Dark thin lines (printed outlines, pencil) as a float map in 0..1."""
    gray = cv2.cvtColor(sheet, cv2.COLOR_RGB2GRAY)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
    hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel).astype(np.float32)
    hat = cv2.GaussianBlur(hat, (0, 0), 1.2)
    return np.clip(hat / max(float(np.percentile(hat, 99.5)), 1.0), 0, 1)


def lattice_vectors(edges: np.ndarray) -> tuple[Orientation, float, float]:
    """Orientation, hex size and leftover rotation from the outline map's autocorrelation."""
    return lattice_candidates(edges)[0]


def lattice_candidates(edges: np.ndarray, count: int = 1) -> list[tuple[Orientation, float, float]]:
    """Up to ``count`` (orientation, hex size, leftover rotation) readings of the outline map's
    autocorrelation, the best confirmed first (distinct lattices only)."""
    h, w = edges.shape
    region = edges - edges.mean()
    window = np.outer(np.hanning(h), np.hanning(w)).astype(np.float32)
    # Autocorrelation through the power spectrum, zero-padded to at least twice the size (no
    # wrap-around), in single precision with OpenCV's DFT (a few times faster than NumPy's).
    # The map is real: its spectrum is kept packed (half of it), multiplied by its conjugate and
    # transformed back to a real map, a third of the time of two full complex transforms.
    padded = np.zeros((cv2.getOptimalDFTSize(2 * h), cv2.getOptimalDFTSize(2 * w)), np.float32)
    padded[:h, :w] = region * window
    spectrum = cv2.dft(padded)
    power = cv2.mulSpectrums(spectrum, spectrum, 0, conjB=True)
    corr = cv2.dft(power, flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT)
    # Only short lags matter: their rows and columns, negative lags wrapped round.
    reach = int(MAX_SIZE * 2)
    lags = np.arange(-reach, reach + 1)
    patch = corr[np.ix_(lags % corr.shape[0], lags % corr.shape[1])]
    yy, xx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    radius = np.hypot(xx, yy)
    # Peaks: centre-to-centre distance is sqrt(3) * size.
    valid = (radius >= MIN_SIZE * math.sqrt(3)) & (radius <= MAX_SIZE * math.sqrt(3))
    local_max = patch == cv2.dilate(patch.astype(np.float32), np.ones((7, 7), np.uint8))
    candidates = np.argwhere(valid & local_max)
    if len(candidates) == 0:
        raise PhotoError("no hex grid found on the sheet")
    values = patch[candidates[:, 0], candidates[:, 1]]
    scored = []
    for (py, px), value in zip(candidates, values, strict=True):
        # A lattice vector is confirmed by its 60-degree turns and its double.
        dy, dx = py - reach, px - reach
        if dy < 0 or (dy == 0 and dx < 0):
            continue
        total = value
        for turn in (1, 2):
            a = turn * math.pi / 3
            tx = dx * math.cos(a) - dy * math.sin(a)
            ty = dx * math.sin(a) + dy * math.cos(a)
            total += _peak_near(patch, reach + ty, reach + tx)
        total += 0.5 * _peak_near(patch, reach + 2 * dy, reach + 2 * dx)
        scored.append((float(total), int(dx), int(dy)))
    scored.sort(reverse=True)
    out: list[tuple[Orientation, float, float]] = []
    for _total, dx, dy in scored:
        reading = _reading(dx, dy)
        if any(
            reading[0] is o and abs(reading[1] - s) < 0.06 * s and abs(reading[2] - t) < 0.05
            for o, s, t in out
        ):
            continue
        out.append(reading)
        if len(out) == count:
            break
    return out


def _reading(dx: float, dy: float) -> tuple[Orientation, float, float]:
    angle = math.atan2(dy, dx)
    spacing = math.hypot(dx, dy)
    # Flat-top neighbours lie at 30, 90, 150 degrees; pointy-top at 0, 60, 120.
    sixty = math.pi / 3
    rel = angle % sixty
    if abs(rel - sixty / 2) < sixty / 4:
        return Orientation.FLAT, spacing / math.sqrt(3), rel - sixty / 2
    theta = rel if rel < sixty / 2 else rel - sixty
    return Orientation.POINTY, spacing / math.sqrt(3), theta


def _peak_near(patch: np.ndarray, y: float, x: float, r: int = 3) -> float:
    yi, xi = round(y), round(x)
    if not (r <= yi < patch.shape[0] - r and r <= xi < patch.shape[1] - r):
        return 0.0
    return float(patch[yi - r : yi + r + 1, xi - r : xi + r + 1].max())


@dataclass(frozen=True)
class Probe:
    """Layout-plane sample points of a patch of hexes: centres and side midpoints."""

    hexes: list[Hex]
    centres: np.ndarray  # (n, 2)
    sides: np.ndarray  # (n, 6, 2)
    edge_points: np.ndarray  # (n, 6, k, 2) points along each side's edge


def probe(layout: Layout, hexes: Iterable[Hex]) -> Probe:
    """Sample points of the given hexes. The lattice is the same around every hex, so the
    side midpoints and edge points of hex (0, 0) are worked out once and moved to each
    centre."""
    hexes = list(hexes)
    zero = Layout(layout.orientation, layout.size)
    centres = np.array([layout.to_pixel(h) for h in hexes]).reshape(-1, 2)
    home = np.array(zero.to_pixel(Hex(0, 0)))
    sides0 = np.array([zero.side_midpoint(Hex(0, 0), d) for d in range(6)]) - home
    corners0 = np.array(zero.corners(Hex(0, 0))) - home
    t = np.linspace(0.2, 0.8, 5)
    edges0 = np.empty((6, len(t), 2))
    for d in range(6):
        # The edge across side d runs between the two corners nearest its midpoint.
        a, b = np.argsort(np.linalg.norm(corners0 - sides0[d], axis=1))[:2]
        edges0[d] = corners0[a] + t[:, None] * (corners0[b] - corners0[a])
    sides = centres[:, None, :] + sides0[None]
    edge_points = centres[:, None, None, :] + edges0[None]
    return Probe(hexes, centres, sides, edge_points)


def sample(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of a float map at (..., 2) points; outside the map gives 0."""
    flat = points.reshape(-1, 2).astype(np.float32)
    out = cv2.remap(
        image,
        flat[:, 0].reshape(-1, 1),
        flat[:, 1].reshape(-1, 1),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    return out.reshape(points.shape[:-1])


def sample_many(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """:func:`sample` for more points than one remap column takes (rows of 1024)."""
    flat = points.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    rows = -(-n // 1024)
    padded = np.full((rows * 1024, 2), -1.0, np.float32)
    padded[:n] = flat
    out = cv2.remap(
        image,
        padded[:, 0].reshape(rows, 1024),
        padded[:, 1].reshape(rows, 1024),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    return out.reshape(-1)[:n].reshape(points.shape[:-1])


def fit(edges: np.ndarray, orientation: Orientation, size: float, theta: float) -> Lattice:
    """The similarity lattice (size, rotation, shift) that best puts outlines on the hexes'
    sides and nothing on their centres."""
    h, w = edges.shape
    layout = Layout(orientation, size)
    reach = int(max(h, w) / (1.5 * size)) + 2
    base = probe(layout, hexes_within(Hex(0, 0), reach))
    centre_of_image = np.array([w / 2, h / 2])

    wide = cv2.GaussianBlur(edges, (0, 0), max(1.5, 0.08 * size))

    def score(params: np.ndarray, edges: np.ndarray = edges) -> float:
        s, th, sx, sy = params
        c, sn = math.cos(th), math.sin(th)
        rot = np.array([[c, -sn], [sn, c]]) * (s / size)
        mids = base.sides @ rot.T + centre_of_image + (sx, sy)
        cens = base.centres @ rot.T + centre_of_image + (sx, sy)
        on = sample(edges, mids)
        off = sample(edges, cens)
        inside = (cens[:, 0] > 0) & (cens[:, 0] < w) & (cens[:, 1] > 0) & (cens[:, 1] < h)
        if not inside.any():
            return 0.0
        return float((on[inside].mean(axis=1) - off[inside]).mean())

    # Coarse search of the shift over one lattice cell.
    v1 = np.array(layout.to_pixel(Hex(1, 0)))
    v2 = np.array(layout.to_pixel(Hex(0, 1)))
    c, sn = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -sn], [sn, c]])
    steps = 20
    ii, jj = np.meshgrid(np.arange(steps) / steps, np.arange(steps) / steps, indexing="ij")
    shifts = (ii.reshape(-1, 1) * v1 + jj.reshape(-1, 1) * v2) @ rot.T  # (steps², 2)
    # All shifts at once (same values as score() on the wide map, one remap).
    cens0 = base.centres @ rot.T + centre_of_image
    mids0 = base.sides @ rot.T + centre_of_image
    cens = cens0[None] + shifts[:, None, :]
    on = sample_many(wide, mids0[None] + shifts[:, None, None, :]).mean(axis=2)
    off = sample_many(wide, cens)
    inside = (cens[..., 0] > 0) & (cens[..., 0] < w) & (cens[..., 1] > 0) & (cens[..., 1] < h)
    counts = inside.sum(axis=1)
    values = np.where(counts > 0, ((on - off) * inside).sum(axis=1) / np.maximum(counts, 1), 0.0)
    k = int(np.argmax(values))
    best = np.array([size, theta, shifts[k, 0], shifts[k, 1]])
    scale = np.array([size * 0.02, 0.01, size * 0.1, size * 0.1])
    result = minimize(
        lambda z: -score(best + z * scale),
        np.zeros(4),
        method="Nelder-Mead",
        # SciPy's default first simplex steps a zero start by 0.00025 only, which met both
        # tolerances at once: the polish stopped after one iteration.
        options={"xatol": 0.02, "fatol": 1e-4, "maxiter": 300, "initial_simplex": _simplex(4)},
    )
    s, th, sx, sy = best + result.x * scale
    # Re-express for a layout of size s: layout points scale by s / size already.
    origin = centre_of_image + np.array([sx, sy])
    return Lattice.similar(orientation, float(s), float(th), (float(origin[0]), float(origin[1])))


@dataclass(frozen=True)
class Grid:
    """The sheet's printed hexes on the lattice, with sheet-image centres."""

    lattice: Lattice
    cells: dict[Hex, tuple[float, float]]  # normalised axial coordinates -> image centre
    raw: dict[Hex, Hex]  # normalised -> lattice coordinates
    outline_support: dict[Hex, float]
    #: How uneven in colour its hexes are inside (:func:`colour_spread`, measured by
    #: :func:`on_print`; 0 until then).
    spread: float = 0.0

    @property
    def off_print(self) -> bool:
        """Its hexes uneven in colour inside (:data:`OFF_PRINT`): a lattice off the print."""
        return self.spread > OFF_PRINT

    @property
    def mean_support(self) -> float:
        """The mean share of a hex's sides with a printed outline."""
        return float(np.mean(list(self.outline_support.values())))

    @property
    def trusted_support(self) -> float:
        """:attr:`mean_support`, kept below :data:`WELL_FOUND` for a grid off the print: its
        hexes are doubted however well their sides lie on outlines."""
        support = self.mean_support
        return min(support, WELL_FOUND / 2) if self.off_print else support

    @property
    def is_clean_sheet(self) -> bool:
        """A sheet's 30 hexes, outlined (nearly) all round and on the print: taken at once."""
        return len(self.cells) == SHEET_HEXES and self.trusted_support >= WELL_FOUND

    @property
    def likeness(self) -> float:
        """How much the grid looks like a sheet, to keep the best of several: outline support
        summed over up to 30 hexes, less one per hex beyond 30."""
        n = len(self.cells)
        return self.mean_support * min(n, SHEET_HEXES) - max(0, n - SHEET_HEXES)


def _support(edges: np.ndarray, lattice: Lattice, p: Probe) -> np.ndarray:
    """Per hex and side: mean outline strength along that side's edge."""
    along = sample(edges, lattice.to_image(p.edge_points))
    return along.mean(axis=2)


def _candidates(edges: np.ndarray, lattice: Lattice, top: float, bottom: float) -> Probe:
    h, w = edges.shape
    layout = lattice.layout
    reach = int(max(h, w) / (1.5 * lattice.size)) + 2
    inverse = np.linalg.inv(lattice.homography)
    middle = cv2.perspectiveTransform(np.array([[[w / 2, (top + bottom) / 2]]]), inverse)[0, 0]
    centre_hex = layout.from_pixel(float(middle[0]), float(middle[1]))
    hexes = list(hexes_within(centre_hex, reach))
    p = probe(layout, hexes)
    cens = lattice.to_image(p.centres)
    inside = (
        (cens[:, 0] > lattice.size * 0.5)
        & (cens[:, 0] < w - lattice.size * 0.5)
        & (cens[:, 1] > top)
        & (cens[:, 1] < bottom)
    )
    keep = np.flatnonzero(inside)
    return Probe([hexes[i] for i in keep], p.centres[keep], p.sides[keep], p.edge_points[keep])


def refine(edges: np.ndarray, lattice: Lattice, p: Probe, strong: np.ndarray) -> Lattice:
    """Shift each well-outlined hex to where its own outline fits best, then fit the
    homography through all of them (RANSAC): this takes out the perspective the sheet's
    corners left and any curl of the paper."""
    if strong.sum() < 6:
        return lattice
    span = np.linspace(-0.3, 0.3, 13) * lattice.size
    dx, dy = np.meshgrid(span, span)
    offsets = np.stack([dx.ravel(), dy.ravel()], axis=1)  # (m, 2)
    src, dst = [], []
    for i in np.flatnonzero(strong):
        pts = lattice.to_image(p.edge_points[i]).reshape(-1, 2)  # (30, 2)
        centre = lattice.to_image(p.centres[i][None])[0]
        moved = pts[None, :, :] + offsets[:, None, :]
        on = sample(edges, moved).mean(axis=1)
        off = sample(edges, (centre[None, :] + offsets)[:, None, :])[:, 0]
        k = int(np.argmax(on - 0.5 * off))
        src.append(p.centres[i])
        dst.append(centre + offsets[k])
    src_a, dst_a = np.array(src), np.array(dst)
    homography, inliers = cv2.findHomography(src_a, dst_a, cv2.RANSAC, 0.12 * lattice.size)
    if homography is None or inliers.sum() < max(6, 0.5 * len(src)):
        return lattice
    refined = Lattice(lattice.orientation, lattice.size, homography)
    # A refinement moves hexes a little; a wild fit (few, collinear points) is refused.
    moved = np.linalg.norm(refined.to_image(p.centres) - lattice.to_image(p.centres), axis=1)
    if moved.max() > 0.5 * lattice.size:
        return lattice
    return refined


def _simplex(n: int, step: float = 0.5) -> np.ndarray:
    """Nelder-Mead's first simplex around zero: the origin and a step along each axis."""
    return np.vstack([np.zeros(n), step * np.eye(n)])


def polish(edges: np.ndarray, lattice: Lattice, hexes: list[Hex]) -> Lattice:
    """The lattice's homography moved (its four corners over the given hexes, Nelder-Mead)
    to put outlines on those hexes' sides and nothing on their centres: for a grid whose
    per-hex fits disagree (a blurred, pencilled sheet off a poor similarity fit)."""
    p = probe(lattice.layout, hexes)
    wide = cv2.GaussianBlur(edges, (0, 0), max(1.5, 0.05 * lattice.size))
    lo, hi = p.centres.min(axis=0), p.centres.max(axis=0)
    if (hi - lo).min() < lattice.size:
        return lattice  # one row of hexes: its corners fix no homography
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], np.float32)
    start = lattice.to_image(box).astype(np.float32)
    step = 0.1 * lattice.size

    def moved(z: np.ndarray) -> np.ndarray:
        return cv2.getPerspectiveTransform(box, start + (z.reshape(4, 2) * step).astype(np.float32))

    def score(z: np.ndarray, image: np.ndarray) -> float:
        trial = Lattice(lattice.orientation, lattice.size, moved(z))
        on = sample(image, trial.to_image(p.edge_points)).mean(axis=(1, 2))
        off = sample(image, trial.to_image(p.centres))
        return float((on - off).mean())

    z = np.zeros(8)
    for image, reach in ((wide, 1.0), (edges, 0.3)):
        z = minimize(
            lambda v, image=image: -score(v, image),
            z,
            method="Nelder-Mead",
            options={
                "xatol": 0.05,
                "fatol": 1e-5,
                "maxiter": 800,
                "initial_simplex": z + _simplex(8, reach),
            },
        ).x
    return Lattice(lattice.orientation, lattice.size, moved(z))


def print_map(sheet: np.ndarray) -> np.ndarray:
    """1 where the sheet shows print colour (saturated, coloured against the paper nearby,
    or clearly darker than it), 0 on bare paper. The colour against the paper (each channel
    divided by the brightest within about 50 px) keeps a pale print under a colour cast
    (pink in cyan light), which is not saturated; the middle of a large hex still relies
    on its saturation."""
    hsv = cv2.cvtColor(sheet, cv2.COLOR_RGB2HSV)
    value = hsv[..., 2].astype(np.float32)
    white = cv2.dilate(cv2.resize(sheet, None, fx=0.25, fy=0.25), np.ones((25, 25), np.uint8))
    white = cv2.resize(cv2.GaussianBlur(white, (0, 0), 4), (value.shape[1], value.shape[0]))
    # Per channel with OpenCV: NumPy's reductions over a last axis of 3 are slow here.
    r, g, b = cv2.split(cv2.divide(sheet, cv2.max(white, 1), dtype=cv2.CV_32F))
    chroma = cv2.max(cv2.max(r, g), b) - cv2.min(cv2.min(r, g), b)
    wr, wg, wb = cv2.split(white)
    paper = cv2.max(cv2.max(wr, wg), wb).astype(np.float32)
    colour = (hsv[..., 1] > 60) | (chroma > PRINT_CHROMA) | (value < 0.8 * paper)
    return cv2.blur(colour.astype(np.float32), (5, 5))


def _sides_and_fill(
    edges: np.ndarray, printed: np.ndarray, lattice: Lattice, p: Probe
) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate hex: how many of its sides are outlined, and the share of its inner
    points on print colour."""
    strength = _support(edges, lattice, p)
    level = np.percentile(strength, 90) if len(strength) else 1.0
    support = (strength > 0.35 * level).sum(axis=1)
    inner = p.centres[:, None, :] + 0.45 * (p.sides - p.centres[:, None, :])
    fill = sample(printed, lattice.to_image(np.concatenate([inner, p.centres[:, None]], axis=1)))
    return support, fill.mean(axis=1)


def printed_cells(
    edges: np.ndarray, lattice: Lattice, top: float, bottom: float, printed: np.ndarray
) -> Grid:
    """The hexes with a printed outline (nearly) all round and some print colour inside, or
    a printed fill and part of an outline, as one connected group; the lattice is refined
    on them first."""
    for _ in range(3):
        p = _candidates(edges, lattice, top, bottom)
        support, share = _sides_and_fill(edges, printed, lattice, p)
        # The residents tally's boxes are outlined too, but not filled: they stay out.
        lattice = refine(edges, lattice, p, (support >= 4) & (share > PAPER_FILL))
    p = _candidates(edges, lattice, top, bottom)
    support, share = _sides_and_fill(edges, printed, lattice, p)
    chosen = {
        hx
        for hx, n, f in zip(p.hexes, support, share, strict=True)
        if (n >= 5 and f > PAPER_FILL) or (n >= 3 and f > 0.85)
    }
    if not chosen:
        raise PhotoError("no hex grid found on the sheet")
    group = max(components(chosen), key=len)
    if len(group) < SHEET_HEXES:
        group = recover(group, p.hexes, support, share)
    support_of = dict(zip(p.hexes, support / 6.0, strict=True))
    group = fill_holes(group, support_of)
    mapping = normal_map(group, lattice.orientation)
    return Grid(
        lattice=lattice,
        cells={n: lattice.centre(raw) for n, raw in mapping.items()},
        raw=mapping,
        outline_support={n: float(support_of[raw]) for n, raw in mapping.items()},
    )


def fill_holes(group: set[Hex], support: Mapping[Hex, float]) -> set[Hex]:
    """A sheet's hexes have no hole: in a group of at most a sheet's 30, a candidate hex
    (one of ``support``'s, the share of its sides outlined) with all six neighbours in the
    group is printed, whatever its outlines show (a dark hex in a shadow, validation photo
    1929). When that makes more than 30, the extras go (:func:`drop_extras`), the group
    kept without a hole. A larger group is left to
    :func:`~scorepad.vision.recognize.trim`: cut to 30 here, a wrong lattice's group of 42
    with a hole became a clean-looking sheet (5603)."""
    if len(group) > SHEET_HEXES:
        return group
    holes = {h for h in support.keys() - group if all(n in group for n in neighbors(h))}
    return drop_extras(group | holes, support, holeless=True) if holes else group


def drop_extras(group: set[Hex], support: Mapping[Hex, float], holeless: bool = False) -> set[Hex]:
    """A group of more than a sheet's 30 hexes without the extra ones: hexes outlined only
    in part (``support``: the share of their sides), least outlined first, while the rest
    stays connected (and, ``holeless``, without a hole) and has at least 30."""
    for h in sorted(group, key=lambda h: support[h]):
        if len(group) <= SHEET_HEXES or support[h] >= WHOLE_OUTLINE:
            break
        rest = group - {h}
        if holeless and all(n in rest for n in neighbors(h)):
            continue  # inside the group: taking it out would leave a hole
        if len(max(components(rest), key=len)) == len(rest):
            group = rest
    return group


def recover(group: set[Hex], hexes: list[Hex], support: np.ndarray, fill: np.ndarray) -> set[Hex]:
    """A group short of a sheet's 30 hexes grows by the hexes next to it that are filled
    with print colour all over and outlined on at least two sides (edge hexes of a blurred
    sheet, whose outer outlines fade into the paper), or outlined all round and enclosed by
    the group (a pale print the print map missed: validation photo 1638, pink under a
    green cast), the best first, up to 30."""
    score = {hx: (float(f), int(n)) for hx, n, f in zip(hexes, support, fill, strict=True)}
    group = set(group)
    while len(group) < SHEET_HEXES:
        touching = [hx for hx in score if hx not in group and _joins(hx, *score[hx], group)]
        if not touching:
            break
        group.add(max(touching, key=lambda hx: (score[hx], -hx.q, -hx.r)))
    return group


def _joins(hx: Hex, fill: float, sides: int, group: set[Hex]) -> bool:
    around = sum(nb in group for nb in neighbors(hx))
    filled = fill > RECOVER_FILL and sides >= RECOVER_SIDES
    beside = fill > FILLED and sides >= 1 and around >= FILLED_BESIDE
    notch = fill > PAPER_FILL and sides >= HALF and around >= HALF
    return around > 0 and (filled or beside or notch or (sides == 6 and around >= ENCLOSED))


def normal_map(group: Iterable[Hex], orientation: Orientation) -> dict[Hex, Hex]:
    group = list(group)
    normal = normalise_hexes({h: h for h in group}, orientation)
    return dict(sorted(normal.items()))


def ranked(
    grid: Grid, fits: Callable[[Grid], bool] | None
) -> tuple[bool, tuple[bool, bool, float]]:
    """Whether a candidate grid settles the search (a clean sheet that also fits the
    layout's shape, when one is given), and its rank among the others: a grid on the print
    before any off it (:data:`OFF_PRINT`), then one that fits before any that does not, then
    by likeness to a sheet."""
    fit_ = fits is None or fits(grid)
    return grid.is_clean_sheet and fit_, (not grid.off_print, fit_, grid.likeness)


def polished(
    grid: Grid,
    edges: np.ndarray,
    printed: np.ndarray,
    rows: tuple[float, float],
    fits: Callable[[Grid], bool] | None,
    ab: tuple[np.ndarray, np.ndarray],
) -> Grid:
    """The grid found again after :func:`polish`, when that gives a clean sheet on the print
    (:func:`on_print`; ``ab``: the sheet's Lab a and b) that fits the layout, when one is
    given. A polish that only raises the outline support a little is not trusted: on a badly
    blurred sheet it can settle half a hex off."""
    lattice = polish(edges, grid.lattice, list(grid.raw.values()))
    try:
        again = on_print(printed_cells(edges, lattice, rows[0], rows[1], printed), ab)
    except PhotoError:
        return grid
    return again if ranked(again, fits)[0] else grid


def on_corners(
    grid: Grid, edges: np.ndarray, printed: np.ndarray, rows: tuple[float, float]
) -> list[Grid]:
    """The grids found with the lattice moved onto its hexes' corners, one of each of the
    two kinds of corner. Heavy, blurred pencil in every hex can pull the lattice's fit onto
    the corners, where the ink round the centres looks like outlines: too many hexes all
    well outlined, while the right lattice gives the sheet's 30 (validation photos 5304,
    5799). :func:`corner_grid` says whether one is taken."""
    lattice = grid.lattice
    home = np.array(lattice.layout.to_pixel(Hex(0, 0)))
    out = []
    for corner in lattice.layout.corners(Hex(0, 0))[:2]:
        dx, dy = np.array(corner) - home
        moved = lattice.homography @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
        shifted = Lattice(lattice.orientation, lattice.size, moved)
        try:
            out.append(printed_cells(edges, shifted, *rows, printed))
        except PhotoError:
            continue
    return out


def colour_spread(grid: Grid, ab: tuple[np.ndarray, np.ndarray]) -> float:
    """How uneven the print is inside the grid's hexes: the spread of the sheet's colour
    (Lab a and b, ``ab``; the pencil is grey) on a ring at 0.55 of each hex's size, mean
    over the hexes. A hex on the lattice of the print is one colour inside; a lattice
    moved off it puts parts of three printed hexes, and their outlines, in each."""
    lattice = grid.lattice
    turns = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = 0.55 * lattice.size * np.stack([np.cos(turns), np.sin(turns)], axis=1)
    centres = np.array([lattice.layout.to_pixel(raw) for raw in grid.raw.values()])
    points = lattice.to_image(centres[:, None, :] + ring)
    a, b = (sample(channel, points) for channel in ab)
    return float(np.mean(np.hypot(a.std(axis=1), b.std(axis=1))))


def on_print(grid: Grid, ab: tuple[np.ndarray, np.ndarray]) -> Grid:
    """``grid`` with its colour spread measured (``ab``: the sheet's Lab a and b), which
    tells whether it is off the print (:data:`OFF_PRINT`)."""
    return replace(grid, spread=colour_spread(grid, ab))


def corner_grid(
    grid: Grid,
    edges: np.ndarray,
    printed: np.ndarray,
    ab: tuple[np.ndarray, np.ndarray],
    rows: tuple[float, float],
    fits: Callable[[Grid], bool] | None,
) -> Grid:
    """``grid`` (its spread measured, :func:`on_print`) or one of :func:`on_corners` that
    settles the search, looks more like a sheet (:func:`ranked`) and is at most half as
    uneven in colour inside its hexes (:func:`colour_spread`; ``ab``: the sheet's Lab a and
    b). Settling asks for a clean
    sheet: on a blurred sheet a corners' grid can be 31 hexes all outlined, against the
    right 30 outlined at 0.89 (validation photo 210). A grid of 31 hexes outlined
    all round, one extra beside the sheet that is trimmed later, is more like a sheet than
    a corners' grid of 30 outlined at 0.9 (validation photo 2467). On 2824 a wrong lattice
    (37 hexes, spread 18) had corners' grids of 30 outlined at 0.93 and 0.99, as uneven
    (13, 18): a lattice off the print whichever way it is moved. The corners' grids taken
    on 5304 and 5799 have spreads of 3.4 and 1.6 against their grids' 18 and 12."""
    rank = ranked(grid, fits)[1]
    for moved in on_corners(grid, edges, printed, rows):
        moved = on_print(moved, ab)
        settled, moved_rank = ranked(moved, fits)
        if settled and moved_rank > rank and moved.spread <= grid.spread / 2:
            return moved
    return grid


def find_grid(
    sheet: np.ndarray,
    fits: Callable[[Grid], bool] | None = None,
    edges: np.ndarray | None = None,
    deadline: float = math.inf,
) -> Grid:
    """The printed hex grid of an upright sheet image. When the strongest lattice reading
    does not give a sheet's 30 well-outlined hexes (a blurred sheet's faint outlines, the
    pencil or the paper's grain giving a false peak), the next readings are tried too and
    the grid that looks most like a sheet is kept. ``fits`` (the hexes of a known layout)
    makes a grid taken at once only when it fits, and one that fits preferred to any that
    does not. ``edges``: the sheet's :func:`outline_map`, when the caller has it already.
    Past the ``deadline`` no further reading is tried once the best grid is one that
    cannot be a sheet's (:func:`past_budget`)."""
    h, _w = sheet.shape[:2]
    edges = outline_map(sheet) if edges is None else edges
    top, bottom = int(h * GRID_TOP), int(h * GRID_BOTTOM)
    region = edges[top:bottom]
    printed = print_map(sheet)
    best: tuple[tuple[bool, bool, float], Grid] | None = None
    lab = cv2.cvtColor(sheet, cv2.COLOR_RGB2LAB).astype(np.float32)
    ab = (lab[..., 1].copy(), lab[..., 2].copy())  # the print's colour, the pencil grey
    for orientation, size, theta in lattice_candidates(region, LATTICE_TRIES):
        if best is not None and past_budget(deadline, best[1]):
            break
        first = fit(region, orientation, size, theta)
        moved = np.array([[1, 0, 0], [0, 1, top], [0, 0, 1.0]]) @ first.homography
        lattice = Lattice(first.orientation, first.size, moved)
        try:
            grid = printed_cells(edges, lattice, float(top), float(bottom), printed)
        except PhotoError:
            continue
        rows = (float(top), float(bottom))
        if not grid.is_clean_sheet and len(grid.cells) >= POLISH_FROM:
            grid = polished(grid, edges, printed, rows, fits, ab)
        grid = on_print(grid, ab)  # judged only now: a clean grid off the print is no sheet
        if not grid.is_clean_sheet:
            grid = corner_grid(grid, edges, printed, ab, rows, fits)
        settled, rank = ranked(grid, fits)
        if settled:
            return grid
        if len(grid.cells) >= 7 and (best is None or rank > best[0]):
            best = (rank, grid)
    if best is None:
        raise PhotoError("no hex grid found on the sheet")
    return best[1]


def past_budget(deadline: float, grid: Grid) -> bool:
    """Whether the grid search may stop with ``grid`` in hand: past the ``deadline`` (of
    ``time.thread_time``), and ``grid`` has over twice a sheet's hexes, the lattice of a
    picture's fine texture rather than of a sheet (photos of a cat: 120-150 hexes, each
    such lattice refined in turn, 20-40 s in all). A sheet's own search is never cut
    short: a budget that cut every search lost a right grid that came late."""
    return len(grid.cells) > 2 * SHEET_HEXES and time.thread_time() > deadline


def describe(grid: Grid) -> dict[str, Any]:
    """A summary for debugging and the benchmark."""
    return {
        "orientation": grid.lattice.orientation.value,
        "size": round(grid.lattice.size, 2),
        "cells": len(grid.cells),
    }
