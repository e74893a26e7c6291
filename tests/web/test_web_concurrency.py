"""No lost updates: phones edit one table at once through gunicorn with several workers.

A real ``gunicorn --workers 3`` serves the app on 127.0.0.1, on SQLite and on PostgreSQL
(``db_url``). Phones are HTTP clients with their own cookies and CSRF tokens, as browsers
are. Every edit carries what its page was drawn from (the sheet tag ``v`` or the table
version ``tv``); whatever the interleaving, each edit is either stored (200) or refused as
stale with the fresh board (409), and the stored table holds exactly the stored edits.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from webhelpers import SV_FORM

from scorepad.games import sunflower_valley as sv

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3
PHONES = 4


Answer = tuple[int, dict[str, str], str]
Send = Callable[[int, "Phone"], Answer]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args: Any, **_kw: Any) -> None:
        return None


class Phone:
    """One phone: a cookie jar (its secret key and session) and the page's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect
        )
        status, _headers, html = self.get("/")
        assert status == 200
        found = re.search(r'name="csrf-token" content="([^"]+)"', html)
        assert found
        self.token = found.group(1)

    def _send(self, request: urllib.request.Request) -> Answer:
        try:
            with self.opener.open(request, timeout=30) as resp:
                return resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read().decode()

    def get(self, path: str, hx: bool = False) -> Answer:
        headers = {"HX-Request": "true"} if hx else {}
        return self._send(urllib.request.Request(self.base + path, headers=headers))

    def post(self, path: str, **data: object) -> Answer:
        body = urllib.parse.urlencode({k: str(v) for k, v in data.items()}).encode()
        headers = {"HX-Request": "true", "X-CSRFToken": self.token}
        return self._send(urllib.request.Request(self.base + path, body, headers, method="POST"))


def tags(html: str) -> tuple[str, int]:
    sheet = re.search(r'data-sheet="(\w+)"', html)
    version = re.search(r'id="editor" data-version="(\d+)"', html)
    assert sheet and version, html[:500]
    return sheet.group(1), int(version.group(1))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=db_url,
        SECRET_KEY="concurrency-test",
        SCOREPAD_INSTANCE_PATH=str(tmp_path),
    )
    cmd = [sys.executable, "-m", "gunicorn", "--workers", str(WORKERS), "--preload", "--bind",
           f"127.0.0.1:{port}", "--log-level", "warning", "--graceful-timeout", "2",
           "scorepad.web:create_app()"]  # fmt: skip
    log = (tmp_path / "gunicorn.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/join", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "gunicorn.log").read_text()) from None
                time.sleep(0.2)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)  # quick shutdown: nothing is left to finish
        proc.wait(20)
        log.close()


def at_once(phones: list[Phone], send: Send) -> list[Answer]:
    """Every phone sends its request at the same moment (a barrier), answers in phone order."""
    barrier = threading.Barrier(len(phones))

    def one(i: int) -> Answer:
        barrier.wait(10)
        return send(i, phones[i])

    with ThreadPoolExecutor(len(phones)) as pool:
        return list(pool.map(one, range(len(phones))))


def houses(html: str) -> set[tuple[int, int]]:
    """The hexes holding a house on the board an editor fragment draws."""
    found = re.findall(r'data-q="(-?\d+)" data-r="(-?\d+)"[^>]*data-item="house"', html)
    return {(int(q), int(r)) for q, r in found}


def residents(html: str) -> str:
    found = re.search(r'name="residents"[^>]*value="(\d*)"', html)
    assert found
    return found.group(1)


def start_table(host: Phone, names: list[str]) -> str:
    seats = {f"name_{i}": n for i, n in enumerate(names)}
    status, headers, _ = host.post("/new", **SV_FORM, **seats)
    assert status == 204, status
    return headers["HX-Redirect"].removeprefix("/t/")


def house_taps(table: str, sheet: str, cells: list[tuple[int, int]]) -> Send:
    """Phone i taps a house on ``cells[i]`` of Anna's board, drawn from ``sheet``."""

    def send(i: int, phone: Phone) -> Answer:
        q, r = cells[i]
        return phone.post(f"/t/{table}/tap", p=0, v=sheet, tool="house", q=q, r=r)

    return send


def test_no_edit_is_silently_lost(server: str) -> None:
    """One server per database (starting gunicorn is the slow part), two scenes."""
    same_board(server)
    own_boards(server)


def same_board(server: str) -> None:
    """Four phones (the host lets everyone edit) enter Anna's board at once."""
    host = Phone(server)
    table = start_table(host, ["Anna", "Boris", "Vera", "Gleb"])
    phones = [host] + [Phone(server) for _ in range(PHONES - 1)]
    for seat, phone in enumerate(phones[1:], start=1):
        assert phone.post(f"/t/{table}/join", seat=seat)[0] in (204, 303)
    assert host.post(f"/t/{table}/everyone", allowed="on")[0] in (204, 303)
    free = [(c["q"], c["r"]) for c in sv.blank_sheet(sv.example_layout()) if not c.get("mountain")]

    def board() -> str:
        return host.get(f"/t/{table}?p=0", hx=True)[2]

    # 1. Rounds of simultaneous taps on Anna's board, all drawn from the same page: exactly
    #    one is stored, every other one is refused as stale with the fresh board.
    stored: set[tuple[int, int]] = set()
    for round_ in range(3):
        sheet, _version = tags(board())
        cells = free[round_ * PHONES : (round_ + 1) * PHONES]
        answers = at_once(phones, house_taps(table, sheet, cells))
        codes = sorted(a[0] for a in answers)
        assert codes == [200] + [409] * (PHONES - 1), codes
        winner = next(i for i, a in enumerate(answers) if a[0] == 200)
        stored.add(cells[winner])
        for code, _h, html in answers:  # a refused edit gets the board as it now is
            assert houses(html) == stored, code
    # 2. The same for a field: one residents tally wins, none is overwritten unseen.
    sheet, _version = tags(board())
    tally = f"/t/{table}/field"
    answers = at_once(phones, lambda i, ph: ph.post(tally, p=0, v=sheet, residents=10 + i))
    assert sorted(a[0] for a in answers) == [200] + [409] * (PHONES - 1)
    winner = next(i for i, a in enumerate(answers) if a[0] == 200)
    assert residents(board()) == str(10 + winner)
    # 3. And for undo: phones that all saw one version undo one step, not one step each.
    _sheet, version = tags(board())
    answers = at_once(phones, lambda i, ph: ph.post(f"/t/{table}/undo", p=0, tv=version))
    assert sorted(a[0] for a in answers) == [200] + [409] * (PHONES - 1)
    _sheet, after = tags(board())
    assert after == version + 1 and residents(board()) == ""  # the tally's step, undone once
    assert houses(board()) == stored
    # 4. Free running (bounded): every phone taps its own cells on Anna's board as fast as it
    #    can, keeping the tag of the last answer; on 409 it retries with the fresh one.
    lanes = [free[12 + i :: PHONES] for i in range(PHONES)]
    accepted: list[list[tuple[int, int]]] = [[] for _ in phones]
    refused = [0] * PHONES

    def run(i: int, phone: Phone) -> Answer:
        sheet, _v = tags(phone.get(f"/t/{table}?p=0", hx=True)[2])
        for cell in lanes[i]:
            for _attempt in range(100):
                code, _h, html = phone.post(
                    f"/t/{table}/tap", p=0, v=sheet, tool="house", q=cell[0], r=cell[1]
                )
                assert code in (200, 409), (code, html[:300])
                sheet, _v = tags(html)
                if code == 200:
                    accepted[i].append(cell)
                    break
                refused[i] += 1
        return 200, {}, ""

    at_once(phones, run)
    final = board()
    everything = stored | {c for lane in accepted for c in lane}
    assert houses(final) == everything  # nothing lost, nothing stale applied
    assert sum(map(len, accepted)) == sum(map(len, lanes))  # every phone got through
    assert sum(refused) > 0  # the phones did collide, and were told so


def own_boards(server: str) -> None:
    """Phones on their own boards never conflict, however they interleave."""
    host = Phone(server)
    names = ["Anna", "Boris", "Vera"]
    table = start_table(host, names)
    phones = [Phone(server) for _ in names]
    for seat, phone in enumerate(phones):
        phone.post(f"/t/{table}/join", seat=seat)
    free = [(c["q"], c["r"]) for c in sv.blank_sheet(sv.example_layout()) if not c.get("mountain")]

    def run(i: int, phone: Phone) -> Answer:
        sheet, _v = tags(phone.get(f"/t/{table}?p={i}", hx=True)[2])
        for q, r in free[:6]:
            code, _h, html = phone.post(f"/t/{table}/tap", p=i, v=sheet, tool="house", q=q, r=r)
            assert code == 200, (i, code)
            sheet, _v = tags(html)
        return 200, {}, html

    at_once(phones, run)
    for i in range(len(names)):
        assert houses(host.get(f"/t/{table}?p={i}", hx=True)[2]) == set(free[:6])
