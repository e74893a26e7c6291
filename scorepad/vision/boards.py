"""Photos of printed game boards with pieces on them (Harmonies, Spring Meadow): the pinhole
camera both the synthetic renderers and the recognisers use, finding a board's outline,
and recovering the camera's pose from it.

World coordinates are millimetres in the board's printed frame: ``x`` to the right, ``y``
down the print (towards the bottom edge), ``z`` *into* the board, so a point at height ``h``
above the board has ``z = -h``. This is the OpenCV camera convention, so a camera looking
straight down at an upright board has the identity rotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
        return uvw[:, :2] / uvw[:, 2:3]

    def plane(self, height: float = 0.0) -> FloatArray:
        """Homography from board millimetres ``(x, y, 1)`` at ``height`` to image pixels."""
        t = -self.R @ self.centre
        r1, r2, r3 = self.R[:, 0], self.R[:, 1], self.R[:, 2]
        return self.K @ np.column_stack([r1, r2, -height * r3 + t])

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
    return q[:, :2] / q[:, 2:3]


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


def board_outlines(photo: FloatArray, limit: int = 16) -> list[FloatArray]:
    """Rough quadrilaterals (photo pixels, clockwise on screen) that may be the board, most
    likely first; :func:`refine_outline` sharpens the one that proves to be the board.

    The board is a large light printed rectangle. Two sources: light regions with their
    holes filled (the pieces standing on the board and its printed title band are holes in
    the light print), and the outline search of the Sunflower Valley sheet finder
    (``sheet.candidate_outlines``)."""
    quads = light_regions(photo) + [order_corners(q) for q in candidate_outlines(photo, 4)]
    unique: list[FloatArray] = []
    for q in quads:
        if all(np.abs(q - u).max() > 0.01 * max(photo.shape) for u in unique):
            unique.append(q)
    return unique[:limit]


def light_regions(photo: FloatArray, side: int = 800) -> list[FloatArray]:
    """Outlines of large light, weakly coloured, smooth regions, holes filled, best first:
    grown from the flattest light spots neighbour to neighbour (a busy table's light
    patches do not join the board's smooth print), and cut by global thresholds."""
    h, w = photo.shape[:2]
    scale = side / max(h, w)
    small = cv2.resize(photo, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32)
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    whiteness = lab[..., 0] - 1.5 * chroma
    sh, sw = whiteness.shape
    regions: list[np.ndarray] = []
    for pct in (55, 70, 85):
        level = float(np.percentile(whiteness, pct))
        mask = (whiteness > level).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        _count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for k in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:3] + 1:
            if stats[k, cv2.CC_STAT_AREA] < 0.02 * sh * sw:
                break
            regions.append((labels == k).astype(np.uint8))
    # Flat zones: pixels joined to their neighbours where the colour hardly changes. The
    # board's margin is one such zone; a busy or mottled table breaks into many.
    blurred = small.astype(np.float32)
    dx = np.abs(np.diff(blurred, axis=1)).max(axis=2)
    dy = np.abs(np.diff(blurred, axis=0)).max(axis=2)
    step = np.zeros((sh, sw), np.float32)
    step[:, :-1] = np.maximum(step[:, :-1], dx)
    step[:, 1:] = np.maximum(step[:, 1:], dx)
    step[:-1] = np.maximum(step[:-1], dy)
    step[1:] = np.maximum(step[1:], dy)
    for limit in (2.5, 4.0, 6.0, 9.0):
        zones = (step < limit).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(zones, connectivity=4)
        keep = [
            k
            for k in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:40] + 1
            if stats[k, cv2.CC_STAT_AREA] >= 0.002 * sh * sw
            and stats[k, 0] > 0
            and stats[k, 1] > 0
            and stats[k, 0] + stats[k, 2] < sw
            and stats[k, 1] + stats[k, 3] < sh
        ]
        means = {k: lab[labels == k].mean(axis=0) for k in keep}
        for k in keep[:12]:
            regions.append((labels == k).astype(np.uint8))
            # A margin cut in pieces (by the title band, or by tall stacks leaning over it
            # in the photo) is several zones of one colour: join the nearby ones.
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
                regions.append(np.isin(labels, group).astype(np.uint8))
    found: list[tuple[float, FloatArray]] = []
    for region in regions:
        x, y, cw, ch = cv2.boundingRect(region)
        if x <= 0 or y <= 0 or x + cw >= sw or y + ch >= sh:
            continue  # the table, or a region cut by the frame
        points = cv2.findNonZero(region)
        quad = _quadrilateral(points)
        area = cv2.contourArea(quad.astype(np.float32))
        if area < 0.02 * sh * sw:
            continue
        # A board is a light rim all round (its margin) around whatever stands inside.
        inside = np.zeros_like(region)
        cv2.fillPoly(inside, [np.round(quad).astype(np.int32)], 1)
        rim = inside.copy()
        centre = quad.mean(axis=0)
        cv2.fillPoly(rim, [np.round(centre + (quad - centre) * 0.94).astype(np.int32)], 0)
        rim_cover = float((region & rim).sum()) / max(float(rim.sum()), 1.0)
        outside = float((region & (1 - inside)).sum()) / max(float(region.sum()), 1.0)
        if rim_cover < 0.5 or outside > 0.05:
            continue
        found.append((area * rim_cover, quad / scale))
    found.sort(key=lambda t: -t[0])
    return [order_corners(q) for _, q in found]


def _fill_holes(region: np.ndarray) -> np.ndarray:
    """The region with everything it encloses."""
    padded = np.pad(region, 1)
    flood = padded.copy()
    mask = np.zeros((padded.shape[0] + 2, padded.shape[1] + 2), np.uint8)
    cv2.floodFill(flood, mask, (0, 0), 1)
    holes = (flood == 0)[1:-1, 1:-1]
    return (region | holes).astype(np.uint8)


def _quadrilateral(contour: np.ndarray) -> FloatArray:
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)


def refine_outline(
    photo: FloatArray, quad: FloatArray, lab: FloatArray | None = None
) -> FloatArray:
    """Sharpen each edge of a rough outline to a fraction of a pixel.

    Along short profiles across each edge: the outermost point that still has the board's
    own light colour (its margin, measured just inside the rough outline), then where the
    colour crosses halfway to what lies beyond. A robust line through those points ignores
    the profiles that pieces standing near the edge hide."""
    if lab is None:
        lab = cv2.cvtColor(photo, cv2.COLOR_RGB2LAB).astype(np.float32)
    centre = quad.mean(axis=0)
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, lab.shape[1]), min(y + h, lab.shape[0])
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    offset = np.array([x0, y0])
    cv2.fillPoly(mask, [np.round(quad - offset).astype(np.int32)], 1)
    cv2.fillPoly(mask, [np.round(centre + (quad - centre) * 0.9 - offset).astype(np.int32)], 0)
    ring = lab[y0:y1, x0:x1][mask > 0]
    if len(ring) < 20:
        return quad
    light = ring[ring[:, 0] > np.percentile(ring[:, 0], 40)]
    reference = np.median(light, axis=0) if len(light) else np.median(ring, axis=0)
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
    reach = max(8.0, 0.025 * length)
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
    diff = np.linalg.norm(prof - reference, axis=2)
    diff = (diff + np.roll(diff, 1, axis=0) + np.roll(diff, -1, axis=0)) / 3
    points = []
    for row, base in zip(diff, bases, strict=True):
        board = row < 14
        # The last run of board colour, at least 2 px long, followed by something else.
        k = len(row) - 1
        while k >= 4 and not (board[k] and board[k - 1] and board[k - 2] and board[k - 3]):
            k -= 1
        if k < 4 or k >= len(row) - 4:
            continue
        beyond = float(np.median(row[k + 1 : k + 6]))
        if beyond < 25:
            continue
        half = (float(row[k]) + beyond) / 2
        j = k
        while j + 1 < len(row) and row[j + 1] < half:
            j += 1
        if j + 1 >= len(row):
            continue
        frac = (half - row[j]) / max(row[j + 1] - row[j], 1e-6)
        points.append(base + normal * (steps[j] + 0.5 * float(np.clip(frac, 0, 1))))
    if len(points) < 8:
        return a, direction
    return _ransac_line(np.array(points), direction)


def _ransac_line(pts: FloatArray, fallback: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The line most points lie on (within a pixel), refitted by least squares."""
    best = np.zeros(len(pts), bool)
    n = len(pts)
    for i in range(0, n, 3):
        for j in range(i + n // 3, n, 4):
            d = pts[j] - pts[i]
            norm = np.linalg.norm(d)
            if norm < 1e-6:
                continue
            nrm = np.array([-d[1], d[0]]) / norm
            inl = np.abs((pts - pts[i]) @ nrm) < 1.2
            if inl.sum() > best.sum():
                best = inl
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
    return p + s * d


def no_board(game: str) -> PhotoError:
    return PhotoError(
        f"no {game} board found in the photo: photograph the whole board from above, "
        "on a darker table"
    )
