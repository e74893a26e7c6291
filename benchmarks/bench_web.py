"""Benchmark: taps on Sunflower Valley sheets from N concurrent phones, served by gunicorn.

    .venv/bin/python benchmarks/bench_web.py [--clients 50] [--taps 40] [--think 0]
        [--workers 3] [--threads 2] [--database sqlite|URL]

Starts the app under gunicorn on a free loopback port as the Procfile does (3 workers of 2
threads by default; a fresh SQLite file by default),
creates one 3-player table per client through the real forms (CSRF included), then each
client taps hexes of its table (house, sheep, sunflower, rails, eraser: every tap edits the
document, validates it, re-scores the table and renders the board and the breakdown).

Prints, over all taps: the server latency (the app's own ``Server-Timing``: edit, validate,
score, store, render) and the latency each client saw (which adds queueing in gunicorn's
backlog and the client's own overhead), as median and p95, and taps per second.
``--think`` seconds between a client's taps model people at a table (a tap every second or
so); ``--think 0`` is a closed loop that measures the most taps the machine serves.
Target: p95 server latency under 50 ms with 50 concurrent clients on a 2-core machine.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HX = {"HX-Request": "true"}
TOOLS = ("house", "sheep", "sunflower", "straight", "curve", "super-sunflower", "eraser")
MAX_SECONDS = 300  # a run stops by itself, whatever it was asked


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Phone:
    """One client: a keep-alive connection with the session cookie and the CSRF token."""

    def __init__(self, port: int, cookie: str, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Cookie": cookie, "X-CSRFToken": token, **HX}

    def post(self, path: str, form: dict[str, str]) -> tuple[int, float, float, str]:
        body = urllib.parse.urlencode(form)
        headers = {**self.headers, "Content-Type": "application/x-www-form-urlencoded"}
        start = time.perf_counter()
        self.conn.request("POST", path, body, headers)
        resp = self.conn.getresponse()
        data = resp.read().decode()
        seen = (time.perf_counter() - start) * 1000
        timing = resp.getheader("Server-Timing", "app;dur=nan")
        server = float(timing.split("dur=")[1])
        return resp.status, seen, server, data if resp.status >= 300 else ""


def session(port: int) -> tuple[str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/new")
    resp = conn.getresponse()
    html = resp.read().decode()
    cookie = resp.getheader("Set-Cookie", "").split(";")[0]
    found = re.search(r'"X-CSRFToken": "([^"]+)"', html)
    if not found:
        raise SystemExit("no CSRF token on /new")
    return cookie, found.group(1)


def new_table(phone: Phone, n: int) -> str:
    """A 3-player table through the new-table form (a plain browser post: 303 to the editor)."""
    form = {"game": "sunflower-valley", "layout": "example", "variant": "standard"}
    form |= {f"express_{k}": str(k * k) for k in range(2, 7)}
    form |= {"name_0": f"Anna{n}", "name_1": f"Boris{n}", "name_2": f"Vera{n}"}
    headers = {k: v for k, v in phone.headers.items() if k != "HX-Request"}
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    phone.conn.request("POST", "/new", urllib.parse.urlencode(form), headers)
    resp = phone.conn.getresponse()
    resp.read()
    if resp.status != 303:
        raise SystemExit(f"creating a table failed with {resp.status}")
    # The phone that creates a table is its host: it keeps the secret key it was given.
    for cookie in resp.headers.get_all("Set-Cookie") or []:
        if cookie.startswith("scorepad_device="):
            phone.headers["Cookie"] += "; " + cookie.split(";")[0]
    return resp.getheader("Location", "").rsplit("/", 1)[1]


def start_server(
    workers: int, threads: int, database: str
) -> tuple[subprocess.Popen[bytes], int, str]:
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="scorepad-bench-")
    url = f"sqlite:///{tmp}/bench.sqlite3" if database == "sqlite" else database
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "bench", "SCOREPAD_INSTANCE_PATH": tmp}
    cmd = [
        str(BIN / "gunicorn"),
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--preload",
        "--bind",
        f"127.0.0.1:{port}",
        "--backlog",
        "256",
        "--log-level",
        "warning",
        "scorepad.web:create_app()",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port, tmp
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--taps", type=int, default=40, help="taps per client")
    parser.add_argument("--think", type=float, default=0.0, help="seconds between taps")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="threads per worker")
    parser.add_argument("--database", default="sqlite", help="sqlite, or a PostgreSQL URL")
    args = parser.parse_args()

    proc, port, _tmp = start_server(args.workers, args.threads, args.database)
    try:
        cookie, token = session(port)
        phones = [Phone(port, cookie, token) for _ in range(args.clients)]
        tables = [new_table(phone, n) for n, phone in enumerate(phones)]
        from scorepad.games import sunflower_valley as sv

        hexes = [(c["q"], c["r"]) for c in sv.example_layout()["cells"] if not c.get("mountain")]
        seen: list[float] = []
        server: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        stop_at = time.time() + MAX_SECONDS
        barrier = threading.Barrier(args.clients)

        def run(n: int) -> None:
            phone, table = phones[n], tables[n]
            barrier.wait()
            for i in range(args.taps):
                if time.time() > stop_at:
                    break
                q, r = hexes[(i * 7 + n) % len(hexes)]
                form = {"p": str(i % 3), "tool": TOOLS[(i + n) % len(TOOLS)]}
                form |= {"q": str(q), "r": str(r)}
                status, client_ms, server_ms, body = phone.post(f"/t/{table}/tap", form)
                with lock:
                    if status != 200:
                        errors.append(f"{status}: {body[:200]}")
                    seen.append(client_ms)
                    server.append(server_ms)
                if args.think:
                    time.sleep(args.think)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(args.clients)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        client_cpu = _cpu(resource.RUSAGE_SELF)
    finally:
        proc.send_signal(15)  # gunicorn's graceful stop: workers exit and are reaped
        proc.wait(30)
    server_cpu = _cpu(resource.RUSAGE_CHILDREN)

    db = "SQLite (WAL)" if args.database == "sqlite" else "PostgreSQL"
    print(
        f"{len(seen)} taps from {args.clients} clients, {args.workers} gunicorn workers of "
        f"{args.threads} threads, {db}, "
        f"think time {args.think:g} s"
    )
    print(
        f"server latency:  median {statistics.median(server):6.1f} ms   "
        f"p95 {pct(server, 95):6.1f} ms"
    )
    print(
        f"client latency:  median {statistics.median(seen):6.1f} ms   p95 {pct(seen, 95):6.1f} ms"
    )
    print(f"throughput:      {len(seen) / elapsed:6.1f} taps/s")
    print(
        f"CPU per tap:     server {server_cpu / len(seen) * 1000:6.1f} ms   "
        f"clients {client_cpu / len(seen) * 1000:6.1f} ms (both share the machine's cores)"
    )
    if errors:
        print(f"{len(errors)} taps failed, first: {errors[0]}")
        sys.exit(1)


if __name__ == "__main__":
    main()
