"""The repository's scripts (``tasks.py``, ``tools/*.py``) loaded as modules, for tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load(path: str, name: str) -> ModuleType:
    """The script at ``path`` (from the repository's root) as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
