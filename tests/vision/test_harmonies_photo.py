"""Harmonies photos (issue 8): the pinhole camera and its parallax, the 3D renderer, board
finding, and the recogniser's answer on a few seeded synthetic photos.

Photos come from the VALIDATION seed range of ``render3d`` (the frozen TEST range belongs to
the benchmark alone) and are small, so the whole file runs in seconds."""

from __future__ import annotations

import io
import math
from functools import lru_cache

import numpy as np
import pytest

pytest.importorskip("cv2", reason="the vision extra is not installed")

from PIL import Image

from scorepad.games.harmonies import board_hexes, is_legal_stack
from scorepad.hexgrid import Hex
from scorepad.vision import boards, render3d, synth
from scorepad.vision import harmonies as hv
from scorepad.vision import harmonies_hexes as hexread
from scorepad.vision import harmonies_print as hprint
from scorepad.vision import harmonies_stacks as stacks
from scorepad.vision.camera import Camera, apply, estimate_focal, fourth_corners, pose
from scorepad.vision.decode import PhotoError

#: Photos the tests read: one per board side, cameras from nearly straight down to tilted.
PHOTOS = (3, 7)


@lru_cache(maxsize=4)
def photo(index: int) -> render3d.Sample:
    return render3d.sample(render3d.VALIDATION, index, megapixels=2.0)


@lru_cache(maxsize=4)
def recognised(index: int) -> dict[str, object]:
    return hv.recognize_harmonies(photo(index).jpeg)


def tilted_camera(tilt: float = 30.0) -> Camera:
    board = hprint.board_print("A")
    scene = render3d.Scene.of(5)
    scene = render3d.Scene(**{**scene.__dict__, "tilt": tilt, "coverage": 0.7})
    rng = np.random.default_rng(0)
    return render3d.place_camera(scene, board.width, board.height, (1600, 1200), rng)


# --- the camera ----------------------------------------------------------------------------


def test_plane_homography_is_the_projection_at_that_height() -> None:
    camera = tilted_camera()
    points = np.array([[10.0, 20.0], [80.0, 150.0], [150.0, 5.0]])
    for height in (0.0, 6.0, 18.0):
        world = np.column_stack([points, np.full(3, -height)])
        assert np.allclose(apply(camera.plane(height), points), camera.project(world), atol=1e-6)


def test_parallax_lifts_a_top_away_from_the_nadir_by_the_pinhole_factor() -> None:
    """Seen on the board plane, a point at height z sits on the line from the nadir
    through its foot, lifted by Zc / (Zc - z): the relation the recogniser relies on."""
    camera = tilted_camera()
    foot = np.array([60.0, 90.0])
    for z in (6.0, 12.0, 18.0):
        seen = camera.project(np.array([[*foot, -z]]))
        on_board = apply(np.linalg.inv(camera.plane(0)), seen)[0]
        expected = camera.nadir + (foot - camera.nadir) * camera.height / (camera.height - z)
        assert np.allclose(on_board, expected, atol=1e-6)


def test_three_corners_and_the_board_size_fix_the_fourth_corner() -> None:
    size = (2000, 1500)
    camera = Camera.look_at(
        np.array([-40.0, 380.0, -300.0]), np.array([110.0, 90.0, 0.0]), 1500.0, size, -0.3
    )
    board = hprint.board_spec("A").corners
    seen = camera.project(np.column_stack([board, np.zeros(4)]))
    for missing in range(4):
        hidden = seen.copy()
        hidden[missing] = (0.0, 0.0)  # not used
        found = fourth_corners(board, hidden, missing, 1500.0, size)
        assert 1 <= len(found) <= 4
        assert min(np.linalg.norm(p - seen[missing]) for p in found) < 1e-3
    # Corners on one spot (a board far away) or not numbers at all: an answer, no error.
    for odd in (np.full((4, 2), 5.0), np.array([[0, 0], [1e9, 0], [np.nan, 5], [5, 5]])):
        assert all(np.isfinite(p).all() for p in fourth_corners(board, odd, 0, 1500.0, size))


def test_pose_from_the_board_outline_recovers_the_camera() -> None:
    camera = tilted_camera(25.0)
    board = hprint.board_spec("B")
    h = camera.plane(0)
    found = pose(h, camera.K, camera.size)
    assert np.allclose(found.centre, camera.centre, atol=1e-6)
    assert math.isclose(found.tilt, camera.tilt, abs_tol=1e-6)
    del board


def test_focal_length_is_measured_when_tilted_and_left_alone_when_frontal() -> None:
    tilted = tilted_camera(30.0)
    f = estimate_focal(tilted.plane(0), tilted.size, aspect_known=True)
    assert f is not None
    assert abs(f / tilted.K[0, 0] - 1) < 0.01
    frontal = tilted_camera(0.0)
    assert estimate_focal(frontal.plane(0), frontal.size, aspect_known=False) is None


# --- the renderer --------------------------------------------------------------------------


def test_random_boards_hold_legal_stacks_on_every_hex_of_their_side() -> None:
    for seed in range(20):
        state = render3d.random_board(seed)
        assert set(state.stacks) == set(board_hexes(state.side))
        assert all(is_legal_stack(s) for s in state.stacks.values())
        assert all(state.stacks[h] for h in state.cubes)  # cubes stand on tokens


def test_renders_are_seeded_jpegs_of_the_requested_size() -> None:
    a = render3d.sample(render3d.VALIDATION, 11, megapixels=0.5)
    b = render3d.sample(render3d.VALIDATION, 11, megapixels=0.5)
    assert a.jpeg == b.jpeg
    image = Image.open(io.BytesIO(a.jpeg))
    assert image.format == "JPEG"
    assert abs(image.size[0] * image.size[1] / 0.5e6 - 1) < 0.01


def test_a_taller_stack_shows_a_wider_side_band() -> None:
    """Only the stack's height changes between the two renders: the tall one covers more
    of the photo (its side band), on the side facing the camera."""
    state = render3d.random_board(4, side="A")
    h = Hex(2, 0)
    low = render3d.BoardState("A", {**state.stacks, h: ("grey",)}, frozenset())
    high = render3d.BoardState("A", {**state.stacks, h: ("grey", "grey", "grey")}, frozenset())
    scene = render3d.Scene(**{**render3d.Scene.of(4).__dict__, "tilt": 35.0, "noise": 0.0})
    a = render3d.render(low, scene, 0.6, 4, keep_image=True)
    b = render3d.render(high, scene, 0.6, 4, keep_image=True)
    assert a.image is not None and b.image is not None
    changed = np.abs(a.image.astype(int) - b.image.astype(int)).sum(axis=2) > 40
    assert changed.sum() > 200


def test_grading_the_truth_gives_every_hex_right() -> None:
    s = photo(PHOTOS[0])
    truth = {
        "side": s.state.side,
        "player": {"cells": s.state.cells()},
        "confidence": [
            {"q": c["q"], "r": c["r"], "p": 1.0, "flagged": False} for c in s.state.cells()
        ],
    }
    g = render3d.grade(truth, s)
    assert g.right == g.hexes == len(board_hexes(s.state.side))
    assert g.silent == 0


# --- recognition ---------------------------------------------------------------------------


@pytest.mark.parametrize("index", PHOTOS)
def test_recognition_answers_the_board_file_shape(index: int) -> None:
    result = recognised(index)
    # The board's corners as shares of the photo (the evidence photo is cropped to them).
    outline = result["outline"]
    assert isinstance(outline, list) and len(outline) == 4
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in outline)
    assert max(x for x, _ in outline) - min(x for x, _ in outline) > 0.2
    side = photo(index).state.side
    assert result["game"] == "harmonies"
    assert result["side"] == side
    cells = result["player"]["cells"]  # type: ignore[index]
    assert {Hex(c["q"], c["r"]) for c in cells} == set(board_hexes(side))
    assert all(is_legal_stack(c["stack"]) for c in cells)
    assert all(c["stack"] for c in cells if c.get("cube"))
    confidence = result["confidence"]
    assert isinstance(confidence, list) and len(confidence) == len(cells)
    assert all(0 <= c["p"] <= 1 and isinstance(c["flagged"], bool) for c in confidence)


@pytest.mark.parametrize("index", PHOTOS)
def test_recognition_reads_the_tops_and_flags_what_it_gets_wrong(index: int) -> None:
    s = photo(index)
    g = render3d.grade(recognised(index), s)
    assert g.found == g.side_right == 1
    assert g.top_right >= g.hexes - 1
    assert g.stack_right >= g.hexes - 4
    assert g.silent <= 1


def test_the_top_is_the_furthest_strong_circle_along_the_lift_line() -> None:
    # A stack's footprint (at 2) outscores its grey top (at 7): the top is further along.
    footprint_first = np.array([3, 9, 22, 15, 9, 9, 12, 18, 13, 5, -5.0])
    assert hexread.highest_peak(footprint_first) == 7
    # A circle further along that scores far less is not a top; nor is a peak's shoulder.
    faint_beyond = np.array([3, 9, 28, 25, 17, 13, 16, 15, 10, 5.0])
    assert hexread.highest_peak(faint_beyond) == 2
    assert hexread.highest_peak(np.array([1, 5, 9, 8.5, 8, 7.9])) == 2


def _disc(*parts: tuple[tuple[float, float, float], int]) -> np.ndarray:
    """Samples over a top's disc (cream = 100): ``count`` of each colour."""
    return np.array([c for c, count in parts for _ in range(count)], np.float32)


def test_a_golden_cube_covering_most_of_a_top_is_left_out_of_its_colour() -> None:
    blue, gold = (20.0, 48.0, 80.0), (60.0, 48.0, 18.0)
    assert (
        np.linalg.norm(hexread.log_colour(np.array(gold))[0] - hexread.GOLD_CHROMA)
        < hexread.GOLD_NEAR
    )
    # Seen at an angle, the cube covers 60 % of the disc: the top is still blue.
    assert np.allclose(hexread.top_colour(_disc((gold, 15), (blue, 10))), blue)
    # A cube on a small part of it was never the median.
    assert np.allclose(hexread.top_colour(_disc((gold, 5), (blue, 20))), blue)
    # Under a cube on a yellow top, what remains is itself of a golden hue (not golden
    # enough to be left out, too golden to be another colour): all samples count, as
    # they always did.
    yellow = (72.0, 64.0, 16.0)
    apart = np.linalg.norm(hexread.log_colour(np.array(yellow))[0] - hexread.GOLD_CHROMA)
    assert hexread.GOLD_NEAR < apart < hexread.GOLD_APART
    disc = _disc((gold, 15), (yellow, 10))
    assert np.allclose(hexread.top_colour(disc), disc.mean(axis=0))  # all near the median


def test_a_photo_from_straight_above_is_marked_so_and_a_tilted_one_is_not() -> None:
    # VALIDATION photo 2 was taken 2 degrees from straight down, photo 7 at 36 degrees.
    assert render3d.Scene.of(render3d.VALIDATION[0] + 2).tilt < 5
    assert render3d.Scene.of(render3d.VALIDATION[0] + 7).tilt > 30
    above = hv.analyse(photo(2).jpeg)
    assert above.straight_down and above.to_json()["straight_down"] is True
    assert sum(p < above.flag_below for p in above.p.values()) >= 4  # what the advice is for
    assert "straight_down" not in recognised(7)


def test_a_board_found_by_its_tokens_alone_is_flagged_all_over() -> None:
    # VALIDATION photo 101 924 (3 MP): its outline fits the print too poorly to be taken on
    # the print alone; the tokens on its hexes confirmed it (boards.find_board's confirm).
    doubted = hv.analyse(render3d.sample(render3d.VALIDATION, 1924, megapixels=3.0).jpeg)
    assert doubted.located.confirmed and doubted.board_doubted
    assert all(p < doubted.flag_below for p in doubted.p.values())
    answer = doubted.to_json()
    assert answer["board_doubted"] is True and all(c["flagged"] for c in answer["confidence"])
    assert "board_doubted" not in recognised(7)


def test_each_outline_the_board_finder_asks_about_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # VALIDATION photo 101 924: the finder shows the game a poor outline to confirm by its
    # tokens, and the recognition then reads the outline it took: not a second time.
    reads: list[bytes] = []
    read_board = hv.read_board

    def counted(photo: np.ndarray, found: boards.Found) -> list[hexread.HexReading]:
        reads.append(found.corners.tobytes())
        return read_board(photo, found)

    monkeypatch.setattr(hv, "read_board", counted)
    hv.analyse(render3d.sample(render3d.VALIDATION, 1924, megapixels=3.0).jpeg)
    assert reads and len(reads) == len(set(reads))


def noise_png() -> bytes:
    """A photo of nothing: random pixels."""
    rng = np.random.default_rng(1)
    noise = rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_photo_without_a_board_is_refused_in_one_line() -> None:
    with pytest.raises(PhotoError, match="no Harmonies board"):
        hv.recognize_harmonies(noise_png())


@pytest.mark.parametrize(("index", "megapixels"), [(3, 1.0), (44, 2.0)])
def test_a_sunflower_valley_sheet_is_not_taken_for_a_harmonies_board(
    index: int, megapixels: float
) -> None:
    # A light sheet with a dark title band across its top: the board finder takes these
    # for side A (the print matches well). On sheet 3 no hex shows a round top; on sheet 44
    # the circle fit finds a rim on 57 % of the hexes (the rim alone let it through), but
    # those circles are smaller than a token's top or not a token's colour.
    sheet = synth.sample(synth.VALIDATION, index, megapixels=megapixels)
    with pytest.raises(PhotoError, match="no Harmonies board"):
        hv.recognize_harmonies(sheet.jpeg)


def test_a_file_that_is_not_an_image_is_refused() -> None:
    with pytest.raises(PhotoError):
        hv.recognize_harmonies(b"certainly not a JPEG" * 10)


def test_a_board_of_the_other_side_is_named_in_the_refusal() -> None:
    s = photo(PHOTOS[0])
    wrong = "A" if s.state.side == "B" else "B"
    message = f"side {s.state.side}, but this table plays side {wrong}"
    with pytest.raises(PhotoError, match=message):
        hv.recognize_harmonies(s.jpeg, side=wrong)


def test_the_other_sides_refusal_survives_a_worker_process() -> None:
    import pickle

    refusal = pickle.loads(pickle.dumps(hv.WrongSide("A")))
    assert refusal.shown == "B" and str(refusal) == str(hv.WrongSide("A"))


def test_a_board_of_the_other_side_framed_as_the_tables_is_refused() -> None:
    # VALIDATION photo 130 403 (3 MP) shows side B. Side A's outline, framed on it, fits the
    # print well enough to be taken and lands on enough tokens (it was read as side A), but
    # the tops lie off its hexes' centres: the other side is looked for, and fits better.
    s = render3d.sample(render3d.VALIDATION, 30403, megapixels=3.0)
    assert s.state.side == "B"
    with pytest.raises(PhotoError, match="side B, but this table plays side A"):
        hv.recognize_harmonies(s.jpeg, side="A", whole=True)


def test_a_board_of_the_tables_side_with_its_tops_off_centre_is_still_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # VALIDATION photo 130 214 (3 MP), side B: its tops lie far enough off their hexes'
    # centres for the other side to be looked for, and side A's outline is found on it, but
    # it shows the tokens worse (its tops further off, fewer rims): read as side B, as before.
    s = render3d.sample(render3d.VALIDATION, 30214, megapixels=3.0)
    doubted: list[bool] = []
    side_doubtful = hv.side_doubtful

    def spied(found: boards.Found, readings: list[hexread.HexReading]) -> bool:
        doubted.append(side_doubtful(found, readings))
        return doubted[-1]

    monkeypatch.setattr(hv, "side_doubtful", spied)
    answer = hv.recognize_harmonies(s.jpeg, side="B", whole=True)
    assert doubted == [True]
    assert answer["side"] == "B" and "board_doubted" not in answer


def test_with_a_side_given_a_photo_without_a_board_keeps_its_own_refusal() -> None:
    with pytest.raises(PhotoError, match="no Harmonies board found in the photo: photograph"):
        hv.recognize_harmonies(noise_png(), side="A")


def test_an_unknown_side_is_refused() -> None:
    with pytest.raises(PhotoError, match="side"):
        hv.recognize_harmonies(photo(PHOTOS[0]).jpeg, side="C")


# --- heights: the foot model ----------------------------------------------------------------


def _profile_with_a_foot(tokens: float) -> tuple[np.ndarray, np.ndarray]:
    """A height input (``features()["height"]``, ``photo_context``) whose foot-edge
    profile shows a token's side inside the rim and the board outside at ``tokens``."""
    s = len(hexread.FOOT_STEPS)
    h = np.zeros(stacks.PROFILE_CHANNELS * s + 2 * s + 16)  # profile, outlines, the rest
    profile = h[: stacks.PROFILE_CHANNELS * s].reshape(stacks.PROFILE_CHANNELS, s)
    at = int(round(tokens * 4))
    profile[0, : at + 1] = 0.6  # inside the rim: not board-like until past the foot
    profile[4, :at] = 0.6  # outside the rim: board-like from the foot on
    profile[8, at] = 60.0  # the edge across the rim
    context = np.zeros(2 * s + 2)
    context[-2:] = (1.0, 1.0)
    return h[None], context[None]


@pytest.mark.parametrize("tokens", [1, 2, 3])
def test_foot_cues_find_the_rim_where_the_profile_shows_it(tokens: int) -> None:
    h, context = _profile_with_a_foot(tokens)
    cues = stacks.foot_cues(h, context)[0]
    # Eight cues per signal (strongest step, centre, three pairs); chroma is the first
    # signal, the edge the third.
    assert cues[0] == tokens  # chroma
    assert cues[2 * 8] == tokens  # edge
    window = stacks.foot_window(h, context, np.array([[0, 1, 0, 0]], np.float32), tokens)
    assert window.shape[0] == 1 and np.isfinite(window).all()


def test_height_probabilities_cover_the_heights_each_colour_comes_in() -> None:
    models = stacks.load_models()
    assert models.foot is not None and 0 <= models.foot_weight <= 1
    assert models.net is not None and 0 < models.net_weight <= 1
    h, context = _profile_with_a_foot(2)
    f = {
        "height": h[0].astype(np.float32),
        "patch": np.zeros((len(hexread.PATCH_STEPS), len(hexread.PATCH_ANGLES), 3), np.float32),
        "net_side": np.zeros(len(models.net.side_mean) - 2, np.float32),  # net_inputs adds 2
    }
    for colour in ("grey", "green", "brown", "red"):
        p = stacks.height_probabilities(f, colour, models, context[0])
        assert set(p) == set(stacks.HEIGHTS[colour])
        assert abs(sum(p.values()) - 1) < 1e-6


def test_the_lower_side_is_read_between_one_and_two_tokens_down() -> None:
    """What lies under a red top is read where the lower token's side shows: the profile's
    probes inside the rim from one to two and a quarter tokens below the top."""
    profile = np.tile(hexread.FOOT_STEPS, (stacks.PROFILE_CHANNELS, 1))  # every channel: its height
    side = stacks.lower_side(profile.ravel())
    assert side.min() == 1.0 and side.max() == 2.25
    assert len(side) == 5 * len(hexread.FOOT_STEPS[stacks.LOWER_SIDE])


# --- heights: the stack network ------------------------------------------------------------


class _FakePlane:
    """A board plane whose colour at a point says where the point lies: channel 0 its
    distance from (100, 0) (the top's centre below), channel 1 its x, as log colours."""

    class camera:  # stands in for a Camera: what stack_patch asks of it
        nadir = np.array([0.0, 0.0])

    @staticmethod
    def sample(points: np.ndarray) -> np.ndarray:
        d = np.linalg.norm(points - np.array([100.0, 0.0]), axis=-1)
        return 100 * np.exp(np.stack([d / 100, points[..., 0] / 100, np.zeros_like(d)], -1))


def test_the_stack_patch_steps_a_token_s_lift_at_a_time_towards_the_nadir() -> None:
    """Row t of the patch lies t tokens' lift beyond the top's rim (6 mm at 100 mm from the
    nadir of a lens 300 mm up: 2 mm of lift per token), its middle columns between the top
    and the nadir: a foot k tokens down traces the same rows at any parallax."""
    reading = hexread.HexReading(  # parallax 1/3: 100 mm from the nadir, the lens 300 mm up
        Hex(0, 0), np.array([100.0, 0.0]), 0, 0, 0, np.zeros(3), None, None, 0, 1 / 3,
        {"radius": 12.0},
    )  # fmt: skip
    patch = hexread.stack_patch(_FakePlane(), reading)  # type: ignore[arg-type]
    assert patch.shape == (len(hexread.PATCH_STEPS), len(hexread.PATCH_ANGLES), 3)
    expected = 12.0 + hexread.PATCH_STEPS * 2.0
    assert np.allclose(patch[:, :, 0] * 100, expected[:, None], atol=1e-3)
    middle = len(hexread.PATCH_ANGLES) // 2
    assert (patch[-1, middle - 1 : middle + 1, 1] * 100 < 100 - 12).all()  # towards the nadir
    assert np.allclose(patch[:, :, 1], patch[:, ::-1, 1], atol=1e-4)  # symmetric about it


def test_the_stack_network_reads_a_patch_and_its_mirror_alike() -> None:
    """The network's heights average the patch and its mirror across the line to the
    nadir (the light may come from either side): mirrored patches read the same."""
    models = stacks.load_models()
    assert models.net is not None
    rng = np.random.default_rng(1)
    patches = rng.normal(0, 0.3, (4, len(hexread.PATCH_STEPS), len(hexread.PATCH_ANGLES), 3))
    side = rng.normal(0, 1, (4, len(models.net.side_mean) - 2)).astype(np.float32)
    context = np.ones((4, 2 * len(hexread.FOOT_STEPS) + 2), np.float32)
    read = stacks.net_heights(patches, side, context, models.net, models.net_temperature)
    mirrored = stacks.net_heights(
        patches[:, :, ::-1], side, context, models.net, models.net_temperature
    )
    assert read.shape == (4, 3) and np.allclose(read, mirrored, atol=1e-9)
    assert (read.max(axis=1) == 0).all()  # log-probabilities up to a constant


def test_a_photo_s_heights_go_through_the_stack_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recogniser reads every hex's patch with the network, all hexes at once, and its
    answer moves the heights (a network saying "one token" everywhere pulls them down)."""
    seen: list[int] = []
    net_heights = stacks.net_heights

    def spied(patches: np.ndarray, *rest: object) -> np.ndarray:
        seen.append(len(patches))
        return net_heights(patches, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(stacks, "net_heights", spied)
    shot = photo(PHOTOS[0])
    answer = hv.recognize_harmonies(shot.jpeg, side=shot.state.side)
    assert seen == [len(board_hexes(shot.state.side))]

    def one_token(patches: np.ndarray, *rest: object) -> np.ndarray:
        return np.tile([0.0, -50.0, -50.0], (len(patches), 1))

    monkeypatch.setattr(stacks, "net_heights", one_token)
    low = hv.recognize_harmonies(shot.jpeg, side=shot.state.side)
    tokens = [sum(len(c["stack"]) for c in a["player"]["cells"]) for a in (answer, low)]
    assert tokens[1] < tokens[0]
