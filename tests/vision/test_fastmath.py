"""The exact, faster stand-ins of ``vision/fastmath.py`` and the print comparison's strip
warp (``board_print._warp_around``) against what they stand in for."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2", reason="the vision extra is not installed")

from scorepad.vision import board_print, spring_meadow  # noqa: E402
from scorepad.vision import harmonies_print as hprint  # noqa: E402
from scorepad.vision.fastmath import colour_distance, median  # noqa: E402


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 101, 1000, 4097])
def test_median_is_numpys_to_the_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    for scale in (1.0, 255.0):
        values = (rng.normal(size=(5, n)) * scale).astype(np.float32)
        values[0] = np.round(values[0])  # ties, as quantised grey levels make
        got = median(values)
        assert got.dtype == np.float32
        assert np.array_equal(got, np.median(values, axis=-1))
        assert median(values[1]) == np.median(values[1])


def test_colour_distance_is_the_norm_to_the_bit() -> None:
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 255, (50, 36, 3)).astype(np.float32)
    b = rng.uniform(0, 255, (50, 1, 3)).astype(np.float32)
    assert np.array_equal(colour_distance(a, b), np.linalg.norm(a - b, axis=-1))


SPECS = [hprint.board_spec("A"), hprint.board_spec("B"), spring_meadow.SPEC]


def _whole_warp(
    grey: np.ndarray, m: np.ndarray, ref: board_print.PrintReference, flags: int
) -> np.ndarray:
    h, w = ref.mask.shape
    return np.asarray(cv2.warpPerspective(grey, m, (w, h), flags=flags), np.float32)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@pytest.mark.parametrize("rim", [True, False])
def test_the_strip_warp_is_the_whole_warp_wherever_the_print_is_compared(
    spec: board_print.BoardSpec, rim: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(1)
    grey = cv2.GaussianBlur(rng.uniform(0, 255, (900, 1200)).astype(np.float32), (0, 0), 2)
    ppm = board_print.VERIFY_PPM if rim else board_print.ROUGH_PPM
    ref = board_print.print_reference(spec, ppm)
    flags = cv2.WARP_INVERSE_MAP | (cv2.INTER_AREA if rim else cv2.INTER_LINEAR)
    quads = []
    for _ in range(5):
        quad = np.array([[200, 150], [1000, 180], [980, 800], [230, 760]], float)
        quads.append(quad + rng.normal(0, 40, quad.shape))
        m = cv2.getPerspectiveTransform(ref.corners, quads[-1].astype(np.float32))
        whole = _whole_warp(grey, m, ref, flags)
        strips = board_print._warp_around(grey, m, ref, flags)
        # Every compared pixel is warped (none left 0), within rounding of the whole warp;
        # the top strip, where the rim is looked for, exactly.
        assert np.abs(strips[ref.mask] - whole[ref.mask]).max() < 0.05
        top = ref.strips[0]
        assert np.array_equal(strips[: top[1]], whole[: top[1]])
    scores = [board_print.print_score(grey, q, spec, 1.0, rim) for q in quads]
    monkeypatch.setattr(board_print, "_warp_around", _whole_warp)
    whole_scores = [board_print.print_score(grey, q, spec, 1.0, rim) for q in quads]
    assert np.allclose(scores, whole_scores, rtol=0, atol=1e-4)
