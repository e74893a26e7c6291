"""The pencil-symbol classifier at run time: a small multilayer perceptron trained with
scikit-learn by ``tools/vision/train.py`` and stored as plain arrays in
``scorepad/vision/models/symbols.npz`` (no pickles: loading runs no code)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import BytesIO

import numpy as np

CLASSES = ("empty", "house", "sheep", "sunflower", "super-sunflower", "rail", "mountain")
MODEL_FILE = "symbols.npz"


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

    def trust(self, x: np.ndarray) -> np.ndarray | None:
        """P(reading right) for rows of ``recognize.family_trust_features``; None when the
        model has no such calibration."""
        if self.trust_w is None:
            return None
        z = np.asarray(x, np.float64) @ self.trust_w + self.trust_b
        return np.asarray(1 / (1 + np.exp(-z)))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (n, len(CLASSES)) for feature rows x (n, d)."""
        h = (np.asarray(x, np.float64) - self.mean) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        logits = (h @ self.weights[-1] + self.biases[-1]) / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

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
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        buffer = BytesIO()
        np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> SymbolModel:
        with np.load(BytesIO(data), allow_pickle=False) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
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
            )


@lru_cache(maxsize=1)
def load() -> SymbolModel:
    """The committed model (read once per process)."""
    data = resources.files("scorepad.vision.models").joinpath(MODEL_FILE).read_bytes()
    return SymbolModel.from_bytes(data)
