"""One search runner per session and search (issue 34, item 2): a second `cockpit tune` of a
search that runs says who runs it and exits 3, touching nothing; a lock left by a runner that
is gone is taken over, with a note."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from search_support import cleanup, search_session

from cockpit.model.search.search import TrialStatus
from cockpit.store.search_lock import SearchBusy, search_lock_path, take_search_lock
from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def folder(tmp_path: Path):
    yield tmp_path
    cleanup(tmp_path)


def tune(path: Path, *argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cockpit", "tune", str(path), "q1", *argv], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)


def _wait_for(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError("not reached")


def _trial_running(path: Path) -> bool:
    try:
        return any(t.status is TrialStatus.RUNNING for t in load_session(path).searches[0].trial)
    except Exception:  # noqa: BLE001 -- mid-write: read again
        return False


def test_a_second_tune_of_a_running_search_says_who_runs_it_and_exits_3(folder: Path) -> None:
    path, _ = search_session(folder, trials=2)
    first = tune(path, "--yes")
    try:
        _wait_for(lambda: _trial_running(path))
        second = tune(path, "--yes")
        out, err = second.communicate(timeout=60)
        assert second.returncode == 3, out + err
        host = socket.gethostname()
        assert err.startswith(f"cockpit tune: not run: search q1 is being run by pid {first.pid} on {host} since ")
        assert len(err.splitlines()) == 1 and out == ""
        out, err = first.communicate(timeout=240)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
    assert first.returncode == 0, out + err
    search = load_session(path).searches[0]
    # every trial launched once, by the one runner, and ended as it ran
    assert sorted(t.number for t in search.trial) == [0, 1]
    assert all(t.status in (TrialStatus.OK, TrialStatus.CRASHED) for t in search.trial)  # none failed, none left
    started = [j.text for j in load_session(path).journal if j.text.startswith("search q1 trial 0 started")]
    assert len(started) == 1, started
    assert search_lock_path(path, "q1").read_text() == ""  # released at the end


def test_a_lock_left_by_a_killed_runner_is_taken_over_with_a_note(folder: Path) -> None:
    path, _ = search_session(folder)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid of this host that no longer runs
    search_lock_path(path, "q1").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(),
                                                        "since": "2026-01-01 00:00:00 UTC"}))
    proc = tune(path)  # never confirmed, no terminal: takes the lock, then asks and runs nothing
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    assert (f"note: took over the search's lock from pid {dead.pid} on {socket.gethostname()} since "
            f"2026-01-01 00:00:00 UTC, which no longer runs it") in out
    assert "never confirmed" in err


def test_the_lock_is_one_holder_at_a_time_within_a_process_too(tmp_path: Path) -> None:
    path = tmp_path / "camp.toml"
    path.write_text("")
    held = take_search_lock(path, "q1")
    with pytest.raises(SearchBusy, match=f"search q1 is being run by pid {os.getpid()} on "):
        take_search_lock(path, "q1")
    other = take_search_lock(path, "q2")  # another search of the same session: its own runner
    other.release()
    held.release()
    take_search_lock(path, "q1").release()
    assert oct(search_lock_path(path, "q1").stat().st_mode & 0o777) == "0o600"
