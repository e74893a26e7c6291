"""The committed symbol model and the synthetic data's splits."""

from __future__ import annotations

import numpy as np

from scorepad.games.sunflower_valley import RAIL_ORIENTATIONS
from scorepad.hexgrid import Hex, Orientation
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


def test_committed_model_joins_the_ink_network_to_the_perceptron():
    m = model.load()
    assert m.net is not None and 0.0 < m.net_weight < 1.0
    ink = np.zeros((2, cells.PATCH, cells.PATCH), np.float32)
    assert m.net.logits(ink, model.net_side(np.ones((2, 3)), np.array([True, False]))).shape == (
        2,
        len(model.CLASSES),
    )


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


def _flower(star: bool) -> np.ndarray:
    """A sunflower drawn in patch pixels (centre ring and nine petals), with or without a
    big upright star over its centre, as a super sunflower is marked by some players."""
    import math

    import cv2

    ink = np.zeros((cells.PATCH, cells.PATCH), np.float32)
    c = cells.PATCH / 2 - 0.5 + 2  # drawn a little off the hex's centre
    unit = cells.PATCH / cells.SPAN
    cv2.circle(ink, (round(c * 16), round(c * 16)), round(0.14 * unit * 16), 0.8, 2, cv2.LINE_AA, 4)
    for k in range(9):
        a = 0.3 + 2 * math.pi * k / 9
        p = [(c + r * unit * math.cos(a), c + r * unit * math.sin(a)) for r in (0.16, 0.42)]
        cv2.line(ink, *(tuple(round(v * 16) for v in q) for q in p), 0.8, 2, cv2.LINE_AA, 4)
    if star:
        pts = [
            (
                c + (0.3 if k % 2 == 0 else 0.12) * unit * math.cos(-math.pi / 2 + math.pi * k / 5),
                c + (0.3 if k % 2 == 0 else 0.12) * unit * math.sin(-math.pi / 2 + math.pi * k / 5),
            )
            for k in range(11)
        ]
        pts16 = np.round(np.array(pts) * 16).astype(np.int32)
        cv2.polylines(ink, [pts16], False, 0.8, 2, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(ink, (0, 0), 0.8)


def test_circle_profile_sees_a_star_over_the_flower_centre():
    n = len(cells.CIRCLE_RADII)
    plain, starred = cells.circle_profile(_flower(False)), cells.circle_profile(_flower(True))
    assert plain.shape == (4 * n,)
    ring = (cells.CIRCLE_RADII > 0.2) & (cells.CIRCLE_RADII < 0.34)
    # More of the circles around the centre inked, and a five-fold harmonic of an upright star.
    assert starred[n : 2 * n][ring].mean() > plain[n : 2 * n][ring].mean() + 0.1
    assert starred[3 * n :][ring].mean() > plain[3 * n :][ring].mean() + 0.2


def test_features_match_the_committed_model():
    inks = [_flower(False), _flower(True), np.zeros((cells.PATCH, cells.PATCH), np.float32)]
    fills = [np.array([0.9, 0.8, 0.5])] * 3
    x = cells.sheet_features(inks, fills, Orientation.FLAT)
    m = model.load()
    assert x.shape == (3, m.mean.shape[0])
    fam = cells.family_features(inks[:2])
    assert m.super_mean is not None and fam.shape == (2, m.super_mean.shape[0])


def test_sunflower_trust_round_trips_and_doubts_unsure_sheets():
    from scorepad.vision import recognize

    m = model.load()
    assert m.trust_w is not None
    again = model.SymbolModel.from_bytes(m.to_bytes())
    sun, sup = model.CLASSES.index("sunflower"), model.CLASSES.index("super-sunflower")

    def sheet(shares: list[float]) -> np.ndarray:
        probs = np.zeros((len(shares) + 1, len(model.CLASSES)))
        probs[:-1, sup] = shares
        probs[:-1, sun] = 1 - np.array(shares)
        probs[-1, model.CLASSES.index("house")] = 1.0  # not a sunflower: no trust row
        return probs

    rows, x = recognize.family_trust_features(sheet([0.01, 0.02, 0.98, 0.01]))
    assert rows.tolist() == [0, 1, 2, 3]
    sure = m.trust(x)
    assert np.allclose(again.trust(x), sure)
    # The same confident sunflower on a sheet whose other splits are unsure is doubted more.
    _, unsure_x = recognize.family_trust_features(sheet([0.01, 0.3, 0.6, 0.35]))
    assert sure[0] > 0.9 and m.trust(unsure_x)[0] < sure[0]


def test_a_sunflower_reading_is_no_surer_than_its_sunflower_likeness():
    # VALIDATION sheet 107 053: a house read as a super sunflower at 0.66 (house 0.16,
    # rail 0.11) on a sheet with a clear split; the trust alone said 0.999, unflagged.
    from scorepad.vision import recognize

    m = model.load()
    probs = np.zeros((4, len(model.CLASSES)))
    sun, sup = model.CLASSES.index("sunflower"), model.CLASSES.index("super-sunflower")
    probs[:3, sun], probs[2, sun], probs[2, sup] = 1.0, 0.02, 0.98
    house = [0.004, 0.158, 0.064, 0.001, 0.658, 0.113, 0.002]
    probs[3] = house
    assert recognize.family_share(probs[0]) == 1.0
    assert abs(recognize.family_share(probs[3]) - 0.659 / 0.998) < 1e-9
    _, x = recognize.family_trust_features(probs)
    trust = m.trust(x)
    assert trust[3] > 0.99  # the trust does not see what else the hex may be
    assert trust[3] * recognize.family_share(probs[3]) < m.flag_below


def test_a_house_read_as_a_super_sunflower_is_flagged():
    from scorepad.vision.recognize import recognize

    s = synth.sample(synth.VALIDATION, 7053, 3.0)
    found = recognize(s.jpeg, layout={"name": "v", "cells": s.layout["cells"]})
    cell = next(c for c in found["player"]["cells"] if (c["q"], c["r"]) == (2, 3))
    assert s.truth_cells()[Hex(2, 3)]["item"] == "house"
    if cell.get("item") != "house":  # misread: it must say so
        assert next(c for c in found["confidence"] if (c["q"], c["r"]) == (2, 3))["flagged"]


def test_star_match_prefers_an_upright_star_to_a_turned_one():
    plain, starred = cells.star_match(_flower(False)), cells.star_match(_flower(True))
    assert starred.shape == (2,)
    # The upright star fits better than the same star turned by 36 degrees, petals do not.
    assert starred[1] > plain[1] + 0.01


def _random_net(
    seed: int, widths: tuple[int, ...] = (3, 4, 5), channels: int = 1, outputs: int = 7
) -> model.InkNet:
    rng = np.random.default_rng(seed)
    convs, cin = [], channels
    for w in widths:
        convs.append((rng.normal(size=(3, 3, cin, w)).astype(np.float32), rng.normal(size=w)))
        cin = w
    flat = (32 // 2 ** len(widths)) ** 2 * cin + 4
    dense = (
        (rng.normal(size=(flat, 6)), rng.normal(size=6)),
        (rng.normal(size=(6, outputs)), rng.normal(size=outputs)),
    )
    return model.InkNet(
        convs=tuple(convs),
        pools=(True,) * len(widths),
        dense=dense,
        side_mean=rng.normal(size=4),
        side_scale=rng.uniform(0.5, 2, size=4),
    )


def _reference_logits(net: model.InkNet, ink: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The same network, one map at a time with SciPy's cross-correlation: ``ink`` a
    64 x 64 map, or an input already at 32 x 32 with its channels."""
    from scipy.signal import correlate

    x = ink if ink.ndim == 3 else ink.reshape(32, 2, 32, 2).mean(axis=(1, 3))[..., None]
    for (kernel, bias), pool in zip(net.convs, net.pools, strict=True):
        out = np.stack(
            [
                sum(
                    correlate(x[..., c], kernel[:, :, c, o], mode="same") for c in range(x.shape[2])
                )
                for o in range(kernel.shape[3])
            ],
            axis=-1,
        )
        x = np.maximum(out + bias, 0)
        if pool:
            h, w, c = x.shape
            x = x.reshape(h // 2, 2, w // 2, 2, c).max(axis=(1, 3))
    h = np.concatenate([x.ravel(), (side - net.side_mean) / net.side_scale])
    h = np.maximum(h @ net.dense[0][0] + net.dense[0][1], 0)
    return h @ net.dense[1][0] + net.dense[1][1]


def test_ink_network_matches_a_plain_convolution_reference():
    net = _random_net(3)
    rng = np.random.default_rng(4)
    inks = rng.uniform(0, 1, size=(3, 64, 64)).astype(np.float32)
    side = model.net_side(rng.uniform(size=(3, 3)), np.array([True, False, True]))
    got = net.logits(inks, side)
    assert got.shape == (3, 7)
    for i in range(3):
        assert np.allclose(got[i], _reference_logits(net, inks[i], side[i]), rtol=1e-4, atol=1e-3)


def test_mirrored_logits_average_a_map_and_its_mirror_image():
    net = _random_net(7)
    rng = np.random.default_rng(8)
    inks = rng.uniform(0, 1, size=(2, 64, 64)).astype(np.float32)
    side = model.net_side(rng.uniform(size=(2, 3)), np.array([True, False]))
    want = 0.5 * (net.logits(inks, side) + net.logits(inks[:, :, ::-1], side))
    assert np.allclose(net.mirrored_logits(inks, side), want, atol=1e-5)
    assert not np.allclose(net.mirrored_logits(inks, side), net.logits(inks, side), atol=1e-3)
    symmetric = inks + inks[:, :, ::-1]  # a drawing its own mirror image: one pass says it
    assert np.allclose(net.mirrored_logits(symmetric, side), net.logits(symmetric, side), atol=1e-4)


def test_network_joins_the_perceptron_by_its_weight_and_round_trips():
    m = model.load()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, m.mean.shape[0]))
    inks = rng.uniform(0, 0.3, size=(4, 64, 64)).astype(np.float32)
    side = model.net_side(rng.uniform(size=(4, 3)), np.zeros(4, bool))
    alone = model.SymbolModel(**{**m.__dict__, "net": None}).probabilities(x, inks, side)
    net = _random_net(6)
    joined = model.SymbolModel(**{**m.__dict__, "net": net, "net_weight": 0.5})
    z = 0.5 * np.log(alone) + 0.5 * np.log(_softmax(net.mirrored_logits(inks, side)))
    assert np.allclose(joined.probabilities(x, inks, side), _softmax(z), atol=1e-6)
    # Without the ink maps (or with no weight) the perceptron speaks alone.
    assert np.allclose(joined.probabilities(x), alone)
    silent = model.SymbolModel(**{**joined.__dict__, "net_weight": 0.0})
    assert np.allclose(silent.probabilities(x, inks, side), alone)
    again = model.SymbolModel.from_bytes(joined.to_bytes())
    assert again.net is not None and again.net_weight == 0.5
    assert np.allclose(
        again.probabilities(x, inks, side), joined.probabilities(x, inks, side), atol=1e-5
    )


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _drawn_track(orientation: Orientation, k: int) -> np.ndarray:
    ink = cells.rail_templates(orientation)[k].copy()
    return np.asarray(ink / ink.max(), np.float32)


def test_rail_side_perceptron_reads_clean_tracks_and_round_trips():
    m = model.load()
    assert m.rails is not None  # the committed model has the learned rail sides
    again = model.SymbolModel.from_bytes(m.to_bytes())
    for orientation in Orientation:
        for k in range(len(RAIL_ORIENTATIONS)):
            x = cells.rail_features(_drawn_track(orientation, k), orientation)
            assert x.shape == (model.RAIL_FEATURES,)
            p = m.rail_side_probabilities(x)
            assert p.shape == (1, 9) and np.isclose(p.sum(), 1.0)
            assert int(np.argmax(p)) == k, (orientation, k)
            assert np.allclose(again.rail_side_probabilities(x), p, atol=1e-5)


def test_without_the_perceptron_rail_sides_come_from_the_template_fits():
    m = model.load()
    plain = model.SymbolModel(**{**m.__dict__, "rails": None, "rail_temperature": 0.5})
    ink = _drawn_track(Orientation.FLAT, 3)
    fits = cells.rail_scores(ink, Orientation.FLAT) * 100 / 0.5
    want = np.exp(fits - fits.max()) / np.exp(fits - fits.max()).sum()
    got = plain.rail_side_probabilities(cells.rail_features(ink, Orientation.FLAT))[0]
    assert np.allclose(got, want, atol=1e-4)
    assert "rails_mean" not in np.load(__import__("io").BytesIO(plain.to_bytes())).files


def test_perceptron_is_relu_layers_over_standardised_inputs():
    w0, b0 = np.array([[1.0, -1.0]]), np.array([0.0, 0.5])
    w1, b1 = np.array([[2.0], [3.0]]), np.array([-1.0])
    p = model.Perceptron(np.array([1.0]), np.array([2.0]), ((w0, b0), (w1, b1)))
    # x = 5 -> (5 - 1) / 2 = 2 -> relu(2, -1.5) = (2, 0) -> 2 * 2 - 1 = 3
    assert np.allclose(p.logits(np.array([[5.0]])), [[3.0]])
    # x = -3 -> -2 -> relu(-2, 2.5) = (0, 2.5) -> 3 * 2.5 - 1 = 6.5
    assert np.allclose(p.logits(np.array([[-3.0]])), [[6.5]])


def test_split_features_compare_each_sunflower_with_its_sheet():
    from scorepad.vision import recognize

    own = np.array([0.1, 0.2, 0.9, 0.15])
    stage = np.array([0.05, 0.1, 0.6, 0.2])
    x = recognize.split_features(own, stage)
    assert x.shape == (4, 8)
    logit = np.log(own / (1 - own))
    assert np.allclose(x[:, 0], logit)
    assert np.allclose(x[:, 1], logit - np.median(logit))
    assert x[:, 2].tolist() == [0.125, 0.625, 0.875, 0.375]  # ranks within the sheet
    assert x[2, 3] == 0.0 and (x[[0, 1, 3], 3] < 0).all()  # the sheet's highest
    assert np.allclose(x[:, 4], np.log(stage / (1 - stage)))


def test_learned_split_decides_the_sunflower_family_and_round_trips():
    from scorepad.vision import recognize

    m = model.load()
    assert m.split_w is not None
    assert np.allclose(model.SymbolModel.from_bytes(m.to_bytes()).split_w, m.split_w)
    sun, sup = model.CLASSES.index("sunflower"), model.CLASSES.index("super-sunflower")
    probs = np.zeros((3, len(model.CLASSES)))
    probs[:, sun], probs[:, sup] = [0.8, 0.3, 0.5], [0.1, 0.6, 0.4]
    ink = [np.zeros((cells.PATCH, cells.PATCH), np.float32)] * 3
    # A split that follows the hex's own opinion only: the family's mass is kept and is
    # shared out exactly as the hex said.
    own_only = np.zeros(len(m.split_w))
    own_only[0] = 1.0
    follow = model.SymbolModel(**{**m.__dict__, "split_w": own_only, "split_b": 0.0})
    out = recognize.resolve_super(follow, probs, ink)
    assert np.allclose(out[:, sun] + out[:, sup], probs[:, sun] + probs[:, sup])
    own = probs[:, sup] / (probs[:, sun] + probs[:, sup])
    assert np.allclose(out[:, sup] / (out[:, sun] + out[:, sup]), own, atol=1e-3)
    # Without a learned split the older fixed blend is used, and differs.
    blend = recognize.resolve_super(
        model.SymbolModel(**{**m.__dict__, "split_w": None}), probs, ink
    )
    assert not np.allclose(blend, out)


def test_family_maps_set_each_flower_beside_its_sheets_plain_one():
    plain, starred = _flower(False), _flower(True)
    maps = cells.family_maps([plain, plain, starred])
    assert maps.shape == (3, 32, 32, 4)
    # Channels: the hex and the sheet's typical (median) flower, whole at half resolution,
    # then their centres at full resolution. Two of three are plain: the median is plain.
    for k in range(3):
        assert np.allclose(maps[k, ..., 1], plain.reshape(32, 2, 32, 2).mean(axis=(1, 3)))
        assert np.allclose(maps[k, ..., 3], plain[16:48, 16:48])
    assert np.allclose(maps[0, ..., 0], maps[0, ..., 1])
    # The star is ink the typical flower lacks, nearly all of it in the full-resolution centre.
    extra = maps[2, ..., 2] - maps[2, ..., 3]
    assert extra.sum() > 0.9 * (starred - plain).sum() > 0


def test_ink_network_reads_stacks_of_maps_as_channels():
    net = _random_net(7, channels=4)
    rng = np.random.default_rng(8)
    x = rng.uniform(0, 1, size=(2, 32, 32, 4)).astype(np.float32)
    side = model.net_side(rng.uniform(size=(2, 3)), np.array([True, False]))
    got = net.forward(x, side)
    for i in range(2):
        want = _reference_logits(net, x[i], side[i])
        assert np.allclose(got[i], want, rtol=1e-4, atol=1e-3)
    # 64 x 64 maps are averaged down to the same input.
    big = np.repeat(np.repeat(x, 2, axis=1), 2, axis=2)
    assert np.allclose(net.logits(big, side), got, atol=1e-4)


def test_family_network_is_the_splits_third_opinion_and_round_trips():
    from scorepad.vision import recognize

    m = model.load()
    assert m.family_net is not None and m.split_w is not None and m.split_w.shape == (12,)
    inks = [_flower(False), _flower(False), _flower(True)]
    maps, features = cells.family_maps(inks), cells.family_features(inks)
    p = m.family_probability(maps, features)
    assert p is not None and p.shape == (3,) and ((p > 0) & (p < 1)).all()
    z = m.family_net.forward(maps, features)
    assert np.allclose(p, 1 / (1 + np.exp(-(z[:, 1] - z[:, 0]))))
    again = model.SymbolModel.from_bytes(m.to_bytes())
    assert np.allclose(again.family_probability(maps, features), p, atol=1e-5)
    # The opinions the split weighs: the hexes' own share, the second stage's, the network's.
    sun, sup = model.CLASSES.index("sunflower"), model.CLASSES.index("super-sunflower")
    probs = np.zeros((3, len(model.CLASSES)))
    probs[:, sun], probs[:, sup] = [0.8, 0.7, 0.4], [0.2, 0.3, 0.6]
    members, *opinions = recognize.family_opinions(m, probs, inks)
    assert members.tolist() == [0, 1, 2] and len(opinions) == 3
    assert np.allclose(opinions[2], p)
    assert recognize.split_features(*opinions).shape == (3, 12)
    # A model without the network has two opinions, and says nothing of its own.
    plain = model.SymbolModel(**{**m.__dict__, "family_net": None})
    assert plain.family_probability(maps, features) is None
    assert len(recognize.family_opinions(plain, probs, inks)) == 3
