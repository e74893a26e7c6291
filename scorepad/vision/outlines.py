"""Rough outlines of a board in a photo (large light regions, the sheet finder's paper
outlines) and their refinement to sub-pixel edges.
"""

from __future__ import annotations

import cv2
import numpy as np

from scorepad.vision.fastmath import colour_distance
from scorepad.vision.sheet import candidate_outlines, order_corners, simplified_quad

FloatArray = np.ndarray


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
    lab8 = cv2.cvtColor(small, cv2.COLOR_RGB2LAB)
    lab = lab8.astype(np.float32)
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
    dx = _largest_channel(cv2.absdiff(small[:, 1:], small[:, :-1]))
    dy = _largest_channel(cv2.absdiff(small[1:], small[:-1]))
    step = np.zeros((sh, sw), np.uint8)
    step[:, :-1] = np.maximum(step[:, :-1], dx)
    step[:, 1:] = np.maximum(step[:, 1:], dx)
    step[:-1] = np.maximum(step[:-1], dy)
    step[1:] = np.maximum(step[1:], dy)
    channels = [c.ravel().astype(np.float64) for c in cv2.split(lab8)]
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
        means = sums / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)[:, None]
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
        quad = simplified_quad(hull, (0.01, 0.02, 0.03, 0.045, 0.06))
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


def _largest_channel(image: np.ndarray) -> np.ndarray:
    """Per pixel, the largest of the three channels (numpy's max over the last axis of
    an 8-bit image is several times slower)."""
    a, b, c = cv2.split(image)
    return np.asarray(cv2.max(cv2.max(a, b), c))


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
        p = intersect(lines[i - 1], lines[i])
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


def intersect(
    l1: tuple[FloatArray, FloatArray], l2: tuple[FloatArray, FloatArray]
) -> FloatArray | None:
    (p, d), (q, e) = l1, l2
    m = np.array([d, -e]).T
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s, _ = np.linalg.solve(m, q - p)
    return np.asarray(p + s * d, float)
