#!/usr/bin/env python3
"""Scorepad's two set-up commands; they need nothing but Python 3.11+ on the machine.

    python3 tasks.py run    # install into .venv, then serve the web app on http://127.0.0.1:5000
    python3 tasks.py test   # install everything, then lint, type-check and run every test

``run`` keeps its data in a SQLite file under ``instance/`` (set ``DATABASE_URL`` for
PostgreSQL, ``PORT`` for another port). ``test`` also installs, when missing and when run as
root, Debian's ``chromium`` (browser tests) and ``postgresql``; it starts a throwaway
PostgreSQL cluster on a loopback port so the storage and web tests run on both databases.

Installs go into ``.venv`` beside this file and are skipped while ``pyproject.toml`` is
unchanged. Extra arguments after ``test`` are passed to pytest; the tests run on one
worker per core (pytest-xdist) unless they include ``-n``.
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
CHROMIUM = Path("/usr/bin/chromium")


def sh(*cmd: str | Path, check: bool = True, env: dict[str, str] | None = None) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    code = subprocess.call([str(c) for c in cmd], cwd=ROOT, env=env)
    if check and code:
        sys.exit(code)
    return code


#: Extras that include others: an install for ``test`` serves ``web`` and the base too.
COVERS = {
    "": ("", "web", "web,vision", "test"),
    "web": ("web", "web,vision", "test"),
    "web,vision": ("web,vision", "test"),
    "test": ("test",),
}


def _stamp(extras: str) -> tuple[Path, str]:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    return VENV / f".stamp-{extras or 'base'}", digest


def ensure_venv(extras: str) -> None:
    """Create .venv and install the package with ``extras`` unless already up to date."""
    if not PY.exists():
        venv.create(VENV, with_pip=True)
    for covering in COVERS.get(extras, (extras,)):
        stamp, digest = _stamp(covering)
        if stamp.exists() and stamp.read_text() == digest:
            return
    stamp, digest = _stamp(extras)
    sh(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    target = f".[{extras}]" if extras else "."
    sh(PY, "-m", "pip", "install", "--quiet", "-e", target)
    stamp.write_text(digest)


def run(args: list[str]) -> None:
    ensure_venv("web,vision")
    port = os.environ.get("PORT", "5000")
    print(f"Scorepad is starting on http://127.0.0.1:{port}/  (Ctrl+C stops it)", flush=True)
    os.execv(
        BIN / "gunicorn",
        [
            "gunicorn",
            "--workers",
            "2",
            # A second thread, so that a photo being read (a second or more of CPU) leaves
            # the worker free to answer taps and live polls (docs/web.md, "Photos"); more
            # threads only queue taps behind one another for the GIL (docs/web.md, "Benchmark").
            "--threads",
            "2",
            "--preload",
            "--bind",
            f"127.0.0.1:{port}",
            *args,
            "scorepad.web:create_app()",
        ],
    )


# --- system packages for the tests ------------------------------------------------------------

_apt_updated = False


def apt_install(*packages: str) -> bool:
    """Install Debian packages when we are root; say what is missing otherwise."""
    global _apt_updated
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"note: cannot install {', '.join(packages)} (needs root and apt-get)", flush=True)
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if not _apt_updated:
        sh("apt-get", "update", "-qq", env=env)
        _apt_updated = True
    sh("apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages, env=env)
    return True


def ensure_chromium() -> None:
    if not CHROMIUM.exists():
        apt_install("chromium")


def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    return Path(found[-1]).parent if found else None


def _version_key(path: str) -> int:
    part = Path(path).parts[4]
    return int(part) if part.isdigit() else 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_postgres() -> str | None:
    """A throwaway PostgreSQL cluster in a temp dir on a loopback port; its URL, or None."""
    if os.environ.get("TEST_POSTGRES_URL"):
        return os.environ["TEST_POSTGRES_URL"]
    if _postgres_bin() is None:
        apt_install("postgresql")
    bindir = _postgres_bin()
    if bindir is None:
        print("note: PostgreSQL is not installed; storage tests run on SQLite only", flush=True)
        return None
    as_user: list[str] = []
    root = os.geteuid() == 0
    # The postgres user must reach the folder: under /tmp, whatever TMPDIR says.
    data = Path(tempfile.mkdtemp(prefix="scorepad-pg-", dir="/tmp" if root else None))
    if root:  # PostgreSQL refuses to run as root: use its own system user
        shutil.chown(data, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    sh(*as_user, bindir / "initdb", "-D", data / "db", "-A", "trust", "-U", "scorepad",
       "--no-sync", "-E", "UTF8")  # fmt: skip
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
    options += " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    sh(*as_user, bindir / "pg_ctl", "-D", data / "db", "-o", options, "-l", data / "log",
       "-w", "start")  # fmt: skip

    def stop() -> None:
        subprocess.call([*as_user, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m",
                         "immediate", "-w", "stop"], stdout=subprocess.DEVNULL)  # fmt: skip
        shutil.rmtree(data, ignore_errors=True)

    atexit.register(stop)
    return f"postgresql://scorepad@127.0.0.1:{port}/postgres"


def test(args: list[str]) -> None:
    ensure_venv("test")
    sh(BIN / "ruff", "check", ".")
    sh(BIN / "ruff", "format", "--check", ".")
    sh(BIN / "mypy", "scorepad", "--exclude", "scorepad/vision/")
    ensure_chromium()
    env = dict(os.environ)
    url = start_postgres()
    if url:
        env["TEST_POSTGRES_URL"] = url
    code = sh(PY, "-m", "pytest", *_parallel(args, env), *args, check=False, env=env)
    sys.exit(code)


def _parallel(args: list[str], env: dict[str, str]) -> list[str]:
    """pytest-xdist options: one test worker per core (at most four), unless ``-n`` is given.

    Each worker then keeps OpenCV and BLAS to one thread: two workers each running two
    threads on two cores only take turns.
    """
    if any(a.startswith(("-n", "--numprocesses")) for a in args):
        return []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(cores or 1, 4)
    if workers < 2:
        return []
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENCV_FOR_THREADS_NUM"):
        env.setdefault(name, "1")
    return ["-n", str(workers), "--dist", "worksteal"]


COMMANDS = {"run": run, "test": test}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](sys.argv[2:])
