"""The committed symbol model and the synthetic data's splits."""

from __future__ import annotations

import numpy as np

from scorepad.games.sunflower_valley import RAIL_ORIENTATIONS
from scorepad.hexgrid import Orientation
from scorepad.vision import cells, model, synth


def test_model_loads_without_pickles_and_gives_probabilities():
    m = model.load()
    x = np.zeros((3, m.mean.shape[0]))
    p = m.probabilities(x)
    assert p.shape == (3, len(model.CLASSES))
    assert np.allclose(p.sum(axis=1), 1.0)
    assert 0.0 < m.flag_below < 1.0 and m.temperature > 0 and m.rail_temperature > 0


def test_model_round_trips_through_bytes():
    m = model.load()
    again = model.SymbolModel.from_bytes(m.to_bytes())
    x = np.random.default_rng(1).normal(size=(4, m.mean.shape[0]))
    assert np.allclose(again.probabilities(x), m.probabilities(x), atol=1e-5)


def test_committed_model_is_small():
    from importlib import resources

    data = resources.files("scorepad.vision.models").joinpath(model.MODEL_FILE).read_bytes()
    assert len(data) < 3 * 2**20


def test_rail_templates_pick_the_drawn_track():
    # A clean straight and a clean curve, drawn with the same geometry as the templates,
    # are read with the right sides in both hex orientations.
    for orientation in Orientation:
        for k in (0, 4, 8):
            ink = cells.rail_templates(orientation)[k].copy()
            ink /= ink.max()
            assert int(np.argmax(cells.rail_scores(ink, orientation))) == k, (orientation, k)
    assert len(RAIL_ORIENTATIONS) == 9


def test_splits_are_disjoint_and_seeded():
    ranges = [synth.TRAIN, synth.VALIDATION, synth.TEST]
    for i, a in enumerate(ranges):
        for b in ranges[i + 1 :]:
            assert a[1] <= b[0] or b[1] <= a[0]
    one = synth.sample(synth.VALIDATION, 7, 0.4)
    two = synth.sample(synth.VALIDATION, 7, 0.4)
    assert one.jpeg == two.jpeg
    assert one.jpeg != synth.sample(synth.VALIDATION, 8, 0.4).jpeg


def test_synthetic_layouts_follow_the_rules():
    for seed in range(20):
        layout = synth.random_layout(seed)
        cells_ = layout["cells"]
        assert len(cells_) == 30
        assert sum(1 for c in cells_ if c.get("mountain")) == 5
        areas: dict[str, int] = {}
        for c in cells_:
            if not c.get("mountain"):
                areas[c["area"]] = areas.get(c["area"], 0) + 1
        assert sorted(areas.values()) == [5] * 5
