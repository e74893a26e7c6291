"""Finding a printed game board with pieces on it (Harmonies, Spring Meadow) in a photo:
:func:`find_board` ranks rough outlines (``outlines.py``, ``edges.py``) by how well they
show the board's fixed print (``board_print.py``), refines the best, retries poor fits in
ways that cost more and more, and returns the board with the camera that sees it
(``camera.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from scorepad.vision.band import band_outlines, band_quads
from scorepad.vision.board_print import (
    ASPECT_SLACK,
    BoardSpec,
    print_fit,
    print_score,
    seen_aspect,
    turned_fits,
)
from scorepad.vision.camera import (
    Camera,
    apply,
    default_focal,
    estimate_focal,
    fourth_corners,
    intrinsics,
    pose,
)
from scorepad.vision.decode import PhotoError
from scorepad.vision.edges import (
    EdgeLines,
    Frame,
    Line,
    completed_outlines,
    edge_lines,
    edge_outlines,
    line_frames,
    outline_frames,
    straight_edges,
)
from scorepad.vision.outlines import board_outlines, light_regions, refine_outline
from scorepad.vision.sheet import order_corners

FloatArray = np.ndarray


def no_board(game: str) -> PhotoError:
    return PhotoError(
        f"no {game} board found in the photo: photograph the whole board, on a darker table"
    )


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


def moved_edge(quad: FloatArray, edge: int, step: float, centre: FloatArray) -> FloatArray:
    """``quad`` with edge ``edge`` (from corner ``edge`` to the next) moved ``step`` pixels
    along its normal, outwards from ``centre`` (inwards for a negative step)."""
    a, b = quad[edge], quad[(edge + 1) % 4]
    d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    normal = np.array([-d[1], d[0]])
    if np.dot(normal, (a + b) / 2 - centre) < 0:
        normal = -normal
    moved = quad.copy()
    moved[edge] += step * normal
    moved[(edge + 1) % 4] += step * normal
    return moved


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
            moves = [moved_edge(q, e, sign * step, centre) for e in range(4) for sign in (1, -1)]
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


@dataclass(frozen=True, eq=False)
class _Views:
    """The photo as the finder looks at it: as decoded (RGB), in Lab (outlines are refined
    on it), in grey (the print is compared on it), and the 640 px grey copy the rough
    comparisons use, with its scale (``small``)."""

    photo: FloatArray
    lab: FloatArray
    grey: FloatArray
    small: tuple[FloatArray, float]

    @classmethod
    def of(cls, photo: FloatArray) -> _Views:
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
        return cls(photo, lab, grey, (small_grey, factor))

    @property
    def size(self) -> tuple[int, int]:
        return (self.photo.shape[1], self.photo.shape[0])

    @cached_property
    def edge_lines(self) -> EdgeLines:
        """The photo's straight segments joined into lines (:func:`edge_lines`): traced on
        first use, once for every retry that needs them."""
        return edge_lines(self.photo)

    def refined(self, quad: FloatArray, light: float | None = None) -> FloatArray:
        """``quad`` with its edges sharpened (:func:`refine_outline`; ``light``: its own
        default unless given)."""
        if light is None:
            return refine_outline(self.photo, quad, self.lab)
        return refine_outline(self.photo, quad, self.lab, light)


def _refined_in_every_turn(
    views: _Views,
    quad: FloatArray,
    specs: list[BoardSpec],
    best: Fit | None,
) -> Fit | None:
    """The better of ``best`` and ``quad`` refined, compared with the print in every turn
    and side its proportions allow (:func:`print_fit`)."""
    size = views.size
    fine = views.refined(quad)
    for q, spec, error in turned_fits(fine, size, specs):
        value = print_score(views.grey, q, spec, 1.0) - error
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
    views: _Views,
    lines: list[Line],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None = None,
) -> Fit | None:
    """The better of ``best`` and the outlines on the photo's straight edges (``lines``):
    compared with the print on the small copy in every turn, the best few refined and
    compared again. Only a fair fit (``EDGE_FIT``) is taken: four lines of a busy photo can
    also frame something else that fits the print a little. Poorer fits that may still be
    the board go to ``unsure``."""
    # Grown by the rim too: where the board's edge hardly shows (a light object beside
    # it), the strong edge between the light rim and the dark band takes its place, and
    # an outline on it misses the rim the rough comparison looks for.
    rim = rim_grows(specs)
    quads = [g for q in edge_outlines(views.photo, lines) for g in grown_variants(q, rim)]
    return _refined_best(views, quads, specs, [], best, EDGE_OUTLINES, EDGE_FIT, unsure)


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
                    seen[i // 2].setdefault(_outline_key(q, grid), q)
    return [list(d.values()) for d in seen]


def _outline_key(quad: FloatArray, grid: float) -> bytes:
    """The corners of an outline rounded to ``grid`` pixels: outlines with the same key are
    tried once."""
    return np.round(quad / grid).astype(np.int32).tobytes()


def _completed(
    views: _Views,
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
    return _completed_refined(views, _ranked_completions(views, frames, specs), best, unsure)


def _ranked_completions(views: _Views, frames: list[Frame], specs: list[BoardSpec]) -> list[Fit]:
    """The outlines completed from ``frames`` to each side's proportions, compared with
    the print on the small copy."""
    quads = _completions(frames, specs, views.size)
    return [
        fit
        for spec, completed in zip(specs, quads, strict=True)
        for fit in _rough_fits(views.small, completed, [spec], views.size, COMPLETED_SLACK)
    ]


def _completed_refined(
    views: _Views,
    rough: list[Fit],
    best: Fit | None,
    unsure: list[Fit] | None,
    taken: list[Fit] | None = None,
) -> Fit | None:
    """:func:`_completed` on the completed outlines ``rough`` (compared on the small copy):
    the best few refined, completed again from their refined edges and refined again.
    Every fit good enough to be taken also goes to ``taken``, when given."""
    size = views.size
    for _, spec, q in sorted(rough, key=lambda t: -t[0])[:COMPLETED_TRIES]:
        fine = views.refined(q)
        outlines = [fine]
        again = _ranked_completions(views, outline_frames([fine]), [spec])
        if again:
            outlines.append(views.refined(max(again, key=lambda t: t[0])[2]))
        for outline in outlines:
            value = print_fit(views.grey, outline, spec, size)
            if value < EDGE_FIT:
                _keep_unsure(unsure, (value, spec, outline))
                continue
            if taken is not None:
                taken.append((value, spec, outline))
            if best is None or value > best[0]:
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
    return _scored(small, (t for quad in quads for t in turned_fits(quad, size, specs)), slack)


def _scored(
    small: tuple[FloatArray, float],
    outlines: Iterable[tuple[FloatArray, BoardSpec, float]],
    slack: float,
) -> list[Fit]:
    """The ``outlines`` (each with its side and proportions' error) whose proportions are
    within ``slack``, compared with the print on the small copy (``small``: its grey and
    scale), less that error."""
    small_grey, factor = small
    return [
        (print_score(small_grey, q, spec, factor, rim=False) - error, spec, q)
        for q, spec, error in outlines
        if error <= slack
    ]


def _refined_best(
    views: _Views,
    quads: list[FloatArray],
    specs: list[BoardSpec],
    tried: list[tuple[BoardSpec, FloatArray]],
    best: Fit | None,
    limit: int = 8,
    min_fit: float = -math.inf,
    unsure: list[Fit] | None = None,
) -> Fit | None:
    """The better of ``best`` and the outlines ``quads`` in every turn and side: scored on
    the small copy, the best ``limit`` not yet in ``tried``
    (and scoring 0.3 or more) refined and compared with the print; one is taken only when
    it fits at ``min_fit`` or more. Adds what it refines to ``tried``."""
    size = views.size
    rough = _rough_fits(views.small, quads, specs, size)
    rough.sort(key=lambda t: -t[0])
    refined = 0
    for score, spec, q in rough:
        if score < 0.3 or refined == limit:
            break
        if any(s is spec and _same_outline(q, t, 0.01 * max(size)) for s, t in tried):
            continue  # the same outline reached twice (grown or turned)
        tried.append((spec, q))
        refined += 1
        fine = views.refined(q)
        value = print_fit(views.grey, fine, spec, size)
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
    views: _Views,
    outlines: list[FloatArray],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None = None,
    complete_below: float = COMPLETE_BELOW,
) -> Fit | None:
    """The costly retries for a board not found or found off (see :func:`find_board`),
    cheapest first, until one fits at ``RETRY_BELOW``: outlines on
    the photo's straight edges; the first outlines and each grown past an edge refined
    before they are compared with the print; the best outline moved back onto the board;
    last, below ``complete_below``, outlines completed from three edges (:func:`_completed`).
    Outlines from straight edges or completed that fit too poorly to be taken on their own
    go to ``unsure``."""
    lines = straight_edges(views.photo, found=views.edge_lines)
    best = _from_straight_edges(views, lines, specs, best, unsure)
    if best is None or best[0] < RETRY_BELOW:
        # An outline a margin's width off scores poorly on the small copy (its margins
        # and band fall on the wrong print) and may never have been refined: refine the
        # first few outlines themselves, then compare them with the print in every turn.
        # Grown past each edge too: a light region inside the margins that stopped at the
        # band, grown by the band's depth, can end inside the band, where the rough
        # comparison sees no light rim above it and ranks it low; refined, it is the board.
        for quad in _grown(outlines[:RETRY_OUTLINES], specs):
            best = _refined_in_every_turn(views, quad, specs, best)
            if best is not None and best[0] >= RETRY_BELOW:
                break  # a good fit: the board is found
    if best is not None and best[0] < RETRY_BELOW:
        best = _polished(views, best)
    if best is None or best[0] < complete_below:
        best = _completed_on_edges(views, outlines, specs, best, unsure)
    return best


def _completed_on_edges(
    views: _Views,
    outlines: list[FloatArray],
    specs: list[BoardSpec],
    best: Fit | None,
    unsure: list[Fit] | None,
) -> Fit | None:
    """The last retry, for a board about to be refused (or found far off): three true
    edges, from the straight edges (the fourth hidden by
    stacks leaning over it, or too short to be among the longest on a patterned table) or
    from a light region cut short (by stacks, by the band), and the proportions fix the
    board (:func:`_completed`)."""
    edges = straight_edges(views.photo, spanning=False, found=views.edge_lines)
    frames = line_frames(edges, views.size) + outline_frames(outlines[:RETRY_OUTLINES])
    return _completed(views, frames, specs, best, unsure)


def _polished(
    views: _Views,
    best: Fit,
    prefer: Callable[[Found], float] | None = None,
) -> Fit:
    """``best`` or its outline with the edges and corners moved while the print fits better
    (steps from 48 px down to 3, :func:`polish_outline`) and refined again, when that fits
    better and either ``prefer`` (the game's rating of what lies on the board) rates it no
    lower or, without ``prefer``, it fits at ``RETRY_BELOW`` or more."""
    size = views.size
    _, spec, q = best
    fine = views.refined(polish_outline(views.grey, q, spec, size))
    value = print_fit(views.grey, fine, spec, size)
    # On the print alone only a good fit counts: climbing from a poor start on a busy
    # photo can also end on something else that fits the print a little better (on
    # synthetic Harmonies photos, boards not found became boards found far off).
    if value <= best[0] or (value < RETRY_BELOW and prefer is None):
        return best
    moved = (value, spec, fine)
    # Even from a fair start the print can be fooled: stacks hide the margins, and a
    # corner moved onto something light fits better than the board's own.
    if prefer is not None and prefer(_found(views, moved)) < prefer(_found(views, best)):
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
    board: pieces hiding much of the print fit it poorly where the board does lie. When
    it confirms none, outlines built on the title band are the last retry (:func:`_on_band`).
    ``accept`` is the game's test that a board found on the print is one it can read
    (Harmonies: tokens on its hexes); a fit below ``RETRY_BELOW`` that fails it gets every
    retry, completed outlines included, and then ``confirm``'s look and the band's
    outlines, before it is returned for the game to refuse. Last, with ``prefer``, a board
    found on the print is checked for one edge a margin's width off
    (:func:`_edge_repaired`) and, when ``prefer`` rates it poorly, for one corner placed on
    something else (:func:`_corner_repaired`).
    Raises PhotoError."""
    views = _Views.of(photo)
    found = _find(views, specs, game, deep_below, confirm, prefer, accept)
    if prefer is None or found.confirmed:
        return found
    return _corner_repaired(views, _edge_repaired(views, found, prefer), prefer)


def _find(
    views: _Views,
    specs: list[BoardSpec],
    game: str,
    deep_below: float,
    confirm: Callable[[Found], bool] | None,
    prefer: Callable[[Found], float] | None,
    accept: Callable[[Found], bool] | None,
) -> Found:
    """:func:`find_board` but for its last checks (an edge, a corner), which need ``prefer``."""
    tried: list[tuple[BoardSpec, FloatArray]] = []
    best, outlines = _first_pass(views, specs, tried, deep_below)
    if best is not None and best[0] < RETRY_BELOW:
        # A poor fit often comes from a rough outline reaching well past the board (a light
        # object touching it): the ring just inside it is then mostly table and pieces, and
        # the "board colour" the edges are traced with is wrong. Trace them again with the
        # lightest part of that ring only; keep whichever fits the print better.
        for spec, q in tried[:4]:
            fine = views.refined(q, light=RETRY_LIGHT)
            value = print_fit(views.grey, fine, spec, views.size)
            if value > best[0]:
                best = (value, spec, fine)
    unsure: list[Fit] = []
    if best is not None and deep_below <= best[0] < RETRY_BELOW:
        # A fair fit that skips the costly retries may still be an outline a margin's
        # width off: climb back onto the board (Harmonies VALIDATION 102 997: 88 px off
        # at a fit of 0.735, then 1 px off at 0.82; about a quarter second).
        best = _polished(views, best, prefer)
    deep = best is None or best[0] < deep_below
    if deep:
        best = _deep_retries(views, outlines, specs, best, unsure)
    if best is not None and MIN_FIT <= best[0] < RETRY_BELOW and accept is not None:
        found = _found(views, best)
        if accept(found):
            return found
        # A fair fit the game refuses: on a busy table one edge can be framed on something
        # beside the board (Harmonies VALIDATION 105 884 at 3 MP: the right edge on a light
        # disc, fit 0.63, no tokens seen; its three true edges completed fit 0.83).
        if deep:
            # The retries ended on this fit, so the straight edges' and the grown outlines'
            # fits (each taken only when better) cannot beat it again: only the move back
            # onto the board (from a fit it may have made) and the completions are left.
            polished = _polished(views, best)
            retried = _completed_on_edges(views, outlines, specs, polished, unsure)
        else:
            retried = _deep_retries(views, outlines, specs, best, unsure, 1.0)
        found = _found(views, retried or best)
        if accept(found):
            return found
        return _last_look(views, specs, unsure, confirm, prefer) or found
    if best is None or best[0] < MIN_FIT:
        found = _last_look(views, specs, unsure, confirm, prefer)
        if found is None:
            raise no_board(game)
        return found
    return _found(views, best)


def _last_look(
    views: _Views,
    specs: list[BoardSpec],
    unsure: list[Fit],
    confirm: Callable[[Found], bool] | None,
    prefer: Callable[[Found], float] | None,
) -> Found | None:
    """For a board about to be refused: the game's look at the outlines too poor to be
    taken on their own (``confirm``), then outlines built on the title band
    (:func:`_on_band`), or None."""
    found = _confirmed(views, unsure, confirm) if confirm else None
    return found or _on_band(views, specs, confirm, prefer)


#: How well an outline built on the title band must fit the print to be taken without the
#: game's look. On a checked cloth of the board's cream (``bench_checked_table.py``) the
#: boards' own fitted 0.78-0.91 (VALIDATION 107 004, 0.78, shows tokens on 0.60-0.65 of its
#: hexes: the look would refuse it); on a busy table one 127 px off (the band's edge right,
#: the board too deep) fitted 0.71 where the board's own fits 0.69 (VALIDATION 105 291,
#: which the game's look takes before the band is tried).
BAND_FIT = 0.75


def _on_band(
    views: _Views,
    specs: list[BoardSpec],
    confirm: Callable[[Found], bool] | None,
    prefer: Callable[[Found], float] | None,
) -> Found | None:
    """The last retry (``vision/band.py``): outlines built on the title band, compared with
    the print on the small copy, the best few refined and completed again. Of those
    fitting at ``BAND_FIT`` the game's favourite (``prefer``; the best fit without it) is
    the board; poorer ones go to ``confirm``. On a table as light as the board where they
    meet (a checked cloth of its cream) no other outline comes near the board, and the
    print alone is a poor judge there: VALIDATION 107 004 on such a cloth fits 0.78 where
    it lies and 0.80 with two corners 87 px off, on the cloth's squares."""
    size = views.size
    on_band = band_outlines(band_quads(views.photo), specs, COMPLETION_FOCALS, size)
    # Compared as built, the band on top: no other turn.
    as_built = ((q, spec, abs(math.log(seen_aspect(q, size) / spec.aspect))) for spec, q in on_band)
    rough = _scored(views.small, as_built, COMPLETED_SLACK)
    unsure: list[Fit] = []
    taken: list[Fit] = []
    _completed_refined(views, rough, None, unsure, taken)
    unsure += [fit for fit in taken if fit[0] < BAND_FIT]
    good = _different([fit for fit in taken if fit[0] >= BAND_FIT], size)
    if good and prefer is None:
        return _found(views, good[0])
    if good:
        return max((_found(views, fit) for fit in good), key=prefer)
    return _confirmed(views, unsure, confirm) if confirm else None


#: The moves (pixels along the normal, either way) each edge of a board found on the print
#: is tried at, and how much better the print must fit the move, refined and polished, for
#: the game to be asked about it. On 120 Harmonies VALIDATION boards found where they lie
#: (3 MP, seeds 110 004-110 123) no move fitted more than 0.034 better (0.025 refined);
#: VALIDATION 112 015, its bottom edge 43 px out on a light table, fitted 0.82 and moved
#: 32 px in 0.91.
EDGE_MOVES = (16.0, 32.0, 48.0, 64.0)
EDGE_REPAIR_GAIN = 0.05


def _edge_repaired(views: _Views, found: Found, prefer: Callable[[Found], float]) -> Found:
    """``found``, or the same outline with one edge moved along its normal when that fits
    the print clearly better (``EDGE_REPAIR_GAIN``, refined and polished) and the game
    rates what lies on the board no lower. An outline whose edge runs along the table
    just outside the board (a table as light as the board's margin) can fit the print
    well enough (0.8 or more) to skip every retry; a board found where it lies is a peak of
    the print fit, which no such move climbs (32 moves: about 30 ms of CPU)."""
    size = views.size
    spec, quad = found.spec, found.corners
    centre = quad.mean(axis=0)
    moves = [
        moved_edge(quad, e, sign * step, centre)
        for e in range(4)
        for step in EDGE_MOVES
        for sign in (1, -1)
    ]
    value, best = max(
        ((print_fit(views.grey, q, spec, size), q) for q in moves), key=lambda t: t[0]
    )
    if value < found.score + EDGE_REPAIR_GAIN:
        return found
    fine = views.refined(
        polish_outline(views.grey, views.refined(best), spec, size, (12, 6, 3), 120)
    )
    value = print_fit(views.grey, fine, spec, size)
    if value < found.score + EDGE_REPAIR_GAIN:
        return found
    candidate = _found(views, (value, spec, fine))
    return candidate if prefer(candidate) >= prefer(found) else found


#: A board found on the print that the game rates below this (``find_board``'s
#: ``prefer``: for Harmonies the share of token rims its hexes show) is checked for one
#: misplaced corner. Of 2 029 Harmonies VALIDATION photos (3 MP, seeds 110 000-112 028)
#: 5 boards were found 43-92 px off: the two with one corner off rated 0.50 and 0.70
#: (now found where they lie); 120 boards found where they lie rated 0.62-0.98, a fifth
#: of them below 0.75 (the check costs about 0.05 s of CPU there: six refinements, and a
#: reading only for an outline that moved).
CORNER_REPAIR_BELOW = 0.75
#: How many corner-moved outlines are refined (best on the small copy first); the one
#: that then fits the print best, if no worse than the outline found, is rated by the game
#: (a reading of every hex, about 0.15 s) and taken when rated this much higher.
CORNER_REPAIR_REFINED = 6
CORNER_REPAIR_GAIN = 0.03
#: A corner-moved outline that refines to within this share of the photo's long side of
#: the outline found is that outline (on boards found where they lie, most of them).
CORNER_REPAIR_MOVED = 0.005


def _corner_repaired(views: _Views, found: Found, prefer: Callable[[Found], float]) -> Found:
    """``found``, or the same outline with one corner moved to where the other three put it
    (:func:`camera.fourth_corners`, through each of ``COMPLETION_FOCALS``), or with one
    edge slid along its sides (:func:`_edge_slides`), when the game rates that clearly
    higher (``CORNER_REPAIR_GAIN``) and it fits the print at least as well.

    An edge traced along something light beside the board (a blotch on the table, a light
    disc) pivots on its far corner: three corners are right and the fourth lies tens of
    pixels off, the hexes near it read from the table. The print alone does not tell
    (margins fit about as well a little off, and on a board found where it lies some moved
    corner fits it better); the game's rating of what lies on the board does (Harmonies:
    the tokens' rims, which the misplaced hexes miss). Only a move that fits the print at
    least as well is rated: a rating reads every hex again. (Rating moves that fit the
    print a little worse finds a board whose print prefers an outline two corners off,
    VALIDATION 111 218, but reads the hexes again on many boards found where they lie,
    and the rims alone moved three of those, VALIDATION 114 098, 114 282 and 114 326:
    outlines 26-30 px off that fit the print 0.01-0.04 worse rated 0.04-0.05 higher.)"""
    rating = prefer(found)
    if rating >= CORNER_REPAIR_BELOW:
        return found
    size = views.size
    spec, quad = found.spec, found.corners
    small_grey, factor = views.small
    rough = sorted(
        _corner_moves(spec, quad, size),
        key=lambda q: -print_score(small_grey, q, spec, factor, rim=False),
    )
    best: Fit | None = None
    for q in rough[:CORNER_REPAIR_REFINED]:
        fine = views.refined(q)
        if np.abs(fine - quad).max() < CORNER_REPAIR_MOVED * max(size):
            continue  # refined back onto the outline found: nothing to repair
        value = print_fit(views.grey, fine, spec, size)
        if value >= found.score and (best is None or value > best[0]):
            best = (value, spec, fine)
    if best is None:
        return found
    candidate = _found(views, best)
    return candidate if prefer(candidate) > rating + CORNER_REPAIR_GAIN else found


def _corner_moves(spec: BoardSpec, quad: FloatArray, size: tuple[int, int]) -> list[FloatArray]:
    """The outlines :func:`_corner_repaired` tries: ``quad`` with one corner moved to where
    the other three put it, and with one edge slid along its two sides
    (:func:`_edge_slides`); each convex, at least 1 % of the photo from ``quad``, once."""
    grid = 0.01 * max(size)
    moved: dict[bytes, FloatArray] = {}

    def keep(q: FloatArray) -> None:
        far = np.linalg.norm(q - quad, axis=1).max() >= grid  # not where it is already
        if far and cv2.isContourConvex(q.astype(np.float32)):
            moved.setdefault(_outline_key(q, grid), q)

    for missing in range(4):
        for focal in COMPLETION_FOCALS:
            for corner in fourth_corners(spec.corners, quad, missing, focal * max(size), size):
                q = quad.copy()
                q[missing] = corner
                keep(q)
    for q in _edge_slides(spec, quad, size):
        keep(q)
    return list(moved.values())


#: How far the edge slides: one of its corners along its side, as a share of that side.
EDGE_SLIDES = np.arange(0.6, 1.41, 0.05)


def _edge_slides(spec: BoardSpec, quad: FloatArray, size: tuple[int, int]) -> list[FloatArray]:
    """``quad`` with one edge traced on the table beyond the board (or on the board short
    of its edge), its two sides right: the edge's first corner moved along its side
    (``EDGE_SLIDES``), the second where the other three corners and the board's size put
    it through each of ``COMPLETION_FOCALS``, kept when it lies on its own side (within
    1 % of the photo). A mottled table as light as the board's margin can carry an edge
    far off, its corners on the lines of the board's sides (VALIDATION 115 514: the
    bottom edge found 86 and 190 px low, over a quarter of the board; 11 hexes silently
    wrong)."""
    grid = 0.01 * max(size)
    slid = []
    for edge in range(4):
        first, second = edge, (edge + 1) % 4
        before, after = (edge - 1) % 4, (edge + 2) % 4
        side = quad[second] - quad[after]
        normal = np.array([-side[1], side[0]]) / max(float(np.linalg.norm(side)), 1e-9)
        for share in EDGE_SLIDES:
            q = quad.copy()
            q[first] = quad[before] + share * (quad[first] - quad[before])
            for focal in COMPLETION_FOCALS:
                for corner in fourth_corners(spec.corners, q, second, focal * max(size), size):
                    if abs(float((corner - quad[after]) @ normal)) <= grid:
                        both = q.copy()
                        both[second] = corner
                        slid.append(both)
    return slid


def _confirmed(views: _Views, unsure: list[Fit], confirm: Callable[[Found], bool]) -> Found | None:
    """The first of the ``UNSURE_TRIES`` best different outlines in ``unsure`` that
    ``confirm`` takes for the board, or None."""
    for fit in _different(unsure, views.size)[:UNSURE_TRIES]:
        found = _found(views, fit)
        if confirm(found):
            found.confirmed = True
            return found
    return None


def _different(fits: list[Fit], size: tuple[int, int]) -> list[Fit]:
    """``fits`` best first, each outline once (the same outline is often reached from
    several lines or bands: within 1 % of the photo's long side, same side)."""
    kept: list[Fit] = []
    for fit in sorted(fits, key=lambda f: -f[0]):
        if not any(s is fit[1] and _same_outline(q, fit[2], 0.01 * max(size)) for _, s, q in kept):
            kept.append(fit)
    return kept


def glance_board(photo: FloatArray, specs: list[BoardSpec], min_fit: float) -> Found | None:
    """The board in the photo when the cheap first pass of :func:`find_board` finds one
    fitting at ``min_fit`` or more, else None: no retries, so a photo of something else
    costs well under a second. Enough to recognise a board lying well in view, e.g.
    another game's board photographed by mistake."""
    views = _Views.of(photo)
    best, _outlines = _first_pass(views, specs, [], min_fit)
    return None if best is None or best[0] < min_fit else _found(views, best)


def _first_pass(
    views: _Views,
    specs: list[BoardSpec],
    tried: list[tuple[BoardSpec, FloatArray]],
    enough: float,
) -> tuple[Fit | None, list[FloatArray]]:
    """The best fit of the light regions' outlines and, when that fits below ``enough``,
    of the sheet finder's outlines too; with every outline looked at (light regions'
    first). The sheet finder's outlines cost a fifth of a photo's time and are needed only
    when the light regions frame no board well (for boards whose pieces hide the margins:
    no board at all or one found off)."""
    regions = light_regions(views.photo)
    outlines = board_outlines(views.photo, sheet_finder=False, regions=regions)
    best = _refined_best(views, _grown(outlines, specs), specs, tried, None)
    if best is None or best[0] < enough:
        known = len(outlines)  # the light regions' outlines come first, as they were
        outlines = board_outlines(views.photo, regions=regions)
        fresh = _grown(outlines[known:], specs)
        best = _refined_best(views, fresh, specs, tried, best)
    return best, outlines


def _found(views: _Views, best: Fit) -> Found:
    """The fitted outline refined once more from its closer start, with the camera it
    implies."""
    size = views.size
    score, spec, fine = best
    fine = views.refined(fine)  # a second pass from a closer start
    h = cv2.getPerspectiveTransform(spec.corners.astype(np.float32), fine.astype(np.float32))
    focal = estimate_focal(h, size, aspect_known=True)
    camera = pose(h, intrinsics(focal or default_focal(size), size), size)
    return Found(spec, fine, camera, focal is not None, score)
