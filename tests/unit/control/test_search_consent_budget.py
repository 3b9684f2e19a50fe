"""The person's consent covers the budget they saw: `--trials` past it asks again (no
terminal: exit 3, nothing runs), and the question's time estimate stands on the starts and
point times the session recorded, not on a default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from search_support import cleanup, seal_search, search_session

from cockpit.model.session import JournalEvent, now
from cockpit.store.toml_store import load_session, save_session

REPO = Path(__file__).resolve().parents[3]


def tune(path: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", "tune", str(path), "q1", *argv], capture_output=True,
                          text=True, cwd=REPO, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def folder(tmp_path: Path):
    yield tmp_path
    cleanup(tmp_path)


def test_trials_past_the_confirmed_budget_ask_again_and_nothing_runs(folder):
    path, _ = search_session(folder, trials=3)
    seal_search(path)
    done = tune(path, "--trials", "5")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--trials 5 is past the 3 launches confirmed for search q1" in done.stdout
    assert "up to 5 launches of l1 (base)" in done.stdout  # the question shows the new budget
    assert done.stderr.strip() == ("cockpit tune: not run: --trials 5 is past the 3 launches confirmed; check it "
                                   "and run again with --yes")
    search = load_session(path).searches[0]
    assert search.trial == [] and search.trials == 3


def test_the_estimate_uses_the_sessions_recorded_starts_and_point_times(folder):
    path, _ = search_session(folder, trials=4)
    session = load_session(path)
    session.journal.append(JournalEvent(when=now(), kind="activity",
                                        text="activity: started l1 (base): ready in 6.0 s; suggests: run sweep s1"))
    session.journal.append(JournalEvent(when=now(), kind="activity",
                                        text="activity: started l1 (base): ready in 8.0 s"))
    save_session(session, path)
    done = tune(path)
    assert done.returncode == 3
    # 4 launches x (7 s start + 2 points x 120 s (none recorded)) = 16.5 min
    assert "about 16 min (recorded start 7 s + 2 points x 120 s (none recorded) per trial)" in done.stdout, done.stdout


def test_a_sub_second_start_reads_in_tenths_not_0_s(folder):
    """A sandbox's server is ready in under a second: the estimate says 0.6 s, not `0 s`."""
    path, _ = search_session(folder, trials=2)
    session = load_session(path)
    session.journal.append(JournalEvent(when=now(), kind="activity",
                                        text="activity: started l1 (base): ready in 0.6 s"))
    save_session(session, path)
    done = tune(path)
    assert "recorded start 0.6 s + 2 points x 120 s (none recorded)" in done.stdout, done.stdout


def test_a_missing_server_script_for_real_exits_1_after_the_second_launch(folder):
    """The issue's case, with real launches: the base command's script is not there, so every
    configuration dies the same way before loading; the search stops after the second, exit 1,
    and neither launch is learnt as a crash of its configuration."""
    path, _ = search_session(folder, trials=6)
    session = load_session(path)
    base = session.launch[0]
    words = base.command.split()
    script = next(i for i, w in enumerate(words) if w.endswith("sglang_server.py"))
    words[script] = str(folder / "gone" / "sglang_server.py")
    session.launch = [base.model_copy(update={"command": " ".join(words)})]
    save_session(session, path)
    done = tune(path, "--yes")
    assert done.returncode == 1, done.stdout + done.stderr
    search = load_session(path).searches[0]
    assert len(search.trial) == 2
    assert all(t.status.value == "failed" and t.error.startswith("not the configuration's") for t in search.trial)
    assert "the same failure with different configurations (trials 0 and 1)" in done.stderr
