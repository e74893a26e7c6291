"""Photos of printed game boards with pieces on them (Harmonies, Spring Meadow): the pinhole
camera both the synthetic renderers and the recognisers use, finding a board's outline,
and recovering the camera's pose from it.

World coordinates are millimetres in the board's printed frame: ``x`` to the right, ``y``
down the print (towards the bottom edge), ``z`` *into* the board, so a point at height ``h``
above the board has ``z = -h``. This is the OpenCV camera convention, so a camera looking
straight down at an upright board has the identity rotation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from scorepad.vision.decode import PhotoError
from scorepad.vision.sheet import candidate_outlines, order_corners

FloatArray = np.ndarray


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: intrinsics ``K``, world-to-camera rotation ``R``, centre ``C``."""

    K: FloatArray
    R: FloatArray
    centre: FloatArray
    size: tuple[int, int]  # image width, height in pixels

    @classmethod
    def look_at(
        cls,
        eye: FloatArray,
        target: FloatArray,
        focal: float,
        size: tuple[int, int],
        roll: float = 0.0,
    ) -> Camera:
        """A camera at ``eye`` looking at ``target``, turned by ``roll`` (radians) about its
        optical axis; principal point at the image centre, square pixels."""
        forward = np.asarray(target, float) - np.asarray(eye, float)
        forward /= np.linalg.norm(forward)
        helper = np.array([0.0, -1.0, 0.0]) if abs(forward[1]) < 0.9 else np.array([1.0, 0, 0])
        right = np.cross(helper, forward)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        c, s = math.cos(roll), math.sin(roll)
        right, down = c * right + s * down, -s * right + c * down
        R = np.stack([right, down, forward])
        K = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])
        return cls(K, R, np.asarray(eye, float), size)

    def project(self, points: FloatArray) -> FloatArray:
        """Image pixels of world points (N x 3)."""
        cam = (np.asarray(points, float) - self.centre) @ self.R.T
        uvw = cam @ self.K.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3], float)

    def plane(self, height: float = 0.0) -> FloatArray:
        """Homography from board millimetres ``(x, y, 1)`` at ``height`` to image pixels."""
        t = -self.R @ self.centre
        r1, r2, r3 = self.R[:, 0], self.R[:, 1], self.R[:, 2]
        return np.asarray(self.K @ np.column_stack([r1, r2, -height * r3 + t]), float)

    @property
    def height(self) -> float:
        """Height of the lens above the board plane (mm)."""
        return float(-self.centre[2])

    @property
    def nadir(self) -> FloatArray:
        """The board point straight below the lens (mm)."""
        return self.centre[:2].copy()

    @property
    def tilt(self) -> float:
        """Angle between the optical axis and the board's normal (degrees)."""
        return math.degrees(math.acos(min(1.0, abs(float(self.R[2, 2])))))


def apply(h: FloatArray, points: FloatArray) -> FloatArray:
    """A homography applied to N x 2 points."""
    p = np.asarray(points, float).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ np.asarray(h).T
    return np.asarray(q[:, :2] / q[:, 2:3], float)


# --- the camera from a board's outline -----------------------------------------------------


def default_focal(size: tuple[int, int]) -> float:
    """A phone's main camera: about 26 mm equivalent, i.e. 0.75 of the long side."""
    return 0.75 * max(size)


def estimate_focal(h: FloatArray, size: tuple[int, int], aspect_known: bool) -> float | None:
    """The focal length (pixels) implied by a plane's homography, principal point at the
    image centre (Zhang's constraints: the plane's axes are orthogonal, and of equal length
    when ``aspect_known``). None when the view is too close to frontal to tell."""
    shift = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1.0]])
    m = shift @ h
    m = m / np.linalg.norm(m[:, :2])
    a1, b1, c1 = m[:, 0]
    a2, b2, c2 = m[:, 1]
    # Each constraint reads A * w + B = 0 with w = 1 / f^2.
    rows = [(a1 * a2 + b1 * b2, c1 * c2)]
    if aspect_known:
        rows.append((a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2, c1 * c1 - c2 * c2))
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    scale = max(size)
    # In units of the long side the perspective terms are small: demand a clear signal.
    if float(np.abs(b).max()) * scale**2 < 0.02:
        return None
    w = -float(a @ b) / float(a @ a)
    if w <= 0:
        return None
    f = 1 / math.sqrt(w)
    if not 0.4 * scale < f < 2.5 * scale:
        return None
    return f


def pose(h: FloatArray, K: FloatArray, size: tuple[int, int]) -> Camera:
    """The camera whose board plane (z = 0) maps to the image by ``h`` (board mm → px)."""
    m = np.linalg.inv(K) @ h
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:
        scale = -scale  # the board lies in front of the lens
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    r3 = np.cross(r1, r2)
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
    R = u @ vt
    if np.linalg.det(R) < 0:
        R = u @ np.diag([1, 1, -1]) @ vt
    centre = -R.T @ t
    return Camera(K.copy(), R, centre, size)


def intrinsics(focal: float, size: tuple[int, int]) -> FloatArray:
    return np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])


def aspect_of(quad: FloatArray, focal: float, size: tuple[int, int]) -> float:
    """Width / height (first edge over second) of the rectangle whose corners the photo
    shows as ``quad`` (clockwise, the first edge first), seen through a camera of ``focal``."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    m = np.linalg.inv(intrinsics(focal, size)) @ h
    return float(np.linalg.norm(m[:, 0]) / np.linalg.norm(m[:, 1]))


# --- finding the board --------------------------------------------------------------------


def board_outlines(
    photo: FloatArray,
    limit: int = 16,
    sheet_finder: bool = True,
    regions: list[FloatArray] | None = None,
) -> list[FloatArray]:
    """Rough quadrilaterals (photo pixels, clockwise on screen) that may be the board, most
    likely first; :func:`refine_outline` sharpens the one that proves to be the board.

    The board is a large light printed rectangle. Two sources: light regions with their
    holes filled (the pieces standing on the board and its printed title band are holes in
    the light print), and (``sheet_finder``) the outline search of the Sunflower Valley
    sheet finder (``sheet.candidate_outlines``; six of its outlines, as its first few may
    all be smooth regions inside the board). ``regions``: the light regions, if already
    found."""
    quads = list(light_regions(photo) if regions is None else regions)
    if sheet_finder:
        quads += [order_corners(q) for q in candidate_outlines(photo, 6, repair=False)]
    unique: list[FloatArray] = []
    for q in quads:
        if all(np.abs(q - u).max() > 0.01 * max(photo.shape) for u in unique):
            unique.append(q)
    return unique[:limit]


def light_regions(photo: FloatArray, side: int = 800) -> list[FloatArray]:
    """Outlines of large light, weakly coloured, smooth regions, best first: cut by global
    thresholds, and *flat zones* (pixels joined to their neighbours where the colour hardly
    changes: a busy or mottled table breaks into many, the board's margin is one, or a few
    of one colour when the title band or stacks leaning over the edge cut it)."""
    h, w = photo.shape[:2]
    scale = side / max(h, w)
    small = cv2.resize(photo, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32)
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    whiteness = lab[..., 0] - 1.5 * chroma
    sh, sw = whiteness.shape
    regions: list[tuple[int, int, np.ndarray]] = []  # (x0, y0, mask cropped to its box)

    def crop(labels: np.ndarray, ks: list[int], stats: np.ndarray) -> tuple[int, int, np.ndarray]:
        x0 = int(min(stats[k, 0] for k in ks))
        y0 = int(min(stats[k, 1] for k in ks))
        x1 = int(max(stats[k, 0] + stats[k, 2] for k in ks))
        y1 = int(max(stats[k, 1] + stats[k, 3] for k in ks))
        part = labels[y0:y1, x0:x1]
        mask = np.isin(part, ks) if len(ks) > 1 else part == ks[0]
        return x0, y0, mask.astype(np.uint8)

    def inside_frame(stats: np.ndarray, k: int) -> bool:
        x, y, cw, ch = stats[k, :4]
        return bool(x > 0 and y > 0 and x + cw < sw and y + ch < sh)

    for level in np.percentile(whiteness, (55, 70, 85)):
        raw = (whiteness > level).astype(np.uint8)
        mask = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
        _count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for k in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:3] + 1:
            if stats[k, cv2.CC_STAT_AREA] < 0.02 * sh * sw:
                break
            if inside_frame(stats, int(k)):
                regions.append(crop(labels, [int(k)], stats))
    # The largest colour step to a neighbour (whole numbers: computed on the 8-bit copy).
    dx = cv2.absdiff(small[:, 1:], small[:, :-1]).max(axis=2)
    dy = cv2.absdiff(small[1:], small[:-1]).max(axis=2)
    step = np.zeros((sh, sw), np.uint8)
    step[:, :-1] = np.maximum(step[:, :-1], dx)
    step[:, 1:] = np.maximum(step[:, 1:], dx)
    step[:-1] = np.maximum(step[:-1], dy)
    step[1:] = np.maximum(step[1:], dy)
    channels = [lab[..., c].ravel().astype(np.float64) for c in range(3)]
    for limit in (2.5, 4.0, 6.0, 9.0):
        zones = (step < limit).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(zones, connectivity=4)
        keep = [
            int(k)
            for k in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:40] + 1
            if stats[k, cv2.CC_STAT_AREA] >= 0.002 * sh * sw and inside_frame(stats, int(k))
        ]
        flat_labels = labels.ravel().astype(np.intp)  # what bincount counts with
        sums = np.stack([np.bincount(flat_labels, c, minlength=count) for c in channels], 1)
        sizes = np.maximum(np.bincount(flat_labels, minlength=count), 1)[:, None]
        means = sums / sizes
        for k in keep[:12]:
            regions.append(crop(labels, [k], stats))
            # A margin cut in pieces is several zones of one colour: join the nearby ones.
            x, y, cw, ch = stats[k, :4]
            reach = 0.6 * max(cw, ch)
            group = [
                j
                for j in keep
                if np.linalg.norm(means[j] - means[k]) < 8
                and abs((stats[j, 0] + stats[j, 2] / 2) - (x + cw / 2)) < reach + stats[j, 2] / 2
                and abs((stats[j, 1] + stats[j, 3] / 2) - (y + ch / 2)) < reach + stats[j, 3] / 2
            ]
            if len(group) > 1:
                regions.append(crop(labels, group, stats))
    found: list[tuple[float, FloatArray]] = []
    for x0, y0, region in regions:
        hull = _region_hull(region)
        if hull is None:
            continue
        quad = _quadrilateral(hull)
        area = cv2.contourArea(quad.astype(np.float32))
        if area < 0.02 * sh * sw:
            continue
        # A board is a light rim all round (its margin) around whatever stands inside.
        inside = np.zeros_like(region)
        cv2.fillPoly(inside, [np.round(quad).astype(np.int32)], 1)
        rim = inside.copy()
        centre = quad.mean(axis=0)
        cv2.fillPoly(rim, [np.round(centre + (quad - centre) * 0.94).astype(np.int32)], 0)
        rim_cover = cv2.countNonZero(region & rim) / max(cv2.countNonZero(rim), 1.0)
        outside = cv2.countNonZero(region & (1 - inside)) / max(cv2.countNonZero(region), 1.0)
        if rim_cover < 0.5 or outside > 0.05:
            continue
        found.append((area * rim_cover, (quad + np.array([x0, y0])) / scale))
    found.sort(key=lambda t: -t[0])
    return [order_corners(q) for _, q in found]


def _fill_holes(region: np.ndarray) -> np.ndarray:
    """The region with everything it encloses."""
    padded = np.pad(region, 1)
    flood = padded.copy()
    mask = np.zeros((padded.shape[0] + 2, padded.shape[1] + 2), np.uint8)
    cv2.floodFill(flood, mask, (0, 0), 1)
    holes = (flood == 0)[1:-1, 1:-1]
    return np.asarray(region | holes, np.uint8)


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
            _intersect(lines[x][:2], lines[y][:2]) for x, y in ((a, c), (c, b), (b, d), (d, a))
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
        p0, p1 = _intersect((ca, da), (cc, dc)), _intersect((cb, db), (cc, dc))
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


def _region_hull(region: np.ndarray) -> np.ndarray | None:
    """The convex hull of a region's pixels, from its outer boundary only (the same
    vertices, far fewer points), starting where ``cv2.convexHull`` of all its pixels starts
    (the rightmost vertex, the lowest of those): ``approxPolyDP`` depends on the start."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(np.concatenate(contours))
    x, y = hull[:, 0, 0].astype(np.int64), hull[:, 0, 1].astype(np.int64)
    return np.roll(hull, -int(np.argmax(x * (1 << 32) + y)), axis=0)


def _quadrilateral(hull: np.ndarray) -> FloatArray:
    """Four corners approximating a convex hull (the least simplification that gives four,
    else the smallest rotated rectangle around it)."""
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)


#: Corners this many photo sizes away (or more) are not refined (:func:`refine_outline`).
FAR_OUTSIDE = 3


def refine_outline(
    photo: FloatArray, quad: FloatArray, lab: FloatArray | None = None, light: float = 40
) -> FloatArray:
    """Sharpen each edge of a rough outline to a fraction of a pixel.

    Along short profiles across each edge: the outermost point that still has the board's
    own light colour (its margin, measured just inside the rough outline: the median of
    the lightest ``100 - light`` percent there), then where the colour crosses halfway to
    what lies beyond. A robust line through those points ignores the profiles that pieces
    standing near the edge hide."""
    if np.abs(quad).max() > FAR_OUTSIDE * max(photo.shape[:2]):
        # Not a board (a whole board is in the photo): an outline grown through a
        # degenerate perspective; its edges would be too long to sample.
        return quad
    if lab is None:
        lab = cv2.cvtColor(photo, cv2.COLOR_RGB2LAB).astype(np.float32)
    centre = quad.mean(axis=0)
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, lab.shape[1]), min(y + h, lab.shape[0])
    if x1 <= x0 or y1 <= y0:
        return quad  # wholly off the photo (left half of TRAIN Spring Meadow photo 5200)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    offset = np.array([x0, y0])
    cv2.fillPoly(mask, [np.round(quad - offset).astype(np.int32)], 1)
    cv2.fillPoly(mask, [np.round(centre + (quad - centre) * 0.9 - offset).astype(np.int32)], 0)
    # Every seventh pixel of the ring, row by row (without copying the whole box;
    # cv2.findNonZero lists them in that order at a fifth of np.flatnonzero's cost).
    ring_at = cv2.findNonZero(mask)
    if ring_at is None:
        return quad
    cols, rows = ring_at.reshape(-1, 2)[::7].T
    ring = lab[rows + y0, cols + x0]
    if len(ring) < 20:
        return quad
    lightest = ring[ring[:, 0] > np.percentile(ring[:, 0], light)]
    reference = np.median(lightest, axis=0) if len(lightest) else np.median(ring, axis=0)
    lines = [_fit_edge(lab, quad[i], quad[(i + 1) % 4], centre, reference) for i in range(4)]
    corners = []
    for i in range(4):
        p = _intersect(lines[i - 1], lines[i])
        corners.append(p if p is not None else quad[i])
    out = np.array(corners, float)
    # A refinement that moved a corner far away is wrong: keep the rough outline then.
    span = float(np.linalg.norm(quad[2] - quad[0]))
    if np.abs(out - quad).max() > 0.05 * span:
        return quad
    return out


def _fit_edge(
    lab: FloatArray,
    a: FloatArray,
    b: FloatArray,
    centre: FloatArray,
    reference: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """(point, direction) of the board edge near segment a-b."""
    direction = (b - a) / max(np.linalg.norm(b - a), 1e-6)
    normal = np.array([-direction[1], direction[0]])
    if np.dot(normal, (a + b) / 2 - centre) < 0:
        normal = -normal  # pointing out of the board
    length = float(np.linalg.norm(b - a))
    reach = max(10.0, 0.04 * length)
    steps = np.arange(-reach, reach + 0.25, 0.5)
    fractions = np.linspace(0.04, 0.96, 64)
    bases = a + (b - a) * fractions[:, None]
    pts = bases[:, None, :] + normal * steps[None, :, None]
    prof = cv2.remap(
        lab,
        pts[..., 0].astype(np.float32),
        pts[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    diff = colour_distance(prof, reference)
    diff = (diff + np.roll(diff, 1, axis=0) + np.roll(diff, -1, axis=0)) / 3
    rows, cols = diff.shape
    board = diff < 14
    # The last run of board colour (4 samples, 2 px) before something else.
    run = board[:, 3:] & board[:, 2:-1] & board[:, 1:-2] & board[:, :-3]
    has = run.any(axis=1)
    last = cols - 1 - np.argmax(run[:, ::-1], axis=1)  # index of the run's last sample
    ok = has & (last >= 4) & (last < cols - 6)
    idx = np.clip(last, 0, cols - 6)
    ahead = np.stack([diff[np.arange(rows), idx + d] for d in range(1, 6)], axis=1)
    beyond = np.median(ahead, axis=1)
    ok &= beyond >= 25
    here = diff[np.arange(rows), idx]
    half = (here + beyond) / 2
    # First sample after the run at or above half-way: the edge lies just before it.
    after = np.arange(cols)[None, :] > idx[:, None]
    above = (diff >= half[:, None]) & after
    j1 = np.argmax(above, axis=1)
    ok &= above.any(axis=1)
    j0 = np.maximum(j1 - 1, 0)
    d0 = diff[np.arange(rows), j0]
    d1 = diff[np.arange(rows), j1]
    frac = np.clip((half - d0) / np.maximum(d1 - d0, 1e-6), 0, 1)
    offset = steps[j0] + 0.5 * frac
    points = bases + normal * offset[:, None]
    points = points[ok]
    if len(points) < 8:
        return a, direction
    return _ransac_line(points, direction)


def colour_distance(a: FloatArray, b: FloatArray) -> FloatArray:
    """Euclidean distance between colours (last axis, three channels): the same values as
    ``np.linalg.norm(a - b, axis=-1)`` (the same sums in the same order) at less than half
    its cost, which sums a three-long axis slowly; edge tracing and the circle search take
    it over tens of thousands of samples at a time."""
    d = a - b
    squares = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
    return np.asarray(np.sqrt(squares))


def _ransac_line(pts: FloatArray, fallback: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The line most points lie on (within a pixel), refitted by least squares."""
    n = len(pts)
    # Every pair (i, j) at once, in the order a double loop would visit them.
    pairs = [(i, j) for i in range(0, n, 3) for j in range(i + n // 3, n, 4)]
    best = np.zeros(n, bool)
    if pairs:
        first, second = np.array(pairs).T
        d = pts[second] - pts[first]
        norm = np.linalg.norm(d, axis=1)
        usable = norm >= 1e-6
        first, d, norm = first[usable], d[usable], norm[usable]
        if len(first):
            nrm = np.column_stack([-d[:, 1], d[:, 0]]) / norm[:, None]
            offsets = pts[None, :, :] - pts[first][:, None, :]  # pairs x points x 2
            inliers = np.abs(np.einsum("pnk,pk->pn", offsets, nrm)) < 1.2
            counts = inliers.sum(axis=1)
            k = int(np.argmax(counts))  # the first of the best, as the loop kept it
            if counts[k] > 0:
                best = inliers[k]
    if best.sum() < 6:
        return pts.mean(axis=0), fallback
    p0 = pts[best].mean(axis=0)
    _, _, vt = np.linalg.svd(pts[best] - p0)
    return p0, vt[0]


def _intersect(
    l1: tuple[FloatArray, FloatArray], l2: tuple[FloatArray, FloatArray]
) -> FloatArray | None:
    (p, d), (q, e) = l1, l2
    m = np.array([d, -e]).T
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s, _ = np.linalg.solve(m, q - p)
    return np.asarray(p + s * d, float)


def no_board(game: str) -> PhotoError:
    return PhotoError(
        f"no {game} board found in the photo: photograph the whole board from above, "
        "on a darker table"
    )


# --- small learned models -----------------------------------------------------------------


class Mlp:
    """A small multi-layer perceptron exported from scikit-learn as plain arrays (ReLU
    hidden layers, softmax output), with its input scaling and a calibrated temperature."""

    def __init__(self, arrays: dict[str, np.ndarray], name: str) -> None:
        self.mean = arrays[f"{name}.mean"]
        self.scale = arrays[f"{name}.scale"]
        self.classes = [str(c) for c in arrays[f"{name}.classes"]]
        self.temperature = float(arrays[f"{name}.temperature"])
        layers = int(arrays[f"{name}.layers"])
        self.weights = [arrays[f"{name}.w{i}"] for i in range(layers)]
        self.biases = [arrays[f"{name}.b{i}"] for i in range(layers)]

    def probabilities(self, x: FloatArray) -> FloatArray:
        """Class probabilities for each row of ``x`` (columns in ``self.classes`` order)."""
        a = (np.atleast_2d(x).astype(np.float64) - self.mean) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            a = np.maximum(a @ w + b, 0.0)
        logits = (a @ self.weights[-1] + self.biases[-1]) / self.temperature
        if logits.shape[1] == 1:  # binary: one logistic output
            p = 1 / (1 + np.exp(-logits[:, 0]))
            return np.column_stack([1 - p, p])
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


def export_mlp(
    model: object, scaler: object, name: str, temperature: float
) -> dict[str, np.ndarray]:
    """The arrays :class:`Mlp` reads back, from a fitted ``MLPClassifier`` and
    ``StandardScaler`` (used by the training tools)."""
    coefs = model.coefs_  # type: ignore[attr-defined]
    intercepts = model.intercepts_  # type: ignore[attr-defined]
    out = {
        f"{name}.mean": np.asarray(scaler.mean_),  # type: ignore[attr-defined]
        f"{name}.scale": np.asarray(scaler.scale_),  # type: ignore[attr-defined]
        f"{name}.classes": np.asarray([str(c) for c in model.classes_]),  # type: ignore[attr-defined]
        f"{name}.temperature": np.asarray(temperature),
        f"{name}.layers": np.asarray(len(coefs)),
    }
    for i, (w, b) in enumerate(zip(coefs, intercepts, strict=True)):
        out[f"{name}.w{i}"] = np.asarray(w, np.float32)
        out[f"{name}.b{i}"] = np.asarray(b, np.float32)
    return out


# --- a printed board's fixed frame: margins and title band -------------------------------


@dataclass(frozen=True)
class BoardSpec:
    """What every board of a kind shows whatever lies on it, in millimetres: its size, the
    light margins left, right and below the playing area, and the dark title band across
    the top (``band`` is its top and bottom, measured from the board's top edge)."""

    name: str
    width: float
    height: float
    margin: float
    header: float
    band: tuple[float, float]

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def corners(self) -> FloatArray:
        return np.array([[0, 0], [self.width, 0], [self.width, self.height], [0, self.height]])


VERIFY_PPM = 1.5  # the fixed print is compared at this resolution
ROUGH_PPM = 1.0  # and at this one for rough outlines


_TEMPLATES: dict[tuple[BoardSpec, float], tuple[FloatArray, FloatArray]] = {}


def print_template(spec: BoardSpec, ppm: float = VERIFY_PPM) -> tuple[FloatArray, FloatArray]:
    """The fixed print as a grey template at ``ppm`` (light margins, dark band) and the mask
    of where it applies (not the playing area, not the outermost millimetre)."""
    key = (spec, ppm)
    if key in _TEMPLATES:
        return _TEMPLATES[key]
    w, h = int(spec.width * ppm), int(spec.height * ppm)
    template = np.ones((h, w), np.float32)
    template[int(spec.band[0] * ppm) : int(spec.band[1] * ppm), int(3 * ppm) : w - int(3 * ppm)] = 0
    mask = np.ones((h, w), np.uint8)
    inner = (spec.margin - 2) * ppm
    mask[int((spec.header - 2) * ppm) : h - int(inner), int(inner) : w - int(inner)] = 0
    edge = max(1, int(round(ppm)))
    mask[:edge] = mask[-edge:] = 0
    mask[:, :edge] = mask[:, -edge:] = 0
    _TEMPLATES[key] = (template, mask.astype(bool))
    return _TEMPLATES[key]


def correlation(seen: FloatArray, template: FloatArray) -> float:
    """Normalised correlation of two equally shaped arrays: 1 when one is an exact linear
    brightening of the other, 0 for no likeness."""
    a = np.ravel(seen - seen.mean())
    t = np.ravel(template - template.mean())
    return float(a @ t / max(float(np.linalg.norm(a) * np.linalg.norm(t)), 1e-6))


@dataclass(frozen=True)
class PrintReference:
    """What :func:`print_score` compares every outline with, computed once per side and
    resolution: the print's corners (template pixels), where the print applies, the print
    there centred (as :func:`correlation` centres it) and its norm, and which of those
    pixels are light margin and which dark band."""

    corners: FloatArray
    mask: FloatArray
    centred: FloatArray
    norm: np.floating  # float32, as correlation() multiplies it
    light: FloatArray
    dark: FloatArray


@cache
def print_reference(spec: BoardSpec, ppm: float) -> PrintReference:
    template, mask = print_template(spec, ppm)
    t = template[mask]
    centred = np.ravel(t - t.mean())
    return PrintReference(
        (spec.corners * ppm).astype(np.float32),
        mask,
        centred,
        np.linalg.norm(centred),
        np.flatnonzero(t > 0.5),
        np.flatnonzero(t < 0.5),
    )


def print_score(
    grey: FloatArray, quad: FloatArray, spec: BoardSpec, factor: float, rim: bool = True
) -> float:
    """How well the grey photo inside ``quad`` (top-left first, photo pixels times
    ``factor``) matches the board's fixed print: normalised correlation, 1 for a perfect
    match. With ``rim`` (a refined outline), the thin light rim above the band must be as
    light as the margins too (a dark table next to the board would otherwise pass for the
    band); without, the rim is looked for anywhere near the top edge."""
    ppm = VERIFY_PPM if rim else ROUGH_PPM
    ref = print_reference(spec, ppm)
    h, w = ref.mask.shape
    m = cv2.getPerspectiveTransform(ref.corners, (quad * factor).astype(np.float32))
    flags = cv2.WARP_INVERSE_MAP | (cv2.INTER_AREA if rim else cv2.INTER_LINEAR)
    full = np.asarray(cv2.warpPerspective(grey, m, (w, h), flags=flags), np.float32)
    values = full[ref.mask]
    seen = np.ravel(values - values.mean())
    ncc = float(seen @ ref.centred / max(float(np.linalg.norm(seen) * ref.norm), 1e-6))
    if rim:
        strip = full[int(1.0 * ppm) : int(2.4 * ppm), int(6 * ppm) : w - int(6 * ppm)]
        level = float(np.median(strip))
        light = float(np.median(values[ref.light]))
        dark = float(np.median(values[ref.dark]))
    else:
        strip = full[0 : int(3.0 * ppm) + 1, int(6 * ppm) : w - int(6 * ppm)]
        level = float(strip.max(axis=0).mean())
        light = float(values[ref.light].mean())
        dark = float(values[ref.dark].mean())
    shortfall = (light - level) / max(light - dark, 10.0)
    return ncc - max(0.0, shortfall - 0.25)


def aspect_error(quad: FloatArray, spec: BoardSpec, size: tuple[int, int]) -> float:
    """How far the rectangle the photo shows as ``quad`` is from the board's proportions
    (absolute log ratio), through the focal length the outline implies."""
    return abs(math.log(seen_aspect(quad, size) / spec.aspect))


def seen_aspect(quad: FloatArray, size: tuple[int, int]) -> float:
    """Width over height of the rectangle seen as ``quad`` (first edge over second)."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    focal = estimate_focal(h, size, aspect_known=False) or default_focal(size)
    return aspect_of(quad, focal, size)


def print_fit(grey: FloatArray, quad: FloatArray, spec: BoardSpec, size: tuple[int, int]) -> float:
    """How well a refined outline (photo pixels) fits the board: :func:`print_score`, rim
    included, less the proportions' error. Boards found where they lie score 0.82 or more."""
    return print_score(grey, quad, spec, 1.0) - aspect_error(quad, spec, size)


#: Largest |log| ratio between an outline's seen proportions and a side's to try that side.
ASPECT_SLACK = 0.3


def turned_fits(
    quad: FloatArray, size: tuple[int, int], specs: list[BoardSpec]
) -> Iterator[tuple[FloatArray, BoardSpec, float]]:
    """Each quarter turn of ``quad`` (its first corner the board's top left) with each side
    whose proportions it could show, and the proportions' error (absolute log ratio)."""
    aspect = seen_aspect(quad, size)  # turning by a quarter inverts it
    for turn in range(4):
        q = np.roll(quad, -turn, axis=0)
        seen = aspect if turn % 2 == 0 else 1 / aspect
        for spec in specs:
            error = abs(math.log(seen / spec.aspect))
            if error <= ASPECT_SLACK:
                yield q, spec, error


def band_grows(specs: list[BoardSpec]) -> tuple[float, ...]:
    """How far past an edge, as a fraction of the outline's depth, a light-region outline
    that stopped at the title band falls short of the board (the band's depth)."""
    return tuple(sorted({round(s.band[1] / (s.height - s.band[1]), 3) for s in specs}))


def rim_grows(specs: list[BoardSpec]) -> tuple[float, ...]:
    """How far past an edge, as a fraction of the outline's depth, an outline on the edge
    between the light rim and the title band falls short of the board (the rim's depth):
    one fraction for all ``specs``, their mean (the refinement takes up the difference,
    a pixel or two; each fraction is four more outlines to compare)."""
    return (round(float(np.mean([s.band[0] / (s.height - s.band[0]) for s in specs])), 4),)


def grown_variants(quad: FloatArray, grows: tuple[float, ...]) -> list[FloatArray]:
    """The outline, and the outline grown past each edge by each fraction of its depth (the
    light-region search often stops at a dark title band)."""
    out = [quad]
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    normals = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    for grow in grows:
        for edge in range(4):
            pts = unit.astype(np.float64).copy()
            for c in (edge, (edge + 1) % 4):  # edge i runs from corner i to corner i + 1
                pts[c] += np.array(normals[edge]) * grow
            out.append(apply(m, pts))
    return out


def _same_outline(a: FloatArray, b: FloatArray, tolerance: float) -> bool:
    return any(np.abs(np.roll(a, k, axis=0) - b).max() < tolerance for k in range(4))


#: A board whose print fits worse than this (:func:`print_fit`) is traced again
#: (:func:`find_board`); on synthetic photos of boards found where they lie it stays above
#: 0.82, on outlines that missed an edge by a few millimetres below 0.72.
RETRY_BELOW = 0.8
RETRY_LIGHT = 60.0
RETRY_OUTLINES = 8
#: For boards whose pieces stand up and lean over the margins (Harmonies stacks), a fit
#: between this and ``RETRY_BELOW`` is a board found where it lies, or nearly (it is only
#: moved back onto the board, :func:`polish_outline`), and skips the costly retries
#: (:func:`_deep_retries`): on 24 such synthetic Harmonies VALIDATION photos they changed
#: no answer and cost 1-1.5 s each. Flat pieces (Spring Meadow tiles) hide no margin, so
#: there any fit below ``RETRY_BELOW`` runs them.
HIDDEN_MARGINS_RETRY_BELOW = 0.72
#: A fit still below this after the costly retries is a board about to be refused (below
#: 0.5) or found far off: outlines completed from three edges are tried last
#: (:func:`_completed`, about 1 s of CPU). On 600 synthetic Harmonies VALIDATION photos
#: every board found (side right) fitted 0.67 or more.
COMPLETE_BELOW = 0.6


@dataclass
class Found:
    """A board found in a photo: which kind, its corners (top-left first, clockwise, photo
    pixels), the camera that sees it, and how well its print matched; ``confirmed`` when
    it fitted the print too poorly to be taken on the print alone and the game's own look
    took it (``find_board``'s ``confirm``): its reading deserves a check all over."""

    spec: BoardSpec
    corners: FloatArray
    camera: Camera
    focal_measured: bool
    score: float
    confirmed: bool = False


def polish_outline(
    grey: FloatArray,
    quad: FloatArray,
    spec: BoardSpec,
    size: tuple[int, int],
    steps: tuple[float, ...] = (48, 24, 12, 6, 3),
    budget: int = 600,
) -> FloatArray:
    """The outline moved, an edge (along its normal) or a corner coordinate at a time, while
    the print fits better (:func:`print_fit`), with ever smaller steps (pixels): an outline
    10-15 mm off that the edge tracing cannot bring back (it looks only a few percent of an
    edge's length either side) climbs back onto the board. At most ``budget`` comparisons."""

    q = quad.astype(float).copy()
    best = print_fit(grey, q, spec, size)
    centre = q.mean(axis=0)
    count = 0
    for step in steps:
        improved = True
        while improved and count < budget:
            improved = False
            moves = []
            for e in range(4):
                a, b = q[e], q[(e + 1) % 4]
                d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
                normal = np.array([-d[1], d[0]])
                if np.dot(normal, (a + b) / 2 - centre) < 0:
                    normal = -normal
                for sign in (1, -1):
                    t = q.copy()
                    t[e] += sign * step * normal
                    t[(e + 1) % 4] += sign * step * normal
                    moves.append(t)
            for k in range(8):
                for sign in (1, -1):
                    t = q.copy()
                    t.flat[k] += sign * step
                    moves.append(t)
            for t in moves:
                v = print_fit(grey, t, spec, size)
                count += 1
                if v > best + 1e-4:
                    best, q, improved = v, t, True
                    break
    return q


Fit = tuple[float, BoardSpec, FloatArray]


def _refined_in_every_turn(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    quad: FloatArray,
    specs: list[BoardSpec],
    best: Fit | None,
) -> Fit | None:
    """The better of ``best`` and ``quad`` refined, compared with the print in every turn
    and side its proportions allow (:func:`print_fit`)."""
    size = (photo.shape[1], photo.shape[0])
    fine = refine_outline(photo, quad, lab)
    for q, spec, error in turned_fits(fine, size, specs):
        value = print_score(grey, q, spec, 1.0) - error
        if best is None or value > best[0]:
            best = (value, spec, q)
    return best


#: How many outlines on straight edges (:func:`edge_outlines`) are refined, best first,
#: and how well one must fit the print to be taken. On synthetic Harmonies photos whose
#: light regions never framed the board, the outline on its edges fitted 0.73 or more
#: (stacks leaning over the edge hide some of the margins), the others 0.37 or less.
EDGE_OUTLINES = 8
EDGE_FIT = 0.7


def _from_straight_edges(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    small: tuple[FloatArray, float],
    lines: list[Line],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None = None,
) -> Fit | None:
    """The better of ``best`` and the outlines on the photo's straight edges (``lines``):
    compared with the print on the small copy (``small``: its grey and scale) in every
    turn, the best few refined and compared again. Only a fair fit (``EDGE_FIT``) is taken:
    four lines of a busy photo can also frame something else that fits the print a little.
    Poorer fits that may still be the board go to ``unsure``."""
    # Grown by the rim too: where the board's edge hardly shows (a light object beside
    # it), the strong edge between the light rim and the dark band takes its place, and
    # an outline on it misses the rim the rough comparison looks for.
    rim = rim_grows(specs)
    quads = [g for q in edge_outlines(photo, lines) for g in grown_variants(q, rim)]
    return _refined_best(
        photo, lab, grey, small, quads, specs, [], best, EDGE_OUTLINES, EDGE_FIT, unsure
    )


#: The focal lengths (of the long side) outlines are completed with: a phone's 24-40 mm
#: equivalents, as the synthetic photos use; with the usual 0.75 alone a board seen at
#: 0.97 was completed 23 px short, its band half outside the print's.
COMPLETION_FOCALS = (0.62, 0.75, 0.9, 1.05)
#: How far (absolute log ratio) a completed outline may be seen off the proportions it was
#: completed to in the turn it is compared in (the comparison measures the focal length
#: again); the other turns of a side A outline are 0.25 off.
COMPLETED_SLACK = 0.15
#: How many completed outlines are refined and completed again (best first).
COMPLETED_TRIES = 4


def _completions(
    frames: list[Frame], specs: list[BoardSpec], size: tuple[int, int]
) -> list[list[FloatArray]]:
    """For each side, every frame completed to its proportions (either edge of the side as
    the base) through each focal length, clockwise, without repeats (to 1 % of the photo:
    near straight down the focal length hardly matters)."""
    depths = tuple(d for s in specs for d in (s.height / s.width, s.width / s.height))
    grid = 0.01 * max(size)
    seen: list[dict[bytes, FloatArray]] = [{} for _ in specs]
    for frame in frames:
        for focal in COMPLETION_FOCALS:
            quads = completed_outlines(*frame, depths, focal * max(size), size)
            for i, q in enumerate(quads):
                if q is not None:
                    q = order_corners(q)
                    seen[i // 2].setdefault(np.round(q / grid).astype(np.int32).tobytes(), q)
    return [list(d.values()) for d in seen]


def _completed(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    small: tuple[FloatArray, float],
    frames: list[Frame],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None = None,
) -> Fit | None:
    """The better of ``best`` and the outlines completed from three edges (``frames``) to
    a side's proportions: compared with the print on the small copy; the best few refined,
    completed again from their refined edges (three of them are now exact, the fourth
    was placed by lines found on a small copy), and refined again. Only a fair fit
    (``EDGE_FIT``) is taken, as for the straight edges' outlines; poorer ones that may
    still be the board go to ``unsure``."""
    size = (photo.shape[1], photo.shape[0])

    def ranked(frames: list[Frame], specs: list[BoardSpec]) -> list[Fit]:
        quads = _completions(frames, specs, size)
        return [
            fit
            for spec, completed in zip(specs, quads, strict=True)
            for fit in _rough_fits(small, completed, [spec], size, COMPLETED_SLACK)
        ]

    rough = sorted(ranked(frames, specs), key=lambda t: -t[0])
    for _, spec, q in rough[:COMPLETED_TRIES]:
        fine = refine_outline(photo, q, lab)
        outlines = [fine]
        again = ranked(outline_frames([fine]), [spec])
        if again:
            outlines.append(refine_outline(photo, max(again, key=lambda t: t[0])[2], lab))
        for outline in outlines:
            value = print_fit(grey, outline, spec, size)
            if value < EDGE_FIT:
                _keep_unsure(unsure, (value, spec, outline))
            elif best is None or value > best[0]:
                best = (value, spec, outline)
    return best


def _rough_fits(
    small: tuple[FloatArray, float],
    quads: list[FloatArray],
    specs: list[BoardSpec],
    size: tuple[int, int],
    slack: float = ASPECT_SLACK,
) -> list[Fit]:
    """The outlines in every turn and side whose proportions are within ``slack``,
    compared with the print on the small copy (``small``: its grey and scale)."""
    small_grey, factor = small
    return [
        (print_score(small_grey, q, spec, factor, rim=False) - error, spec, q)
        for quad in quads
        for q, spec, error in turned_fits(quad, size, specs)
        if error <= slack
    ]


def _refined_best(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    small: tuple[FloatArray, float],
    quads: list[FloatArray],
    specs: list[BoardSpec],
    tried: list[tuple[BoardSpec, FloatArray]],
    best: Fit | None,
    limit: int = 8,
    min_fit: float = -math.inf,
    unsure: list[Fit] | None = None,
) -> Fit | None:
    """The better of ``best`` and the outlines ``quads`` in every turn and side: scored on
    the small copy (``small``: its grey and scale), the best ``limit`` not yet in ``tried``
    (and scoring 0.3 or more) refined and compared with the print; one is taken only when
    it fits at ``min_fit`` or more. Adds what it refines to ``tried``."""
    size = (photo.shape[1], photo.shape[0])
    rough = _rough_fits(small, quads, specs, size)
    rough.sort(key=lambda t: -t[0])
    refined = 0
    for score, spec, q in rough:
        if score < 0.3 or refined == limit:
            break
        if any(s is spec and _same_outline(q, t, 0.01 * max(size)) for s, t in tried):
            continue  # the same outline reached twice (grown or turned)
        tried.append((spec, q))
        refined += 1
        fine = refine_outline(photo, q, lab)
        value = print_fit(grey, fine, spec, size)
        if value < min_fit:
            _keep_unsure(unsure, (value, spec, fine))
        elif best is None or value > best[0]:
            best = (value, spec, fine)
    return best


#: The poorest fit of the print at which ``find_board`` takes a board at all.
MIN_FIT = 0.5
#: The poorest fit (of an outline that needs ``EDGE_FIT`` to be taken on its own) that the
#: game may still confirm as its board (``find_board``'s ``confirm``): as poor as a fit
#: the finder takes at all.
UNSURE_FLOOR = MIN_FIT
#: How many such outlines are shown to ``confirm``, best fit first.
UNSURE_TRIES = 3


def _keep_unsure(unsure: list[Fit] | None, fit: Fit) -> None:
    """Keep a fit too poor to be taken on its own for the game to confirm, unless it is
    below ``UNSURE_FLOOR``."""
    if unsure is not None and fit[0] >= UNSURE_FLOOR:
        unsure.append(fit)


def _grown(outlines: list[FloatArray], specs: list[BoardSpec]) -> list[FloatArray]:
    """The outlines, each also grown past each edge by the band's depth."""
    return [g for o in outlines for g in grown_variants(o, band_grows(specs))]


def _deep_retries(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    small: tuple[FloatArray, float],
    outlines: list[FloatArray],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None = None,
    complete_below: float = COMPLETE_BELOW,
    found: EdgeLines | None = None,
) -> Fit | None:
    """The costly retries for a board not found or found off (see :func:`find_board`),
    cheapest first, until one fits at ``RETRY_BELOW``: outlines on
    the photo's straight edges; the first outlines and each grown past an edge refined
    before they are compared with the print; the best outline moved back onto the board;
    last, below ``complete_below``, outlines completed from three edges (:func:`_completed`).
    Outlines from straight edges or completed that fit too poorly to be taken on their own
    go to ``unsure``. ``found``: the photo's :func:`edge_lines`, when already traced."""
    found = edge_lines(photo) if found is None else found
    lines = straight_edges(photo, found=found)
    best = _from_straight_edges(photo, lab, grey, small, lines, specs, best, unsure)
    if best is None or best[0] < RETRY_BELOW:
        # An outline a margin's width off scores poorly on the small copy (its margins
        # and band fall on the wrong print) and may never have been refined: refine the
        # first few outlines themselves, then compare them with the print in every turn.
        # Grown past each edge too: a light region inside the margins that stopped at the
        # band, grown by the band's depth, can end inside the band, where the rough
        # comparison sees no light rim above it and ranks it low; refined, it is the board.
        for quad in _grown(outlines[:RETRY_OUTLINES], specs):
            best = _refined_in_every_turn(photo, lab, grey, quad, specs, best)
            if best is not None and best[0] >= RETRY_BELOW:
                break  # a good fit: the board is found
    if best is not None and best[0] < RETRY_BELOW:
        best = _polished(photo, lab, grey, best)
    if best is None or best[0] < complete_below:
        best = _completed_on_edges(photo, lab, grey, small, outlines, specs, best, unsure, found)
    return best


def _completed_on_edges(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    small: tuple[FloatArray, float],
    outlines: list[FloatArray],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None,
    found: EdgeLines | None = None,
) -> Fit | None:
    """The last retry, for a board about to be refused (or found far off): three true
    edges, from the straight edges (``found``: :func:`edge_lines`; the fourth hidden by
    stacks leaning over it, or too short to be among the longest on a patterned table) or
    from a light region cut short (by stacks, by the band), and the proportions fix the
    board (:func:`_completed`)."""
    size = (photo.shape[1], photo.shape[0])
    edges = straight_edges(
        photo, spanning=False, found=edge_lines(photo) if found is None else found
    )
    frames = line_frames(edges, size) + outline_frames(outlines[:RETRY_OUTLINES])
    return _completed(photo, lab, grey, small, frames, specs, best, unsure)


def _polished(
    photo: FloatArray,
    lab: FloatArray,
    grey: FloatArray,
    best: Fit,
    prefer: Callable[[Found], float] | None = None,
) -> Fit:
    """``best`` or its outline with the edges and corners moved while the print fits better
    (steps from 48 px down to 3, :func:`polish_outline`) and refined again, when that fits
    better and either ``prefer`` (the game's rating of what lies on the board) rates it no
    lower or, without ``prefer``, it fits at ``RETRY_BELOW`` or more."""
    size = (photo.shape[1], photo.shape[0])
    _, spec, q = best
    fine = refine_outline(photo, polish_outline(grey, q, spec, size), lab)
    value = print_fit(grey, fine, spec, size)
    # On the print alone only a good fit counts: climbing from a poor start on a busy
    # photo can also end on something else that fits the print a little better (on
    # synthetic Harmonies photos, boards not found became boards found far off).
    if value <= best[0] or (value < RETRY_BELOW and prefer is None):
        return best
    moved = (value, spec, fine)
    # Even from a fair start the print can be fooled: stacks hide the margins, and a
    # corner moved onto something light fits better than the board's own.
    if prefer is not None and prefer(_found(photo, lab, moved)) < prefer(_found(photo, lab, best)):
        return best
    return moved


def find_board(
    photo: FloatArray,
    specs: list[BoardSpec],
    game: str,
    deep_below: float = RETRY_BELOW,
    confirm: Callable[[Found], bool] | None = None,
    prefer: Callable[[Found], float] | None = None,
    accept: Callable[[Found], bool] | None = None,
) -> Found:
    """The board in the photo, as whichever of ``specs`` fits best, turned so its title band
    is on top, with sub-pixel corners and the camera's pose.

    Rough outlines are scored cheaply on a small copy (print correlation and proportions);
    the best few are refined and scored again, rim included. A fit below ``RETRY_BELOW``
    is retried with the tried outlines traced with the lightest part of their ring; a fit
    below ``deep_below`` (``HIDDEN_MARGINS_RETRY_BELOW`` for boards whose pieces lean over
    the margins) also with the costly retries, a fit between the two only moved back onto
    the board (:func:`polish_outline`; the move is kept only when ``prefer``, the game's
    rating of what lies on the board, rates it as high). The costly retries go cheapest
    first: outlines on the photo's straight edges (:func:`edge_outlines`), the first
    outlines (and each grown past an edge) refined before they are compared, the best
    outline moved back onto the board, and for a board about to be refused outlines
    completed from three of its edges to a side's proportions (:func:`_completed`).

    Those last outlines need a fair fit (``EDGE_FIT``) to be taken on the print alone:
    four lines of a busy photo can frame something else. When nothing else is found, the
    best few of the poorer ones are shown to ``confirm`` (the game's own look at the
    board: Harmonies asks whether its hexes hold tokens), and the first it confirms is the
    board: pieces hiding much of the print fit it poorly where the board does lie.
    ``accept`` is the game's test that a board found on the print is one it can read
    (Harmonies: tokens on its hexes); a fit below ``RETRY_BELOW`` that fails it gets every
    retry, completed outlines included, and then ``confirm``'s look, before it is returned
    for the game to refuse. Raises PhotoError."""
    size = (photo.shape[1], photo.shape[0])
    lab, grey, rough_copy = _copies(photo)
    tried: list[tuple[BoardSpec, FloatArray]] = []
    best, outlines = _first_pass(photo, (lab, grey, rough_copy), specs, tried, deep_below)
    if best is not None and best[0] < RETRY_BELOW:
        # A poor fit often comes from a rough outline reaching well past the board (a light
        # object touching it): the ring just inside it is then mostly table and pieces, and
        # the "board colour" the edges are traced with is wrong. Trace them again with the
        # lightest part of that ring only; keep whichever fits the print better.
        for spec, q in tried[:4]:
            fine = refine_outline(photo, q, lab, light=RETRY_LIGHT)
            value = print_fit(grey, fine, spec, size)
            if value > best[0]:
                best = (value, spec, fine)
    unsure: list[Fit] = []
    if best is not None and deep_below <= best[0] < RETRY_BELOW:
        # A fair fit that skips the costly retries may still be an outline a margin's
        # width off: climb back onto the board (Harmonies VALIDATION 102 997: 88 px off
        # at a fit of 0.735, then 1 px off at 0.82; about a quarter second).
        best = _polished(photo, lab, grey, best, prefer)
    deep = best is None or best[0] < deep_below
    lines = edge_lines(photo) if deep else None  # traced once for both retries below
    if deep:
        best = _deep_retries(
            photo, lab, grey, rough_copy, outlines, specs, best, unsure, found=lines
        )
    if best is not None and MIN_FIT <= best[0] < RETRY_BELOW and accept is not None:
        found = _found(photo, lab, best)
        if accept(found):
            return found
        # A fair fit the game refuses: on a busy table one edge can be framed on something
        # beside the board (Harmonies VALIDATION 105 884 at 3 MP: the right edge on a light
        # disc, fit 0.63, no tokens seen; its three true edges completed fit 0.83).
        if deep:
            # The retries ended on this fit, so the straight edges' and the grown outlines'
            # fits (each taken only when better) cannot beat it again: only the move back
            # onto the board (from a fit it may have made) and the completions are left.
            polished = _polished(photo, lab, grey, best)
            retried = _completed_on_edges(
                photo, lab, grey, rough_copy, outlines, specs, polished, unsure, lines
            )
        else:
            retried = _deep_retries(
                photo, lab, grey, rough_copy, outlines, specs, best, unsure, 1.0
            )
        found = _found(photo, lab, retried or best)
        if accept(found):
            return found
        return (_confirmed(photo, lab, unsure, confirm) if confirm else None) or found
    if best is None or best[0] < MIN_FIT:
        found = _confirmed(photo, lab, unsure, confirm) if confirm else None
        if found is None:
            raise no_board(game)
        return found
    return _found(photo, lab, best)


def _confirmed(
    photo: FloatArray, lab: FloatArray, unsure: list[Fit], confirm: Callable[[Found], bool]
) -> Found | None:
    """The first of the ``UNSURE_TRIES`` best different outlines in ``unsure`` that
    ``confirm`` takes for the board, or None."""
    size = (photo.shape[1], photo.shape[0])
    shown: list[Fit] = []
    for fit in sorted(unsure, key=lambda f: -f[0]):
        if any(s is fit[1] and _same_outline(q, fit[2], 0.01 * max(size)) for _, s, q in shown):
            continue  # the same outline reached from other lines
        shown.append(fit)
        found = _found(photo, lab, fit)
        if confirm(found):
            found.confirmed = True
            return found
        if len(shown) == UNSURE_TRIES:
            break
    return None


def glance_board(photo: FloatArray, specs: list[BoardSpec], min_fit: float) -> Found | None:
    """The board in the photo when the cheap first pass of :func:`find_board` finds one
    fitting at ``min_fit`` or more, else None: no retries, so a photo of something else
    costs well under a second. Enough to recognise a board lying well in view, e.g.
    another game's board photographed by mistake."""
    copies = _copies(photo)
    best, _outlines = _first_pass(photo, copies, specs, [], min_fit)
    return None if best is None or best[0] < min_fit else _found(photo, copies[0], best)


def _first_pass(
    photo: FloatArray,
    copies: tuple[FloatArray, FloatArray, tuple[FloatArray, float]],
    specs: list[BoardSpec],
    tried: list[tuple[BoardSpec, FloatArray]],
    enough: float,
) -> tuple[Fit | None, list[FloatArray]]:
    """The best fit of the light regions' outlines and, when that fits below ``enough``,
    of the sheet finder's outlines too; with every outline looked at (light regions'
    first). The sheet finder's outlines cost a fifth of a photo's time and are needed only
    when the light regions frame no board well (for boards whose pieces hide the margins:
    no board at all or one found off)."""
    lab, grey, rough_copy = copies
    regions = light_regions(photo)
    outlines = board_outlines(photo, sheet_finder=False, regions=regions)
    best = _refined_best(photo, lab, grey, rough_copy, _grown(outlines, specs), specs, tried, None)
    if best is None or best[0] < enough:
        known = len(outlines)  # the light regions' outlines come first, as they were
        outlines = board_outlines(photo, regions=regions)
        fresh = _grown(outlines[known:], specs)
        best = _refined_best(photo, lab, grey, rough_copy, fresh, specs, tried, best)
    return best, outlines


def _copies(photo: FloatArray) -> tuple[FloatArray, FloatArray, tuple[FloatArray, float]]:
    """The photo in Lab and in grey, and the 640 px grey copy the rough fits use (with its
    scale)."""
    size = (photo.shape[1], photo.shape[0])
    factor = 640 / max(size)
    small = np.asarray(
        cv2.resize(
            photo,
            (round(size[0] * factor), round(size[1] * factor)),
            interpolation=cv2.INTER_AREA,
        )
    )
    small_grey = np.asarray(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), np.float32)
    lab = cv2.cvtColor(photo, cv2.COLOR_RGB2LAB).astype(np.float32)
    grey = np.asarray(cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY), np.float32)
    return lab, grey, (small_grey, factor)


def _found(photo: FloatArray, lab: FloatArray, best: Fit) -> Found:
    """The fitted outline refined once more from its closer start, with the camera it
    implies."""
    size = (photo.shape[1], photo.shape[0])
    score, spec, fine = best
    fine = refine_outline(photo, fine, lab)  # a second pass from a closer start
    h = cv2.getPerspectiveTransform(spec.corners.astype(np.float32), fine.astype(np.float32))
    focal = estimate_focal(h, size, aspect_known=True)
    camera = pose(h, intrinsics(focal or default_focal(size), size), size)
    return Found(spec, fine, camera, focal is not None, score)
