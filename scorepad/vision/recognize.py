"""``recognize(image_bytes, game, layout)``: a phone photo of a sheet or board to one player's
part of a board file, with a probability per cell and the cells to check flagged
(``shared/formats.md``, "Recognising a photo").

Sunflower Valley is read here; Harmonies and Spring Meadow boards by their own modules
(:mod:`scorepad.vision.harmonies`, :mod:`scorepad.vision.spring_meadow`), which
:func:`recognize` dispatches to."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from scorepad.boardfile import BoardError
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import Hex, Orientation
from scorepad.vision import boards, harmonies, spring_meadow
from scorepad.vision import cells as cellread
from scorepad.vision import harmonies_print as hprint
from scorepad.vision import model as symbols
from scorepad.vision.board_print import BoardSpec
from scorepad.vision.camera import aspect_of, default_focal
from scorepad.vision.decode import PhotoError, decode, outline_fractions
from scorepad.vision.edges import edge_outlines
from scorepad.vision.lattice import (
    SHEET_HEXES,
    WELL_FOUND,
    Grid,
    drop_extras,
    find_grid,
    normal_map,
    outline_map,
    past_budget,
    ranked,
)
from scorepad.vision.sheet import (
    SHEET_HEIGHT,
    SHEET_WIDTH,
    Rectified,
    candidate_outlines,
    rectify,
    turned,
    upside_down,
)
from scorepad.vision.tally import BOXES, read_tally, settle_split

SUPPORTED = ("sunflower-valley", "harmonies", "spring-meadow")
WORK_SIDE = 2000  # long side of the decoded photo we work on
FULL_SHEET = SHEET_HEXES  # hexes on a sheet (5 areas of 5, 5 mountains)
SHEET_MOUNTAINS = 5
MAX_GRIDS = 4  # candidate sheets whose hex grid we look for, at most
EDGE_SHEETS = 3  # and outlines on straight edges, when none of those settles it
EDGE_ASPECT = 0.2  # how far from a sheet's proportions such an outline may be
SHEET_ASPECT = SHEET_HEIGHT / SHEET_WIDTH
ODD_SHEET = 0.3  # probability factor for every cell of a sheet with an unexpected count
#: A sheet with at least FAMILY_DOUBT sunflower-like hexes of which fewer than
#: FEW_SUPERS are read as super sunflowers has its sunflowers doubted by NO_SUPER_SEEN (see
#: read()): a third of a sheet's sunflower-like hexes are super on average, so finding
#: (almost) none mostly means a player's super mark not told apart.
FAMILY_DOUBT = 3
FEW_SUPERS = 0.2
NO_SUPER_SEEN = 0.8
WELL_OUTLINED = WELL_FOUND  # mean outline support below which a grid is doubted
#: CPU seconds of the grid search after which no more outline or lattice reading is tried
#: once the best grid in hand has over twice a sheet's hexes (``lattice.past_budget``). A
#: picture that is no sheet took up to 40 s (its fine texture gives lattices of 120-150
#: hexes, each refined in turn), holding a server thread all that time; about 7 s now. A
#: first version stopped every search past 4 s and lost a right grid that came late on a
#: slow test sheet (docs/vision.md, step 11): a sheet's own search is not cut short.
LOCATE_SECONDS = 4.0
#: The tally's count goes into the result when it beats every other count by this margin
#: (in ticks, ``tally.count_ticks``): VALIDATION photos 3000-3299, 1 % of the tallies read
#: right fell below 0.32, as did 2 of the 5 read wrong.
TALLY_SURE = 0.25
NO_SHEET = "no sheet found in the photo: photograph the whole sheet, flat, on a darker table"


@dataclass
class Reading:
    """Everything the recogniser concluded about one hex (before the board-file shape)."""

    hex: Hex
    mountain: bool
    area: str | None
    item: str | None
    sides: tuple[int, int] | None
    p: float
    parts: dict[str, float] = field(default_factory=dict)

    def cell(self) -> dict[str, Any]:
        out: dict[str, Any] = {"q": self.hex.q, "r": self.hex.r}
        if self.mountain:
            out["mountain"] = True
            return out
        out["area"] = self.area
        if self.item:
            out["item"] = self.item
        if self.item == "rail" and self.sides:
            out["sides"] = list(self.sides)
        return out


@dataclass
class Recognition:
    """The full result: readings plus how the sheet was found (for the web and benchmark)."""

    readings: list[Reading]
    orientation: str
    corners: list[list[float]]
    seconds: float
    flag_below: float
    #: The corners as fractions of the photo's size (:func:`outline_fractions`).
    outline: list[list[float]] = field(default_factory=list)
    #: With a layout and a trusted grid: hexes the layout prints otherwise than the photo
    #: shows (:func:`layout_differences`); None otherwise.
    layout_differences: int | None = None
    #: The residents ticked on the sheet's tally, when plainly read (``TALLY_SURE``) and not
    #: every box is ticked (the tally then says only "at least"); left out of the result of
    #: a sheet doubted as a whole.
    residents: int | None = None

    def to_json(self, game: str = "sunflower-valley") -> dict[str, Any]:
        ordered = sorted(self.readings, key=lambda r: (r.hex.q, r.hex.r))
        out: dict[str, Any] = {
            "game": game,
            "player": {"cells": [r.cell() for r in ordered]},
            "confidence": [
                {
                    "q": r.hex.q,
                    "r": r.hex.r,
                    "p": round(r.p, 3),
                    "flagged": bool(r.p < self.flag_below),
                }
                for r in ordered
            ],
            "seconds": round(self.seconds, 3),
        }
        doubted = any("sheet" in r.parts for r in self.readings)  # doubt_all
        if self.residents is not None and not doubted:  # the board file's own field
            out["player"]["residents"] = self.residents
        if self.layout_differences is not None:  # an extension of the shared contract
            out["layout_differences"] = self.layout_differences
        if doubted:  # so is this
            out["sheet_doubted"] = True
        if self.outline:  # and this
            out["outline"] = self.outline
        return out


def recognize(
    image_bytes: bytes,
    game: str = "sunflower-valley",
    layout: Mapping[str, Any] | None = None,
    side: str | None = None,
    whole: bool = False,
) -> dict[str, Any]:
    """The photo's sheet or board as ``{"game", "player", "confidence", "seconds"}``.

    ``layout`` is a Sunflower Valley sheet layout or a Spring Meadow burrow layout; ``side``
    the Harmonies board side when known, ``whole`` whether that board holds a whole number
    of turns' tokens (``harmonies_turns``: the app's boards do). Raises :class:`PhotoError`
    (one readable line) for a file that is not an image, is truncated or too large, or
    shows no recognisable sheet or board; BoardError for a bad layout."""
    with naming_other_boards(image_bytes, game):
        if game == "harmonies":
            return harmonies.recognize_harmonies(image_bytes, side=side, whole=whole)
        if game == "spring-meadow":
            return spring_meadow.recognize_spring_meadow(image_bytes, layout=layout)
        return analyse(image_bytes, game, layout).to_json(game)


def recognize_layout(
    image_bytes: bytes, game: str = "sunflower-valley", name: str = "photographed sheet"
) -> dict[str, Any]:
    """The printed layout in a photo: ``{"layout", "confidence", "seconds"}``.

    A Sunflower Valley sheet gives its areas (named by their colours) and mountains, whatever
    is drawn on it, and ``"sheet_doubted": true`` when its grid was not found as a sheet
    prints it (every cell flagged); a Spring Meadow board side gives its burrows
    (:func:`scorepad.vision.spring_meadow.recognize_spring_meadow_layout`)."""
    if game == "spring-meadow":
        with naming_other_boards(image_bytes, game):
            return spring_meadow.recognize_spring_meadow_layout(image_bytes, name=name)
    if game == "harmonies":
        # Both Harmonies sides are fixed prints: there is no layout to read, and the board's
        # cells (stacks, no areas) are not a sheet's (it raised KeyError here).
        raise PhotoError("a Harmonies board has no layout to read: its sides A and B are fixed")
    found = recognize(image_bytes, game)
    out = {
        "layout": {"name": name, "cells": sv.blank_sheet(found["player"])},
        "confidence": found["confidence"],
        "seconds": found["seconds"],
    }
    if found.get("sheet_doubted"):  # the grid itself, i.e. the layout's shape, is in doubt
        out["sheet_doubted"] = True
    return out


def analyse(
    image_bytes: bytes, game: str = "sunflower-valley", layout: Mapping[str, Any] | None = None
) -> Recognition:
    """Like :func:`recognize`, keeping the details."""
    start = time.perf_counter()
    if game != sv.NAME:
        raise PhotoError(
            f"recognising {game!r} photos is not supported (only {', '.join(SUPPORTED)})"
        )
    if layout is not None and not isinstance(layout, Mapping):  # a list or text, not a layout
        raise BoardError(["the layout is not a JSON object"])
    parsed = sv.parse_layout(dict(layout)) if layout is not None else None
    photo = decode(image_bytes, WORK_SIDE)
    rectified, grid = locate(photo, None if parsed is None else layout_shape(parsed))
    tally = read_tally(rectified.image)
    readings = read(photo, rectified, grid, tally.count)
    support = grid.trusted_support  # a grid off the print is doubted whole...
    if not looks_like_sheet(readings, support):
        refuse_other_boards(photo, sv.NAME)
        refuse_no_sheet(readings, grid.mean_support)  # ...not refused as no sheet at all
    differences = None
    if parsed is not None:
        shift = best_shift(readings, parsed)
        if grid_fits_layout(readings, parsed, support):
            differences = layout_differences(readings, parsed, shift)
        readings = fit_layout(readings, parsed, support, shift)
    else:
        readings = doubt_odd_sheets(readings, support)
    model = symbols.load()
    corners = rectified.corners.tolist()
    return Recognition(
        readings=readings,
        orientation=grid.lattice.orientation.value,
        corners=corners,
        seconds=time.perf_counter() - start,
        flag_below=model.flag_below,
        layout_differences=differences,
        residents=tally.count if tally.margin >= TALLY_SURE and tally.count < BOXES else None,
        outline=outline_fractions(rectified.corners, photo),
    )


def locate(photo: np.ndarray, fits: Callable[[Grid], bool] | None = None) -> tuple[Rectified, Grid]:
    """The sheet and its hex grid. Candidate outlines are tried in turn; a grid of a whole
    sheet's worth of well-outlined hexes is taken at once, otherwise the best one seen.
    With ``fits`` (:func:`layout_shape`) a grid is taken at once only when it also fits,
    and any grid that fits is preferred to one that does not. When no outline of the
    paper's regions settles it, outlines on the photo's straight edges are tried too
    (:func:`edge_sheets`), and one is taken only when its grid settles it. After
    ``LOCATE_SECONDS`` of the thread's CPU, no more outline or lattice reading is tried
    once the best grid is one no sheet has (``lattice.past_budget``)."""
    problem = NO_SHEET
    best: tuple[tuple[bool, bool, float], Rectified, Grid] | None = None
    deadline = time.thread_time() + LOCATE_SECONDS
    for regions, limit in ((True, MAX_GRIDS), (False, EDGE_SHEETS)):
        tried = 0
        for quad in candidate_outlines(photo) if regions else edge_sheets(photo):
            if tried == limit or (best is not None and past_budget(deadline, best[2])):
                break  # enough tries: keep the latency bounded
            try:
                rectified = rectify(photo, quad)
                tried += 1
                rectified, grid = sheet_grid(rectified, fits, deadline)
            except PhotoError as err:
                problem = str(err)
                continue
            settled, rank = ranked(grid, fits)
            if settled:
                return rectified, grid
            if regions and (best is None or rank > best[0]):
                best = (rank, rectified, grid)
    if best is None:
        raise PhotoError(problem)
    return best[1], best[2]


def sheet_grid(
    rectified: Rectified, fits: Callable[[Grid], bool] | None, deadline: float = math.inf
) -> tuple[Rectified, Grid]:
    """A rectified sheet's hex grid (``find_grid``, its lattice readings tried until the
    ``deadline`` of ``time.thread_time``), the sheet turned when it came out upside down."""
    trimmed_fits = None if fits is None else (lambda g: fits(trim(g)))
    edges = outline_map(rectified.image)
    grid = trim(find_grid(rectified.image, trimmed_fits, edges, deadline))
    if tally_above(edges, grid, rectified.image):
        rectified = turned(rectified)
        grid = trim(find_grid(rectified.image, trimmed_fits, deadline=deadline))
    return rectified, grid


def edge_sheets(photo: np.ndarray) -> list[np.ndarray]:
    """Outlines on four of the photo's long straight edges (``edge_outlines``) with
    a sheet's proportions (within ``EDGE_ASPECT``, seen through a phone's usual focal
    length), the ``EDGE_SHEETS`` largest: the paper of a sheet in a shadow and touching
    light things, which no region of paper outlines (validation photo 3312)."""
    size = (photo.shape[1], photo.shape[0])
    focal = default_focal(size)

    def sheet_like(quad: np.ndarray) -> bool:
        aspect = aspect_of(quad, focal, size)
        return abs(max(aspect, 1 / aspect) / SHEET_ASPECT - 1) <= EDGE_ASPECT

    quads = [q for q in edge_outlines(photo) if sheet_like(q)]
    return sorted(quads, key=lambda q: -cv2.contourArea(q.astype(np.float32)))[:EDGE_SHEETS]


def tally_above(edges: np.ndarray, grid: Grid, sheet: np.ndarray | None = None) -> bool:
    """Whether the sheet came out upside down: its residents tally shows above the grid
    on the sheet's outline map (``edges``); with the rectified ``sheet``, by a smaller lead
    when a header band shows along its bottom edge."""
    ys = [y for _x, y in grid.cells.values()]
    margin = grid.lattice.size
    return upside_down(edges, min(ys) - margin, max(ys) + margin, sheet)


def layout_shape(layout: sv.Layout) -> Callable[[Grid], bool]:
    """Whether a grid's hexes have the layout's shape (its hexes up to a translation, in the
    grid's orientation). With a layout given, a grid of another shape is a wrong lattice or
    a wrong sheet outline however well outlined: a checked table or a shadow can give one
    (validation photos 200-399: four of the five sheets with most wrong hexes had a grid of
    the layout's shape among the outlines and lattice readings tried)."""
    hexes = [c.hex for c in layout.cells]
    shapes = {o: set(normal_map(hexes, o)) for o in Orientation}
    return lambda grid: set(grid.cells) == shapes[grid.lattice.orientation]


def trim(grid: Grid) -> Grid:
    """A sheet has 30 hexes: when more were found, the extra ones are those outlined only in
    part (a shadow or the table taken for print colour next to the sheet's edge). Such hexes
    are dropped, least outlined first, while the rest stays one connected group of at least
    30; coordinates are normalised again."""
    if len(grid.cells) <= FULL_SHEET:
        return grid
    by_raw = {raw: n for n, raw in grid.raw.items()}
    kept = drop_extras(set(by_raw), {raw: grid.outline_support[n] for raw, n in by_raw.items()})
    if len(kept) == len(by_raw):
        return grid
    mapping = normal_map(kept, grid.lattice.orientation)
    return replace(  # a grid off the print stays off it (lattice.OFF_PRINT)
        grid,
        cells={n: grid.lattice.centre(raw) for n, raw in mapping.items()},
        raw=mapping,
        outline_support={n: grid.outline_support[by_raw[raw]] for n, raw in mapping.items()},
    )


def read(
    photo: np.ndarray, rectified: Rectified, grid: Grid, ticked: int | None = None
) -> list[Reading]:
    """Mountain, area, item and rail sides of every hex, each with its probability; with
    the residents ``ticked`` on the sheet's tally, the split between sunflowers and super
    sunflowers settled by it (``tally.settle_split``)."""
    orientation = grid.lattice.orientation
    found = cellread.read_cells(photo, rectified.to_photo, rectified.image, grid)
    model = symbols.load()
    inks = cellread.normalise_inks([c.ink for c in found])
    fills = [c.fill for c in found]
    feats = cellread.sheet_features(inks, fills, orientation)
    side = symbols.net_side(np.array(fills), np.full(len(found), orientation is Orientation.POINTY))
    probs = resolve_super(model, model.probabilities(feats, np.array(inks), side), inks)
    probs, drawn = settle_split(probs, ticked, model.tally_slip, model.tally_miscount)
    mountain_col = symbols.CLASSES.index("mountain")
    mountain_p = probs[:, mountain_col]
    mountains = mountain_p >= 0.5
    area_idx = np.flatnonzero(~mountains)
    fills = np.array([found[i].fill for i in area_idx]).reshape(-1, 3)
    labels, area_p = cellread.cluster_areas(fills)
    names = cellread.name_areas(fills, labels) if len(area_idx) else {}
    family = (
        probs[:, symbols.CLASSES.index("sunflower")]
        + probs[:, symbols.CLASSES.index("super-sunflower")]
    )
    best_items = symbols.best_items(probs)
    supers = int((best_items == symbols.CLASSES.index("super-sunflower")).sum())
    members = int((family >= 0.5).sum())
    trust_rows, trust_x = family_trust_features(probs, drawn)
    trust = model.trust(trust_x) if len(trust_rows) else None
    trusted = {} if trust is None else dict(zip(trust_rows.tolist(), trust.tolist(), strict=True))
    unsure_family = not trusted and members >= FAMILY_DOUBT and supers < FEW_SUPERS * members
    readings = []
    for i, c in enumerate(found):
        m = float(mountain_p[i])
        if mountains[i]:
            readings.append(Reading(c.hex, True, None, None, None, m, {"mountain": m}))
            continue
        k = int(np.searchsorted(area_idx, i))
        best = int(best_items[i])
        item = symbols.CLASSES[best]
        parts = {"area": float(area_p[k]), "item": float(probs[i, best])}
        if i in trusted:
            parts["item"] = trusted[i] * family_share(probs[i])
        if unsure_family and item == "sunflower":
            # Several sunflowers and (almost) no super sunflower: more likely a player's
            # super mark we do not tell apart than a sheet without any (validation: about
            # one such sunflower in six was a super sunflower).
            parts["family"] = NO_SUPER_SEEN
        sides = None
        if item == "rail":
            side_p = model.rail_side_probabilities(cellread.rail_features(inks[i], orientation))[0]
            j = int(np.argmax(side_p))
            sides = sv.RAIL_ORIENTATIONS[j]
            parts["sides"] = float(side_p[j])
        p = float(np.prod(list(parts.values())))
        name = names[int(labels[k])]
        readings.append(
            Reading(c.hex, False, name, None if item == "empty" else item, sides, p, parts)
        )
    return readings


def doubt_odd_sheets(readings: list[Reading], outline_support: float = 1.0) -> list[Reading]:
    """A sheet has 30 hexes, 5 of them mountains (rules digest). When the photo gives
    another count, something was missed or invented somewhere: every cell is then doubted
    (flagged) rather than trusted. So is a grid whose hexes are on average not outlined
    (nearly) all round (``outline_support``, the mean share of a hex's sides with a printed
    outline): a sheet outline found wrongly or a lattice off by a fraction of a hex."""
    return readings if looks_like_sheet(readings, outline_support) else doubt_all(readings)


def looks_like_sheet(readings: list[Reading], outline_support: float) -> bool:
    """Whether the hexes read are a whole sheet as printed: 30 hexes, 5 of them mountains,
    outlined (nearly) all round on average (:func:`doubt_odd_sheets`)."""
    mountains = sum(r.mountain for r in readings)
    return sheet_shaped(len(readings), outline_support) and mountains == SHEET_MOUNTAINS


def sheet_shaped(hexes: int, outline_support: float) -> bool:
    """The grid's part of :func:`looks_like_sheet`: a sheet's 30 hexes, outlined (nearly)
    all round on average; known before the hexes are read."""
    return hexes == FULL_SHEET and outline_support >= WELL_OUTLINED


def refuse_no_sheet(readings: list[Reading], outline_support: float) -> None:
    """Refuse a photo that shows no sheet at all: not one mountain among its hexes, and
    either more than twice a sheet's hexes or hexes not outlined all round (below
    ``WELL_OUTLINED``). A picture with any fine texture gives some lattice: photos of a
    cat read 123-144 hexes outlined at 0.97, or 30 at 0.67, and a Spring Meadow board not
    named as one 28 at 0.77, none a mountain; read all doubted, they replaced a player's
    board. Of 316 VALIDATION sheets (300-599 and 16 of the hardest grids) none has more
    than 36 hexes; two read without a mountain and below 0.9 are refused: 267 without its
    layout (read sideways, 1 hex of 30 right; with the layout its grid is found and read),
    6125 (a wrong lattice: 0 and, with its layout, 10 of 30 right, all doubted). 570 (36
    hexes, no mountain, 0.96) and 5980 (30, none, 1.0) are still read, doubted."""
    mountains = sum(r.mountain for r in readings)
    many = len(readings) > 2 * FULL_SHEET
    if mountains == 0 and (many or outline_support < WELL_OUTLINED):
        raise NoSheet(NO_SHEET)


class NoSheet(PhotoError):
    """No sheet in the photo, and no other game's board either (looked for already)."""


#: What each game's photo shows, for naming it in a refusal.
SHOWS = {
    sv.NAME: ("a Sunflower Valley sheet", "Sunflower Valley"),
    "harmonies": ("a Harmonies board", "Harmonies"),
    "spring-meadow": ("a Spring Meadow board", "Spring Meadow"),
}


class OtherBoard(PhotoError):
    """The photo shows another game's sheet or board than the one asked for (named)."""


def shows_sheet(photo: np.ndarray) -> bool:
    """Whether the photo (decoded at ``WORK_SIDE``) shows a Sunflower Valley sheet whose
    hexes read as a whole sheet as printed (:func:`looks_like_sheet`)."""
    try:
        rectified, grid = locate(photo)
    except PhotoError:
        return False
    if not sheet_shaped(len(grid.cells), grid.mean_support):
        return False  # no sheet, whatever its hexes hold: spare reading them (a cat: 4 s)
    return looks_like_sheet(read(photo, rectified, grid), grid.mean_support)


def board_shown(photo: np.ndarray, games: list[str]) -> str | None:
    """Which of ``games`` (Harmonies, Spring Meadow) has its board plainly in the photo
    (decoded at ``WORK_SIDE``), if any: one cheap look for all their prints at once
    (:func:`boards.glance_board`, no retries; cheaper than one look per game), then
    that game's own check of the board found (tokens on the hexes, the arrow in the band),
    at the fit its finder takes a board at."""
    kinds: dict[str, tuple[list[BoardSpec], float, Callable[..., bool]]] = {
        "harmonies": (
            [hprint.board_spec("A"), hprint.board_spec("B")],
            boards.HIDDEN_MARGINS_RETRY_BELOW,  # stacks lean over the margins
            harmonies.has_tokens,
        ),
        "spring-meadow": ([spring_meadow.SPEC], boards.RETRY_BELOW, spring_meadow.has_arrow),
    }
    specs = [spec for game in games for spec in kinds[game][0]]
    found = boards.glance_board(photo, specs, min(kinds[game][1] for game in games))
    if found is None:
        return None
    game = next(game for game in games if found.spec in kinds[game][0])
    _specs, min_fit, holds = kinds[game]
    return game if found.score >= min_fit and holds(photo, found) else None


def refuse_other_boards(photo: np.ndarray, game: str) -> None:
    """Raise :class:`OtherBoard` when the photo plainly shows another game's sheet or board
    than ``game``'s. Asked only when the photo was not read as ``game``'s: refused, or a
    Sunflower Valley grid that is not a sheet as printed (its cells would otherwise come
    back all doubted, or fitted onto the table's layout, with nothing said of the real
    mistake). Costs about 0.6-1.1 s of CPU, on those photos only."""
    shown = board_shown(photo, [g for g in ("harmonies", "spring-meadow") if g != game])
    if shown is None and game != sv.NAME and shows_sheet(photo):
        shown = sv.NAME
    if shown is not None:
        wanted, (seen, title) = SHOWS[game][0], SHOWS[shown]
        raise OtherBoard(
            f"the photo shows {seen}, not {wanted}: photograph {wanted}, "
            f"or score it at a {title} table"
        )


@contextmanager
def naming_other_boards(image_bytes: bytes, game: str) -> Iterator[None]:
    """A refusal of a photo of another game's sheet or board says which game it shows
    (:func:`refuse_other_boards`); any other refusal stays as it was."""
    try:
        yield
    except (OtherBoard, NoSheet):
        raise
    except PhotoError as refused:
        if game not in SHOWS:
            raise
        try:
            photo = decode(image_bytes, WORK_SIDE)
        except PhotoError:
            raise refused from None  # not an image: said already
        refuse_other_boards(photo, game)
        raise


def fit_layout(
    readings: list[Reading], layout: sv.Layout, outline_support: float, shift: Hex | None = None
) -> list[Reading]:
    """The photo's hexes fitted onto the known layout (:func:`constrain`), every cell doubted
    when the grid is not to be trusted (:func:`grid_fits_layout`)."""
    fitted = constrain(readings, layout, shift)
    if not grid_fits_layout(readings, layout, outline_support):
        return doubt_all(fitted)
    return fitted


def grid_fits_layout(readings: list[Reading], layout: sv.Layout, outline_support: float) -> bool:
    """Whether the grid found can be trusted with a layout: hexes on average outlined all
    round, and as many as the layout has. A grid found on part of a shadowed sheet can be well
    outlined and still be the wrong lattice; its hex count is what gives it away (validation
    photos 100-399: silent errors 1.01 % -> 0.79 %, flagged 5.99 % -> 6.23 %)."""
    return outline_support >= WELL_OUTLINED and len(readings) == len(layout.cells)


def doubt_all(readings: list[Reading]) -> list[Reading]:
    """Every cell of the sheet doubted (its probability times ODD_SHEET)."""
    for r in readings:
        r.parts["sheet"] = ODD_SHEET
        r.p *= ODD_SHEET
    return readings


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(p / (1 - p)))


def family_share(p: np.ndarray) -> float:
    """How sure the classifier is that a hex holds a sunflower of either kind (mountains
    aside). The trust of a sunflower reading (:func:`family_trust_features`) is calibrated
    on the split: its regression all but ignores this share (weight 0.04 on its logit), as
    nearly every hex it was fitted on is plainly a sunflower. So a house or sheep read as a
    super sunflower at 0.66 came out trusted at 0.999; the reading's probability is the
    trust times this share."""
    sun = p[symbols.CLASSES.index("sunflower")] + p[symbols.CLASSES.index("super-sunflower")]
    return float(min(sun / max(1.0 - p[symbols.CLASSES.index("mountain")], 1e-9), 1.0))


def family_trust_features(
    probs: np.ndarray, drawn: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The hexes of one sheet read as sunflower or super sunflower (not mountains), and per
    such hex what says whether the reading is right: the confidence of the split (logit),
    the sheet's mean uncertainty of the split (a player whose super mark the model does not
    tell apart, such as a star drawn over the flower, leaves every split of the sheet
    unsure), the share read as super and "several, fewer than a fifth super" (a third are
    super on average), the sunflower-like probability itself, super or not, the number
    of such hexes, and whether the residents tally settled the split, alone and times the
    uncertainty. ``probs`` are the class probabilities after :func:`resolve_super`, and
    after ``tally.settle_split`` when it settled them; then ``drawn`` are those before
    it, whose uncertainty is the drawings' own (the settled split is surer)."""
    sun = symbols.CLASSES.index("sunflower")
    sup = symbols.CLASSES.index("super-sunflower")
    mountain = symbols.CLASSES.index("mountain")
    best = symbols.best_items(probs)
    rows = np.flatnonzero(np.isin(best, (sun, sup)) & (probs[:, mountain] < 0.5))
    if len(rows) == 0:
        return rows, np.zeros((0, 10))
    fam = probs[rows, sun] + probs[rows, sup]
    share = probs[rows, sup] / np.maximum(fam, 1e-9)
    is_super = (best[rows] == sup).astype(np.float64)
    conf = np.where(is_super > 0, share, 1 - share)
    own = probs if drawn is None else drawn
    own_share = own[rows, sup] / np.maximum(own[rows, sun] + own[rows, sup], 1e-9)
    unsure = float(np.mean(np.minimum(own_share, 1 - own_share)))
    settled = float(drawn is not None)
    n = len(rows)
    frac = float(is_super.mean())
    few = float(n >= FAMILY_DOUBT and frac < FEW_SUPERS)
    fam_item = np.minimum(fam / np.maximum(1 - probs[rows, mountain], 1e-9), 1.0)
    x = np.stack(
        [
            _logit(conf),
            np.full(n, unsure),
            np.full(n, frac),
            np.full(n, few),
            _logit(fam_item),
            is_super,
            is_super * _logit(conf),
            np.full(n, math.log(n)),
            np.full(n, settled),
            np.full(n, settled * unsure),
        ],
        axis=1,
    )
    return rows, x


def resolve_super(
    model: symbols.SymbolModel, probs: np.ndarray, inks: list[np.ndarray]
) -> np.ndarray:
    """Split each sunflower-like hex's probability between sunflower and super sunflower by
    comparing it with the sheet's other sunflower-like hexes (second stage)."""
    opinions = family_opinions(model, probs, inks)
    if opinions is None:
        return probs
    members, own, *others = opinions
    sun = symbols.CLASSES.index("sunflower")
    sup = symbols.CLASSES.index("super-sunflower")
    family = probs[members, sun] + probs[members, sup]
    out = probs.copy()
    share = model.split(split_features(own, *others))
    if share is None:  # an older model: geometric blend of the two opinions, softened
        p_super = others[0]
        blended = np.sqrt(np.clip(own, 1e-6, 1) * np.clip(p_super, 1e-6, 1))
        other = np.sqrt(np.clip(1 - own, 1e-6, 1) * np.clip(1 - p_super, 1e-6, 1))
        share = blended / (blended + other)
        logit = np.log(np.clip(share, 1e-6, 1 - 1e-6) / np.clip(1 - share, 1e-6, 1))
        share = 1 / (1 + np.exp(-logit / model.super_temperature))
    out[members, sup] = family * share
    out[members, sun] = family * (1 - share)
    return out


def family_opinions(
    model: symbols.SymbolModel, probs: np.ndarray, inks: list[np.ndarray]
) -> tuple[np.ndarray, ...] | None:
    """The opinions the split weighs, for the sunflower-like hexes of one sheet (those at
    least half sunflower or super sunflower): their rows, each one's own share of super
    sunflower, the second stage's P(super) from comparing them, and, when the model has a
    family network, its P(super). None when fewer than two such hexes, or the model has
    no second stage."""
    sun = symbols.CLASSES.index("sunflower")
    sup = symbols.CLASSES.index("super-sunflower")
    family = probs[:, sun] + probs[:, sup]
    members = np.flatnonzero(family >= 0.5)
    if len(members) < 2:
        return None
    group = [inks[i] for i in members]
    features = cellread.family_features(group)
    p_super = model.super_probability(features)
    if p_super is None:
        return None
    own = probs[members, sup] / np.maximum(family[members], 1e-9)
    p_net = model.family_probability(cellread.family_maps(group), features)
    return (members, own, p_super) if p_net is None else (members, own, p_super, p_net)


def split_features(*opinions: np.ndarray) -> np.ndarray:
    """What the sunflower / super sunflower split weighs, per sunflower-like hex of one
    sheet: each opinion (the hex's own share of super sunflower, the second stage's
    within-sheet P(super), and the family network's when there is one) as a logit, against
    the sheet's median and its highest, and as a rank within the sheet. A player's super
    mark shows as a step above the rest of the same sheet more reliably than as any
    absolute value."""
    cols = []
    for v in (_logit(o) for o in opinions):
        rank = (np.argsort(np.argsort(v)) + 0.5) / len(v)
        cols += [v, v - np.median(v), rank, v - v.max()]
    return np.stack(cols, axis=1)


def constrain(
    readings: list[Reading], layout: sv.Layout, shift: Hex | None = None
) -> list[Reading]:
    """Fit the photo's hexes onto a known layout, moved by ``shift`` (by default
    :func:`best_shift`); the layout's own names and mountains win, and any hex where the
    photo disagrees with the layout is flagged (probability lowered)."""
    want = {c.hex: c for c in layout.cells}
    got = {r.hex: r for r in readings}
    t = best_shift(readings, layout) if shift is None else shift
    moved = {Hex(h.q + t.q, h.r + t.r): r for h, r in got.items()}
    out = []
    for h, cell in want.items():
        r = moved.get(h)
        if r is None:  # the photo did not show this hex
            out.append(Reading(h, cell.mountain, cell.area, None, None, 0.0, {"missing": 0.0}))
            continue
        parts = dict(r.parts)
        parts.pop("area", None)
        agree = r.mountain == cell.mountain
        parts["layout"] = 1.0 if agree else 0.2
        if cell.mountain:
            out.append(Reading(h, True, None, None, None, parts["layout"], parts))
            continue
        p = float(np.prod(list(parts.values())))
        item = r.item if not r.mountain else None
        sides = r.sides if item == "rail" else None
        out.append(Reading(h, False, cell.area, item, sides, p if not r.mountain else 0.0, parts))
    return out


def best_shift(readings: list[Reading], layout: sv.Layout) -> Hex:
    """The translation of photo coordinates onto the layout's that best agrees on hexes,
    mountains and colour areas (photo coordinates start at the sheet's top-left hex)."""
    want = {c.hex: c for c in layout.cells}
    got = {r.hex: r for r in readings}
    best: tuple[float, Hex] | None = None
    for w in want:
        for g in got:
            t = Hex(w.q - g.q, w.r - g.r)
            value = _compare(got, want, t).agreement
            if best is None or value > best[0]:
                best = (value, t)
    if best is None:
        raise BoardError(["the layout has no cells"])
    return best[1]


def layout_differences(readings: list[Reading], layout: sv.Layout, shift: Hex) -> int:
    """How many of the photo's hexes, moved by ``shift``, the layout prints otherwise: a
    mountain where the photo has none or the other way round, or an area hex whose colour
    group mostly lies in another of the layout's areas. A correctly found grid read against
    its own layout differs nowhere or at a hex; a whole sheet photographed against another
    layout differs at many (the table's layout is then probably the wrong one)."""
    seen = _compare({r.hex: r for r in readings}, {c.hex: c for c in layout.cells}, shift)
    return seen.overlap - seen.mountains_agree + seen.misgrouped


@dataclass(frozen=True)
class _Comparison:
    overlap: int  # photo hexes that land on a layout hex
    mountains_agree: int  # of those, the ones both call mountain or both not
    areas: Counter[tuple[str, str]]  # (photo colour group, layout area) -> hexes

    def best_per_group(self) -> dict[str, int]:
        best: dict[str, int] = {}
        for (mine, _theirs), n in self.areas.items():
            best[mine] = max(best.get(mine, 0), n)
        return best

    @property
    def agreement(self) -> float:
        return self.overlap + self.mountains_agree + sum(self.best_per_group().values()) * 0.5

    @property
    def misgrouped(self) -> int:
        return sum(self.areas.values()) - sum(self.best_per_group().values())


def _compare(got: Mapping[Hex, Reading], want: Mapping[Hex, Any], t: Hex) -> _Comparison:
    overlap = agree = 0
    pairs: Counter[tuple[str, str]] = Counter()
    for h, r in got.items():
        cell = want.get(Hex(h.q + t.q, h.r + t.r))
        if cell is None:
            continue
        overlap += 1
        if bool(cell.mountain) == r.mountain:
            agree += 1
        if not cell.mountain and not r.mountain and r.area:
            pairs[(r.area, cell.area)] += 1
    return _Comparison(overlap, agree, pairs)
