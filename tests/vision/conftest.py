"""Shared synthetic photos for the vision tests: few, small and seeded (kept fast)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import pytest

pytest.importorskip("cv2", reason="the vision extra is not installed")

from scorepad.vision import synth


@lru_cache(maxsize=16)
def _photo(index: int, megapixels: float = 2.0) -> synth.Sample:
    return synth.sample(synth.VALIDATION, 50_000 + index, megapixels)


@pytest.fixture(scope="session")
def photo() -> Callable[..., synth.Sample]:
    """Photo ``index`` of the VALIDATION range (tests never touch the frozen TEST range)."""
    return _photo
