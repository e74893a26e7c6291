"""Small learned models stored as plain arrays: a multi-layer perceptron exported from
scikit-learn by the training tools and evaluated with NumPy at run time.
"""

from __future__ import annotations

import numpy as np

FloatArray = np.ndarray


class Mlp:
    """A small multi-layer perceptron exported from scikit-learn as plain arrays (ReLU
    hidden layers, softmax output), with its input scaling and a calibrated temperature."""

    def __init__(self, arrays: dict[str, np.ndarray], name: str) -> None:
        self.mean = arrays[f"{name}.mean"]
        self.scale = arrays[f"{name}.scale"]
        self.classes = [str(c) for c in arrays[f"{name}.classes"]]
        self.temperature = float(arrays[f"{name}.temperature"])
        layers = int(arrays[f"{name}.layers"])
        self.weights = [arrays[f"{name}.w{i}"] for i in range(layers)]
        self.biases = [arrays[f"{name}.b{i}"] for i in range(layers)]

    def probabilities(self, x: FloatArray) -> FloatArray:
        """Class probabilities for each row of ``x`` (columns in ``self.classes`` order)."""
        a = (np.atleast_2d(x).astype(np.float64) - self.mean) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            a = np.maximum(a @ w + b, 0.0)
        logits = (a @ self.weights[-1] + self.biases[-1]) / self.temperature
        if logits.shape[1] == 1:  # binary: one logistic output
            p = 1 / (1 + np.exp(-logits[:, 0]))
            return np.column_stack([1 - p, p])
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


def export_mlp(
    model: object, scaler: object, name: str, temperature: float
) -> dict[str, np.ndarray]:
    """The arrays :class:`Mlp` reads back, from a fitted ``MLPClassifier`` and
    ``StandardScaler`` (used by the training tools)."""
    coefs = model.coefs_  # type: ignore[attr-defined]
    intercepts = model.intercepts_  # type: ignore[attr-defined]
    out = {
        f"{name}.mean": np.asarray(scaler.mean_),  # type: ignore[attr-defined]
        f"{name}.scale": np.asarray(scaler.scale_),  # type: ignore[attr-defined]
        f"{name}.classes": np.asarray([str(c) for c in model.classes_]),  # type: ignore[attr-defined]
        f"{name}.temperature": np.asarray(temperature),
        f"{name}.layers": np.asarray(len(coefs)),
    }
    for i, (w, b) in enumerate(zip(coefs, intercepts, strict=True)):
        out[f"{name}.w{i}"] = np.asarray(w, np.float32)
        out[f"{name}.b{i}"] = np.asarray(b, np.float32)
    return out
