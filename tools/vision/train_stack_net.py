"""Train the Harmonies stack network (issue 8) and pool it with the height models.

    nice -n 10 .venv/bin/python tools/vision/train_stack_net.py [--train 6000] [--epochs 16]

Needs the ``train`` extra (JAX, CPU only) besides ``vision``; the recogniser runs the
network with NumPy (``harmonies_stacks.net_heights``). Run it after ``train_harmonies.py``,
which writes the model file afresh without the network; both read the same cached hex
readings (/tmp/scorepad-harmonies-readings: clear it after changing how a hex is read or
its patch taken, as the cache knows only the photo).

1. Every hex whose top colour comes in several heights gives its stack patch
   (``harmonies_hexes.stack_patch``: the stack in polar form, seen from the top's centre
   towards the nadir, one row per fraction of a token's lift) and the network's side
   inputs (``harmonies_stacks.net_side``), labelled with its true height.
2. A small convolutional network (``train_inknet.fit_net``: the ink-map network's shape,
   mirrored patches as augmentation) learns heights 1-3 on the TRAIN photos.
3. On the VALIDATION photos: its softmax temperature (least NLL of the true heights among
   those the top colour allows), its weight in the geometric mean with the height and foot
   models' pooled heights (least NLL), then the flag threshold again with it in place.

The TEST range is never touched here: ``benchmarks/bench_vision_harmonies.py`` alone uses it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_harmonies as base
import train_inknet

from scorepad.vision import harmonies_stacks as stacks
from scorepad.vision import render3d

HEIGHTS = (1, 2, 3)  # the network's classes, as heights


def stack_rows(rows: list[dict[str, Any]], models: stacks.Models) -> dict[str, np.ndarray]:
    """The network's examples: patches, side inputs, true heights (0-based), the legal
    heights of each top colour (mask), and the committed models' pooled heights without
    the network (what it is pooled with)."""
    context = np.stack(base.contexts(rows, models.top))
    feats = [stacks.features(r["reading"]) for r in rows]
    # Without the network's input: the pooled perceptrons alone, what it is pooled with.
    table = stacks.height_table(np.stack([f["height"] for f in feats]), context, models)
    side = stacks.net_inputs(np.stack([f["net_side"] for f in feats]), context)
    out: dict[str, list[Any]] = {k: [] for k in ("x", "side", "y", "mask", "pooled")}
    for j, r in enumerate(rows):
        top = r["stack"][-1] if r["stack"] else "empty"
        if top not in stacks.SEVERAL:
            continue
        legal = np.isin(HEIGHTS, stacks.HEIGHTS[top])
        pooled = np.zeros(len(HEIGHTS))
        pooled[legal] = table[top][j]
        out["x"].append(np.asarray(feats[j]["patch"], np.float32))
        out["side"].append(side[j])
        out["y"].append(len(r["stack"]) - 1)
        out["mask"].append(legal)
        out["pooled"].append(pooled)
    return {k: np.array(v) for k, v in out.items()}


def log_probabilities(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-softmax over the heights each hex's top colour allows (-inf elsewhere)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))


def nll(logp: np.ndarray, y: np.ndarray) -> float:
    return -float(np.maximum(logp[np.arange(len(y)), y], np.log(1e-9)).sum())


def pooled(data: dict[str, np.ndarray], logits: np.ndarray, w: float) -> np.ndarray:
    """The committed pooled heights and the network's, geometric mean of weight ``w``."""
    net = np.where(data["mask"], log_probabilities(logits, data["mask"]), 0.0)
    return log_probabilities((1 - w) * np.log(data["pooled"] + 1e-12) + w * net, data["mask"])


def network_logits(net: Any, data: dict[str, np.ndarray], mirrored: bool = True) -> np.ndarray:
    """The network's logits over ``data`` in batches (an im2col of every validation patch
    at once takes gigabytes); ``mirrored``: as the recogniser computes them."""
    parts = []
    for i in range(0, len(data["y"]), 1024):
        x, side = data["x"][i : i + 1024], data["side"][i : i + 1024]
        parts.append(net.mirrored_forward(x, side) if mirrored else net.forward(x, side))
    return np.concatenate(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--train", type=int, default=6000)
    parser.add_argument("--validation", type=int, default=400)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--silent", type=float, default=0.002, help="allowed unflagged errors")
    args = parser.parse_args()
    # Collected (in worker processes) before JAX starts its threads.
    train_rows = base.collect(render3d.TRAIN, args.train)
    validation_rows = base.collect(render3d.VALIDATION, args.validation)
    stacks.load_models.cache_clear()
    models = stacks.load_models()
    tr, va = stack_rows(train_rows, models), stack_rows(validation_rows, models)
    print(f"{len(tr['y'])} training hexes, {len(va['y'])} validation hexes", flush=True)

    def accuracy(net: Any) -> float:
        logp = log_probabilities(network_logits(net, va, mirrored=False), va["mask"])
        return float(np.mean(logp.argmax(1) == va["y"]))

    net = train_inknet.fit_net(
        tr["x"], tr["side"], tr["y"], len(HEIGHTS), args.epochs, args.seed, accuracy
    )
    logits = network_logits(net, va)
    y = va["y"]
    temperature = min(
        base.TEMPERATURES, key=lambda t: nll(log_probabilities(logits / t, va["mask"]), y)
    )
    logits = logits / temperature
    alone = log_probabilities(logits, va["mask"])
    right = np.mean(va["pooled"].argmax(1) == y), np.mean(alone.argmax(1) == y)
    print(
        f"heights right: pooled models {right[0]:.4f}, network {right[1]:.4f}, T {temperature:.2f}"
    )
    best = (np.inf, 0.0)
    for w in np.linspace(0, 1, 11):
        logp = pooled(va, logits, w)
        print(
            f"  network weight {w:.1f}: heights right {np.mean(logp.argmax(1) == y):.4f}, "
            f"NLL {nll(logp, y):.1f}"
        )
        best = min(best, (nll(logp, y), float(w)))
    logp = pooled(va, logits, best[1])
    unit = np.exp(va["side"][:, 0])  # mm of lift per token (stack_side's first input)
    for lo, hi in ((0, 0.75), (0.75, 1.5), (1.5, 3.0), (3.0, np.inf)):
        at = (unit >= lo) & (unit < hi)
        print(
            f"  lift {lo}-{hi} mm per token ({at.sum()} hexes): heights right "
            f"{np.mean(va['pooled'][at].argmax(1) == y[at]):.4f} -> "
            f"{np.mean(logp[at].argmax(1) == y[at]):.4f}"
        )
    with np.load(base.MODEL_FILE) as data:
        arrays = {k: data[k] for k in data.files if not k.startswith("stack_")}
    arrays.update(net.arrays("stack"))
    arrays["net_weight"] = np.asarray(best[1])
    arrays["net_temperature"] = np.asarray(float(temperature))
    threshold = base.flag_threshold(base.load_from(arrays), validation_rows, args.silent)
    arrays["flag_below"] = np.asarray(threshold)
    base.load_from(arrays)
    print(f"network weight {best[1]:.1f}; flag below {threshold:.3f}; saved {base.MODEL_FILE}")


if __name__ == "__main__":
    main()
