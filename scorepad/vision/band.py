"""The board's title band, and board outlines built on it (the last retry of
:func:`scorepad.vision.boards.find_board`).

On a table whose light squares are the board's own cream (a checked cloth), the board's
edges show no contrast where they cross those squares: no light region frames the board,
and the cloth's long lines crowd its edges out of the photo's straight edges. The title
band still shows, as the darkest long, thin, filled shape of the photo: a rectangle whose
outer long edge lies the rim's depth inside the board's top edge and whose ends lie as
far inside its sides. Its two long edges are found well (they are long); its ends are
short and often blurred or touched by a stack, so they are not trusted. Through a focal
length, the top edge leaves the board one unknown, its tilt about that edge: the side at
one corner is swept, the other side meets it at the vanishing point square to the top
edge's, and the proportions place the far edge (:func:`edges.completed_outlines`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from scorepad.vision.board_print import BoardSpec
from scorepad.vision.camera import intrinsics
from scorepad.vision.edges import completed_outlines

FloatArray = np.ndarray

#: The long side of the copy the band is looked for on.
BAND_SIDE = 960
#: A band pixel is darker than this share of the lightest grey around it (the band is
#: about a third of the cream's grey, a checked cloth's dark squares about 0.6 of its light).
BAND_DARK = 0.45
#: The band's seen length over its depth (side A 11.3, side B 15, Spring Meadow 11.4, as
#: printed) and how much of its enclosing rectangle its hull fills (the hull: the title's
#: letters, blurred into the band's edge, notch its outline; on a checked cloth,
#: VALIDATION 107 040's band itself filled 0.66 of its rectangle, its hull 0.83, a shred of
#: a stack's shadow touching its edge widening the rectangle).
BAND_ELONGATION = (6.0, 25.0)
BAND_FILL = 0.8
#: The turns (degrees) from square to the top edge, on the photo, that the side at its
#: first corner is tried at: a camera tilted 40 degrees turns it by up to about 25.
SIDE_TURNS = tuple(range(-30, 31, 2))


def band_quads(photo: FloatArray) -> list[FloatArray]:
    """The shapes on ``photo`` (RGB) that can be a title band: dark against the lightest
    grey around them, long, thin and filled; each as its four corners (photo pixels)."""
    h, w = photo.shape[:2]
    factor = BAND_SIDE / max(h, w)
    small = cv2.resize(photo, (round(w * factor), round(h * factor)), interpolation=cv2.INTER_AREA)
    grey = np.asarray(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), np.float32)
    k = round(0.08 * BAND_SIDE) | 1
    light = cv2.blur(cv2.dilate(grey, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), (k, k))
    dark = (grey < BAND_DARK * light).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=4)
    quads = []
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < 2e-4 * BAND_SIDE**2 or max(bw, bh) < 0.08 * BAND_SIDE:
            continue
        box = (slice(y, y + bh), slice(x, x + bw))
        for region, corner in (
            _half_level(grey, light, labels == i, box),
            (labels[box] == i, (x, y)),
        ):
            contours, _ = cv2.findContours(
                region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
            )
            quad = _band_shape(max(contours, key=cv2.contourArea) + np.array(corner))
            if quad is not None:
                quads.append(quad / factor)
                break
    return quads


def _half_level(
    grey: FloatArray, light: FloatArray, shape: np.ndarray, box: tuple[slice, slice]
) -> tuple[np.ndarray, tuple[int, int]]:
    """The dark ``shape`` (within ``box``) grown to where the grey is halfway between its
    own and the light around it, and the grown region's top-left corner. The 0.45 threshold
    leaves the band's edges inside its blurred edges (VALIDATION 107 101 on a checked
    cloth: its outer edge 9 px in at 3 MP, which the rim's few pixels in the print
    comparison do not forgive); halfway, blur moves them neither way."""
    pad = 4
    rows = slice(max(box[0].start - pad, 0), min(box[0].stop + pad, grey.shape[0]))
    cols = slice(max(box[1].start - pad, 0), min(box[1].stop + pad, grey.shape[1]))
    level = float(np.median(grey[shape]))
    half = (grey[rows, cols] < (level + light[rows, cols]) / 2).astype(np.uint8)
    _, labels = cv2.connectedComponents(half, connectivity=4)
    held = np.bincount(labels[shape[rows, cols]]).argmax()  # the component holding the shape
    return labels == held, (cols.start, rows.start)


def _band_shape(contour: np.ndarray) -> FloatArray | None:
    """The four corners of a contour shaped like a band, or None: where lines fitted along
    its edges meet, the edges those of its hull reduced to four points (of its enclosing
    rectangle when the hull does not reduce to four)."""
    box = cv2.minAreaRect(contour)
    long, short = max(box[1]), min(box[1])
    if short < 2 or not BAND_ELONGATION[0] <= long / short <= BAND_ELONGATION[1]:
        return None
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) < BAND_FILL * long * short:
        return None
    perimeter = cv2.arcLength(hull, True)
    rough = np.asarray(cv2.boxPoints(box), float)
    for tolerance in (0.01, 0.02, 0.03, 0.05):
        corners = cv2.approxPolyDP(hull, tolerance * perimeter, True)
        if len(corners) == 4:
            rough = np.asarray(corners.reshape(4, 2), float)
            break
    return _fitted_corners(contour.reshape(-1, 2).astype(np.float32), rough)


def _fitted_corners(points: np.ndarray, rough: FloatArray) -> FloatArray:
    """The corners where lines fitted to the contour ``points`` along each edge of the
    ``rough`` quadrilateral meet (the rough corners are the hull's points picked to a
    tolerance: pixels off along the edges)."""
    lines = []
    for i in range(4):
        a, b = rough[i], rough[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / max(length, 1e-9)
        normal = np.array([-along[1], along[0]])
        t = (points - a) @ along
        near = (np.abs((points - a) @ normal) < 3) & (t > 0.1 * length) & (t < 0.9 * length)
        if near.sum() < 5:
            return rough
        vx, vy, x0, y0 = cv2.fitLine(points[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append(np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0]))
    corners = [np.cross(lines[i - 1], lines[i]) for i in range(4)]
    if any(abs(c[2]) < 1e-9 for c in corners):
        return rough
    fitted = np.array([c[:2] / c[2] for c in corners])
    # A corner far from where the hull put it is a fit gone wrong (an edge's points few).
    short = min(float(np.linalg.norm(rough[i] - rough[i - 1])) for i in range(4))
    return fitted if np.abs(fitted - rough).max() < 0.25 * short + 3 else rough


def band_outlines(
    quads: list[FloatArray],
    specs: list[BoardSpec],
    focals: tuple[float, ...],
    size: tuple[int, int],
) -> list[tuple[BoardSpec, FloatArray]]:
    """Board outlines (corners top-left first, clockwise, in photo pixels: the band on
    top) built on each band of ``quads``:
    either long edge as the band's outer one, each side's band depth and rim, each focal
    length (of the photo's long side) and each turn of ``SIDE_TURNS``."""
    outlines = []
    for quad in quads:
        q = _long_edges_first(quad)
        for top, bottom in (((q[0], q[1]), (q[3], q[2])), ((q[2], q[3]), (q[1], q[0]))):
            for spec in specs:
                base = _board_top(top, bottom, spec)
                for focal in focals:
                    outlines += [(spec, o) for o in _tilted(base, top, bottom, spec, focal, size)]
    return outlines


def _long_edges_first(quad: FloatArray) -> FloatArray:
    """The corners turned so that 0-1 and 3-2 are the long edges."""
    first = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[2])
    second = np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[0] - quad[3])
    return np.roll(quad, -1, axis=0) if second > first else quad


def _board_top(
    top: tuple[FloatArray, FloatArray], bottom: tuple[FloatArray, FloatArray], spec: BoardSpec
) -> tuple[FloatArray, FloatArray]:
    """The board's top corners: the band's outer corners moved out by the rim above the
    band and beyond its ends (the band is printed that far inside the board's edges)."""
    (a0, a1), (b0, b1) = top, bottom
    rim = spec.band[0] / (spec.band[1] - spec.band[0])
    end = spec.band[0] / (spec.width - 2 * spec.band[0])
    return a0 - rim * (b0 - a0) - end * (a1 - a0), a1 - rim * (b1 - a1) + end * (a1 - a0)


def _tilted(
    base: tuple[FloatArray, FloatArray],
    top: tuple[FloatArray, FloatArray],
    bottom: tuple[FloatArray, FloatArray],
    spec: BoardSpec,
    focal: float,
    size: tuple[int, int],
) -> list[FloatArray]:
    """The outlines on ``base`` through ``focal``, one per turn of the first side: the
    second side meets it on the line of vanishing points square to the band's edges'."""
    k = intrinsics(focal * max(size), size)
    k_inv = np.linalg.inv(k)
    (a0, a1), (b0, b1) = top, bottom
    along = np.cross(np.cross([*a0, 1.0], [*a1, 1.0]), np.cross([*b0, 1.0], [*b1, 1.0]))
    square = k_inv.T @ k_inv @ along  # the vanishing points square to ``along``
    direction = (a1 - a0) / np.linalg.norm(a1 - a0)
    inward = np.array([-direction[1], direction[0]])
    # The board lies to the right of its top edge run from its top-left corner (y down).
    first_is_left = bool(inward @ (b0 - a0) > 0)
    if not first_is_left:
        inward = -inward
    p0, p1 = base
    outlines = []
    for turn in SIDE_TURNS:
        c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        d0 = np.array([c * inward[0] - s * inward[1], s * inward[0] + c * inward[1]])
        vanishing = np.cross(square, np.cross([*p0, 1.0], [*(p0 + d0), 1.0]))
        if abs(vanishing[2]) < 1e-9 * np.linalg.norm(vanishing):
            d1 = vanishing[:2]  # the sides are parallel on the photo
        else:
            d1 = vanishing[:2] / vanishing[2] - p1
        d1 = d1 / max(float(np.linalg.norm(d1)), 1e-9)
        if d1 @ inward < 0:
            d1 = -d1
        depth = (spec.height / spec.width,)
        for outline in completed_outlines(base, (d0, d1), depth, focal * max(size), size):
            if outline is not None:
                outlines.append(outline if first_is_left else outline[[1, 0, 3, 2]])
    return outlines
