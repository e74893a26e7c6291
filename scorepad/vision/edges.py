"""A photo's long straight edges and the board outlines they make: four edges, or three
edges completed by the camera model (for boards whose fourth edge is hidden or merged).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from scorepad.vision.camera import intrinsics
from scorepad.vision.outlines import intersect
from scorepad.vision.sheet import order_corners

FloatArray = np.ndarray

Line = tuple[FloatArray, FloatArray, float]  # a point, a unit direction, the length seen


#: The straight segments of a photo, joined into lines (:func:`edge_lines`): the lines, longest
#: first, the size of the copy they were found on and its scale.
EdgeLines = tuple[list["_EdgeLine"], tuple[int, int], float]


def edge_lines(photo: FloatArray, side: int = 640) -> EdgeLines:
    """Hough segments of the Canny edges of a copy ``side`` px long, segments on one line
    joined (within 3 degrees and 4 px), longest first (what :func:`straight_edges` selects
    from; found once per photo, as the retries select twice)."""
    h, w = photo.shape[:2]
    scale = side / max(h, w)
    small = cv2.resize(photo, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), (3, 3), 0)
    edges = cv2.Canny(grey, 40, 100)
    segments = cv2.HoughLinesP(edges, 1, np.pi / 360, 40, minLineLength=0.06 * side, maxLineGap=6)
    groups: list[_EdgeLine] = []
    for x1, y1, x2, y2 in [] if segments is None else segments.reshape(-1, 4).astype(float):
        _join_segment(groups, np.array([x1, y1]), np.array([x2, y2]))
    groups.sort(key=lambda g: -g.length)
    return groups, (small.shape[1], small.shape[0]), scale


def straight_edges(
    photo: FloatArray,
    side: int = 640,
    keep: int = 12,
    spanning: bool = True,
    found: EdgeLines | None = None,
) -> list[Line]:
    """The photo's longest straight edges (on a copy ``side`` px long, in its pixels),
    longest first: Hough segments of the Canny edges, segments on one line joined (within
    3 degrees and 4 px), each line refitted to its segments' ends. Without ``spanning``,
    lines seen from one side of the photo to the other are left out: the whole board is
    in the photo, so its edges end inside it, while a patterned table's lines (gingham)
    cross it and, being longer, would crowd the board's edges out. ``found``: the joined
    segments (:func:`edge_lines`), if already found."""
    groups, (sw, sh), scale = edge_lines(photo, side) if found is None else found
    if not spanning:
        groups = [g for g in groups if not _spans(np.array(g.ends), sw, sh)]
    lines: list[Line] = []
    for g in groups[:keep]:
        ends = np.array(g.ends)
        centre = ends.mean(axis=0)
        _, _, vt = np.linalg.svd(ends - centre)
        lines.append((centre / scale, vt[0], g.length / scale))
    return lines


def _spans(ends: FloatArray, w: int, h: int) -> bool:
    """Whether points reach two opposite sides of a w x h picture (within 2 %)."""
    (x0, y0), (x1, y1) = ends.min(axis=0), ends.max(axis=0)
    return bool((x0 <= 0.02 * w and x1 >= 0.98 * w) or (y0 <= 0.02 * h and y1 >= 0.98 * h))


@dataclass
class _EdgeLine:
    """Segments found on one straight line: its direction (radians, modulo pi), unit normal
    and offset along it, their total length and their end points."""

    angle: float
    normal: FloatArray
    offset: float
    length: float
    ends: list[FloatArray]


def _join_segment(groups: list[_EdgeLine], a: FloatArray, b: FloatArray) -> None:
    """Add segment a-b to the group of the line it lies on (3 degrees, 4 px), or a new one."""
    d = b - a
    length = float(np.linalg.norm(d))
    d = d / max(length, 1e-6)
    normal = np.array([-d[1], d[0]])
    angle = math.atan2(d[1], d[0]) % math.pi
    for g in groups:
        turn = abs(angle - g.angle)
        if (
            min(turn, math.pi - turn) < math.radians(3)
            and abs(float(g.normal @ a) - g.offset) < 4
            and abs(float(g.normal @ b) - g.offset) < 4
        ):
            g.length += length
            g.ends += [a, b]
            return
    groups.append(_EdgeLine(angle, normal, float(normal @ a), length, [a, b]))


def _angle(d: FloatArray, e: FloatArray) -> float:
    """Degrees between two undirected unit directions."""
    return math.degrees(math.acos(min(1.0, abs(float(d @ e)))))


def edge_outlines(photo: FloatArray, lines: list[Line] | None = None) -> list[FloatArray]:
    """Quadrilaterals whose four sides lie on four of the photo's long straight edges
    (:func:`straight_edges`): two nearly parallel pairs (within 30 degrees: perspective)
    crossing at 45 degrees or more, corners in the photo, convex, 3 % of the frame or more.
    A board whose light print is cut by stacks leaning over its edge, or merges with light
    things beside it, still shows most of its straight edges against the table. ``lines``:
    the straight edges, if already found."""
    if lines is None:
        lines = straight_edges(photo)
    h, w = photo.shape[:2]
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(lines)), 2)
        if _angle(lines[i][1], lines[j][1]) < 30
    ]
    quads = []
    for (a, b), (c, d) in itertools.combinations(pairs, 2):
        if len({a, b, c, d}) < 4 or _angle(lines[a][1], lines[c][1]) < 45:
            continue
        corners = [
            intersect(lines[x][:2], lines[y][:2]) for x, y in ((a, c), (c, b), (b, d), (d, a))
        ]  # type: ignore[arg-type]
        if any(p is None for p in corners):
            continue
        q = np.array(corners, float)
        inside = (q >= -6).all() and (q[:, 0] <= w + 6).all() and (q[:, 1] <= h + 6).all()
        if not inside or not cv2.isContourConvex(q.astype(np.float32)):
            continue
        if cv2.contourArea(q.astype(np.float32)) >= 0.03 * h * w:
            quads.append(order_corners(q))
    return quads


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """The cross product of two 3-vectors (``np.cross`` costs about twenty times as much)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def completed_outlines(
    base: tuple[FloatArray, FloatArray],
    sides: tuple[FloatArray, FloatArray],
    depths: tuple[float, ...],
    focal: float,
    size: tuple[int, int],
) -> list[FloatArray | None]:
    """For each depth, the rectangle that many times as deep as its ``base`` edge is long,
    seen on the photo from its base (its two corners, pixels) along its two sides (unit
    directions from each base corner into the rectangle, pixels), through a camera of
    ``focal`` (principal point at the centre): corners base first, then along the second
    side and back along the first; None when it leaves the photo, lies behind the lens,
    or is not a convex quadrilateral of 3 % of the photo or more.

    Three edges and the proportions fix the fourth: the sides' meeting point is the
    vanishing point of the rectangle's depth; the base's direction on the board is the
    one square to it (both through the lens: ``K^-1``), so the board plane is known up to
    its distance, which the proportions do not need."""
    k = intrinsics(focal, size)
    cx, cy = size[0] / 2, size[1] / 2
    k_inv = np.array([[1 / focal, 0, -cx / focal], [0, 1 / focal, -cy / focal], [0, 0, 1.0]])
    (p0, p1), (d0, d1) = base, sides
    h0, h1 = np.append(p0, 1.0), np.append(p1, 1.0)
    vanishing = _cross(_cross(h0, np.append(p0 + d0, 1.0)), _cross(h1, np.append(p1 + d1, 1.0)))
    across = k_inv @ vanishing  # the depth direction, in camera coordinates
    along = _cross(k.T @ _cross(h0, h1), across)  # the base direction, square to it
    normal = _cross(along, across)
    x0, r1 = k_inv @ h0, k_inv @ h1
    if abs(float(normal @ r1)) < 1e-12 or np.linalg.norm(across) < 1e-12:
        return [None] * len(depths)
    x1 = r1 * float(normal @ x0) / float(normal @ r1)
    if x1[2] <= 0:
        return [None] * len(depths)
    unit = across / np.linalg.norm(across)
    # Into the rectangle: a small step from the first corner along ``unit`` must move
    # along the first side on the photo.
    step = k @ (x0 + 1e-3 * unit)
    if float((step[:2] / step[2] - p0) @ d0) < 0:
        unit = -unit
    width = float(np.linalg.norm(x1 - x0))
    return [_far_side(p0, p1, x0, x1, depth * width * unit, k, size) for depth in depths]


def _far_side(
    p0: FloatArray,
    p1: FloatArray,
    x0: FloatArray,
    x1: FloatArray,
    reach: FloatArray,
    k: FloatArray,
    size: tuple[int, int],
) -> FloatArray | None:
    """The outline base ``p0``-``p1`` (the camera points ``x0``, ``x1``) and the base moved
    by ``reach`` (camera coordinates), when it is in the photo and can be a board."""
    far = np.array([x1 + reach, x0 + reach]) @ k.T
    if (far[:, 2] <= 0).any():
        return None
    quad = np.array([p0, p1, *(far[:, :2] / far[:, 2:3])])
    slack = 0.02 * max(size)
    if (quad < -slack).any() or (quad[:, 0] > size[0] + slack).any():
        return None
    if (quad[:, 1] > size[1] + slack).any():
        return None
    # As for the straight edges' outlines: a board is convex and not tiny (a sliver of a
    # badly placed outline can pass for a tilted board through the focal length it implies).
    contour = quad.astype(np.float32)
    if not cv2.isContourConvex(contour) or cv2.contourArea(contour) < 0.03 * size[0] * size[1]:
        return None
    return quad


#: A base edge and the unit directions of the two sides leaving its corners.
Frame = tuple[tuple[FloatArray, FloatArray], tuple[FloatArray, FloatArray]]


def _unit(v: FloatArray) -> FloatArray:
    return np.asarray(v / max(float(np.linalg.norm(v)), 1e-9), float)


def outline_frames(quads: list[FloatArray]) -> list[Frame]:
    """Every outline without one of its edges: the opposite edge as base, its neighbours as
    sides (a light region that stacks or the title band cut short has three true edges)."""
    frames: list[Frame] = []
    for q in quads:
        for k in range(4):
            p0, p1 = q[(k + 2) % 4], q[(k + 3) % 4]
            sides = (_unit(q[(k + 1) % 4] - p0), _unit(q[k] - p1))
            frames.append(((p0, p1), sides))
    return frames


def line_frames(lines: list[Line], size: tuple[int, int]) -> list[Frame]:
    """Three of the photo's straight edges that can be three edges of the board: two nearly
    parallel sides (within 30 degrees) and a base crossing both at 45 degrees or more,
    between them a tenth of the photo or more, the base seen over half that span and
    centred near it, both sides seen on the same side of the base (that of the board)."""
    frames: list[Frame] = []
    for (a, b), c in itertools.product(
        itertools.combinations(range(len(lines)), 2), range(len(lines))
    ):
        (ca, da, _), (cb, db, _), (cc, dc, seen) = lines[a], lines[b], lines[c]
        if c in (a, b) or _angle(da, db) >= 30 or min(_angle(da, dc), _angle(db, dc)) < 45:
            continue
        p0, p1 = intersect((ca, da), (cc, dc)), intersect((cb, db), (cc, dc))
        if p0 is None or p1 is None:
            continue
        span = float(np.linalg.norm(p1 - p0))
        if span < 0.1 * max(size) or seen < 0.5 * span:
            continue
        if not -0.25 <= float((cc - p0) @ (p1 - p0)) / span**2 <= 1.25:
            continue
        normal = np.array([-dc[1], dc[0]])
        side_a, side_b = float((ca - p0) @ normal), float((cb - p1) @ normal)
        if side_a * side_b <= 0:
            continue
        inward = normal if side_a > 0 else -normal
        sides = (da if da @ inward > 0 else -da, db if db @ inward > 0 else -db)
        frames.append(((p0, p1), sides))
    return frames
