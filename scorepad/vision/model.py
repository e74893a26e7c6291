"""The pencil-symbol classifier at run time: a small multilayer perceptron trained with
scikit-learn by ``tools/vision/train.py``, joined by a small convolutional network over
the ink maps trained with JAX by ``tools/vision/train_inknet.py``; both stored as plain
arrays in ``scorepad/vision/models/symbols.npz`` (no pickles: loading runs no code) and
evaluated with NumPy."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import BytesIO
from typing import Any

import numpy as np

CLASSES = ("empty", "house", "sheep", "sunflower", "super-sunflower", "rail", "mountain")
MODEL_FILE = "symbols.npz"
#: Columns of ``cells.rail_features``: nine template fits (x 50), a 16 x 16 ink map, pointy.
RAIL_FEATURES = 9 + 16 * 16 + 1


def net_side(fills: np.ndarray, pointy: np.ndarray) -> np.ndarray:
    """The network's inputs besides the ink map: print colour (3) and pointy-top (1)."""
    fills = np.asarray(fills, np.float32).reshape(-1, 3)
    return np.concatenate([fills, np.asarray(pointy, np.float32).reshape(-1, 1)], axis=1)


@dataclass(frozen=True)
class InkNet:
    """A small convolutional network over a hex's ink map (``tools/vision/train_inknet.py``):
    3 × 3 convolutions with ReLU, some followed by a 2 × 2 max-pool, then the flattened maps
    and the side inputs (:func:`net_side`, standardised) through ReLU dense layers to the
    logits of ``CLASSES``. Evaluated with NumPy (im2col and one matrix product per layer).
    The same shape of network, over four channels per hex (``cells.family_maps``) and with
    other side inputs, is the family network of the sunflower split
    (``SymbolModel.family_net``), and over a Harmonies stack's polar patch the stack
    network of the heights (``harmonies_stacks.net_heights``)."""

    convs: tuple[tuple[np.ndarray, np.ndarray], ...]  # kernels (3, 3, in, out), biases
    pools: tuple[bool, ...]  # a 2 x 2 max-pool after that convolution
    dense: tuple[tuple[np.ndarray, np.ndarray], ...]
    side_mean: np.ndarray
    side_scale: np.ndarray

    @staticmethod
    def shrink(inks: np.ndarray) -> np.ndarray:
        """(n, 64, 64) ink maps, or (n, 64, 64, c) stacks of them, averaged down to
        (n, 32, 32, c): the network's input, channels last."""
        x = inks if inks.ndim == 4 else inks[..., None]
        n, h, w, c = x.shape
        return np.asarray(x.reshape(n, h // 2, 2, w // 2, 2, c).mean(axis=(2, 4)), np.float32)

    def logits(self, inks: np.ndarray, side: np.ndarray) -> np.ndarray:
        """Logits (n, outputs) for 64 x 64 ink maps (n, 64, 64) or stacks of them
        (n, 64, 64, c), and side inputs."""
        return self.forward(self.shrink(np.asarray(inks, np.float32)), side)

    def mirrored_logits(self, inks: np.ndarray, side: np.ndarray) -> np.ndarray:
        """:meth:`logits` averaged with those of the mirror images: the network learned
        mirrored drawings as the same symbols (``train_inknet.py``), and the two passes err
        on different hexes (docs/vision.md step 6)."""
        return self.mirrored_forward(self.shrink(np.asarray(inks, np.float32)), side)

    def mirrored_forward(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """:meth:`forward` averaged with that of the inputs mirrored left to right (the
        second axis of the maps: the Harmonies stack patch's angles)."""
        return np.asarray(0.5 * (self.forward(x, side) + self.forward(x[:, :, ::-1], side)))

    def forward(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """Logits for inputs already at 32 x 32, (n, 32, 32, c)."""
        for (kernel, bias), pool in zip(self.convs, self.pools, strict=True):
            x = np.maximum(_conv3(x, kernel) + bias, 0.0)
            if pool:
                n, h, w, c = x.shape
                x = x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
        side = (np.asarray(side, np.float32) - self.side_mean) / self.side_scale
        return _dense(np.concatenate([x.reshape(len(x), -1), side], axis=1), self.dense)

    def arrays(self, prefix: str = "net") -> dict[str, np.ndarray]:
        out = {f"{prefix}_pools": np.array(self.pools, np.int8)}
        out[f"{prefix}_side"] = np.stack([self.side_mean, self.side_scale]).astype(np.float32)
        for kind, layers in (("conv", self.convs), ("dense", self.dense)):
            for i, (w, b) in enumerate(layers):
                out[f"{prefix}_{kind}{i}_w"] = w.astype(np.float32)
                out[f"{prefix}_{kind}{i}_b"] = b.astype(np.float32)
        return out

    @classmethod
    def from_arrays(cls, z: Any, prefix: str = "net") -> InkNet | None:
        if f"{prefix}_pools" not in z.files:
            return None
        pools = tuple(bool(v) for v in z[f"{prefix}_pools"])
        dense = sum(1 for k in z.files if k.startswith(f"{prefix}_dense") and k.endswith("_w"))

        def layer(kind: str, i: int) -> tuple[np.ndarray, np.ndarray]:
            return z[f"{prefix}_{kind}{i}_w"], z[f"{prefix}_{kind}{i}_b"]

        return cls(
            convs=tuple(layer("conv", i) for i in range(len(pools))),
            pools=pools,
            dense=tuple(layer("dense", i) for i in range(dense)),
            side_mean=z[f"{prefix}_side"][0],
            side_scale=z[f"{prefix}_side"][1],
        )


def _dense(h: np.ndarray, layers: tuple[tuple[np.ndarray, np.ndarray], ...]) -> np.ndarray:
    """ReLU dense layers, the last one linear: the logits."""
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    w, b = layers[-1]
    return np.asarray(h @ w + b, np.float64)


def _conv3(x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """'Same' 3 x 3 cross-correlation of (n, h, w, c) maps with a (3, 3, c, out) kernel."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    # im2col in (channel, row, column) order, filled one kernel tap at a time (nine block
    # copies: a few times faster than reshaping a sliding-window view, the same matrix).
    columns = np.empty((n, h, w, c, 3, 3), x.dtype)
    for dy in range(3):
        for dx in range(3):
            columns[..., dy, dx] = padded[:, dy : dy + h, dx : dx + w, :]
    weights = kernel.transpose(2, 0, 1, 3).reshape(c * 9, -1)
    return np.asarray(columns.reshape(n * h * w, c * 9) @ weights).reshape(n, h, w, -1)


@dataclass(frozen=True)
class Perceptron:
    """Standardised inputs through ReLU dense layers to logits (a scikit-learn
    ``MLPClassifier``'s weights, stored as plain arrays under a key prefix)."""

    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]

    def logits(self, x: np.ndarray) -> np.ndarray:
        return _dense((np.asarray(x, np.float64) - self.mean) / self.scale, self.layers)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}_mean": self.mean, f"{prefix}_scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            out[f"{prefix}_w{i}"] = w.astype(np.float32)
            out[f"{prefix}_b{i}"] = b.astype(np.float32)
        return out

    @classmethod
    def from_arrays(cls, z: Any, prefix: str) -> Perceptron | None:
        if f"{prefix}_mean" not in z.files:
            return None
        n = sum(1 for k in z.files if k.startswith(f"{prefix}_w"))
        layers = tuple(
            (z[f"{prefix}_w{i}"].astype(np.float64), z[f"{prefix}_b{i}"].astype(np.float64))
            for i in range(n)
        )
        return cls(z[f"{prefix}_mean"], z[f"{prefix}_scale"], layers)


@dataclass(frozen=True)
class SymbolModel:
    """Standardise, ReLU hidden layers, softmax with a calibrated temperature."""

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    temperature: float  # item softmax temperature (calibrated on validation photos)
    rail_temperature: float  # rail-side softmax temperature
    flag_below: float  # cells whose probability is below this are flagged
    #: Second stage, super sunflower or sunflower within one sheet: logistic regression, or
    #: a one-hidden-layer perceptron when ``super_hidden_w`` is set.
    super_mean: np.ndarray | None = None
    super_scale: np.ndarray | None = None
    super_w: np.ndarray | None = None
    super_b: float = 0.0
    super_temperature: float = 1.0  # softens the within-sheet split (calibrated)
    #: When set, the second stage is a perceptron: this ReLU layer comes first.
    super_hidden_w: np.ndarray | None = None
    super_hidden_b: np.ndarray | None = None
    #: Calibration of the sunflower / super sunflower readings against the rest of the sheet
    #: (logistic regression on ``recognize.family_trust_features``, fitted on validation
    #: photos): the probability that such a reading is right. None: the item probability.
    trust_w: np.ndarray | None = None
    trust_b: float = 0.0
    #: The split itself, when set: a logistic regression on ``recognize.split_features``
    #: (fitted on validation photos) instead of a fixed blend of the two opinions.
    split_w: np.ndarray | None = None
    split_b: float = 0.0
    #: The ink-map network; when set, its log-probabilities are averaged with the
    #: perceptron's, ``net_weight`` being its share (validation: each gets right hexes the
    #: other misses, see docs/vision.md step 6).
    net: InkNet | None = None
    net_weight: float = 0.5
    #: Rail sides from ``cells.rail_features`` (``tools/vision/train_rails.py``); None: the
    #: best template fit. Either way softened by ``rail_temperature``.
    rails: Perceptron | None = None
    #: The family network (``tools/vision/train_family_net.py``): a third opinion for the
    #: split, from each sunflower-like hex's ink map beside its sheet's typical one
    #: (``cells.family_maps``, the network's input as it is) and ``cells.family_features``;
    #: two logits (sunflower, super).
    family_net: InkNet | None = None
    #: How much the residents tally is doubted (``tally.settle_split``): the weight
    #: of "the tally says nothing" against "the sunflowers make up its count", fitted on
    #: validation photos. None: the tally is not used.
    tally_slip: float | None = None
    #: The weights of a tally off by one, two... super sunflowers (``tally.count_weights``):
    #: players miscount a tick, the reading misses one. Fitted with the slip.
    tally_miscount: tuple[float, ...] = ()

    def family_probability(self, maps: np.ndarray, features: np.ndarray) -> np.ndarray | None:
        """P(super sunflower) from the family network for one sheet's sunflower-like hexes;
        None when the model has none."""
        if self.family_net is None:
            return None
        z = self.family_net.forward(maps, features)
        return np.asarray(1 / (1 + np.exp(-np.clip(z[:, 1] - z[:, 0], -50, 50))))

    def trust(self, x: np.ndarray) -> np.ndarray | None:
        """P(reading right) for rows of ``recognize.family_trust_features``; None when the
        model has no such calibration."""
        if self.trust_w is None:
            return None
        z = np.asarray(x, np.float64) @ self.trust_w + self.trust_b
        return np.asarray(1 / (1 + np.exp(-z)))

    def probabilities(
        self, x: np.ndarray, inks: np.ndarray | None = None, side: np.ndarray | None = None
    ) -> np.ndarray:
        """Class probabilities (n, len(CLASSES)) for feature rows x (n, d); with the ink
        maps (n, 64, 64) and side inputs (:func:`net_side`), joined with the network's."""
        h = (np.asarray(x, np.float64) - self.mean) / self.scale
        layers = tuple(zip(self.weights, self.biases, strict=True))
        logits = _log_softmax(_dense(h, layers) / self.temperature)
        if self.net is not None and inks is not None and side is not None and len(logits):
            net = _log_softmax(self.net.mirrored_logits(inks, side))
            logits = (1 - self.net_weight) * logits + self.net_weight * net
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def split(self, x: np.ndarray) -> np.ndarray | None:
        """P(super sunflower) for rows of ``recognize.split_features``; None when the
        model has no learned split."""
        if self.split_w is None:
            return None
        z = np.asarray(x, np.float64) @ self.split_w + self.split_b
        return np.asarray(1 / (1 + np.exp(-np.clip(z, -50, 50))))

    def rail_side_probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(track) over ``RAIL_ORIENTATIONS`` for rows of ``cells.rail_features``: from the
        learned perceptron, or else from the template fits (its first nine columns)."""
        x = np.asarray(x, np.float64).reshape(-1, RAIL_FEATURES)
        # Without the perceptron: the fits as the recogniser always scored them (x 100).
        z = self.rails.logits(x) if self.rails is not None else x[:, :9] * 2
        return np.asarray(np.exp(_log_softmax(z / self.rail_temperature)))

    def super_probability(self, x: np.ndarray) -> np.ndarray | None:
        """P(super sunflower) for the sunflower-like hexes of one sheet (rows of
        ``cells.family_features``); None when the model has no second stage."""
        if self.super_w is None or self.super_mean is None or self.super_scale is None:
            return None
        h = (np.asarray(x, np.float64) - self.super_mean) / self.super_scale
        if self.super_hidden_w is not None and self.super_hidden_b is not None:
            h = np.maximum(h @ self.super_hidden_w + self.super_hidden_b, 0.0)
        z = h @ self.super_w
        return np.asarray(1 / (1 + np.exp(-np.clip(z + self.super_b, -50, 50))))

    def to_bytes(self) -> bytes:
        arrays: dict[str, np.ndarray] = {
            "mean": self.mean,
            "scale": self.scale,
            "calibration": np.array([self.temperature, self.rail_temperature, self.flag_below]),
        }
        if (
            self.super_w is not None
            and self.super_mean is not None
            and self.super_scale is not None
        ):
            arrays["super_mean"] = self.super_mean
            arrays["super_scale"] = self.super_scale
            arrays["super_w"] = self.super_w
            arrays["super_b"] = np.array([self.super_b, self.super_temperature])
            if self.super_hidden_w is not None and self.super_hidden_b is not None:
                arrays["super_hidden_w"] = self.super_hidden_w
                arrays["super_hidden_b"] = self.super_hidden_b
        if self.trust_w is not None:
            arrays["trust"] = np.concatenate([self.trust_w, [self.trust_b]]).astype(np.float64)
        if self.split_w is not None:
            arrays["split"] = np.concatenate([self.split_w, [self.split_b]]).astype(np.float64)
        if self.tally_slip is not None:
            arrays["tally_slip"] = np.array([self.tally_slip, *self.tally_miscount])
        if self.net is not None:
            arrays.update(self.net.arrays())
            arrays["net_weight"] = np.array([self.net_weight])
        if self.family_net is not None:
            arrays.update(self.family_net.arrays("family"))
        if self.rails is not None:
            arrays.update(self.rails.arrays("rails"))
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        buffer = BytesIO()
        np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> SymbolModel:
        with np.load(BytesIO(data), allow_pickle=False) as z:
            n = sum(1 for k in z.files if k[0] == "w" and k[1:].isdigit())
            t, rt, flag = (float(v) for v in z["calibration"])
            return cls(
                mean=z["mean"],
                scale=z["scale"],
                weights=tuple(z[f"w{i}"].astype(np.float64) for i in range(n)),
                biases=tuple(z[f"b{i}"].astype(np.float64) for i in range(n)),
                temperature=t,
                rail_temperature=rt,
                flag_below=flag,
                super_mean=z["super_mean"] if "super_mean" in z.files else None,
                super_scale=z["super_scale"] if "super_scale" in z.files else None,
                super_w=z["super_w"].astype(np.float64) if "super_w" in z.files else None,
                super_b=float(z["super_b"][0]) if "super_b" in z.files else 0.0,
                super_temperature=float(z["super_b"][1]) if "super_b" in z.files else 1.0,
                super_hidden_w=z["super_hidden_w"] if "super_hidden_w" in z.files else None,
                super_hidden_b=z["super_hidden_b"] if "super_hidden_b" in z.files else None,
                trust_w=z["trust"][:-1].astype(np.float64) if "trust" in z.files else None,
                trust_b=float(z["trust"][-1]) if "trust" in z.files else 0.0,
                split_w=z["split"][:-1].astype(np.float64) if "split" in z.files else None,
                split_b=float(z["split"][-1]) if "split" in z.files else 0.0,
                net=InkNet.from_arrays(z),
                net_weight=float(z["net_weight"][0]) if "net_weight" in z.files else 0.5,
                rails=Perceptron.from_arrays(z, "rails"),
                family_net=InkNet.from_arrays(z, "family"),
                tally_slip=float(z["tally_slip"][0]) if "tally_slip" in z.files else None,
                tally_miscount=(
                    tuple(float(v) for v in z["tally_slip"][1:]) if "tally_slip" in z.files else ()
                ),
            )


def best_items(probs: np.ndarray) -> np.ndarray:
    """The likeliest item of each hex (an index into ``CLASSES``), mountains aside: whether
    a hex is a mountain is read from that probability alone, and its item is what it holds
    if not."""
    items = probs.copy()
    items[:, CLASSES.index("mountain")] = 0.0
    return np.asarray(items.argmax(axis=1))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))


@lru_cache(maxsize=1)
def load() -> SymbolModel:
    """The committed model (read once per process)."""
    data = resources.files("scorepad.vision.models").joinpath(MODEL_FILE).read_bytes()
    return SymbolModel.from_bytes(data)
