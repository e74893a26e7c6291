"""Seeded synthetic photos of Spring Meadow mountain boards, for training, tests and the
benchmark.

The board is printed as in ``spring_meadow.py`` (vision): snowy squares on a 10 x 15 grid,
11 printed burrows, a title band with an arrow at the top. On it lie polyomino tiles, 2 mm
thick: green meadow tiles with round holes and flowers, grey mountain tiles; wooden marmots
stand on some burrows seen through a hole. Tiles fill the board from the bottom up, with gaps,
as in play. Everything is placed in millimetres and photographed through the same pinhole
camera, light and finish as the Harmonies photos (``render3d.py``): tiles lie on a plane
2 mm above the board (a little parallax), marmots stand 17 mm tall (a lot).

Truth is kept in the printed frame (vertical, arrow up) and as the player sees the board:
the photo's turn decides vertical or horizontal play (the printed arrow pointing up or down
in the photo: vertical; left or right: horizontal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from scorepad.games import spring_meadow as sm
from scorepad.vision import render3d
from scorepad.vision.camera import Camera
from scorepad.vision.render3d import Canvas, Token, draw_token, finish_photo, paste_plane
from scorepad.vision.spring_meadow import (
    BAND,
    GRID_COLS,
    GRID_ROWS,
    HEADER,
    HEIGHT,
    HOLE_RADIUS,
    MARGIN,
    MARMOT_HEIGHT,
    MARMOT_RADIUS,
    SQUARE,
    TILE_THICKNESS,
    WIDTH,
    Square,
    arrow_outline,
)
from scorepad.vision.synth import background

TRAIN = (0, 100_000)
VALIDATION = (100_000, 200_000)
TEST = (900_000, 1_000_000)
_SALT = 8_202

SNOW = (236, 242, 250)
GRID_LINE = (182, 198, 216)
BAND_COLOUR = (38, 68, 122)
BURROW_HOLE = (58, 44, 36)
BURROW_MOUND = (150, 120, 92)
MEADOW = (92, 158, 68)
MOUNTAIN = (128, 122, 116)
MARMOT = (168, 108, 58)
EDGE = (40, 44, 52)

#: Polyomino shapes (squares as (row, col)) that tiles are cut in.
SHAPES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, 0), (0, 1)),
    ((0, 0), (0, 1), (0, 2)),
    ((0, 0), (0, 1), (1, 0)),
    ((0, 0), (0, 1), (1, 0), (1, 1)),
    ((0, 0), (0, 1), (0, 2), (0, 3)),
    ((0, 0), (0, 1), (0, 2), (1, 0)),
    ((0, 0), (0, 1), (0, 2), (1, 1)),
    ((0, 0), (0, 1), (1, 1), (1, 2)),
    ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2)),
    ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1)),
    ((0, 0), (1, 0), (1, 1), (1, 2), (2, 2)),
    ((0, 1), (1, 0), (1, 1), (1, 2), (2, 1)),
)
MOUNTAIN_SHAPES = (((0, 0),), ((0, 0), (0, 1)), ((0, 0), (0, 1), (1, 0)))


@dataclass(frozen=True)
class Tile:
    kind: str  # "meadow" or "mountain"
    squares: frozenset[tuple[int, int]]
    holes: frozenset[tuple[int, int]]


@dataclass(frozen=True)
class MeadowState:
    """One board as it lies (printed frame: vertical, arrow up)."""

    burrows: frozenset[tuple[int, int]]
    tiles: tuple[Tile, ...]
    marmots: frozenset[tuple[int, int]]

    def codes(self) -> list[str]:
        """The board's rows in the printed frame (square codes of formats.md)."""
        grid = [[sm.SNOW] * GRID_COLS for _ in range(GRID_ROWS)]
        for r, c in self.burrows:
            grid[r][c] = sm.OPEN
        for tile in self.tiles:
            for r, c in tile.squares:
                burrow = (r, c) in self.burrows
                if (r, c) in tile.holes:
                    grid[r][c] = sm.CLEARED if burrow else sm.SNOW
                else:
                    grid[r][c] = sm.COVERED
        for r, c in self.marmots:
            grid[r][c] = sm.MARMOT
        return ["".join(row) for row in grid]


def random_layout(rng: np.random.Generator) -> frozenset[tuple[int, int]]:
    """11 burrows spread over the board, no two side by side."""
    chosen: set[tuple[int, int]] = set()
    while len(chosen) < sm.BURROWS_PER_SIDE:
        r, c = int(rng.integers(GRID_ROWS)), int(rng.integers(GRID_COLS))
        if all(abs(r - a) + abs(c - b) > 1 for a, b in chosen):
            chosen.add((r, c))
    return frozenset(chosen)


def _turned(shape: tuple[tuple[int, int], ...], k: int, flip: bool) -> list[tuple[int, int]]:
    pts = [(c, r) if flip else (r, c) for r, c in shape]
    for _ in range(k % 4):
        pts = [(c, -r) for r, c in pts]
    r0 = min(r for r, _ in pts)
    c0 = min(c for _, c in pts)
    return [(r - r0, c - c0) for r, c in pts]


def random_state(seed: int) -> MeadowState:
    """A board during play: tiles from the bottom up to a random level, with gaps, holes
    over some burrows, marmots on some of those; sometimes an empty board (a new side)."""
    rng = np.random.default_rng([seed, _SALT, 1])
    burrows = random_layout(rng)
    if rng.random() < 0.08:
        return MeadowState(burrows, (), frozenset())
    target = int(rng.integers(8, GRID_ROWS * GRID_COLS - 10))
    taken: set[tuple[int, int]] = set()
    tiles: list[Tile] = []
    for _ in range(2000):
        if len(taken) >= target:
            break
        free_rows = [
            r
            for r in range(GRID_ROWS - 1, -1, -1)
            if any((r, c) not in taken for c in range(GRID_COLS))
        ]
        if not free_rows:
            break
        low = free_rows[0]
        r = low if rng.random() < 0.7 else max(0, low - int(rng.integers(0, 4)))
        free = [c for c in range(GRID_COLS) if (r, c) not in taken]
        if not free:
            continue
        c = int(rng.choice(free))
        mountain = rng.random() < 0.22
        shapes = MOUNTAIN_SHAPES if mountain else SHAPES
        shape = _turned(
            shapes[int(rng.integers(len(shapes)))], int(rng.integers(4)), rng.random() < 0.5
        )
        anchor = shape[int(rng.integers(len(shape)))]
        squares = {(r + a - anchor[0], c + b - anchor[1]) for a, b in shape}
        if any(
            not (0 <= a < GRID_ROWS and 0 <= b < GRID_COLS) or (a, b) in taken for a, b in squares
        ):
            continue
        holes: set[tuple[int, int]] = set()
        if not mountain:
            wanted = int(rng.choice([0, 1, 1, 1, 2, 2]))
            # Holes fall on burrows more often than chance: players aim them there.
            near = [s for s in squares if s in burrows]
            pool = sorted(squares)
            for _k in range(wanted):
                if near and rng.random() < 0.6:
                    holes.add(near.pop())
                else:
                    holes.add(pool[int(rng.integers(len(pool)))])
        taken |= squares
        tiles.append(
            Tile("mountain" if mountain else "meadow", frozenset(squares), frozenset(holes))
        )
    cleared = sorted(s for t in tiles for s in t.holes if s in burrows)
    marmots = frozenset(s for s in cleared if rng.random() < 0.35)
    return MeadowState(burrows, tuple(tiles), marmots)


# --- drawing -------------------------------------------------------------------------------


def _square_box(r: int, c: int, ppm: float) -> tuple[int, int, int, int]:
    x0 = (MARGIN + c * SQUARE) * ppm
    y0 = (HEADER + r * SQUARE) * ppm
    return (
        int(round(x0)),
        int(round(y0)),
        int(round(x0 + SQUARE * ppm)),
        int(round(y0 + SQUARE * ppm)),
    )


def board_texture(
    state: MeadowState, ppm: float, rng: np.random.Generator, light: np.ndarray
) -> np.ndarray:
    """The printed board with the tiles' and marmots' soft shadows on it (float RGB)."""
    w, h = int(math.ceil(WIDTH * ppm)), int(math.ceil(HEIGHT * ppm))
    snow = np.array(SNOW, np.float32) + rng.normal(0, 4, 3).astype(np.float32)
    small = rng.normal(0, 1, (h // 20 + 2, w // 20 + 2)).astype(np.float32)
    img = snow + 3.0 * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    lw, lh = int(WIDTH) + 1, int(HEIGHT) + 1
    washes = np.zeros((lh, lw, 3), np.float32)
    for _ in range(int(rng.integers(3, 8))):  # blue mountain shading
        wash = np.zeros((lh, lw), np.float32)
        centre = (int(rng.uniform(0, lw)), int(rng.uniform(0, lh)))
        axes = (int(rng.uniform(20, 80)), int(rng.uniform(10, 40)))
        cv2.ellipse(wash, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        wash = np.asarray(cv2.GaussianBlur(wash, (0, 0), 8), np.float32)
        washes += (
            wash[..., None] * (np.array((205, 220, 240), np.float32) - snow) * rng.uniform(0.3, 0.7)
        )
    img += cv2.resize(washes, (w, h), interpolation=cv2.INTER_LINEAR)
    out = np.clip(img, 0, 255).astype(np.uint8)
    line = max(1, int(round(0.6 * ppm)))
    for r in range(GRID_ROWS + 1):
        y = int(round((HEADER + r * SQUARE) * ppm))
        cv2.line(
            out,
            (int(MARGIN * ppm), y),
            (int((WIDTH - MARGIN) * ppm), y),
            GRID_LINE,
            line,
            cv2.LINE_AA,
        )
    for c in range(GRID_COLS + 1):
        x = int(round((MARGIN + c * SQUARE) * ppm))
        cv2.line(
            out,
            (x, int(HEADER * ppm)),
            (x, int((HEIGHT - MARGIN) * ppm)),
            GRID_LINE,
            line,
            cv2.LINE_AA,
        )
    for r, c in state.burrows:
        x0, y0, x1, y1 = _square_box(r, c, ppm)
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        s = SQUARE * ppm
        jit = rng.uniform(0.9, 1.1)
        cv2.ellipse(
            out,
            (cx, cy),
            (int(0.38 * s * jit), int(0.3 * s * jit)),
            0,
            0,
            360,
            BURROW_MOUND,
            -1,
            cv2.LINE_AA,
        )
        cv2.ellipse(
            out,
            (cx, cy + int(0.03 * s)),
            (int(0.27 * s * jit), int(0.2 * s * jit)),
            0,
            0,
            360,
            BURROW_HOLE,
            -1,
            cv2.LINE_AA,
        )
    band = (int(3 * ppm), int(BAND[0] * ppm), int((WIDTH - 3) * ppm), int(BAND[1] * ppm))
    cv2.rectangle(out, band[:2], band[2:], BAND_COLOUR, -1, cv2.LINE_AA)
    arrow = arrow_outline(WIDTH / 2, BAND[0] + 2.5, BAND[1] - 2.5) * ppm
    cv2.fillPoly(
        out, [np.round(arrow * 16).astype(np.int32)], (240, 240, 240), cv2.LINE_AA, shift=4
    )
    cv2.putText(
        out,
        "SPRING MEADOW",
        (int(8 * ppm), int((BAND[1] - 4.5) * ppm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.22 * ppm,
        (236, 236, 236),
        max(1, int(0.6 * ppm)),
        cv2.LINE_AA,
    )
    # Soft shadows of the tiles (2 mm up) and marmots on the print.
    shade = np.zeros((h, w), np.float32)
    along = -light[:2] / max(-light[2], 0.25)
    for tile in state.tiles:
        for r, c in tile.squares:
            x0, y0, x1, y1 = _square_box(r, c, ppm)
            dx, dy = along * TILE_THICKNESS * ppm
            cv2.rectangle(
                shade, (int(x0 + dx), int(y0 + dy)), (int(x1 + dx), int(y1 + dy)), 1.0, -1
            )
    for r, c in state.marmots:
        x0, y0, x1, y1 = _square_box(r, c, ppm)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        end = (mx + along[0] * MARMOT_HEIGHT * ppm, my + along[1] * MARMOT_HEIGHT * ppm)
        cv2.line(
            shade, (int(mx), int(my)), (int(end[0]), int(end[1])), 1.0, int(MARMOT_RADIUS * 2 * ppm)
        )
    shade = np.asarray(cv2.GaussianBlur(shade, (0, 0), 1.0 * ppm), np.float32)
    return out.astype(np.float32) * (1 - 0.45 * shade[..., None])


def tile_texture(
    state: MeadowState, ppm: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The tiles' top faces (float RGB) and their coverage (0..1), holes cut out."""
    w, h = int(math.ceil(WIDTH * ppm)), int(math.ceil(HEIGHT * ppm))
    rgb = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    noise = rng.normal(0, 1, (h // 3 + 2, w // 3 + 2)).astype(np.float32)
    grass = np.asarray(cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR))
    edge = max(1, int(round(0.7 * ppm)))
    for tile in state.tiles:
        mask = np.zeros((h, w), np.uint8)
        for r, c in tile.squares:
            x0, y0, x1, y1 = _square_box(r, c, ppm)
            cv2.rectangle(mask, (x0, y0), (x1 - 1, y1 - 1), 255, -1)
        base = np.array(MEADOW if tile.kind == "meadow" else MOUNTAIN, np.float32)
        base = base * rng.uniform(0.9, 1.1) + rng.normal(0, 5, 3).astype(np.float32)
        colour = base + (9.0 if tile.kind == "meadow" else 14.0) * grass[..., None]
        where = mask > 0
        rgb[where] = colour[where]
        alpha[where] = 1.0
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        edge_colour = tuple(float(v) for v in base * 0.55)
        cv2.drawContours(rgb, contours, -1, edge_colour, edge)
        if tile.kind == "meadow":  # flowers
            ys, xs = np.nonzero(mask)
            for _ in range(int(len(tile.squares) * rng.uniform(2, 6))):
                k = int(rng.integers(len(xs)))
                col = [(245, 245, 240), (240, 215, 60), (230, 140, 190), (170, 130, 220)][
                    int(rng.integers(4))
                ]
                cv2.circle(
                    rgb,
                    (int(xs[k]), int(ys[k])),
                    max(1, int(rng.uniform(0.6, 1.3) * ppm)),
                    col,
                    -1,
                    cv2.LINE_AA,
                )
        for r, c in tile.holes:
            x0, y0, x1, y1 = _square_box(r, c, ppm)
            centre = ((x0 + x1) // 2, (y0 + y1) // 2)
            radius = int(HOLE_RADIUS * ppm)
            cv2.circle(rgb, centre, radius + edge, edge_colour, -1, cv2.LINE_AA)
            cv2.circle(alpha, centre, radius, 0.0, -1, cv2.LINE_AA)
    return rgb, alpha


def paste_layer(
    canvas: Canvas, rgb: np.ndarray, alpha: np.ndarray, plane: np.ndarray, ppm: float
) -> None:
    """Draw a partly transparent flat layer (board mm at ``ppm``) through ``plane``."""
    to_mm = np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1.0]])
    size = (canvas.image.shape[1], canvas.image.shape[0])
    m = plane @ to_mm
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(a > 0.002)
    if not len(xs):
        return
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    warped = cv2.warpPerspective(
        np.clip(rgb, 0, 255).astype(np.uint8), m, size, flags=cv2.INTER_LINEAR
    )
    aa = a[y0:y1, x0:x1, None]
    region = canvas.image[y0:y1, x0:x1].astype(np.float32)
    canvas.image[y0:y1, x0:x1] = np.round(warped[y0:y1, x0:x1] * aa + region * (1 - aa)).astype(
        np.uint8
    )


def draw_marmot(
    canvas: Canvas,
    camera: Camera,
    x: float,
    y: float,
    scene: render3d.Scene,
    light: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """A wooden marmot: a body and a smaller head, standing on the board."""
    albedo = np.array(MARMOT, np.float32) * rng.uniform(0.9, 1.1)
    body = Token(
        "marmot", x, y, 0.0, MARMOT_HEIGHT * 0.65, MARMOT_RADIUS, (0.05, 0.0, 0.0, 0.0), albedo
    )
    head = Token(
        "marmot",
        x + rng.uniform(-0.5, 0.5),
        y + rng.uniform(-0.5, 0.5),
        MARMOT_HEIGHT * 0.65,
        MARMOT_HEIGHT,
        MARMOT_RADIUS * 0.72,
        (0.03, 0.0, 0.0, 0.0),
        albedo * 1.05,
    )
    draw_token(canvas, camera, body, light, scene.ambient, 255)
    draw_token(canvas, camera, head, light, scene.ambient, 255)


@dataclass
class Sample:
    """One synthetic photo and its truth."""

    jpeg: bytes
    state: MeadowState
    camera: Camera
    scene: render3d.Scene
    seed: int
    orientation: str
    rows: list[str] = field(default_factory=list)  # as the player sees the board
    image: np.ndarray | None = None

    @property
    def printed_rows(self) -> list[str]:
        return self.state.codes()


def seen_orientation(camera: Camera) -> str:
    """Vertical when the printed arrow points up or down in the photo, else horizontal."""
    p = camera.project(np.array([[WIDTH / 2, HEIGHT / 2, 0], [WIDTH / 2, HEIGHT / 2 - 50, 0]]))
    d = p[1] - p[0]
    return "vertical" if abs(d[1]) >= abs(d[0]) else "horizontal"


def as_seen(printed: list[str], orientation: str) -> list[str]:
    """Printed-frame rows turned for the play orientation (``spring_meadow.turn_square``)."""
    if orientation == "vertical":
        return list(printed)
    rows, cols = sm.ROWS["horizontal"], sm.COLS["horizontal"]
    grid = [["."] * cols for _ in range(rows)]
    for r, row in enumerate(printed):
        for c, code in enumerate(row):
            tr, tc = sm.turn_square((r, c), "vertical", "horizontal")
            grid[tr][tc] = code
    return ["".join(row) for row in grid]


def render(
    state: MeadowState,
    scene: render3d.Scene,
    megapixels: float,
    seed: int,
    keep_image: bool = False,
) -> Sample:
    rng = np.random.default_rng([seed, _SALT, 3])
    size = render3d.photo_size(megapixels, portrait=rng.random() < 0.5)
    w, h = size
    camera = render3d.place_camera(scene, WIDTH, HEIGHT, size, rng, top=MARMOT_HEIGHT + 2)
    light = scene.light_direction()
    flat = scene.ambient + (1 - scene.ambient) * max(0.0, float(-light[2]))
    small = background(scene.background, h // 4 + 1, w // 4 + 1, rng)
    table = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR) * flat
    canvas = Canvas(np.clip(table, 0, 255).astype(np.uint8), np.full((h, w), 255, np.uint8))
    render3d.draw_board_edge(canvas, camera, WIDTH, HEIGHT, scene, light)
    ppm = float(np.clip(1.3 * camera.K[0, 0] / camera.height, 2.0, 10.0))
    paste_plane(
        canvas, board_texture(state, ppm, rng, light) * flat, camera.plane(0), ppm, WIDTH, HEIGHT
    )
    if state.tiles:
        rgb, alpha = tile_texture(state, ppm, rng)
        paste_layer(canvas, rgb * flat, alpha, camera.plane(TILE_THICKNESS), ppm)
    nadir = camera.nadir
    spots = sorted(
        (Square(r, c) for r, c in state.marmots),
        key=lambda s: -math.hypot(s.centre[0] - nadir[0], s.centre[1] - nadir[1]),
    )
    for s in spots:
        x, y = s.centre
        draw_marmot(
            canvas, camera, x + rng.uniform(-1, 1), y + rng.uniform(-1, 1), scene, light, rng
        )
    jpeg, rgb_out = finish_photo(canvas.image.astype(np.float32), scene, rng)
    orientation = seen_orientation(camera)
    return Sample(
        jpeg,
        state,
        camera,
        scene,
        seed,
        orientation,
        as_seen(state.codes(), orientation),
        rgb_out if keep_image else None,
    )


def sample(
    split: tuple[int, int], index: int, megapixels: float = 12.0, keep_image: bool = False
) -> Sample:
    """Photo ``index`` of a split."""
    seed = split[0] + index
    return render(random_state(seed), render3d.Scene.of(seed, _SALT), megapixels, seed, keep_image)


# --- grading ----------------------------------------------------------------------------------


@dataclass
class Grade:
    """Per-photo counts for the benchmark, the training script and the tests."""

    photos: int = 0
    found: int = 0
    orientation_right: int = 0
    squares: int = 0
    right: int = 0
    flagged: int = 0
    silent: int = 0
    full_rows_right: int = 0  # boards whose full counted lines are all recognised exactly
    boards_right: int = 0

    def add(self, other: Grade) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))


def full_lines(rows: list[str], orientation: str) -> list[bool]:
    """Which counted lines (1..15) are completely covered."""
    return [
        all(rows[r][c] in sm.COVERED_CODES for r, c in sm.line_squares(orientation, line))
        for line in range(1, sm.LINES + 1)
    ]


def grade(result: dict[str, Any] | None, truth: Sample) -> Grade:
    """Compare a recognition (formats.md shape) with the truth, square by square."""
    g = Grade(photos=1, squares=GRID_ROWS * GRID_COLS)
    if result is None:
        return g
    g.found = 1
    player = result["player"]
    g.orientation_right = int(player["orientation"] == truth.orientation)
    if not g.orientation_right:
        g.silent = g.squares
        return g
    flagged = {(c["row"], c["col"]) for c in result["confidence"] if c["flagged"]}
    ok_all = True
    for r, (want, got) in enumerate(zip(truth.rows, player["rows"], strict=True)):
        for c, (a, b) in enumerate(zip(want, got, strict=True)):
            g.right += a == b
            g.flagged += (r, c) in flagged
            g.silent += a != b and (r, c) not in flagged
            ok_all &= a == b
    g.full_rows_right = int(
        full_lines(truth.rows, truth.orientation) == full_lines(player["rows"], truth.orientation)
    )
    g.boards_right = int(ok_all)
    return g
