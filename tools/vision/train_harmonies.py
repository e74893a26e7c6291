"""Train the Harmonies photo models (issue 8) on synthetic photos.

    nice -n 10 .venv/bin/python tools/vision/train_harmonies.py [--train 6000] [--validation 400]

1. Photos from the TRAIN seed range of ``scorepad.vision.render3d`` go through the real
   pipeline (board, camera, hex reading); each hex's measurements are labelled with the
   truth: top colour (or empty), stack height, the colour under a two-token building, cube.
2. Small scikit-learn MLPs learn the top colour, the height (given the top colour's legal
   heights) and the cube; their weights are exported to plain arrays.
3. Photos from the VALIDATION range calibrate the softmax temperatures and the flag
   threshold (the lowest probability at which a hex is left unflagged).
4. Everything goes to ``scorepad/vision/models/harmonies_model.npz``, written afresh:
   ``train_stack_net.py`` then adds the stack network (the readings cached here carry the
   stack patches it learns from).

The TEST range is never touched here: ``benchmarks/bench_vision_harmonies.py`` alone uses it.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scorepad.vision import harmonies as hv  # noqa: E402
from scorepad.vision import harmonies_hexes as hexread  # noqa: E402
from scorepad.vision import harmonies_print as hprint  # noqa: E402
from scorepad.vision import harmonies_stacks as stacks  # noqa: E402
from scorepad.vision import (  # noqa: E402  (after the sys.path set-up above)
    render3d,
)
from scorepad.vision.decode import PhotoError, decode  # noqa: E402
from scorepad.vision.mlp import Mlp, export_mlp  # noqa: E402

CACHE = Path("/tmp/scorepad-harmonies-readings")
MODEL_FILE = stacks.MODEL_FILE


def photo_rows(args: tuple[tuple[int, int], int, float]) -> list[dict[str, Any]]:
    """Readings and truth of every hex of one synthetic photo (none when the board was not
    found as it lies: those photos teach nothing about hexes). Cached in /tmp."""
    split, index, megapixels = args
    path = CACHE / f"{split[0]}-{index}-{megapixels}.pkl"
    if path.exists():
        rows: list[dict[str, Any]] = pickle.loads(path.read_bytes())
        return rows
    s = render3d.sample(split, index, megapixels)
    rows = []
    try:
        photo = decode(s.jpeg, hprint.WORK_SIDE)
        located = hv.locate(photo)
    except PhotoError:
        located = None
    if located is not None and located.spec.name == s.state.side:
        scale = photo.shape[1] / s.camera.size[0]
        board = hprint.board_print(s.state.side)
        corners = np.column_stack([hprint.board_spec(s.state.side).corners, np.zeros(4)])
        truth = s.camera.project(corners) * scale
        if np.abs(located.corners - truth).max() < 4:
            plane = hexread.Plane(photo, located)
            for h in board.centres:
                stack = s.state.stacks[h]
                rows.append(
                    {
                        "photo": index,
                        "hex": h,
                        "reading": half_patch(hexread.read_hex(plane, h)),
                        "stack": stack,
                        "cube": h in s.state.cubes,
                    }
                )
    CACHE.mkdir(exist_ok=True)
    path.write_bytes(pickle.dumps(rows))
    return rows


def half_patch(reading: hexread.HexReading) -> hexread.HexReading:
    """The reading with its stack patch at half precision (the cache of 6 000 photos holds
    150 000 patches; the network reads them as float32, ``train_stack_net.py``)."""
    assert reading.patch is not None
    reading.patch = reading.patch.astype(np.float16)
    return reading


def collect(split: tuple[int, int], count: int, megapixels: float = 3.0) -> list[dict[str, Any]]:
    with Pool(2) as pool:
        parts = pool.map(photo_rows, [(split, i, megapixels) for i in range(count)], chunksize=2)
    return [row for part in parts for row in part]


def fit(
    x: np.ndarray, y: np.ndarray, hidden: tuple[int, ...], alpha: float, early: bool
) -> tuple[Any, Any]:
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scaler.scale_[scaler.scale_ < 1e-6] = 1.0
    model = MLPClassifier(
        hidden,
        alpha=alpha,
        max_iter=800,
        early_stopping=early,
        random_state=0,
    ).fit(scaler.transform(x), y)
    return model, scaler


#: The softmax temperatures tried when calibrating a model on the validation photos.
TEMPERATURES = np.exp(np.linspace(np.log(0.4), np.log(4.0), 40))


def temperature(model: Any, scaler: Any, x: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature that makes validation probabilities honest (least NLL)."""
    arrays = export_mlp(model, scaler, "m", 1.0)
    mlp = Mlp(arrays, "m")
    index = {c: i for i, c in enumerate(mlp.classes)}
    cols = np.array([index[str(v)] for v in y])
    best = (1e18, 1.0)
    for t in TEMPERATURES:
        mlp.temperature = float(t)
        p = mlp.probabilities(x)[np.arange(len(y)), cols]
        nll = -float(np.log(np.maximum(p, 1e-9)).sum())
        best = min(best, (nll, float(t)))
    return best[1]


def contexts(rows: list[dict[str, Any]], top_model: Mlp) -> list[np.ndarray]:
    """Each row's photo context (hexes of one photo read together, as in analyse)."""
    by_photo: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        by_photo.setdefault(r["photo"], []).append(i)
    out: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for members in by_photo.values():
        ctx = stacks.photo_context([rows[i]["reading"] for i in members], top_model)
        for i in members:
            out[i] = ctx[rows[i]["hex"]]
    return out


def datasets(
    rows: list[dict[str, Any]], top_model: Mlp | None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Inputs and labels of each model (the height model needs the top model first)."""
    feats = [stacks.features(r["reading"]) for r in rows]
    tops = [r["stack"][-1] if r["stack"] else "empty" for r in rows]
    ctx = contexts(rows, top_model) if top_model is not None else None
    names = ("top", "height", "under", "cube", "foot")
    out: dict[str, tuple[list[Any], list[Any]]] = {k: ([], []) for k in names}
    for i, (f, top, r) in enumerate(zip(feats, tops, rows, strict=True)):
        out["top"][0].append(f["top"])
        out["top"][1].append(top)
        if ctx is not None and top in stacks.HEIGHTS and len(stacks.HEIGHTS[top]) > 1:
            out["height"][0].append(stacks.height_input(f, top, ctx[i]))
            out["height"][1].append(str(len(r["stack"])))
            for window, label in foot_windows(f, top, ctx[i], len(r["stack"])):
                out["foot"][0].append(window)
                out["foot"][1].append(label)
        if r["stack"] and r["stack"][-1] == "red" and len(r["stack"]) == 2:
            out["under"][0].append(f["under"])
            out["under"][1].append(r["stack"][0])
        if r["stack"]:
            out["cube"][0].append(f["cube"])
            out["cube"][1].append(int(r["cube"]))
    return {k: (np.array(x), np.array(y)) for k, (x, y) in out.items()}


def foot_windows(
    f: dict[str, np.ndarray], top: str, context: np.ndarray, height: int
) -> list[tuple[np.ndarray, int]]:
    """The foot model's examples from one hex: a window at each height its top colour
    comes in, labelled 1 where the foot really is."""
    h, c = f["height"][None], context[None]
    flags = np.array([stacks.colour_flags(top)], np.float32)
    return [(stacks.foot_window(h, c, flags, k)[0], int(k == height)) for k in stacks.HEIGHTS[top]]


#: Each model's hidden layers, L2 penalty, and whether 10 % of its data stops training.
SHAPES = {
    "top": ((32,), 1e-3, False),
    "height": ((64, 32), 1e-2, True),
    "under": ((16,), 1e-1, False),
    "cube": ((24,), 1e-3, False),
    "foot": ((64, 32), 1e-1, True),
}


def height_rows(rows: list[dict[str, Any]], top_model: Mlp) -> list[tuple[Any, ...]]:
    """(features, top colour, context, true height) of the hexes whose top colour comes in
    several heights."""
    ctx = contexts(rows, top_model)
    out = []
    for r, c in zip(rows, ctx, strict=True):
        top = r["stack"][-1] if r["stack"] else "empty"
        if top in stacks.HEIGHTS and len(stacks.HEIGHTS[top]) > 1:
            out.append((stacks.features(r["reading"]), top, c, len(r["stack"])))
    return out


def foot_temperature(foot: Mlp, rows: list[tuple[Any, ...]]) -> float:
    """The temperature that makes the foot model's height distribution honest (least NLL
    of the true heights of the validation hexes)."""
    best = (1e18, 1.0)
    for t in np.exp(np.linspace(np.log(0.4), np.log(4.0), 25)):
        foot.temperature = float(t)
        nll = 0.0
        for f, top, c, k in rows:
            q = stacks.foot_probabilities(f, top, c, foot)
            nll -= float(np.log(max(q[stacks.HEIGHTS[top].index(k)], 1e-9)))
        best = min(best, (nll, float(t)))
    foot.temperature = best[1]
    return best[1]


def foot_weight(models: stacks.Models, rows: list[tuple[Any, ...]]) -> float:
    """The foot model's share in the pooled heights: the one with the least NLL of the
    true heights of the validation hexes."""
    best = (1e18, 0.0)
    for w in (0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0):
        m = stacks.Models(**{**models.__dict__, "foot_weight": w})
        nll, right = 0.0, 0
        for f, top, c, k in rows:
            p = stacks.height_probabilities(f, top, m, c)
            nll -= float(np.log(max(p[k], 1e-9)))
            right += max(p, key=lambda j: p[j]) == k
        print(f"  foot weight {w:.2f}: height right {right / len(rows):.4f}, NLL {nll:.1f}")
        best = min(best, (nll, w))
    return best[1]


def flag_threshold(models: stacks.Models, rows: list[dict[str, Any]], silent: float) -> float:
    """The lowest probability a hex may have and stay unflagged, so that at most ``silent``
    of the validation hexes are wrong without a flag."""
    scored = []
    ctx = contexts(rows, models.top)
    for r, c in zip(rows, ctx, strict=True):
        probs, cube = stacks.stack_probabilities(stacks.features(r["reading"]), models, c)
        best = max(probs, key=lambda s: probs[s])
        p = probs[best] * (max(cube, 1 - cube) if best else 1.0)
        right = best == r["stack"] and (not best or (cube >= 0.5) == r["cube"])
        scored.append((p, right))
    scored.sort()
    allowed = silent * len(scored)
    wrong_above = sum(1 for _, ok in scored if not ok)
    for p, ok in scored:  # raise the threshold past wrong hexes until few remain
        if wrong_above <= allowed:
            return float(p)
        wrong_above -= not ok
    return 1.0


def load_from(arrays: dict[str, np.ndarray]) -> stacks.Models:
    """The models as ``harmonies.load_models`` would read these arrays back."""
    MODEL_FILE.parent.mkdir(exist_ok=True)
    np.savez_compressed(MODEL_FILE, **arrays)  # type: ignore[arg-type]
    stacks.load_models.cache_clear()
    return stacks.load_models()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=6000)
    parser.add_argument("--validation", type=int, default=400)
    parser.add_argument("--silent", type=float, default=0.002, help="allowed unflagged errors")
    args = parser.parse_args()
    start = time.time()
    train = collect(render3d.TRAIN, args.train)
    print(f"{len(train)} training hexes ({time.time() - start:.0f} s)")
    validation = collect(render3d.VALIDATION, args.validation)
    print(f"{len(validation)} validation hexes ({time.time() - start:.0f} s)")
    arrays: dict[str, np.ndarray] = {}
    top_model = None
    for name, (hidden, alpha, early) in SHAPES.items():
        if name in ("top", "height"):  # the height datasets need the top model
            tr, va = datasets(train, top_model), datasets(validation, top_model)
        x, y = tr[name]
        model, scaler = fit(x, y, hidden, alpha, early)
        xv, yv = va[name]
        t = temperature(model, scaler, xv, yv)
        arrays.update(export_mlp(model, scaler, name, t))
        mlp = Mlp(arrays, name)
        if name == "top":
            top_model = mlp
        pred = np.array(mlp.classes)[mlp.probabilities(xv).argmax(axis=1)]
        acc = float(np.mean(pred == yv.astype(str)))
        print(f"{name}: {len(y)} train, {len(yv)} validation, accuracy {acc:.4f}, T {t:.2f}")
    arrays["flag_below"] = np.asarray(0.5)
    arrays["foot_weight"] = np.asarray(0.0)
    foot = Mlp(arrays, "foot")
    rows = height_rows(validation, top_model)
    arrays["foot.temperature"] = np.asarray(foot_temperature(foot, rows))
    arrays["foot_weight"] = np.asarray(foot_weight(load_from(arrays), rows))
    MODEL_FILE.parent.mkdir(exist_ok=True)
    np.savez_compressed(MODEL_FILE, **arrays)  # type: ignore[arg-type]
    stacks.load_models.cache_clear()
    threshold = flag_threshold(stacks.load_models(), validation, args.silent)
    arrays["flag_below"] = np.asarray(threshold)
    np.savez_compressed(MODEL_FILE, **arrays)  # type: ignore[arg-type]
    stacks.load_models.cache_clear()
    print(f"flag below {threshold:.3f}; saved {MODEL_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
