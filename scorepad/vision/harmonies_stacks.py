"""From hex readings to stacks (``harmonies.py``, step 4): the numbers each learned model
sees, the models, the height and foot tables, and the legal stacks' probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from scorepad.games.harmonies import COLOURS, LEGAL_STACKS
from scorepad.hexgrid import Hex
from scorepad.vision.harmonies_hexes import (
    FOOT_STEPS,
    PATCH_UNIT_MIN,
    HexReading,
    lift_per_token,
    log_colour,
)
from scorepad.vision.harmonies_print import TOKEN_RADIUS
from scorepad.vision.mlp import Mlp
from scorepad.vision.model import InkNet


def features(r: HexReading) -> dict[str, np.ndarray]:
    """The numbers each learned model sees for one hex: ``top`` (the top face's colour and
    how circle-like it is), ``height`` (the foot-edge profile and how well height can be
    seen here), ``under`` (the lowest token's side band and ``lower_side``), ``cube``
    (what stands on top)."""
    chroma, light = log_colour(r.colour)
    assert r.profile is not None and r.band is not None and r.band_ratio is not None
    band_chroma, band_light = log_colour(r.band)
    sc = r.scores
    geometry = [
        r.parallax,
        sc["pixels_per_token"] / 10,
        sc["radius"] - TOKEN_RADIUS,
        sc["rim"],
        sc["lift"],
        sc["across"],
        sc["lift_tokens"],
        math.log(sc["per_token"]),
    ]
    top = np.concatenate([chroma, [light, r.circle / 100, r.cube, sc["rim"]]])
    cube = [sc["gold"], sc["white"], sc["cube_spread"], sc["cube_contrast"]]
    assert r.outline is not None and r.patch is not None
    return {
        "top": top.astype(np.float32),
        "height": np.concatenate(
            [r.profile, r.outline.ravel(), geometry, chroma, [light], cube[:3], [r.cube]]
        ).astype(np.float32),
        "under": np.concatenate(
            [band_chroma, [band_light], r.band_ratio, geometry[:2], lower_side(r.profile), top[:4]]
        ).astype(np.float32),
        "cube": np.concatenate([top, cube, geometry[:2]]).astype(np.float32),
        "patch": r.patch,
        "net_side": stack_side(r),
    }


#: Where ``stack_side`` puts the top's apparent lift in tokens (``net_inputs`` reads it).
SIDE_LIFT = 4


def stack_side(r: HexReading) -> np.ndarray:
    """The stack network's side inputs from the hex alone (``net_inputs`` adds the photo's):
    the patch's radial unit (its log, and how far below the floor ``PATCH_UNIT_MIN`` it
    is), the parallax and resolution, the top's apparent lift (at ``SIDE_LIFT``), its
    colour, rim, radius and offset across the line to the nadir."""
    unit = lift_per_token(r)
    chroma, light = log_colour(r.colour)
    sc = r.scores
    return np.array(
        [
            math.log(max(unit, 1e-3)),
            min(unit / PATCH_UNIT_MIN, 1.0),
            r.parallax,
            sc["pixels_per_token"] / 10,
            sc["lift_tokens"],
            *chroma,
            light,
            sc["rim"],
            sc["radius"] - TOKEN_RADIUS,
            sc["across"],
        ],
        np.float32,
    )


def net_inputs(side: np.ndarray, context: np.ndarray) -> np.ndarray:
    """The stack network's side inputs for N hexes: ``stack_side`` and the apparent lift
    against the photo's one-token tops, and how many of those there are (``photo_context``'s
    calibration)."""
    lift = side[:, SIDE_LIFT]
    return np.asarray(np.column_stack([side, lift - context[:, -2], context[:, -1]]), np.float32)


def net_heights(
    patches: np.ndarray, side: np.ndarray, context: np.ndarray, net: InkNet, temperature: float
) -> np.ndarray:
    """The stack network's logits of heights 1, 2 and 3 (N x 3, each row's largest 0), at
    ``temperature``: its patch read as it is and mirrored across the line to the nadir
    (averaged)."""
    x = np.asarray(patches, np.float32)
    logits = net.mirrored_forward(x, net_inputs(side, context)) / temperature
    return np.asarray(logits - logits.max(axis=1, keepdims=True))


#: Foot-edge steps (quarter tokens) on the lower token's side of a two-token building.
LOWER_SIDE = slice(4, 10)


def lower_side(profile: np.ndarray) -> np.ndarray:
    """What the foot-edge probes inside the rim see between one and two and a quarter
    tokens down (the lower token's side of a two-token building: like the top or not,
    board-like or not, how bright) and the edges there: what lies under a red top."""
    steps = profile.reshape(PROFILE_CHANNELS, len(FOOT_STEPS))[:, LOWER_SIDE]
    return np.concatenate([steps[:4].ravel(), steps[8]])


def photo_context(readings: list[HexReading], top_model: Mlp) -> dict[Hex, np.ndarray]:
    """What each hex's height reading needs from the rest of the photo.

    * Occlusion: which of its foot-edge probes fall on another hex's top (a taller stack
      nearer the camera's nadir leans over this stack's foot), per height step, inside and
      outside the rim.
    * Calibration: the apparent lift, in tokens, of the blue and yellow tops (always one
      token high) across the photo; it corrects a camera height measured poorly."""
    tops = np.array([r.top_centre for r in readings])
    radii = np.array([r.scores["radius"] for r in readings]) + 0.3
    colours = np.array([features(r)["top"] for r in readings])
    p = top_model.probabilities(colours)
    index = {c: i for i, c in enumerate(top_model.classes)}
    single = p[:, index["blue"]] + p[:, index["yellow"]] > 0.9
    lifts = np.array([r.scores["lift_tokens"] for r in readings])
    calibration = [
        float(np.median(lifts[single])) if single.any() else 1.0,
        min(int(single.sum()), 10) / 10,
    ]
    out = {}
    for i, r in enumerate(readings):
        assert r.probes is not None
        probes = r.probes.reshape(-1, 2)
        d = np.linalg.norm(probes[:, None, :] - tops[None, :, :], axis=2)
        d[:, i] = np.inf
        hidden = (d < radii[None, :]).any(axis=1).reshape(r.probes.shape[:3])
        occluded = hidden.mean(axis=1)  # steps x (inside, outside)
        out[r.hex] = np.concatenate([occluded.ravel(), calibration]).astype(np.float32)
    return out


#: Colours whose stacks come in more than one height, and the heights they come in.
HEIGHTS: dict[str, tuple[int, ...]] = {
    "blue": (1,),
    "yellow": (1,),
    "grey": (1, 2, 3),
    "green": (1, 2, 3),
    "brown": (1, 2),
    "red": (1, 2),
}
TOP_CLASSES = (*COLOURS, "empty")
UNDER_RED = ("brown", "grey", "red")
MODEL_FILE = Path(__file__).parent / "models" / "harmonies_model.npz"


@dataclass(frozen=True)
class Models:
    top: Mlp
    height: Mlp
    under: Mlp
    cube: Mlp
    flag_below: float
    foot: Mlp | None = None  # is the foot at this candidate height (foot_window)?
    foot_weight: float = 0.0  # its share in the pooled height probabilities
    net: InkNet | None = None  # the stack network over each hex's patch (net_heights)
    net_weight: float = 0.0  # its share, pooled with the height and foot models'
    net_temperature: float = 1.0


@cache
def load_models() -> Models:
    """The trained models (``tools/vision/train_harmonies.py``, then the stack network:
    ``train_stack_net.py``)."""
    with np.load(MODEL_FILE) as data:
        arrays = {k: data[k] for k in data.files}
        net = InkNet.from_arrays(data, "stack")
    foot = Mlp(arrays, "foot") if "foot.layers" in arrays else None
    return Models(
        Mlp(arrays, "top"),
        Mlp(arrays, "height"),
        Mlp(arrays, "under"),
        Mlp(arrays, "cube"),
        float(arrays["flag_below"]),
        foot,
        float(arrays["foot_weight"]) if foot is not None else 0.0,
        net,
        float(arrays["net_weight"]) if net is not None else 0.0,
        float(arrays["net_temperature"]) if net is not None else 1.0,
    )


#: The foot-edge profile's channels per height step (``harmonies_hexes.read_hex``): four inside the
#: rim (board-likeness, brightness, likeness to the top, brightness against the top), the same four
#: outside, and the edge across the rim.
PROFILE_CHANNELS = 9
#: Height steps each side of a candidate foot that ``foot_window`` shows its model.
WINDOW = np.arange(-3, 4)


def height_parts(h: np.ndarray, context: np.ndarray) -> dict[str, np.ndarray]:
    """The height measurements of N hexes (rows of ``features()["height"]`` and of
    ``photo_context``) by name, so that the foot cues can be read step by step."""
    n, s = len(h), len(FOOT_STEPS)
    c = PROFILE_CHANNELS
    geometry = h[:, (c + 2) * s : (c + 2) * s + 8]
    return {
        "profile": h[:, : c * s].reshape(n, c, s),
        "outline": h[:, c * s : (c + 2) * s].reshape(n, s, 2),
        "geometry": geometry,
        "lift_tokens": geometry[:, 6],
        "occluded": context[:, : 2 * s].reshape(n, s, 2),
        "calibration": context[:, 2 * s :],
    }


def foot_signals(parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per height step, how much the probes look like a foot's rim there: a token's side
    inside, the board outside (by colour, by brightness, by likeness to the top) and the
    edge between them. Probes on another hex's top count for nothing."""
    p = parts["profile"]
    signals = {
        "chroma": p[:, 0] - p[:, 4],
        "light": p[:, 5] - p[:, 1],
        "edge": p[:, 8] / 50,
        "top": p[:, 6] - p[:, 2],
    }
    seen = 1 - parts["occluded"][:, :, 1]
    out = {}
    for name, sig in signals.items():
        sig = sig * seen
        sig[:, :2] = 0  # the top's own rim
        out[name] = sig
    return out


def foot_cues(h: np.ndarray, context: np.ndarray) -> np.ndarray:
    """Where the foot's rim shows, read out of the profile for the height model (N x 33):
    per signal, the step (in tokens) where it is strongest and its weighted centre, and
    for 1, 2 and 3 tokens how it stands out from the steps half a token either side; and
    the apparent lift relative to the photo's one-token tops."""
    parts = height_parts(h, context)
    steps = FOOT_STEPS
    out = []
    for sig in foot_signals(parts).values():
        strongest = steps[sig[:, 2:].argmax(axis=1) + 2]
        w = np.maximum(sig - np.median(sig, axis=1, keepdims=True), 0)
        w[:, :2] = 0
        centre = (w * steps).sum(axis=1) / np.maximum(w.sum(axis=1), 1e-6)
        out += [strongest, centre]
        for k in (1, 2, 3):
            i = 4 * k
            around = np.maximum(sig[:, i - 2], sig[:, min(i + 2, len(steps) - 1)])
            out += [sig[:, i] - around, sig[:, i - 1 : i + 2].max(axis=1) - sig[:, 2:].max(axis=1)]
    out.append(parts["lift_tokens"] - parts["calibration"][:, 0])
    return np.column_stack(out).astype(np.float32)


def foot_window(h: np.ndarray, context: np.ndarray, colour: np.ndarray, k: int) -> np.ndarray:
    """What the foot model sees for a candidate height of ``k`` tokens (N hexes): the
    profile, printed outlines and occlusion at the steps around that foot, the geometry,
    the apparent lift less ``k`` (alone and against the photo's one-token tops), the
    colour on top and ``k``. One model for every height: a foot looks alike at any."""
    parts = height_parts(h, context)
    n = len(h)
    idx = np.clip(4 * k + WINDOW, 0, len(FOOT_STEPS) - 1)
    lift = parts["lift_tokens"]
    return np.concatenate(
        [
            parts["profile"][:, :, idx].reshape(n, -1),
            parts["outline"][:, idx].reshape(n, -1),
            parts["occluded"][:, idx].reshape(n, -1),
            parts["geometry"],
            (lift - k)[:, None],
            (lift - parts["calibration"][:, 0] + 1 - k)[:, None],
            parts["calibration"],
            colour,
            np.repeat(np.eye(3)[[k - 1]], n, axis=0),
        ],
        axis=1,
    ).astype(np.float32)


def colour_flags(top: str) -> list[bool]:
    """Which of the colours that come in several heights is on top."""
    return [top == c for c in ("grey", "green", "brown", "red")]


def height_inputs(h: np.ndarray, context: np.ndarray, top: str, cues: np.ndarray) -> np.ndarray:
    """The height model's input for N hexes: the measurements, what the rest of the photo
    says (``photo_context``), which colour is on top and where the foot's rim shows
    (``foot_cues``). Training and recognition both build it here."""
    flags = np.repeat(np.array([colour_flags(top)], np.float32), len(h), axis=0)
    return np.concatenate([h, context, flags, cues], axis=1)


def height_input(f: dict[str, np.ndarray], top: str, context: np.ndarray) -> np.ndarray:
    """``height_inputs`` for one hex."""
    h, c = f["height"][None], context[None]
    return height_inputs(h, c, top, foot_cues(h, c))[0]


#: The top colours that come in several heights (the others are always one token).
SEVERAL = tuple(c for c in COLOURS if len(HEIGHTS[c]) > 1)


def foot_table(h: np.ndarray, context: np.ndarray, top: str, foot: Mlp) -> np.ndarray:
    """P(height) of N hexes over the heights ``top`` comes in (N x heights), from the foot
    model: its score at each candidate foot, made a distribution (softmax of the logits)."""
    n, heights = len(h), HEIGHTS[top]
    flags = np.repeat(np.array([colour_flags(top)], np.float32), n, axis=0)
    windows = np.concatenate([foot_window(h, context, flags, k) for k in heights])
    p = np.clip(foot.probabilities(windows)[:, 1], 1e-9, 1 - 1e-9)
    logits = (np.log(p) - np.log1p(-p)).reshape(len(heights), n).T
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def foot_probabilities(
    f: dict[str, np.ndarray], top: str, context: np.ndarray, foot: Mlp
) -> np.ndarray:
    """``foot_table`` for one hex."""
    return foot_table(f["height"][None], context[None], top, foot)[0]


def height_table(
    h: np.ndarray,
    context: np.ndarray,
    models: Models,
    net_input: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """For N hexes (rows of ``features()["height"]`` and of ``photo_context``) and each
    colour in ``SEVERAL``: P(height) over the heights it comes in (N x heights), the height
    model's answer pooled (weighted geometric mean) with the foot model's and, given the
    hexes' ``net_input`` (``features()["patch"]`` and ``["net_side"]``, each stacked), the
    stack network's. All hexes of a photo go through each model at once."""
    cues = foot_cues(h, context)
    net = None
    if net_input is not None and models.net is not None and models.net_weight > 0:
        net = net_heights(*net_input, context, models.net, models.net_temperature)
    index = {c: i for i, c in enumerate(models.height.classes)}
    out = {}
    for top in SEVERAL:
        hp = models.height.probabilities(height_inputs(h, context, top, cues))
        p = hp[:, [index[str(j)] for j in HEIGHTS[top]]] + 1e-12
        p /= p.sum(axis=1, keepdims=True)
        if models.foot is not None and models.foot_weight > 0:
            q = foot_table(h, context, top, models.foot) + 1e-12
            w = models.foot_weight
            p = np.exp((1 - w) * np.log(p) + w * np.log(q))
            p /= p.sum(axis=1, keepdims=True)
        if net is not None:
            q = net[:, [j - 1 for j in HEIGHTS[top]]]
            q = q - q.max(axis=1, keepdims=True)  # the heights this colour comes in
            q = q - np.log(np.exp(q).sum(axis=1, keepdims=True))
            w = models.net_weight
            p = np.exp((1 - w) * np.log(p) + w * q)
            p /= p.sum(axis=1, keepdims=True)
        out[top] = p
    return out


def hex_heights(table: dict[str, np.ndarray], i: int) -> dict[str, dict[int, float]]:
    """Hex ``i``'s row of a ``height_table``: colour -> height -> probability."""
    return {
        top: {j: float(v) for j, v in zip(HEIGHTS[top], p[i], strict=True)}
        for top, p in table.items()
    }


def height_probabilities(
    f: dict[str, np.ndarray], top: str, models: Models, context: np.ndarray
) -> dict[int, float]:
    """P(height) of one hex over the heights ``top`` comes in (``height_table``)."""
    table = height_table(f["height"][None], context[None], models, hex_net_input(f))
    return hex_heights(table, 0)[top]


def hex_net_input(f: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One hex's ``net_input`` argument of ``height_table``."""
    return f["patch"][None], f["net_side"][None]


def stack_probabilities(
    f: dict[str, np.ndarray],
    models: Models,
    context: np.ndarray,
    row: dict[str, dict[int, float]] | None = None,
) -> tuple[dict[tuple[str, ...], float], float]:
    """Every legal stack (and the empty hex) with its probability, and the probability of a
    cube. The legal stacks tie the three models together: a stack is its top colour, its
    height (fixed for blue and yellow), and for a two-token building what lies under it.
    ``row``: this hex's row of the photo's ``height_table``, when already computed."""
    if row is None:
        row = hex_heights(
            height_table(f["height"][None], context[None], models, hex_net_input(f)), 0
        )
    top_p = dict(zip(models.top.classes, models.top.probabilities(f["top"])[0], strict=True))
    out: dict[tuple[str, ...], float] = {(): top_p.get("empty", 0.0)}
    under = dict(zip(models.under.classes, models.under.probabilities(f["under"])[0], strict=True))
    for colour in COLOURS:
        pc = top_p.get(colour, 0.0)
        heights = HEIGHTS[colour]
        if len(heights) == 1:
            out[(colour,)] = pc
            continue
        hmap = row[colour]
        for stack in LEGAL_STACKS:
            if stack[-1] != colour:
                continue
            ph = hmap.get(len(stack), 0.0)
            if colour == "red" and len(stack) == 2:
                ph *= under.get(stack[0], 0.0)
            out[stack] = pc * ph
    norm = sum(out.values()) or 1.0
    cube = float(models.cube.probabilities(f["cube"])[0][1])
    return {k: v / norm for k, v in out.items()}, cube
