"""The flag threshold's rule (``tools/vision/train.py``, ``pick_threshold``): the lowest
threshold that keeps silent errors under the target with the layout and without it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2", reason="the vision extra is not installed")

ROOT = Path(__file__).resolve().parents[2]


def _train():
    spec = importlib.util.spec_from_file_location(
        "scorepad_train_tool", ROOT / "tools/vision/train.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mode(wrong: list[float], right: int = 95) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities and rightness: ``right`` sure right cells and the wrong ones given."""
    probs = np.array([0.99] * right + wrong)
    return probs, np.array([True] * right + [False] * len(wrong))


def test_the_threshold_keeps_every_mode_under_the_silent_target():
    pick = _train().pick_threshold
    with_layout = _mode([0.3, 0.5, 0.6, 0.72, 0.8])
    without = _mode([0.3, 0.5, 0.6, 0.85, 0.9])
    # One silent error in a hundred is allowed: with the layout alone 0.73 flags enough.
    assert pick([with_layout], 0.01, 0.5) == 0.73
    # Without the layout a wrong cell is read at 0.85: the threshold rises to flag it too.
    assert pick([with_layout, without], 0.01, 0.5) == 0.86


def test_a_missed_hex_takes_part_of_the_target_and_the_flag_budget_caps_the_threshold():
    pick = _train().pick_threshold
    missed = _mode([2.0, 0.42, 0.62], right=97)  # a hex the grid missed: never flagged
    assert pick([missed], 0.01, 0.5) == 0.63  # both readable wrong cells must be flagged
    # Flagging both would flag 2 % of the cells: over a 1.5 % budget, the threshold stops
    # just below, where the flags still fit it.
    assert pick([missed], 0.01, 0.015) == 0.62


def test_the_threshold_is_chosen_on_photos_the_calibration_was_not_fitted_on(monkeypatch, tmp_path):
    """The split and trust are fitted on the first ``validation`` photos, where their
    probabilities are surer than elsewhere: the threshold must come from the photos after."""
    train = _train()
    chosen: list[range] = []

    def choose(photos: range, megapixels: float) -> float:
        chosen.append(photos)
        return 0.9

    monkeypatch.setattr(train, "choose_threshold", choose)
    monkeypatch.setattr(train, "MODEL_PATH", tmp_path / "symbols.npz")
    model = train.symbols.load()
    assert train.save_with_threshold(model, 200, 3.0) == 0.9
    assert chosen == [range(200, 200 + train.THRESHOLD_PHOTOS)]
    saved = train.symbols.SymbolModel.from_bytes((tmp_path / "symbols.npz").read_bytes())
    assert saved.flag_below == 0.9
