"""Seeded synthetic photos of Harmonies boards: 3D tokens seen through a pinhole camera.

Everything is placed in millimetres in the board's frame (``boards.py``: x right, y down
the print, z into the board) and projected through a real pinhole camera
(:class:`~scorepad.vision.camera.Camera`), so a stack's top shows exactly the parallax and
perspective a phone gives it: lifted away from the point below the lens, slightly larger,
its side band visible on the side facing the camera, nearer stacks hiding farther ones.

A photo is made in seeded steps, each with its own generator:

1. :func:`random_board` — a plausible end-of-game board: legal stacks (``LEGAL_STACKS``) in
   realistic proportions, a few empty hexes, golden animal cubes and sometimes a spirit cube.
2. :class:`Scene` — the camera (tilt from straight down to 40°, any turn, 24–40 mm equivalent
   focal length, distance so the board fills half to most of the frame), the light (warm
   2700 K lamp to cold 9000 K shade, direction, ambient part, partial white balance), the
   table, noise, blur and JPEG quality.
3. :func:`render` — the board slab with its printed face (:func:`board_texture`), shadows of
   the stacks on the board and on lower tops, tokens as slightly irregular wooden cylinders
   shaded facet by facet, cubes, then light colour, vignetting, blur, noise and JPEG.

Seed ranges keep training, validation and the frozen test set apart (as in ``synth.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from scorepad.games.harmonies import LEGAL_STACKS, board_hexes
from scorepad.hexgrid import Hex
from scorepad.vision.camera import Camera
from scorepad.vision.harmonies_print import (
    BAND,
    CUBE_SIDE,
    TOKEN_RADIUS,
    TOKEN_THICKNESS,
    BoardPrint,
    board_print,
)
from scorepad.vision.synth import background

#: Disjoint seed ranges (first, last + 1); the TEST range is for the benchmark alone.
TRAIN = (0, 100_000)
VALIDATION = (100_000, 200_000)
TEST = (900_000, 1_000_000)
_SALT = 8_101  # keeps these photos' random streams apart from other generators'

#: Painted wood (RGB, lit by white light) of each token colour.
ALBEDO: dict[str, tuple[int, int, int]] = {
    "blue": (45, 110, 190),
    "grey": (128, 130, 132),
    "brown": (118, 74, 42),
    "green": (52, 135, 60),
    "yellow": (232, 196, 48),
    "red": (192, 48, 42),
}
GOLD = (205, 160, 55)  # animal cubes
SPIRIT = (215, 215, 225)  # the spirit cube
BOARD_CREAM = (232, 224, 203)
HEX_FILL = (244, 238, 222)
HEX_LINE = (150, 128, 98)
BAND_COLOUR = (34, 84, 92)
EDGE_COLOUR = (40, 36, 34)  # the cardboard's cut edge
BOARD_THICKNESS = 2.2

#: How often each legal stack appears at the end of a game (weights, not probabilities).
STACK_WEIGHTS: dict[tuple[str, ...], float] = {
    ("blue",): 18,
    ("yellow",): 12,
    ("grey",): 5,
    ("grey", "grey"): 5,
    ("grey", "grey", "grey"): 4,
    ("green",): 5,
    ("brown", "green"): 7,
    ("brown", "brown", "green"): 7,
    ("brown",): 2,
    ("brown", "brown"): 1.5,
    ("red",): 2,
    ("brown", "red"): 4,
    ("grey", "red"): 3,
    ("red", "red"): 2.5,
}
assert set(STACK_WEIGHTS) == set(LEGAL_STACKS)


# --- the board's contents -------------------------------------------------------------------


@dataclass(frozen=True)
class BoardState:
    """What stands on one board: stacks (bottom → top) and the hexes with a cube."""

    side: str
    stacks: dict[Hex, tuple[str, ...]]
    cubes: frozenset[Hex]
    spirit: Hex | None = None

    def cells(self) -> list[dict[str, Any]]:
        """The board-file cells (formats.md, "Harmonies")."""
        out = []
        for h in sorted(self.stacks):
            cell: dict[str, Any] = {"q": h.q, "r": h.r, "stack": list(self.stacks[h])}
            if h in self.cubes:
                cell["cube"] = True
            out.append(cell)
        return out


def random_board(seed: int, side: str | None = None) -> BoardState:
    """An end-of-game board: every hex holds a legal stack except a few empty ones; about a
    quarter of the stacks carry an animal cube; some boards have a spirit cube."""
    rng = np.random.default_rng([seed, _SALT, 1])
    side = side or ("A" if rng.random() < 0.5 else "B")
    hexes = board_hexes(side)
    stacks_list = list(STACK_WEIGHTS)
    weights = np.array([STACK_WEIGHTS[s] for s in stacks_list])
    empty = int(rng.choice([0, 0, 0, 1, 2, 3, 5]))
    if rng.random() < 0.05:
        empty = int(rng.integers(8, 20))  # a board photographed mid-game
    empties = set(rng.choice(len(hexes), size=min(empty, len(hexes)), replace=False).tolist())
    stacks: dict[Hex, tuple[str, ...]] = {}
    for i, h in enumerate(hexes):
        if i in empties:
            stacks[h] = ()
            continue
        stacks[h] = stacks_list[int(rng.choice(len(stacks_list), p=weights / weights.sum()))]
    filled = [h for h in hexes if stacks[h]]
    share = rng.uniform(0.1, 0.4)
    cubes = frozenset(h for h in filled if rng.random() < share)
    spirit = None
    if cubes and rng.random() < 0.3:
        spirit = sorted(cubes)[int(rng.integers(len(cubes)))]
    return BoardState(side, stacks, cubes, spirit)


# --- the scene ------------------------------------------------------------------------------


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Relative RGB of a light source's colour temperature (6500 K is neutral)."""
    table = np.array(
        [
            (2500, 1.00, 0.66, 0.36),
            (3000, 1.00, 0.74, 0.50),
            (4000, 1.00, 0.85, 0.70),
            (5000, 1.00, 0.93, 0.86),
            (6500, 1.00, 1.00, 1.00),
            (8000, 0.88, 0.93, 1.00),
            (10000, 0.80, 0.88, 1.00),
        ]
    )
    rgb = np.array([np.interp(kelvin, table[:, 0], table[:, i]) for i in (1, 2, 3)])
    return np.asarray(rgb / rgb.max(), float)


@dataclass(frozen=True)
class Scene:
    """Camera, light and photo quality of one synthetic photo."""

    tilt: float  # degrees from straight down
    azimuth: float  # degrees: from which side the camera looks
    roll: float  # degrees: how the phone is turned
    focal: float  # focal length / long side of the image
    coverage: float  # board extent / short side of the image
    kelvin: float
    white_balance: float  # 0 = none, 1 = the camera fully corrects the light's colour
    light_elevation: float  # degrees above the table
    light_azimuth: float
    ambient: float
    exposure: float
    vignette: float
    unevenness: float
    background: int
    blur: float
    noise: float
    quality: int

    @classmethod
    def of(cls, seed: int, salt: int = _SALT) -> Scene:
        rng = np.random.default_rng([seed, salt, 2])
        warm = rng.random()
        kelvin = (
            rng.uniform(2500, 3600)
            if warm < 0.4
            else rng.uniform(6500, 9500)
            if warm < 0.75
            else rng.uniform(3600, 6500)
        )
        return cls(
            tilt=float(rng.uniform(0, 40)),
            azimuth=float(rng.uniform(0, 360)),
            roll=float(rng.uniform(0, 360)),
            focal=float(rng.uniform(0.62, 1.05)),
            coverage=float(rng.uniform(0.5, 0.85)),
            kelvin=float(kelvin),
            white_balance=float(rng.uniform(0.2, 0.9)),
            light_elevation=float(rng.uniform(35, 85)),
            light_azimuth=float(rng.uniform(0, 360)),
            ambient=float(rng.uniform(0.35, 0.65)),
            exposure=float(rng.uniform(0.8, 1.1)),
            vignette=float(rng.uniform(0, 0.3)),
            unevenness=float(rng.uniform(0, 0.3)),
            background=int(rng.integers(5)),
            blur=float(rng.choice([0.0, 0.5, 0.9, 1.4])),
            noise=float(rng.uniform(1.0, 5.0)),
            quality=int(rng.integers(70, 96)),
        )

    def light_direction(self) -> np.ndarray:
        """Unit vector from the board towards the light (world frame: z into the board)."""
        e, a = math.radians(self.light_elevation), math.radians(self.light_azimuth)
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), -math.sin(e)])


def place_camera(
    scene: Scene,
    width_mm: float,
    height_mm: float,
    size: tuple[int, int],
    rng: np.random.Generator,
    top: float = 3 * TOKEN_THICKNESS,
) -> Camera:
    """A camera that sees the whole board (and whatever stands on it, up to ``top`` mm) at
    the scene's tilt, turn and focal length, the board filling ``coverage`` of the frame."""
    focal = scene.focal * max(size)
    target = np.array(
        [
            width_mm / 2 + rng.uniform(-0.08, 0.08) * width_mm,
            height_mm / 2 + rng.uniform(-0.08, 0.08) * height_mm,
            0.0,
        ]
    )
    t, a = math.radians(scene.tilt), math.radians(scene.azimuth)
    offset = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    corners = np.array(
        [[x, y, z] for x in (0, width_mm) for y in (0, height_mm) for z in (0.0, -top)]
    )
    distance = focal * math.hypot(width_mm, height_mm) / (scene.coverage * min(size))
    want = scene.coverage * min(size)
    roll = math.radians(scene.roll)
    camera = Camera.look_at(target + distance * offset, target, focal, size, roll)
    for _ in range(12):
        uv = camera.project(corners)
        extent = float((uv.max(axis=0) - uv.min(axis=0)).max())
        inside = (uv.min(axis=0) > 0.03 * np.array(size)).all() and (
            uv.max(axis=0) < 0.97 * np.array(size)
        ).all()
        if inside and abs(extent / want - 1) < 0.03:
            break
        # Farther when too large or cut off by the frame, nearer when too small.
        distance *= extent / want if inside else max(1.05, extent / want)
        camera = Camera.look_at(target + distance * offset, target, focal, size, roll)
    return camera


# --- the printed board --------------------------------------------------------------------


def board_texture(board: BoardPrint, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The printed face of the board at ``ppm`` pixels per mm (uint8 RGB): cream card,
    faint landscape washes, the title band, the hex spaces."""
    w, h = math.ceil(board.width * ppm), math.ceil(board.height * ppm)
    cream = np.array(BOARD_CREAM, np.float32) + rng.normal(0, 5, 3).astype(np.float32)
    small = rng.normal(0, 1, (h // 24 + 2, w // 24 + 2)).astype(np.float32)
    paper = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    img = cream + 3.0 * paper[..., None]
    # Pale watercolour washes of landscape, drawn at 1 px/mm (they are soft) and scaled up.
    lw, lh = int(board.width) + 1, int(board.height) + 1
    washes = np.zeros((lh, lw, 3), np.float32)
    for _ in range(int(rng.integers(4, 10))):
        wash = np.zeros((lh, lw), np.float32)
        centre = (int(rng.uniform(0, lw)), int(rng.uniform(0, lh)))
        axes = (int(rng.uniform(15, 60)), int(rng.uniform(8, 30)))
        cv2.ellipse(wash, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        wash = np.asarray(cv2.GaussianBlur(wash, (0, 0), 6), np.float32)
        tint = rng.choice([(200, 222, 190), (200, 215, 230), (225, 215, 185)])
        washes += wash[..., None] * (np.array(tint, np.float32) - cream) * rng.uniform(0.3, 0.6)
    img += cv2.resize(washes, (w, h), interpolation=cv2.INTER_LINEAR)
    out = np.clip(img, 0, 255).astype(np.uint8)
    band = (int(3 * ppm), int(BAND[0] * ppm), int((board.width - 3) * ppm), int(BAND[1] * ppm))
    cv2.rectangle(out, band[:2], band[2:], BAND_COLOUR, -1, cv2.LINE_AA)
    cv2.putText(
        out,
        f"HARMONIES {board.side}",
        (int(10 * ppm), int((BAND[1] - 4) * ppm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.3 * ppm,
        (236, 226, 196),
        max(1, int(0.8 * ppm)),
        cv2.LINE_AA,
    )
    line = max(1, round(0.8 * ppm))
    for hx in board.centres:
        pts = np.array(board.layout.corners(hx)) * ppm
        poly = [np.round(pts * 16).astype(np.int32)]
        cv2.fillPoly(out, poly, HEX_FILL, cv2.LINE_AA, shift=4)
        cv2.polylines(out, poly, True, HEX_LINE, line, cv2.LINE_AA, shift=4)
    return out


# --- 3D pieces -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    colour: str
    x: float
    y: float
    bottom: float  # height of its lower face (mm)
    top: float
    radius: float
    wobble: tuple[float, float, float, float]  # oval and three-lobed deviations, phases
    albedo: np.ndarray


@dataclass(frozen=True)
class Cube:
    x: float
    y: float
    bottom: float
    side: float
    yaw: float
    colour: tuple[int, int, int]


@dataclass
class Column:
    """One hex's stack as placed: its tokens bottom to top and its cube."""

    hex: Hex
    x: float
    y: float
    tokens: list[Token] = field(default_factory=list)
    cube: Cube | None = None

    @property
    def top(self) -> float:
        return self.tokens[-1].top if self.tokens else 0.0


def place_pieces(state: BoardState, board: BoardPrint, rng: np.random.Generator) -> list[Column]:
    """Tokens as a player leaves them: a little off the hex centre, each token a little off
    the one below, every token a slightly different size, thickness and shade."""
    columns = []
    for h, stack in state.stacks.items():
        cx, cy = board.centres[h]
        off = np.clip(rng.normal(0, 1.0, 2), -2.5, 2.5)
        col = Column(h, cx + off[0], cy + off[1])
        z = 0.0
        x, y = col.x, col.y
        for colour in stack:
            thick = TOKEN_THICKNESS * rng.uniform(0.96, 1.04)
            shade = np.array(ALBEDO[colour], np.float32) * rng.uniform(0.93, 1.07)
            shade += rng.normal(0, 4, 3).astype(np.float32)
            col.tokens.append(
                Token(
                    colour,
                    x,
                    y,
                    z,
                    z + thick,
                    TOKEN_RADIUS * rng.uniform(0.97, 1.03),
                    (
                        float(rng.uniform(0, 0.025)),
                        float(rng.uniform(0, math.pi)),
                        float(rng.uniform(0, 0.012)),
                        float(rng.uniform(0, math.pi)),
                    ),
                    np.clip(shade, 5, 250),
                )
            )
            z += thick
            jitter = np.clip(rng.normal(0, 0.5, 2), -1.2, 1.2)
            x, y = x + jitter[0], y + jitter[1]
        if h in state.cubes and col.tokens:
            top = col.tokens[-1]
            r = rng.uniform(0, TOKEN_RADIUS * 0.3)
            a = rng.uniform(0, 2 * math.pi)
            cube_colour = SPIRIT if h == state.spirit else GOLD
            col.cube = Cube(
                top.x + r * math.cos(a),
                top.y + r * math.sin(a),
                top.top,
                CUBE_SIDE * rng.uniform(0.95, 1.05),
                float(rng.uniform(0, math.pi / 2)),
                cube_colour,
            )
        columns.append(col)
    return columns


def _ring(token: Token, height: float, n: int) -> np.ndarray:
    """World points around a token's rim at ``height`` (mm above the board)."""
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    e2, p2, e3, p3 = token.wobble
    r = token.radius * (1 + e2 * np.cos(2 * (a - p2)) + e3 * np.cos(3 * (a - p3)))
    return np.column_stack([token.x + r * np.cos(a), token.y + r * np.sin(a), np.full(n, -height)])


def _poly(points: np.ndarray) -> list[np.ndarray]:
    return [np.round(points * 16).astype(np.int32)]


class Canvas:
    """The photo being drawn (uint8, anti-aliased polygons) and, per pixel, which
    horizontal level it shows (0 board, k the top face at k token thicknesses, 255 other)."""

    def __init__(self, image: np.ndarray, level: np.ndarray) -> None:
        self.image = image
        self.level = level

    def fill(self, points: np.ndarray, colour: np.ndarray, level: int = 255) -> None:
        c = tuple(min(255.0, max(0.0, float(v))) for v in colour)
        cv2.fillPoly(self.image, _poly(points), c, cv2.LINE_AA, shift=4)
        cv2.fillPoly(self.level, _poly(points), level, cv2.LINE_8, shift=4)


def draw_token(
    canvas: Canvas, camera: Camera, token: Token, light: np.ndarray, ambient: float, level: int
) -> None:
    """Side facets facing the camera, Lambert-shaded, then the top face."""
    n = 64
    bottom = _ring(token, token.bottom, n)
    top = _ring(token, token.top, n)
    ub, ut = camera.project(bottom), camera.project(top)
    a = np.linspace(0, 2 * math.pi, n, endpoint=False) + math.pi / n
    normals = np.column_stack([np.cos(a), np.sin(a), np.zeros(n)])
    mids = (bottom + np.roll(bottom, -1, axis=0) + top + np.roll(top, -1, axis=0)) / 4
    facing = np.einsum("ij,ij->i", normals, camera.centre - mids) > 0
    diffuse = 1 - ambient
    for i in np.flatnonzero(facing):
        j = (i + 1) % n
        shade = ambient + diffuse * max(0.0, float(normals[i] @ light))
        quad = np.array([ub[i], ub[j], ut[j], ut[i]])
        canvas.fill(quad, token.albedo * shade)
    top_shade = ambient + diffuse * max(0.0, float(-light[2]))
    canvas.fill(ut, token.albedo * top_shade, level)


def draw_cube(
    canvas: Canvas, camera: Camera, cube: Cube, light: np.ndarray, ambient: float
) -> None:
    """A small cube: the faces turned to the camera, a metallic sheen on gold."""
    c, s = math.cos(cube.yaw), math.sin(cube.yaw)
    half = cube.side / 2
    base = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    xy = base @ np.array([[c, s], [-s, c]]) + [cube.x, cube.y]
    lo = np.column_stack([xy, np.full(4, -cube.bottom)])
    hi = np.column_stack([xy, np.full(4, -(cube.bottom + cube.side))])
    colour = np.array(cube.colour, np.float32)
    diffuse = 1 - ambient
    for i in range(4):
        j = (i + 1) % 4
        mid = (lo[i] + lo[j]) / 2
        normal = np.array([mid[0] - cube.x, mid[1] - cube.y, 0.0])
        normal /= np.linalg.norm(normal)
        if normal @ (camera.centre - mid) <= 0:
            continue
        shade = ambient + diffuse * max(0.0, float(normal @ light))
        face = camera.project(np.array([lo[i], lo[j], hi[j], hi[i]]))
        canvas.fill(face, colour * shade * 0.9)
    shade = ambient + diffuse * max(0.0, float(-light[2]))
    canvas.fill(camera.project(hi), colour * min(shade * 1.1, 1.3))


def shadow_masks(
    columns: list[Column], board: BoardPrint, light: np.ndarray, ppm: float
) -> list[np.ndarray]:
    """For each level (board, 1, 2, 3 tokens up): where the stacks' shadows fall on that
    plane, in board pixels at ``ppm``."""
    w, h = math.ceil(board.width * ppm), math.ceil(board.height * ppm)
    along = -light[:2] / max(-light[2], 0.2)  # shadow shift per mm of height
    masks = []
    for level in range(4):
        plane = level * TOKEN_THICKNESS
        mask = np.zeros((h, w), np.float32)
        for col in columns:
            top = col.top + (col.cube.side if col.cube else 0)
            if top <= plane + 0.3:
                continue
            t = col.tokens[0]
            rise = top - plane
            pts = []
            for k in range(24):
                a = 2 * math.pi * k / 24
                px, py = t.x + t.radius * math.cos(a), t.y + t.radius * math.sin(a)
                pts.append((px, py))
                pts.append((px + along[0] * rise, py + along[1] * rise))
            hull = cv2.convexHull(np.array(pts, np.float32) * ppm)
            cv2.fillPoly(mask, [np.round(hull * 16).astype(np.int32)], 1.0, cv2.LINE_8, shift=4)
            if plane > 0:  # the column's own top is not in its own shadow
                own = np.array(
                    [
                        (
                            col.tokens[-1].x + t.radius * math.cos(2 * math.pi * k / 24),
                            col.tokens[-1].y + t.radius * math.sin(2 * math.pi * k / 24),
                        )
                        for k in range(24)
                    ],
                    np.float32,
                )
                if abs(col.top - plane) < 0.5:
                    cv2.fillPoly(mask, [np.round(own * ppm * 16).astype(np.int32)], 0.0, shift=4)
        masks.append(cv2.GaussianBlur(mask, (0, 0), 1.2 * ppm))
    return masks


# --- one photo ------------------------------------------------------------------------------


@dataclass
class Sample:
    """One synthetic photo and everything true about it."""

    jpeg: bytes
    state: BoardState
    camera: Camera
    scene: Scene
    seed: int
    columns: list[Column] = field(default_factory=list)  # the pieces as placed
    image: np.ndarray | None = None  # RGB, kept only when asked for

    def truth(self) -> dict[str, Any]:
        return {"game": "harmonies", "side": self.state.side, "cells": self.state.cells()}


def photo_size(megapixels: float, portrait: bool) -> tuple[int, int]:
    w = round(math.sqrt(megapixels * 1e6 * 4 / 3))
    h = round(w * 3 / 4)
    return (h, w) if portrait else (w, h)


def cream_check(kind: int, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table the scenes never draw, for a stress test of the board finder: a checked
    cloth whose light squares are the board's own cream, less up to 30 per channel (the
    board's edges vanish where they cross them). ``kind`` is ignored (``background``'s
    signature)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = np.array(BOARD_CREAM, np.float32) - rng.uniform(0, 30, 3).astype(np.float32)
    period = rng.uniform(30, 120)
    check = ((xx // period + yy // period) % 2)[..., None]
    return np.asarray(light * (0.6 + 0.4 * check), np.float32)


def render(
    state: BoardState,
    scene: Scene,
    megapixels: float,
    seed: int,
    keep_image: bool = False,
    table: Callable[[int, int, int, np.random.Generator], np.ndarray] = background,
) -> Sample:
    """The photo of ``state`` in ``scene`` (see the module docstring for the steps), on
    ``table`` (the scene's own background unless given)."""
    rng = np.random.default_rng([seed, _SALT, 3])
    board = board_print(state.side)
    size = photo_size(megapixels, portrait=rng.random() < 0.35)
    w, h = size
    camera = place_camera(scene, board.width, board.height, size, rng)
    light = scene.light_direction()
    diffuse = 1 - scene.ambient
    flat = scene.ambient + diffuse * max(0.0, float(-light[2]))

    # Table: drawn small and scaled up (it is out of focus anyway), lit like the board.
    small = table(scene.background, h // 4 + 1, w // 4 + 1, rng)
    lit = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR) * flat
    image = np.clip(lit, 0, 255).astype(np.uint8)
    level = np.full((h, w), 255, np.uint8)
    canvas = Canvas(image, level)

    # The board's cut edge, then its printed face (with the stacks' shadows on it).
    draw_board_edge(canvas, camera, board.width, board.height, scene, light)

    columns = place_pieces(state, board, rng)
    ppm = float(np.clip(1.3 * camera.K[0, 0] / camera.height, 2.0, 12.0))
    texture = board_texture(board, ppm, rng).astype(np.float32) * flat
    masks = shadow_masks(columns, board, light, 2.0)
    paste_plane(canvas, texture, camera.plane(0), ppm, board.width, board.height)

    # Stacks, farthest from the camera first, so nearer ones hide them.
    nadir = camera.nadir
    order = sorted(columns, key=lambda c: -math.hypot(c.x - nadir[0], c.y - nadir[1]))
    for col in order:
        for k, token in enumerate(col.tokens):
            draw_token(canvas, camera, token, light, scene.ambient, k + 1)
        if col.cube:
            draw_cube(canvas, camera, col.cube, light, scene.ambient)

    # Shadows: each level's mask, from the board plane at its height to the photo.
    img = canvas.image.astype(np.float32)
    strength = diffuse * max(0.0, float(-light[2])) / flat
    to_mask = np.diag([1 / 2.0, 1 / 2.0, 1.0])
    for k, mask in enumerate(masks):
        where = canvas.level == k
        if not where.any():
            continue
        warped_mask = cv2.warpPerspective(mask, camera.plane(k * TOKEN_THICKNESS) @ to_mask, size)
        img[where] *= (1 - strength * warped_mask[where])[:, None]
    jpeg, rgb = finish_photo(img, scene, rng)
    return Sample(jpeg, state, camera, scene, seed, columns, rgb if keep_image else None)


def draw_board_edge(
    canvas: Canvas, camera: Camera, width: float, height: float, scene: Scene, light: np.ndarray
) -> None:
    """The cardboard's cut edge: the slab's sides that face the camera."""
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]])
    top_c = np.column_stack([corners, np.zeros(4)])
    low_c = np.column_stack([corners, np.full(4, BOARD_THICKNESS)])
    normals = [(0, -1, 0), (1, 0, 0), (0, 1, 0), (-1, 0, 0)]
    for i in range(4):
        j = (i + 1) % 4
        mid = (top_c[i] + top_c[j]) / 2
        normal = np.array(normals[i], float)
        if normal @ (camera.centre - mid) > 0:
            face = camera.project(np.array([top_c[i], top_c[j], low_c[j], low_c[i]]))
            shade = scene.ambient + (1 - scene.ambient) * max(0.0, float(normal @ light))
            canvas.fill(face, np.array(EDGE_COLOUR, np.float32) * shade)


def paste_plane(
    canvas: Canvas, texture: np.ndarray, plane: np.ndarray, ppm: float, width: float, height: float
) -> None:
    """Draw a flat printed rectangle (``texture`` at ``ppm``, pixel centres at half-pixel
    millimetres) through the homography ``plane`` (mm → photo), its outline anti-aliased
    exactly where the rectangle's corners project."""
    to_mm = np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1.0]])
    size = (canvas.image.shape[1], canvas.image.shape[0])
    warped = cv2.warpPerspective(
        np.clip(texture, 0, 255).astype(np.uint8),
        plane @ to_mm,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    outline = cv2.perspectiveTransform(corners.reshape(1, 4, 2), plane).reshape(4, 2)
    alpha = np.zeros(canvas.level.shape, np.uint8)
    cv2.fillPoly(alpha, _poly(outline), 255, cv2.LINE_AA, shift=4)
    x, y, w, h = cv2.boundingRect(np.round(outline).astype(np.int32))
    x0, y0 = max(x - 2, 0), max(y - 2, 0)
    x1, y1 = min(x + w + 2, size[0]), min(y + h + 2, size[1])
    a = alpha[y0:y1, x0:x1].astype(np.float32)[..., None] / 255
    region = canvas.image[y0:y1, x0:x1].astype(np.float32)
    blended = warped[y0:y1, x0:x1].astype(np.float32) * a + region * (1 - a)
    canvas.image[y0:y1, x0:x1] = np.round(blended).astype(np.uint8)
    canvas.level[y0:y1, x0:x1][a[..., 0] > 0.5] = 0


def finish_photo(img: np.ndarray, scene: Any, rng: np.random.Generator) -> tuple[bytes, np.ndarray]:
    """Light colour (after the camera's partial white balance), exposure, uneven light and
    vignetting, lens blur, sensor noise, JPEG. ``img`` is float RGB lit by white light."""
    h, w = img.shape[:2]
    cast = kelvin_rgb(scene.kelvin) ** (1 - scene.white_balance)
    cast = cast / cast.mean() * scene.exposure
    gh, gw = h // 16 + 1, w // 16 + 1
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    r2 = ((xx / gw - 0.5) ** 2 + (yy / gh - 0.5) ** 2) * 2
    direction = rng.uniform(0, 2 * math.pi)
    ramp = (xx / gw - 0.5) * math.cos(direction) + (yy / gh - 0.5) * math.sin(direction)
    gain = (1 - scene.vignette * r2) * (1 + scene.unevenness * ramp)
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img *= gain[..., None]
    img *= cast.astype(np.float32)
    if scene.blur:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur * max(w, h) / 2000)
    noise = rng.standard_normal((h // 2 + 1, w // 2 + 1), dtype=np.float32) * scene.noise
    img += cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST)[..., None]
    rgb = np.clip(img, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", rgb[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, scene.quality])
    assert ok
    return jpeg.tobytes(), rgb


def sample(
    split: tuple[int, int], index: int, megapixels: float = 12.0, keep_image: bool = False
) -> Sample:
    """Photo ``index`` of a split: board, scene and rendering seeds from its own range."""
    seed = split[0] + index
    return render(random_board(seed), Scene.of(seed), megapixels, seed, keep_image)


# --- grading ----------------------------------------------------------------------------------


@dataclass
class Grade:
    """Per-photo counts for the benchmark, the training script and the tests."""

    photos: int = 0
    found: int = 0
    side_right: int = 0
    hexes: int = 0
    top_right: int = 0
    stack_right: int = 0
    cube_right: int = 0
    right: int = 0
    flagged: int = 0
    silent: int = 0
    boards_right: int = 0

    def add(self, other: Grade) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))


def grade(result: dict[str, Any] | None, truth: Sample) -> Grade:
    """Compare a recognition (formats.md shape, or None when no board was found) with the
    truth, hex by hex: a hex is right when its whole stack and its cube are right."""
    g = Grade(photos=1)
    want = {Hex(c["q"], c["r"]): c for c in truth.state.cells()}
    g.hexes = len(want)
    if result is None:
        g.silent = 0  # nothing returned: the user is told, nothing is silently wrong
        return g
    g.found = 1
    g.side_right = int(result.get("side") == truth.state.side)
    got = {Hex(c["q"], c["r"]): c for c in result["player"]["cells"]}
    flagged = {Hex(c["q"], c["r"]) for c in result["confidence"] if c["flagged"]}
    all_right = True
    for h, t in want.items():
        c = got.get(h)
        stack = list(c["stack"]) if c else None
        top_ok = stack is not None and (stack[-1:] == t["stack"][-1:])
        stack_ok = stack == t["stack"]
        cube_ok = c is not None and bool(c.get("cube")) == bool(t.get("cube"))
        ok = stack_ok and cube_ok and g.side_right == 1
        g.top_right += top_ok
        g.stack_right += stack_ok
        g.cube_right += cube_ok
        g.right += ok
        g.flagged += h in flagged
        g.silent += (not ok) and h not in flagged
        all_right &= ok
    g.boards_right = int(all_right and len(got) == len(want))
    return g
