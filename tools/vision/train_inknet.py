"""Train the ink-map network that joins the pencil-symbol perceptron (issue 7).

    nice -n 10 python tools/vision/train_inknet.py [--train 4000] [--epochs 8]

Needs the ``train`` extra (JAX, CPU only) besides ``vision``. The recogniser itself runs
the network with NumPy (``scorepad.vision.model.InkNet``): nothing of JAX at run time.

A small convolutional network reads each hex's ink map (the same normalised 64 × 64 maps
as ``train.py``, cached in /tmp, averaged down to 32 × 32) plus the print colour and the
hex orientation, and learns the seven classes on TRAIN photos. The hand-made features of
the perceptron miss shapes a convolution sees (a roof, a sheep's legs, a faint rail); the
two disagree on different hexes, so the recogniser averages their log-probabilities
(``SymbolModel.net_weight``). The network goes into the committed model file; then the
sunflower split and trust and the flag threshold are fitted again on VALIDATION photos
with it in place, as ``train.py --calibrate-only`` does. The TEST range is never touched.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train as base

from scorepad.vision import model as symbols
from scorepad.vision import synth

#: Channels and 3 x 3 convolutions of each block; a block ends in a 2 x 2 max-pool.
BLOCKS = ((16, 2), (32, 2), (64, 1))
#: Per convolution: its channels and whether the pool follows it (the block's last).
CONVS = tuple((width, j == count - 1) for width, count in BLOCKS for j in range(count))
HIDDEN = 128
BATCH = 128
LEARNING_RATE = 2e-3  # Adam, cosine decay over the epochs
WEIGHT_DECAY = 1e-4  # L2 on every weight matrix and kernel


def inputs(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Ink maps at 32 x 32 with a channel axis, and the raw side inputs."""
    ink = data["ink"].astype(np.float32)
    return symbols.InkNet.shrink(ink), symbols.net_side(data["fill"], data["pointy"])


def train_net(
    tr: dict[str, np.ndarray], va: dict[str, np.ndarray], epochs: int, seed: int
) -> symbols.InkNet:
    """The seven-class network on the TRAIN hexes, scored on the VALIDATION ones each epoch."""
    ink_va, side_va = va["ink"].astype(np.float32), symbols.net_side(va["fill"], va["pointy"])

    def accuracy(net: symbols.InkNet) -> float:
        return float((net.logits(ink_va, side_va).argmax(axis=1) == va["y"]).mean())

    x_tr, side_tr = inputs(tr)
    return fit_net(x_tr, side_tr, tr["y"], len(symbols.CLASSES), epochs, seed, accuracy)


def fit_net(
    x_tr: np.ndarray,
    side_tr: np.ndarray,
    y_tr: np.ndarray,
    outputs: int,
    epochs: int,
    seed: int,
    accuracy: Callable[[symbols.InkNet], float],
) -> symbols.InkNet:
    """A network of ``CONVS`` and one hidden dense layer, trained by Adam on softmax
    cross-entropy: inputs ``x_tr`` (n, 32, 32, channels), side inputs (standardised here
    and by ``InkNet.logits`` alike) and labels in ``range(outputs)``; ``accuracy`` reports
    on held-out rows after each epoch."""
    import jax
    import jax.numpy as jnp

    mean, scale = side_tr.mean(axis=0), side_tr.std(axis=0) + 1e-3
    side_tr = (side_tr - mean) / scale

    def init(key: Any) -> dict[str, tuple[Any, Any]]:
        keys = jax.random.split(key, len(CONVS) + 2)
        params, cin = {}, x_tr.shape[3]
        for k, (w, _pool) in enumerate(CONVS):
            kernel = jax.random.normal(keys[k], (3, 3, cin, w)) * np.sqrt(2 / (9 * cin))
            params[f"c{k}"] = (kernel, jnp.zeros(w))
            cin = w
        flat = (32 // 2 ** len(BLOCKS)) ** 2 * cin + side_tr.shape[1]
        params["d0"] = (
            jax.random.normal(keys[-2], (flat, HIDDEN)) * np.sqrt(2 / flat),
            jnp.zeros(HIDDEN),
        )
        params["d1"] = (
            jax.random.normal(keys[-1], (HIDDEN, outputs)) * np.sqrt(1 / HIDDEN),
            jnp.zeros(outputs),
        )
        return params

    def forward(params: dict[str, tuple[Any, Any]], x: Any, side: Any) -> Any:
        for k, (_width, pool) in enumerate(CONVS):
            w, bias = params[f"c{k}"]
            x = jax.lax.conv_general_dilated(
                x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
            x = jax.nn.relu(x + bias)
            if pool:
                x = jax.lax.reduce_window(
                    x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
                )
        h = jnp.concatenate([x.reshape(x.shape[0], -1), side], axis=1)
        h = jax.nn.relu(h @ params["d0"][0] + params["d0"][1])
        return h @ params["d1"][0] + params["d1"][1]

    def loss(params: dict[str, tuple[Any, Any]], x: Any, side: Any, y: Any) -> Any:
        logp = jax.nn.log_softmax(forward(params, x, side))
        penalty = sum(jnp.sum(w**2) for w, _b in params.values())
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1)) + WEIGHT_DECAY * penalty

    @jax.jit
    def step(params: Any, m: Any, v: Any, t: Any, x: Any, side: Any, y: Any, lr: Any) -> Any:
        g = jax.grad(loss)(params, x, side, y)
        m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
        params = jax.tree_util.tree_map(
            lambda p, mm, vv: p - lr * (mm / (1 - 0.9**t)) / (jnp.sqrt(vv / (1 - 0.999**t)) + 1e-8),
            params,
            m,
            v,
        )
        return params, m, v

    rng = np.random.default_rng(seed)
    params = init(jax.random.PRNGKey(seed))
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    t = 0
    for epoch in range(epochs):
        start = time.time()
        order = rng.permutation(len(y_tr))
        lr = LEARNING_RATE * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        for b in range(len(order) // BATCH):
            idx = order[b * BATCH : (b + 1) * BATCH]
            x = x_tr[idx]
            flip = rng.random(len(idx)) < 0.5  # a mirrored drawing is the same symbol
            x = np.where(flip[:, None, None, None], x[:, :, ::-1], x)
            t += 1
            params, m, v = step(params, m, v, t, x, side_tr[idx], y_tr[idx], lr)
        acc = accuracy(to_inknet(params, mean, scale))
        print(
            f"epoch {epoch}: validation accuracy {acc:.4f}, {time.time() - start:.0f} s", flush=True
        )
    return to_inknet(params, mean, scale)


def to_inknet(params: dict[str, Any], mean: np.ndarray, scale: np.ndarray) -> symbols.InkNet:
    convs = tuple(
        (np.asarray(params[f"c{k}"][0], np.float32), np.asarray(params[f"c{k}"][1], np.float32))
        for k in range(len(CONVS))
    )
    pools = tuple(pool for _width, pool in CONVS)
    dense = tuple(
        (np.asarray(params[n][0], np.float32), np.asarray(params[n][1], np.float32))
        for n in ("d0", "d1")
    )
    return symbols.InkNet(convs=convs, pools=pools, dense=dense, side_mean=mean, side_scale=scale)


def main() -> None:
    # 4000 TRAIN photos: on held-out VALIDATION photos 200-399 the whole recogniser read
    # 97.88 % of cells right with the network trained on 2000, 98.00 % with 4000.
    model, va, args = train_part(__doc__, 4000, train_net, "net")
    print(
        f"validation accuracy with the perceptron, both stages {base.item_accuracy(model, va):.4f}"
    )
    base.calibrate_and_save(model, va, args.validation, args.megapixels)


def train_part(
    doc: str | None,
    train_photos: int,
    fit: Callable[[dict[str, np.ndarray], dict[str, np.ndarray], int, int], symbols.InkNet],
    part: str,
) -> tuple[symbols.SymbolModel, dict[str, np.ndarray], argparse.Namespace]:
    """How a network script runs: its photo, epoch and seed arguments, the cached TRAIN and
    VALIDATION cells, the network ``fit`` on them and put in the committed model as
    ``part``; returns that model, the VALIDATION cells and the arguments."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    base.photo_arguments(parser, train=train_photos)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # The threshold is chosen in worker processes; JAX's threads do not survive a fork.
    multiprocessing.set_start_method("spawn")
    tr = base.collect(synth.TRAIN, args.train, args.megapixels, "train")
    va = base.collect(synth.VALIDATION, args.validation, args.megapixels, "validation")
    net = fit(tr, va, args.epochs, args.seed)
    return symbols.SymbolModel(**{**symbols.load().__dict__, part: net}), va, args


if __name__ == "__main__":
    main()
