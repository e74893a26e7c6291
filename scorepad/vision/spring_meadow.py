"""``recognize_spring_meadow(image_bytes, layout=None)``: a phone photo of a Spring Meadow
mountain board to the board file's ``orientation`` and ``rows`` (formats.md, "Recognising
a photo"), every square with a probability, the uncertain ones flagged; and
``recognize_spring_meadow_layout(image_bytes)``: a photo of a board side before play to
its burrow layout (``docs/spring-meadow.md``, "Board layouts").

1. **The board** is found like a Harmonies board (``boards.find_board``): the light printed
   rectangle with the title band (and its arrow) on top, in the proportions of 10 x 15
   squares and margins. Its corners give the camera's pose. The middle of the title band
   must show the printed arrow (``arrow_score``, looked for within ``ARROW_REACH`` of where
   the outline puts it): a Sunflower Valley sheet, also light with a dark band on top, is
   refused. A board whose outline fits the print poorly (``boards.RETRY_BELOW``) may have
   its grid off the squares over a large area: no square is trusted more than the fit, so
   all are flagged.
2. **Orientation.** The arrow pointing up or down in the photo means vertical play, left
   or right horizontal (the player's view; ``spring_meadow.turn_square``).
3. **Squares.** The photo is re-projected onto the board plane; every square is measured
   in three rings (its centre, where a burrow is printed; a middle ring; an outer ring, past
   the edge of a meadow tile's round hole), colours divided by the board's own snow white.
   A small trained model reads each square as snow, snow seen through a hole, covered,
   open burrow, cleared burrow (a burrow seen through a hole) or marmot.
4. **Constraints.** A side has 11 burrows: at most 11 burrow squares are kept; with a
   layout, burrow codes appear only on its burrows and snow never does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorepad.boardfile import BoardError
from scorepad.games import spring_meadow as sm
from scorepad.games.spring_meadow import COLS, ROWS
from scorepad.vision import boards
from scorepad.vision.board_print import BoardSpec
from scorepad.vision.decode import PhotoError, decode, outline_fractions
from scorepad.vision.mlp import Mlp

#: The printed board, in millimetres, as printed (vertical, the arrow pointing up).
SQUARE = 20.0
GRID_COLS = COLS["vertical"]  # 10
GRID_ROWS = ROWS["vertical"]  # 15
MARGIN = 10.0  # plain border left, right and below the grid
HEADER = 24.0  # border above the grid, holding the title band and its arrow
BAND = (3.0, 19.0)
WIDTH = GRID_COLS * SQUARE + 2 * MARGIN
HEIGHT = GRID_ROWS * SQUARE + MARGIN + HEADER
TILE_THICKNESS = 2.0
HOLE_RADIUS = 0.36 * SQUARE  # meadow tiles' round holes
MARMOT_HEIGHT = 17.0
MARMOT_RADIUS = 6.0

SPEC = BoardSpec("spring-meadow", WIDTH, HEIGHT, MARGIN, HEADER, BAND)
WORK_SIDE = 2000  # long side of the decoded photo we work on
PPM = 3.0  # pixels per mm of the re-projected board
#: What the model tells apart, and the square code each stands for.
CLASSES = ("snow", "hole", "covered", "open", "cleared", "marmot")
CODE = {
    "snow": sm.SNOW,
    "hole": sm.SNOW,
    "covered": sm.COVERED,
    "open": sm.OPEN,
    "cleared": sm.CLEARED,
    "marmot": sm.MARMOT,
}
MODEL_FILE = Path(__file__).parent / "models" / "spring_meadow_model.npz"


@dataclass(frozen=True)
class Square:
    """A square of the printed grid (row 0 at the top, next to the title band)."""

    row: int
    col: int

    @property
    def centre(self) -> tuple[float, float]:
        """Its centre on the printed board (mm from the top-left corner)."""
        return (MARGIN + (self.col + 0.5) * SQUARE, HEADER + (self.row + 0.5) * SQUARE)


# --- 1, 2. the board and its orientation ---------------------------------------------------


def locate(photo: np.ndarray) -> boards.Found:
    return boards.find_board(photo, [SPEC], "Spring Meadow")


def play_orientation(found: boards.Found) -> str:
    """Vertical when the printed arrow (the board's top) points up or down in the photo."""
    tl, tr, br, bl = found.corners
    up = (tl + tr) / 2 - (bl + br) / 2
    return "vertical" if abs(up[1]) >= abs(up[0]) else "horizontal"


# --- 3. squares ----------------------------------------------------------------------------


class Plane:
    """The photo re-projected onto the board plane at PPM pixels per mm, divided by the
    board's snow white (measured on the margins)."""

    def __init__(self, photo: np.ndarray, found: boards.Found) -> None:
        w, h = int(WIDTH * PPM), int(HEIGHT * PPM)
        to_px = np.array([[PPM, 0, -0.5], [0, PPM, -0.5], [0, 0, 1.0]])
        m = found.camera.plane(0) @ np.linalg.inv(to_px)
        rect = cv2.warpPerspective(
            photo, m, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA
        ).astype(np.float32)
        parts = [
            rect[
                int((HEIGHT - MARGIN + 2) * PPM) : int((HEIGHT - 2) * PPM),
                int(3 * PPM) : int((WIDTH - 3) * PPM),
            ],
            rect[
                int(HEADER * PPM) : int((HEIGHT - MARGIN) * PPM),
                int(2 * PPM) : int((MARGIN - 2) * PPM),
            ],
            rect[
                int(HEADER * PPM) : int((HEIGHT - MARGIN) * PPM),
                int((WIDTH - MARGIN + 2) * PPM) : int((WIDTH - 2) * PPM),
            ],
        ]
        pixels = np.concatenate([p.reshape(-1, 3) for p in parts])
        bright = pixels[pixels.sum(axis=1) >= np.percentile(pixels.sum(axis=1), 40)]
        self.white = np.median(bright, axis=0) + 1e-3
        logs = np.log(np.maximum(rect / self.white, 0.02))
        light = logs.mean(axis=2, keepdims=True)
        # Log chromaticity (3) and log brightness: light and shade change only the last.
        self.features = np.concatenate([logs - light, light], axis=2).astype(np.float32)
        self.camera = found.camera
        self.band = self._band_brightness(photo)

    def _band_brightness(self, photo: np.ndarray) -> np.ndarray:
        """Log brightness (as in ``features``) of the band's middle where ``arrow_score``
        looks for the arrow, ``ARROW_REACH`` mm wider every way, past the board's top edge
        too (an outline whose top edge fell inside the band would cut the arrow)."""
        reach = round(ARROW_REACH * PPM)
        left = round((WIDTH / 2 - ARROW_HALF) * PPM) - reach
        top = round(BAND[0] * PPM) - reach
        h, w = _arrow_template().shape
        to_px = np.array([[PPM, 0, -0.5 - left], [0, PPM, -0.5 - top], [0, 0, 1.0]])
        m = self.camera.plane(0) @ np.linalg.inv(to_px)
        patch = cv2.warpPerspective(
            photo, m, (w + 2 * reach, h + 2 * reach), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA
        ).astype(np.float32)
        return np.log(np.maximum(patch / self.white, 0.02)).mean(axis=2).astype(np.float32)


def _ring(radii: tuple[float, ...], count: int) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, count, endpoint=False)
    return np.array([(r * math.cos(t), r * math.sin(t)) for r in radii for t in a])


#: Sample points around a square's centre (mm): its burrow, a middle ring, an outer ring
#: past a hole's edge but inside the square, and its corners' neighbourhood.
_RINGS = {
    "centre": np.vstack([[(0.0, 0.0)], _ring((1.5, 3.0, 4.5), 8)]),
    "middle": _ring((5.5, 6.5), 16),
    "outer": _ring((8.2, 9.0), 24),
    "corner": np.array([(sx * 8.5, sy * 8.5) for sx in (-1, 1) for sy in (-1, 1)]),
}


def square_features(plane: Plane) -> np.ndarray:
    """One row of measurements per square (row-major, printed frame): per ring, the mean
    and spread of the four colour features, and how dark and how green it is."""
    centres = np.array([Square(r, c).centre for r in range(GRID_ROWS) for c in range(GRID_COLS)])
    blocks = []
    for offsets in _RINGS.values():
        pts = (centres[:, None, :] + offsets[None, :, :]) * PPM - 0.5
        _n, _k = pts.shape[:2]
        vals = cv2.remap(
            plane.features,
            pts[..., 0].astype(np.float32),
            pts[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        chroma, light = vals[..., :3], vals[..., 3]
        green = (chroma[..., 1] - np.maximum(chroma[..., 0], chroma[..., 2]) > 0.08).mean(axis=1)
        dark = (light < -0.9).mean(axis=1)
        blocks += [
            vals.mean(axis=1),
            vals.std(axis=1),
            np.median(vals, axis=1),
            green[:, None],
            dark[:, None],
        ]
    # The camera's view of the square: marmots lean away from the point below the lens.
    cam = plane.camera
    lean = (centres - cam.nadir) / cam.height
    blocks.append(lean)
    return np.concatenate(blocks, axis=1).astype(np.float32)


def arrow_outline(mid: float, top: float, bottom: float) -> np.ndarray:
    """The printed arrow's corners (mm): its axis at ``mid``, its tip at ``top``, its shaft
    ending at ``bottom``. The synthetic board prints this shape; ``arrow_score`` looks for it."""
    return np.array(
        [
            [mid, top],
            [mid + 6, top + 6],
            [mid + 2, top + 6],
            [mid + 2, bottom],
            [mid - 2, bottom],
            [mid - 2, top + 6],
            [mid - 6, top + 6],
        ]
    )


@cache
def _arrow_template() -> np.ndarray:
    """The title band around its arrow (``arrow_score``), 1 on the arrow, 0 on the band."""
    w, h = int(round(2 * ARROW_HALF * PPM)), int(round((BAND[1] - BAND[0]) * PPM))
    arrow = arrow_outline(ARROW_HALF, 2.5, BAND[1] - BAND[0] - 2.5)
    out = np.zeros((h, w), np.float32)
    cv2.fillPoly(out, [np.round((arrow * PPM - 0.5) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    return out


ARROW_HALF = 30.0  # mm either side of the arrow's axis compared with the print
#: How far (mm, any direction) the arrow is looked for around where the outline puts it.
#: An outline a margin's width (10-15 mm) off on one side moves the band's middle by 5-8 mm
#: and the arrow, 12 mm wide, out of a fixed window (its score there falls to about 0).
ARROW_REACH = 15.0
#: The least ``arrow_score`` of a Spring Meadow board. On VALIDATION boards found where
#: they lie 0.68 or more; with the outline moved a margin's width off one or two edges
#: (simulated on four boards) 0.5 or more, except when the top edge falls inside the band
#: (0.14-0.24: the arrow is then cut); on 40 Sunflower Valley sheets that the board finder
#: took for a board (light margins, a dark band) at most 0.25.
MIN_ARROW = 0.4


def arrow_score(plane: Plane) -> float:
    """How well the middle of the title band shows the printed white arrow pointing to the
    board's top: normalised correlation of the brightness there with the arrow's shape, at
    its best over shifts of up to ``ARROW_REACH`` mm (the outline's own error)."""
    scores = cv2.matchTemplate(plane.band, _arrow_template(), cv2.TM_CCOEFF_NORMED)
    return float(scores.max())


@cache
def load_model() -> tuple[Mlp, float]:
    with np.load(MODEL_FILE) as data:
        arrays = {k: data[k] for k in data.files}
    return Mlp(arrays, "squares"), float(arrays["flag_below"])


# --- 4. constraints and the result ---------------------------------------------------------


def square_probabilities(features: np.ndarray) -> np.ndarray:
    """Probability of each code (``CODE_ORDER``) for every square (150 x 5)."""
    model, _ = load_model()
    p = model.probabilities(features)
    index = {c: i for i, c in enumerate(model.classes)}
    out = np.zeros((len(features), len(CODE_ORDER)))
    for name, code in CODE.items():
        out[:, CODE_ORDER.index(code)] += p[:, index[name]]
    return out


CODE_ORDER = (sm.SNOW, sm.COVERED, sm.OPEN, sm.CLEARED, sm.MARMOT)
_BURROW = np.array([c in sm.BURROW_CODES for c in CODE_ORDER])


def constrain(probs: np.ndarray, burrows: frozenset[tuple[int, int]] | None) -> np.ndarray:
    """Apply what a board side allows. With its layout: burrow codes only on its burrows,
    never snow there. Without: at most 11 squares keep a burrow code (the least likely
    ones lose it)."""
    p = probs.copy()
    if burrows is not None:
        for i in range(len(p)):
            square = divmod(i, GRID_COLS)
            if square in burrows:
                p[i, CODE_ORDER.index(sm.SNOW)] = 0
            else:
                p[i, _BURROW] = 0
    else:
        burrowish = p[:, _BURROW].sum(axis=1)
        chosen = np.argmax(p, axis=1)
        is_burrow = _BURROW[chosen]
        if is_burrow.sum() > sm.BURROWS_PER_SIDE:
            order = np.argsort(-burrowish)
            for i in order[sm.BURROWS_PER_SIDE :]:
                p[i, _BURROW] = 0
    total = p.sum(axis=1, keepdims=True)
    return np.asarray(p / np.maximum(total, 1e-12), float)


def layout_differences(probs: np.ndarray, burrows: frozenset[tuple[int, int]]) -> int:
    """How many squares the photo shows otherwise than the burrow layout, read before the
    layout is applied (:func:`constrain`): a burrow (open, cleared or with a marmot) where
    the layout prints none, or snow on one of its burrows. A square under a tile shows
    neither, so this counts only what is seen. Many differences mean the table's layout is
    not this board side."""
    best = np.asarray(CODE_ORDER)[probs.argmax(axis=1)]
    count = 0
    for i, code in enumerate(best):
        on_burrow = divmod(i, GRID_COLS) in burrows
        count += (code in sm.BURROW_CODES and not on_burrow) or (code == sm.SNOW and on_burrow)
    return count


@dataclass
class Recognition:
    orientation: str
    printed: list[str]  # rows in the printed frame
    p: np.ndarray  # per square (printed frame, row-major)
    found: boards.Found
    seconds: float
    flag_below: float
    #: With a layout: squares seen otherwise than it prints (:func:`layout_differences`).
    layout_differences: int | None = None
    #: The board's corners as fractions of the photo's size (``outline_fractions``).
    outline: list[list[float]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        rows = as_seen(self.printed, self.orientation)
        confidence = []
        for i, p in enumerate(self.p):
            r, c = divmod(i, GRID_COLS)
            tr, tc = sm.turn_square((r, c), "vertical", self.orientation)  # type: ignore[arg-type]
            confidence.append(
                {
                    "row": tr,
                    "col": tc,
                    "p": round(float(p), 3),
                    "flagged": bool(p < self.flag_below),
                }
            )
        confidence.sort(key=lambda x: (x["row"], x["col"]))
        out = {
            "game": "spring-meadow",
            "player": {"orientation": self.orientation, "rows": rows},
            "confidence": confidence,
            "seconds": round(self.seconds, 3),
        }
        if self.layout_differences is not None:  # an extension of the shared contract
            out["layout_differences"] = self.layout_differences
        if self.outline:  # so is this
            out["outline"] = self.outline
        return out


def as_seen(printed: list[str], orientation: str) -> list[str]:
    """Printed-frame rows turned for the play orientation (``spring_meadow.turn_square``)."""
    if orientation == "vertical":
        return list(printed)
    grid = [["."] * COLS["horizontal"] for _ in range(ROWS["horizontal"])]
    for r, row in enumerate(printed):
        for c, code in enumerate(row):
            tr, tc = sm.turn_square((r, c), "vertical", "horizontal")
            grid[tr][tc] = code
    return ["".join(row) for row in grid]


def has_arrow(photo: np.ndarray, found: boards.Found) -> bool:
    """Whether a board found in the photo (decoded at ``WORK_SIDE``) shows the printed arrow
    in its title band: what tells a Spring Meadow board photographed for another game."""
    return arrow_score(Plane(photo, found)) >= MIN_ARROW


def analyse(image_bytes: bytes, layout: Any = None) -> Recognition:
    start = time.perf_counter()
    burrows = None
    if layout is not None:
        parsed = sm.parse_layout(layout)
        burrows = parsed.burrows_for("vertical")
    photo = decode(image_bytes, WORK_SIDE)
    found = locate(photo)
    plane = Plane(photo, found)
    if arrow_score(plane) < MIN_ARROW:
        raise PhotoError(
            "no Spring Meadow board found in the photo: what looks like a board has no "
            "arrow in its title band (photograph a Spring Meadow mountain board)"
        )
    seen = square_probabilities(square_features(plane))
    probs = constrain(seen, burrows)
    best = probs.argmax(axis=1)
    codes = [CODE_ORDER[k] for k in best]
    printed = ["".join(codes[r * GRID_COLS : (r + 1) * GRID_COLS]) for r in range(GRID_ROWS)]
    _, flag_below = load_model()
    p = probs[np.arange(len(best)), best]
    if found.score < boards.RETRY_BELOW:
        # The outline fits the print poorly: the grid may sit off the squares over a large
        # area, so no square is trusted more than the outline.
        p = np.minimum(p, found.score)
    return Recognition(
        play_orientation(found),
        printed,
        p,
        found,
        time.perf_counter() - start,
        flag_below,
        None if burrows is None else layout_differences(seen, burrows),
        outline_fractions(found.corners, photo),
    )


def recognize_spring_meadow(image_bytes: bytes, layout: Any = None) -> dict[str, Any]:
    """The board in the photo as ``{"game", "player": {"orientation", "rows"},
    "confidence": [{"row", "col", "p", "flagged"}], "seconds"}`` (formats.md, "Recognising
    a photo"; rows as the player sees them, top row first). ``layout`` is a layout document
    (``{"name", "orientation", "rows"}``, docs/spring-meadow.md); BoardError when it is
    invalid, PhotoError (one line) for a file that is not a usable image or shows no board."""
    return analyse(image_bytes, layout).to_json()


def recognize_spring_meadow_layout(
    image_bytes: bytes, name: str = "photographed side"
) -> dict[str, Any]:
    """The burrow layout of a board side photographed before play: ``{"layout": {"name",
    "orientation": "vertical", "rows"}, "confidence", "burrows", "seconds"}`` with ``o`` on
    every printed burrow (in the printed frame, arrow up). A square under a tile cannot
    show whether it is a burrow: it is flagged."""
    r = analyse(image_bytes)
    rows = [
        "".join(sm.OPEN if code in sm.BURROW_CODES else sm.SNOW for code in row)
        for row in r.printed
    ]
    covered = [
        (i // GRID_COLS, i % GRID_COLS)
        for i, code in enumerate("".join(r.printed))
        if code == sm.COVERED
    ]
    confidence = []
    for i, p in enumerate(r.p):
        square = divmod(i, GRID_COLS)
        confidence.append(
            {
                "row": square[0],
                "col": square[1],
                "p": round(float(p), 3),
                "flagged": bool(p < r.flag_below or square in covered),
            }
        )
    count = sum(row.count(sm.OPEN) for row in rows)
    doc = {"name": name, "orientation": "vertical", "rows": rows}
    try:
        sm.parse_layout(doc)
    except BoardError as err:  # pragma: no cover - rows are always well formed
        raise PhotoError(str(err)) from None
    return {
        "layout": doc,
        "confidence": confidence,
        "burrows": count,
        "seconds": round(r.seconds, 3),
    }
