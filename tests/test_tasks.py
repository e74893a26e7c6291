"""The test command's parallel workers (``tasks.py``, ``_parallel``)."""

from __future__ import annotations

from types import ModuleType

import pytest
import scripts


@pytest.fixture(scope="module")
def tasks() -> ModuleType:
    return scripts.load("tasks.py", "scorepad_tasks")


def cores(monkeypatch: pytest.MonkeyPatch, tasks: ModuleType, n: int) -> None:
    monkeypatch.setattr(tasks.os, "sched_getaffinity", lambda _pid: set(range(n)), raising=False)


def test_one_worker_per_core_each_on_one_thread(
    tasks: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    cores(monkeypatch, tasks, 2)
    env = {"OMP_NUM_THREADS": "3"}
    assert tasks._parallel(["tests/web"], env) == ["-n", "2", "--dist", "worksteal"]
    assert env == {
        "OMP_NUM_THREADS": "3",
        "OPENBLAS_NUM_THREADS": "1",
        "OPENCV_FOR_THREADS_NUM": "1",
    }


def test_at_most_four_workers_and_none_on_one_core(
    tasks: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    cores(monkeypatch, tasks, 64)
    assert tasks._parallel([], {})[:2] == ["-n", "4"]
    cores(monkeypatch, tasks, 1)
    env: dict[str, str] = {}
    assert tasks._parallel([], env) == [] and env == {}


@pytest.mark.parametrize("given", [["-n", "0"], ["-n3"], ["--numprocesses=2"], ["-x", "-n", "1"]])
def test_the_callers_worker_count_wins(
    tasks: ModuleType, monkeypatch: pytest.MonkeyPatch, given: list[str]
) -> None:
    cores(monkeypatch, tasks, 2)
    assert tasks._parallel(given, {}) == []


def test_the_test_install_serves_the_app_without_installing_again(
    tasks: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    # `tasks.py test` installs the `test` extra (web and vision in it); `tasks.py run` then
    # needs `web,vision` and must find it covered rather than run pip again.
    venv = tasks.Path(str(tmp_path))
    monkeypatch.setattr(tasks, "VENV", venv)
    monkeypatch.setattr(tasks, "PY", venv / "python")
    (venv / "python").write_text("")
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(tasks, "sh", lambda *cmd, **_kw: calls.append(cmd) or 0)
    stamp, digest = tasks._stamp("test")
    stamp.write_text(digest)
    for extras in ("web,vision", "web", ""):
        tasks.ensure_venv(extras)
    assert calls == []
    tasks.ensure_venv("train")  # not covered: installs
    assert any("-e" in cmd for cmd in calls)
