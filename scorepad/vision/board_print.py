"""A printed board's fixed frame (light margins, the dark title band) and how well an
outline in a photo shows it: the print fit every board finder's candidate is ranked by.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from scorepad.vision.camera import aspect_of, default_focal, estimate_focal
from scorepad.vision.fastmath import median

FloatArray = np.ndarray


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


def _rim_rows(ppm: float, rim: bool) -> slice:
    """The template rows :func:`print_score` looks for the light rim above the band in: a
    refined outline's rim lies 1-2.4 mm below its top edge; a rough outline's anywhere in
    the top 3 mm."""
    return slice(int(1.0 * ppm), int(2.4 * ppm)) if rim else slice(0, int(3.0 * ppm) + 1)


def print_interior(spec: BoardSpec, ppm: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """The rows and columns (template pixels at ``ppm``) of the box inside the margins and
    below the band that the print comparison leaves out: the playing area, whatever lies
    on it."""
    w, h = int(spec.width * ppm), int(spec.height * ppm)
    inner = int((spec.margin - 2) * ppm)
    return (int((spec.header - 2) * ppm), h - inner), (inner, w - inner)


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
    (y0, y1), (x0, x1) = print_interior(spec, ppm)
    mask[y0:y1, x0:x1] = 0
    edge = max(1, int(round(ppm)))
    mask[:edge] = mask[-edge:] = 0
    mask[:, :edge] = mask[:, -edge:] = 0
    _TEMPLATES[key] = (template, mask.astype(bool))
    return _TEMPLATES[key]


@dataclass(frozen=True)
class PrintReference:
    """What :func:`print_score` compares every outline with, computed once per side and
    resolution: the print's corners (template pixels), where the print applies, the print
    there centred and its norm (the two halves of the normalised correlation that do not
    depend on the photo), and which of those pixels are light margin and which dark band."""

    corners: FloatArray
    mask: FloatArray
    strips: tuple[tuple[int, int, int, int], ...]  # (top, bottom, left, right) around the box
    centred: FloatArray
    norm: np.floating  # float32, as print_score multiplies it
    light: FloatArray
    dark: FloatArray


@cache
def print_reference(spec: BoardSpec, ppm: float) -> PrintReference:
    template, mask = print_template(spec, ppm)
    t = template[mask]
    centred = np.ravel(t - t.mean())
    h, w = mask.shape
    (y0, y1), (x0, x1) = print_interior(spec, ppm)
    y0 = max(y0, _rim_rows(ppm, rim=False).stop)  # the rows the rim is looked for in, whole
    strips = ((0, y0, 0, w), (y1, h, 0, w), (y0, y1, 0, x0), (y0, y1, x1, w))
    return PrintReference(
        (spec.corners * ppm).astype(np.float32),
        mask,
        tuple(s for s in strips if s[1] > s[0] and s[3] > s[2]),
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
    w = ref.mask.shape[1]
    m = cv2.getPerspectiveTransform(ref.corners, (quad * factor).astype(np.float32))
    flags = cv2.WARP_INVERSE_MAP | (cv2.INTER_AREA if rim else cv2.INTER_LINEAR)
    full = _warp_around(grey, m, ref, flags)
    values = full[ref.mask]
    seen = np.ravel(values - values.mean())
    ncc = float(seen @ ref.centred / max(float(np.linalg.norm(seen) * ref.norm), 1e-6))
    if rim:
        strip = full[_rim_rows(ppm, rim=True), int(6 * ppm) : w - int(6 * ppm)]
        level = float(median(strip.ravel()))
        light = float(median(values[ref.light]))
        dark = float(median(values[ref.dark]))
    else:
        strip = full[_rim_rows(ppm, rim=False), int(6 * ppm) : w - int(6 * ppm)]
        level = float(strip.max(axis=0).mean())
        light = float(values[ref.light].mean())
        dark = float(values[ref.dark].mean())
    shortfall = (light - level) / max(light - dark, 10.0)
    return ncc - max(0.0, shortfall - 0.25)


def _warp_around(grey: FloatArray, m: FloatArray, ref: PrintReference, flags: int) -> FloatArray:
    """The photo warped into the print's frame (``m``: print pixels to photo pixels) but for
    the playing area, which the comparison never reads (left 0): the strips around it
    warped one by one, each through ``m`` moved to its corner, at about a third of the
    whole warp's cost. The top strip is the whole warp's to the bit; the others are within
    about 0.01 grey levels of it (OpenCV computes the sample positions in floating point,
    and ``m`` moved rounds differently)."""
    full = np.zeros(ref.mask.shape, np.float32)
    for top, bottom, left, right in ref.strips:
        shift = np.array([[1.0, 0.0, left], [0.0, 1.0, top], [0.0, 0.0, 1.0]])
        full[top:bottom, left:right] = cv2.warpPerspective(
            grey, m @ shift, (right - left, bottom - top), flags=flags
        )
    return full


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
