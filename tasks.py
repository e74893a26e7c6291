#!/usr/bin/env python3
"""Scorepad's two set-up commands; they need nothing but Python 3.11+ on the machine.

    python3 tasks.py run    # install into .venv, then run Scorepad
    python3 tasks.py test   # install everything, then lint, type-check and run every test

Installs go into ``.venv`` beside this file and are skipped while ``pyproject.toml`` is
unchanged. Extra arguments after ``test`` are passed to pytest.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


def sh(*cmd: str | Path, check: bool = True, env: dict[str, str] | None = None) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    code = subprocess.call([str(c) for c in cmd], cwd=ROOT, env=env)
    if check and code:
        sys.exit(code)
    return code


def ensure_venv(extras: str) -> None:
    """Create .venv and install the package with ``extras`` unless already up to date."""
    if not PY.exists():
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".stamp-{extras or 'base'}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    sh(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    target = f".[{extras}]" if extras else "."
    sh(PY, "-m", "pip", "install", "--quiet", "-e", target)
    stamp.write_text(digest)


def run(args: list[str]) -> None:
    ensure_venv("")
    example = ROOT / "examples" / "sunflower-valley.json"
    sh(BIN / "scorepad", "score", example, "--format", "text", *args)


def test(args: list[str]) -> None:
    ensure_venv("test")
    sh(BIN / "ruff", "check", ".")
    sh(BIN / "ruff", "format", "--check", ".")
    sh(BIN / "mypy", "scorepad", "--exclude", "scorepad/(web|vision)/")
    code = sh(PY, "-m", "pytest", *args, check=False)
    sys.exit(code)


COMMANDS = {"run": run, "test": test}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](sys.argv[2:])
