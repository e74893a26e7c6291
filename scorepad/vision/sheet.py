"""Finding the paper sheet in a photo and turning it into an upright, flat image.

The sheet is the largest bright, unsaturated quadrilateral in the photo; its coloured hexes
sit inside it. We find its outline on a small copy of the photo, fit four corners, warp it to
a square, decide which edge carries the printed header band (that edge is the top, whatever
way the phone was held, upside down included), and warp again to the upright portrait sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scorepad.vision.decode import PhotoError

#: Rectified sheet size in pixels (portrait, the printed sheet's proportions).
SHEET_WIDTH = 800
SHEET_HEIGHT = 1128
FIND_SIDE = 960  # long side of the copy used to find the outline
REFINE = True
#: Lab gradients (Sobel) that count as a sharp colour step (the paper's edge)
SMOOTH_STEPS = (25.0, 40.0, 60.0)
#: The printed header band's thickness in heights of the sheet below it, and the paper
#: beyond it in band thicknesses (the print: a band 95 units thick, 30 units in from the top
#: edge, of a sheet 1410 units high).
HEADER_BAND = 95 / 1285
HEADER_MARGIN = 30 / 95
#: The residents tally, a row of small outlined boxes, lies below the grid: box sides every
#: TALLY_PERIOD pixels of the rectified sheet. A sheet whose tally shows above the grid
#: (periodicity at least TALLY_SEEN, and TALLY_APART more than below it) was turned upside
#: down: a table strip of solid colour along the paper's edge looked like the header. On
#: 300 validation photos the right way up, above less below was at most 0.14; the two read
#: upside down had 0.44 and 0.45.
TALLY_PERIOD = (18, 60)
TALLY_SEEN, TALLY_APART = 0.6, 0.3
#: The header's lettering, below the grid of a sheet upside down, repeats at nearly the
#: boxes' spacing too, so the tally can lead by less (validation 4729, 4777, 4838, 5428:
#: 0.15-0.28). Such a sheet is turned when the tally leads by HEADER_LEAD and the header
#: band's solid colour shows along the bottom edge (``header_score`` HEADER_BELOW). On
#: 3 190 validation sheets found the right way up (photos 1400-2999, 4600-6199) the tally
#: led by up to 0.30, but by -0.06 at most on the 7 with such a band along the bottom.
HEADER_BELOW, HEADER_LEAD = 0.5, 0.1


@dataclass(frozen=True)
class Rectified:
    """The upright sheet and the homography that maps sheet pixels to photo pixels."""

    image: np.ndarray  # RGB uint8, SHEET_HEIGHT x SHEET_WIDTH
    to_photo: np.ndarray  # 3x3
    corners: np.ndarray  # 4x2 in the photo: top-left, top-right, bottom-right, bottom-left


def candidate_outlines(rgb: np.ndarray, limit: int = 6, repair: bool = True) -> list[np.ndarray]:
    """Quadrilaterals (photo pixels) that may be the sheet, most likely first.

    Two ways to cut the paper out of the table: thresholds on whiteness (bright and grey),
    and flood fills from bright grey seeds that follow slow changes of light but stop at
    the paper's edge. Each outline is scored by its size and how well it fills its four
    corners; the caller verifies them in turn. With ``repair`` (a Sunflower Valley sheet),
    each outline is preceded by its repairs: taken out past a header band just outside it
    (:func:`beyond_header`) and with one side across the table mended (:func:`mend_side`)."""
    h, w = rgb.shape[:2]
    scale = FIND_SIDE / max(h, w)
    small = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)
    whiteness = cv2.subtract(hsv[..., 2], cv2.multiply(hsv[..., 1], 1.2))
    sh, sw = small.shape[:2]
    level, _ = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    high = float(np.percentile(whiteness, 99.5))
    masks = [
        (whiteness > max(60, t)).astype(np.uint8)
        for t in sorted({int(v) for v in (level, *np.linspace(level, high - 10, 6)[1:])})
    ]
    masks += _flood_masks(small, whiteness)
    grad = _colour_steps(small)
    for step in SMOOTH_STEPS:
        masks += _smooth_masks(grad, step)
    for fraction in (0.35, 0.6):  # brighter than the table around it, even in a shadow
        block = int(max(sh, sw) * fraction) | 1
        masks.append(
            cv2.adaptiveThreshold(
                whiteness, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -12
            )
        )
    k = max(3, round(min(small.shape[:2]) / 60)) | 1
    scored: list[tuple[float, np.ndarray]] = []
    for mask in masks:
        mask = cv2.morphologyEx(
            mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        )
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < 0.03 * sh * sw:
                continue
            x, y, cw, ch = cv2.boundingRect(contour)
            touching = (x <= 1) + (y <= 1) + (x + cw >= sw - 1) + (y + ch >= sh - 1)
            if touching >= 2 or area > 0.9 * sh * sw:
                continue  # the table, not a sheet: the whole sheet must be in the photo
            quad = _quadrilateral(contour)
            fill = area / max(cv2.contourArea(quad.astype(np.float32)), 1.0)
            scored.append((area * min(fill, 1 / fill) ** 4, quad))
    scored.sort(key=lambda t: -t[0])
    edges, points = paper_edges(small)
    unique: list[np.ndarray] = []
    for _, quad in scored:  # refined one by one, until enough different ones are found
        if REFINE:
            quad = refine_quad(edges, quad, points=points)
        if all(np.abs(order_corners(quad) - order_corners(u)).max() > 4 for u in unique):
            unique.append(quad)
        if len(unique) == limit:
            break
    near = near_edges(edges) if repair else None
    out = []
    for q in unique:
        if near is not None:
            out += [r / scale for r in _repairs(small, q, edges, points, near)]
        out.append(q / scale)
        # The margin beside the header band is thin and can be lost: the same outline grown
        # a little is tried next, so the band falls inside it.
        centre = q.mean(axis=0)
        out.append((centre + (q - centre) * 1.12) / scale)
    return out


def _repairs(
    small: np.ndarray, quad: np.ndarray, edges: np.ndarray, points: np.ndarray, near: np.ndarray
) -> list[np.ndarray]:
    """The outline taken out past a header band, and with one side mended, where they apply,
    each snapped onto the paper's edges (:func:`refine_quad`)."""
    repaired = [beyond_header(small, quad), mend_side(near, quad), mend_corner(near, quad)]
    return [refine_quad(edges, q, points=points) for q in repaired if q is not None]


def paper_edges(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edge map (Canny) of the small blurred copy, and its edge pixels as (x, y) rows."""
    edges = cv2.Canny(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), 30, 90)
    ys, xs = np.nonzero(edges)
    return edges, np.stack([xs, ys], axis=1).astype(np.float64)


def near_edges(edges: np.ndarray) -> np.ndarray:
    """True within 2 px of an edge pixel: where a side lying on the paper's edge falls."""
    return cv2.distanceTransform((edges == 0).astype(np.uint8), cv2.DIST_L2, 3) <= 2


def beyond_header(small: np.ndarray, quad: np.ndarray, n: int = 256) -> np.ndarray | None:
    """The outline taken out past a header band lying just outside one of its sides, or None.

    The paper regions stop at the solid header band, and the paper beyond it is a thin strip
    that a shadow or blur merges into the table: such an outline leaves the header out, and
    the sheet is read upside down or sideways (validation photos 237, 294 and 373). The band
    shows, outward from the side, as rows of solid colour right across about as thick as the
    printed band, then a gap of paper; the side is moved past it by the printed margin (the
    caller snaps it onto the paper's edge)."""
    corners = order_corners(quad)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    to_quad = cv2.getPerspectiveTransform(unit.astype(np.float32), corners.astype(np.float32))
    reach = 0.2  # the canvas shows this far round the outline, in outline widths
    step = (1 + 2 * reach) / n
    canvas_to_unit = np.array([[step, 0, -reach], [0, step, -reach], [0, 0, 1]])
    canvas = cv2.warpPerspective(
        small, to_quad @ canvas_to_unit, (n, n), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
    )
    solid = solid_colour(canvas)
    outside = round(reach / (1 + 2 * reach) * n)  # canvas rows outside each side
    inner = n - 2 * outside  # canvas rows across the outline
    across = slice(outside + inner // 8, n - outside - inner // 8)
    found: list[tuple[float, int, float]] = []
    for side in range(4):  # np.rot90 by ``side`` brings that side to the top
        rows = np.rot90(solid, k=side)[:outside, across].mean(axis=1)[::-1]  # outward
        band = _band(rows, inner)
        if band is not None:
            start, end = band
            distance = (end + 1 + HEADER_MARGIN * (end - start + 1)) / inner
            found.append((float(rows[start : end + 1].mean()), side, distance))
    if not found:
        return None
    _, side, distance = max(found)
    ends, axis, outward = _SIDES[side]
    moved = unit.copy()
    moved[ends, axis] += outward * distance
    return cv2.perspectiveTransform(moved.reshape(-1, 1, 2), to_quad).reshape(4, 2)


#: Each side of the unit square: its two corners, the axis across it and which way is out.
_SIDES = (([0, 1], 1, -1), ([1, 2], 0, 1), ([2, 3], 1, 1), ([3, 0], 0, -1))


def _band(rows: np.ndarray, inner: int) -> tuple[int, int] | None:
    """First and last row (counted outward from the side) of a header band in the solid
    colour rows outside a side: starting at the side, about the printed band's thickness,
    then two rows of paper."""
    start = next((r for r in range(4) if rows[r] >= 0.35), None)  # the title text thins rows
    if start is None:
        return None
    end = start
    while end + 1 < len(rows) and rows[end + 1] >= 0.35:
        end += 1
    thickness = (end - start + 1) / inner
    gap = rows[end + 1 : end + 3]
    if not 0.6 <= thickness / HEADER_BAND <= 1.5 or len(gap) < 2 or gap.max() >= 0.25:
        return None
    return start, end


def on_edge(near: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Share of each segment ``a``-``b`` (rows of points, or one point) lying on an edge
    (``near``: within 2 px of one), its ends left out."""
    along = np.linspace(0.05, 0.95, 60)[:, None]
    points = a[..., None, :] + along * (b - a)[..., None, :]
    h, w = near.shape
    x = np.clip(np.round(points[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(points[..., 1]).astype(int), 0, h - 1)
    return near[y, x].mean(axis=-1)


def side_shares(near: np.ndarray, corners: np.ndarray) -> list[float]:
    """Share of each side of an outline (ordered corners) lying on an edge (:func:`on_edge`),
    side k running from corner k to corner k + 1."""
    return [float(on_edge(near, corners[k], corners[(k + 1) % 4])) for k in range(4)]


def mend_side(near: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """The outline with its one side off the paper's edge moved onto it, or None.

    A shadow across a sheet's edge can carry a paper region out into the table at one
    corner, or cut one off: three sides lie on the paper's edges (85 % of their length or
    more) and the fourth does not (under 70 %; validation photos 2 and 433). Its two corners
    slide along the good sides' lines to where the side lies on an edge again; of the nearly
    best placings the outermost is kept (the printed header band and the hexes make straight
    edges inside the paper too)."""
    corners = order_corners(quad)
    shares = side_shares(near, corners)
    weak = [k for k in range(4) if shares[k] < 0.7]
    if len(weak) != 1 or min(shares[k] for k in range(4) if k != weak[0]) < 0.85:
        return None
    k = weak[0]
    a, b = corners[k], corners[(k + 1) % 4]
    from_a, from_b = corners[k - 1], corners[(k + 2) % 4]  # the good sides' far corners
    reach = np.linspace(0.6, 1.15, 56)  # along each good side, 1 at the present corner
    ends_a = from_a + reach[:, None] * (a - from_a)
    ends_b = from_b + reach[:, None] * (b - from_b)
    shares_ab = on_edge(near, ends_a[:, None, :], ends_b[None, :, :])  # (56, 56)
    if shares_ab.max() < max(0.8, shares[k] + 0.2):
        return None  # no clearly better placing
    good = np.argwhere(shares_ab >= shares_ab.max() - 0.05)
    i, j = max(good, key=lambda ij: reach[ij[0]] + reach[ij[1]])
    mended = corners.copy()
    mended[k], mended[(k + 1) % 4] = ends_a[i], ends_b[j]
    return mended


def mend_corner(near: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """The outline with its one corner off the paper moved onto the paper's corner, or None.

    A light object touching the paper is taken into the paper region at one corner: the
    two sides away from it lie on the paper's edges (85 % or more) and the two sides
    meeting there do not (validation photos 2478 and 2678). One of those can still lie
    83 % on edges, the object's outline running on from the paper's edge (4950, a disc
    cut by the photo's border): any side under 85 % counts as off. That corner moves
    (towards its neighbours, or a little away) to where both its sides lie on an edge; of
    the nearly best placings the outermost is kept, as in :func:`mend_side`."""
    corners = order_corners(quad)
    shares = side_shares(near, corners)
    weak = [k for k in range(4) if shares[k] < 0.85]
    if len(weak) != 2:
        return None
    k = next((w for w in weak if (w - 1) % 4 in weak), None)  # the corner both weak sides meet
    if k is None:
        return None
    c, before, after = corners[k], corners[k - 1], corners[(k + 1) % 4]
    reach = np.linspace(-0.15, 0.6, 40)
    places = c + reach[:, None, None] * (before - c) + reach[None, :, None] * (after - c)
    first, second = on_edge(near, before, places), on_edge(near, places, after)  # (40, 40)
    # The object hides the paper's edge where it touches: each side is asked only half on
    # an edge, both together more than 70 % and clearly more than before.
    both = np.where(np.minimum(first, second) >= 0.45, (first + second) / 2, 0.0)
    if both.max() < max(0.7, sum(shares[w] for w in weak) / 2 + 0.2):
        return None  # no clearly better placing
    good = np.argwhere(both >= both.max() - 0.05)
    i, j = min(good, key=lambda ij: reach[ij[0]] + reach[ij[1]])
    mended = corners.copy()
    mended[k] = places[i, j]
    return mended


def _flood_masks(small: np.ndarray, whiteness: np.ndarray) -> list[np.ndarray]:
    """Paper regions grown from the brightest grey spots, neighbour to neighbour."""
    sh, sw = whiteness.shape
    smooth = cv2.GaussianBlur(whiteness, (0, 0), 2)
    masks = []
    taken = np.zeros((sh + 2, sw + 2), np.uint8)
    for _ in range(3):
        free = np.where(taken[1:-1, 1:-1] > 0, 0, smooth)
        _, peak, _, (x, y) = cv2.minMaxLoc(free)
        if peak < 120:
            break
        mask = np.zeros((sh + 2, sw + 2), np.uint8)
        flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)
        cv2.floodFill(small.copy(), mask, (x, y), (0, 0, 0), (4, 4, 4), (4, 4, 4), flags)
        region = mask[1:-1, 1:-1]
        masks.append((region > 0).astype(np.uint8))
        taken |= cv2.dilate(mask, np.ones((15, 15), np.uint8))
    return masks


def _colour_steps(small: np.ndarray) -> np.ndarray:
    """Gradient magnitude in Lab (largest over the three channels) of a lightly blurred copy."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.2), cv2.COLOR_RGB2Lab).astype(np.float32)
    grad = np.zeros(small.shape[:2], np.float32)
    for c in range(3):
        gx = cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1, ksize=3)
        grad = np.maximum(grad, np.hypot(gx, gy))
    return grad


def _smooth_masks(grad: np.ndarray, step: float, limit: int = 2) -> list[np.ndarray]:
    """Regions without sharp colour steps (``grad`` above ``step``) inside, holes filled:
    the paper's blank margin round the print, cut off from the table by the paper's edge.
    This finds a sheet that is no whiter than the table (tinted light, grey or bright
    tables), and one crossed by a soft shadow, as long as the table is textured or the
    paper's edge is a visible step."""
    sh, sw = grad.shape
    edges = (grad > step).astype(np.uint8)
    smooth = 1 - cv2.dilate(edges, np.ones((3, 3), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(smooth, connectivity=4)
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1
    masks = []
    for k in order[: limit * 3]:
        x, y, cw, ch, area = stats[k]
        if area < 0.01 * sh * sw:
            break
        touching = (x <= 1) + (y <= 1) + (x + cw >= sw - 1) + (y + ch >= sh - 1)
        if touching >= 2:
            continue
        region = (labels == k).astype(np.uint8)
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(region)
        cv2.drawContours(filled, contours, -1, 1, -1)
        masks.append(cv2.dilate(filled, np.ones((3, 3), np.uint8)))
        if len(masks) == limit:
            break
    return masks


def _quadrilateral(contour: np.ndarray) -> np.ndarray:
    """The four corners of an outline: the four-sided polygon around its hull that adds the
    least area (OpenCV's approxPolyN where available), else a simplified hull."""
    hull = cv2.convexHull(contour)
    if hasattr(cv2, "approxPolyN") and len(hull) >= 4:
        quad = cv2.approxPolyN(hull, 4, ensure_convex=True)
        if quad is not None and len(quad.reshape(-1, 2)) == 4:
            return quad.reshape(4, 2).astype(np.float64)
    return simplified_quad(hull, (0.01, 0.02, 0.03, 0.045, 0.06, 0.08))


def simplified_quad(hull: np.ndarray, steps: tuple[float, ...]) -> np.ndarray:
    """Four corners approximating a convex hull: the least of the simplifications ``steps``
    (Douglas-Peucker tolerances, fractions of the perimeter) that gives four, else the
    smallest rotated rectangle around it."""
    perimeter = cv2.arcLength(hull, True)
    for eps in steps:
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)


def refine_quad(
    edges: np.ndarray, quad: np.ndarray, band: float = 0.012, points: np.ndarray | None = None
) -> np.ndarray:
    """Snap each side of a rough quadrilateral onto the straight paper edge near it (edge
    pixels within a band around the side, robust line fit), then intersect the sides.
    ``points``: the edge pixels as (x, y) rows, when already listed."""
    quad = order_corners(quad)
    if points is None:
        ys, xs = np.nonzero(edges)
        points = np.stack([xs, ys], axis=1).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 10 or len(points) == 0:
            return quad
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        rel = points - a
        along = rel @ direction
        across = rel @ normal
        near = (np.abs(across) < band * length) & (along > 0.1 * length) & (along < 0.9 * length)
        if near.sum() < 0.3 * length:
            lines.append((a, direction))
            continue
        vx, vy, x0, y0 = cv2.fitLine(
            points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        fitted = np.array([vx, vy], float)
        if abs(float(fitted @ direction)) < math.cos(math.radians(8)):
            lines.append((a, direction))
        else:
            lines.append((np.array([x0, y0], float), fitted))
    corners = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        t = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + t[0] * d1)
    refined = np.array(corners)
    if np.abs(refined - quad).max() > 0.1 * np.ptp(quad, axis=0).max():
        return quad  # the fit ran off: keep the rough corners
    return refined


def order_corners(quad: np.ndarray) -> np.ndarray:
    """Corners in clockwise order on screen, starting anywhere."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    return quad[np.argsort(angles)]


def solid_colour(square: np.ndarray) -> np.ndarray:
    """Pixels of solid print colour: saturated and darker than the nearby paper (shadows
    darken but do not colour)."""
    n = square.shape[0]
    hsv = cv2.cvtColor(square, cv2.COLOR_RGB2HSV)
    value = hsv[..., 2].astype(np.float32)
    white = cv2.dilate(value, np.ones((n // 5, n // 5), np.uint8))
    return (hsv[..., 1] > 80) & (value < 0.85 * white)


def header_score(solid: np.ndarray, edge: int) -> float:
    """How much a strip along one edge of the square warp looks like the header band: rows
    of solid colour right across the sheet (hexes leave gaps; tally boxes are thin lines)."""
    n = solid.shape[0]
    strip = np.rot90(solid, k=edge)[n // 60 : n // 7, n // 8 : -n // 8]  # edge 0 = top
    rows = np.convolve(strip.mean(axis=1), np.ones(5) / 5, mode="valid")
    return float(rows.max()) if rows.size else 0.0


def rectify(rgb: np.ndarray, quad: np.ndarray) -> Rectified:
    """Warp the sheet upright: header on top, portrait, SHEET_WIDTH x SHEET_HEIGHT."""
    corners = order_corners(quad).astype(np.float32)
    n = 512
    square_pts = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    m = cv2.getPerspectiveTransform(corners, square_pts)
    square = cv2.warpPerspective(rgb, m, (n, n), flags=cv2.INTER_AREA)
    solid = solid_colour(square)
    scores = [header_score(solid, edge) for edge in range(4)]
    top = int(np.argmax(scores))
    if scores[top] < 0.5:
        raise PhotoError("no sheet found in the photo: the printed header is not visible")
    ordered = _header_first(corners, top)
    target = np.array(
        [[0, 0], [SHEET_WIDTH, 0], [SHEET_WIDTH, SHEET_HEIGHT], [0, SHEET_HEIGHT]], np.float32
    )
    to_sheet = cv2.getPerspectiveTransform(ordered, target)
    image = cv2.warpPerspective(rgb, to_sheet, (SHEET_WIDTH, SHEET_HEIGHT), flags=cv2.INTER_AREA)
    return Rectified(
        image=image, to_photo=np.linalg.inv(to_sheet), corners=ordered.astype(np.float64)
    )


def tally_strength(edges: np.ndarray, y0: float, y1: float) -> float:
    """How strongly a band of rows between ``y0`` and ``y1`` of an outline map repeats
    along the row at the tally boxes' spacing (the autocorrelation peak of its column
    profile, 0..1), the best band of 16 rows."""
    h, w = edges.shape
    y0, y1 = max(0, int(y0)), min(h, int(y1))
    lo, hi = TALLY_PERIOD
    best = 0.0
    for top in range(y0, y1 - 16, 4):
        profile = edges[top : top + 16].mean(axis=0)
        profile = profile - profile.mean()
        ac = np.correlate(profile, profile, mode="full")[w - 1 :]
        if ac[0] > 1e-6:
            best = max(best, float(ac[lo:hi].max() / ac[0]))
    return best


def upside_down(
    edges: np.ndarray, grid_top: float, grid_bottom: float, sheet: np.ndarray | None = None
) -> bool:
    """Whether the residents tally shows above the grid rather than below it; by a smaller
    lead when a header band shows along the bottom edge of the rectified ``sheet``
    (:func:`band_below`, looked at only then)."""
    above = tally_strength(edges, 0, grid_top)
    lead = above - tally_strength(edges, grid_bottom, edges.shape[0])
    if above < TALLY_SEEN or lead <= HEADER_LEAD:
        return False
    return lead > TALLY_APART or (sheet is not None and band_below(sheet) >= HEADER_BELOW)


def band_below(sheet: np.ndarray) -> float:
    """How much the strip along a rectified sheet's bottom edge looks like the header band
    (``header_score`` on the square warp ``rectify`` scores edges on)."""
    square = cv2.resize(sheet, (512, 512), interpolation=cv2.INTER_AREA)
    return header_score(solid_colour(square), 2)


def turned(rectified: Rectified) -> Rectified:
    """The rectified sheet turned by 180 degrees."""
    w, h = SHEET_WIDTH, SHEET_HEIGHT
    half_turn = np.array([[-1.0, 0, w - 1], [0, -1.0, h - 1], [0, 0, 1]])  # pixel centres
    return Rectified(
        image=np.ascontiguousarray(rectified.image[::-1, ::-1]),
        to_photo=rectified.to_photo @ half_turn,
        corners=np.roll(rectified.corners, -2, axis=0),
    )


def _header_first(corners: np.ndarray, top: int) -> np.ndarray:
    """Reorder clockwise corners (mapped to square corners TL, TR, BR, BL) so that the header
    edge found as square edge ``top`` (0 top, 1 right, 2 bottom, 3 left after np.rot90's
    counter-clockwise turns) comes first."""
    # np.rot90(k) turns counter-clockwise: k=1 brings the right edge to the top, k=2 the
    # bottom edge, k=3 the left edge. The header edge's first corner (clockwise) is then
    # TR for k=1, BR for k=2, BL for k=3.
    return np.roll(corners, -top, axis=0).astype(np.float32)
