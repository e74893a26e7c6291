"""The rules core stays pure: no web framework, no vision library, no web or vision code.

The core is ``scorepad/__init__.py``, ``hexgrid``, ``boardfile``, ``scoring``, ``share``,
``stats`` and every module under ``scorepad/games`` (found by globbing, so a new game is
checked as soon as it lands). The command line (``cli``, ``__main__``) is the composition root:
it may name ``scorepad.vision.cli`` for the ``recognize`` command, but importing it must still
load neither OpenCV nor Flask (the vision code loads only when a photo is recognised).
Two checks: importing the whole core in a fresh interpreter loads none of the forbidden
modules, and no core source file names one in an import statement or an ``import_module`` call.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "scorepad"
FORBIDDEN = ("flask", "cv2", "scorepad.web", "scorepad.vision")


def core_files() -> list[Path]:
    names = ("__init__.py", "hexgrid.py", "boardfile.py", "scoring.py", "share.py", "stats.py")
    return [PACKAGE / f for f in names] + sorted((PACKAGE / "games").glob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def core_modules() -> list[str]:
    return [module_name(p) for p in core_files()]


def is_forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def loaded_after_import(modules: list[str]) -> list[str]:
    """Import ``modules`` in a fresh interpreter; the forbidden modules it ended up loading."""
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted({f.split('.')[0] for f in FORBIDDEN})!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [m for m in json.loads(done.stdout) if is_forbidden(m)]


def imported_names(source: str, module: str) -> list[str]:
    """Every module a source file imports, relative imports resolved against ``module``."""
    package = module.split(".")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + (1 if _is_package(module) else 0)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and _calls_import(node):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append(arg.value)
    return found


def _is_package(module: str) -> bool:
    path = ROOT.joinpath(*module.split("."))
    return (path / "__init__.py").exists()


def _calls_import(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("import_module", "__import__")


def test_core_files_are_found() -> None:
    files = core_files()
    assert PACKAGE / "games" / "sunflower_valley.py" in files
    assert PACKAGE / "games" / "__init__.py" in files
    assert all(p.exists() for p in files)
    assert not any("web" in p.parts or "vision" in p.parts for p in files)


def test_importing_the_core_loads_no_web_or_vision_module() -> None:
    assert loaded_after_import(core_modules()) == []


def test_every_registered_game_engine_is_covered_by_the_glob() -> None:
    from scorepad import games

    engines = {game.score.__module__ for game in games.available().values()}
    assert "scorepad.games.sunflower_valley" in engines
    assert engines <= set(core_modules())


def test_the_import_check_would_notice_flask() -> None:
    # The check above is only worth something if it sees a forbidden module being loaded.
    assert "flask" in loaded_after_import(["scorepad.hexgrid", "flask"])


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_source_imports_nothing_forbidden(path: Path) -> None:
    names = imported_names(path.read_text(encoding="utf-8"), module_name(path))
    assert [n for n in names if is_forbidden(n)] == []


@pytest.mark.parametrize(
    ("source", "module", "caught"),
    [
        ("import flask", "scorepad.hexgrid", "flask"),
        ("import cv2 as cv", "scorepad.hexgrid", "cv2"),
        ("from flask import Flask", "scorepad.cli", "flask"),
        ("from scorepad.web import app", "scorepad.cli", "scorepad.web"),
        ("from scorepad import vision", "scorepad.cli", "scorepad.vision"),
        ("from ..web import svg", "scorepad.games.harmonies", "scorepad.web"),
        ("from . import vision", "scorepad.cli", "scorepad.vision"),
        ("from .. import web", "scorepad.games", "scorepad.web"),
        ("def f():\n    import cv2.aruco\n", "scorepad.scoring", "cv2.aruco"),
        ("importlib.import_module('scorepad.vision.sheet')", "scorepad.cli", "scorepad.vision"),
    ],
)
def test_the_static_check_sees_every_kind_of_import(source: str, module: str, caught: str) -> None:
    names = [n for n in imported_names(source, module) if is_forbidden(n)]
    assert names and names[0].startswith(caught)


def test_the_static_check_allows_lookalikes() -> None:
    source = "import flasky\nfrom scorepad import webhooks\nfrom .games import vision_free\n"
    assert [n for n in imported_names(source, "scorepad.cli") if is_forbidden(n)] == []


def test_the_command_line_loads_no_vision_or_web_library() -> None:
    assert [m for m in loaded_after_import(["scorepad.cli"]) if m.split(".")[0] != "scorepad"] == []
