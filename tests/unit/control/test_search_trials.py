"""A search run for real: every trial a STAND-IN server started with its derived flags
(cockpit/sandbox/surface.py decides its speed, latency, power and crashes), swept with the
STAND-IN bench client, recorded, stopped. As a person runs `cockpit tune` from a shell, and
the loop in-process for two hosts at once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from search_support import cleanup, search_session

from cockpit.model.enums import Comparator, Metric, ProfileStatus
from cockpit.model.search.scoring import best_config
from cockpit.model.search.search import TrialStatus
from cockpit.model.search.space import config_key
from cockpit.model.session import LastAction, Target
from cockpit.store import toml_store
from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]


def tune(path: Path, *argv: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", "tune", str(path), "q1", *argv], capture_output=True,
                          text=True, cwd=REPO, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def folder(tmp_path: Path):
    yield tmp_path
    cleanup(tmp_path)


def test_unconfirmed_search_without_a_terminal_shows_the_space_and_runs_nothing(folder):
    path, _ = search_session(folder)
    done = tune(path)
    assert done.returncode == 3
    assert "up to 3 launches of l1 (base), sweep s1 each, on box" in done.stdout
    assert "  --cuda-graph-max-bs: 4, 16, 256" in done.stdout
    assert "6 configurations in the space; about 42 min (start (none recorded) 600 s" in done.stdout
    assert "never confirmed" in done.stderr and "--yes" in done.stderr
    assert load_session(path).searches[0].trial == []


def test_constraints_from_targets_are_honoured(folder):
    """A small prefill chunk makes the first token wait (32 chunks of a 512-token prompt):
    those configurations break TTFT <= 100 ms (at c=1..2), so the best is one of the others,
    and the constraint values recorded say by how much each missed."""
    ttft = Target(id="g1", metric=Metric.TTFT_MS, comparator=Comparator.LE, value=100, concurrency_min=1,
                  concurrency_max=2)
    space = {"--chunked-prefill-size": [16, 4096], "--moe-runner-backend": ["flashinfer_trtllm", "triton"]}
    path, _ = search_session(folder, space=space, trials=5, targets=[ttft], constraints=["g1"], input_len=512,
                             prune_below=0)
    session = load_session(path)
    session.last_action = LastAction(text="my words: tuning the prefill chunk against TTFT")
    toml_store.save_session(session, path)
    done = tune(path, "--yes", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    search = load_session(path).searches[0]
    firsts = [t for t in search.trial if t.repeat_of is None]  # the fifth launch races the leader
    assert len(firsts) == 4 and all(t.status is TrialStatus.OK for t in search.trial)
    by = {(t.params["--chunked-prefill-size"], t.params["--moe-runner-backend"]): t for t in firsts}
    assert all(by[16, b].constraints[0] > 0 for b in ("flashinfer_trtllm", "triton"))  # TTFT over 100 ms
    assert all(by[4096, b].constraints[0] <= 0 for b in ("flashinfer_trtllm", "triton"))
    best = best_config(search)
    # the best is one that meets the target; which backend leads at 12 tokens a request is the
    # stand-in's timing on a loaded machine (triton measured ahead once in CI), not the rule here
    assert best is not None and best.first in (by[4096, "flashinfer_trtllm"], by[4096, "triton"])
    assert all(c <= 0 for c in best.first.constraints)
    # --json: JSON lines, one object per finished trial as it ended, then the best
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["trial"] for o in objects[:-1]] == [t.number for t in search.trial]
    assert all(o["constraints"] and o["flags_changed"] for o in objects[:-1])
    assert objects[-1]["done"] is True and objects[-1]["best"]["trial"] == best.first.number
    assert objects[-1]["best"]["launches"] == len(best.values)
    # where the person left off: their words stay, the search's end stands beside them
    last = load_session(path).last_action
    assert last is not None and last.text == "my words: tuning the prefill chunk against TTFT"
    assert last.activity is not None and last.activity.text.startswith(
        f"search q1 ({search.name}) done: 5 launches; best trial {best.first.number}: "), last.activity


def _wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError("not reached")


@pytest.mark.parametrize("ended_before_kill", [1, 3], ids=["in-the-second-trial", "in-the-last-trial"])
def test_search_resumes_after_cockpit_is_killed_mid_trial_with_no_trial_lost_or_run_twice(folder, ended_before_kill):
    """Killed in the last trial (a loaded CI machine once killed it there), the resumed run
    launches nothing new but finishes the cut trial: its end is still the Last action."""
    path, _ = search_session(folder, trials=4, concurrencies=(2, 4, 8), output_len=24)
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", "tune", str(path), "q1", "--yes"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)

    def one_point_into_second_trial() -> bool:
        try:
            session = load_session(path)
        except Exception:  # noqa: BLE001 -- mid-write: read again
            return False
        ok = [t for t in session.searches[0].trial if t.status is not TrialStatus.RUNNING]
        return len(ok) >= ended_before_kill and any(b.sweep_run and b.sweep_run.endswith(f"q1-t{len(ok)}")
                                                    for b in session.benchmarks)

    try:
        _wait_for(one_point_into_second_trial, timeout=120)
        os.killpg(proc.pid, signal.SIGKILL)  # cockpit dies mid-trial; the trial's server goes on
    finally:
        proc.wait(10)
    killed = load_session(path)
    running = [t for t in killed.searches[0].trial if t.status is TrialStatus.RUNNING]
    assert len(running) == 1
    cut = running[0]
    points_before = {b.id for b in killed.benchmarks if b.sweep_run == f"q1-t{cut.number}"}
    assert points_before

    done = tune(path)  # confirmed by the first run's --yes: no need to ask again
    assert done.returncode == 0, done.stdout + done.stderr
    session = load_session(path)
    search = session.searches[0]
    assert sorted(t.number for t in search.trial) == [0, 1, 2, 3]  # none lost, none added twice
    assert all(t.status is not TrialStatus.RUNNING for t in search.trial)
    firsts = [t for t in search.trial if t.repeat_of is None]  # the last launch may race the leader
    assert len({config_key(search, t.params) for t in firsts}) == len(firsts)  # no configuration twice
    resumed = search.trial_of(cut.number)
    assert resumed.profile == cut.profile and resumed.params == cut.params
    assert points_before <= set(resumed.benchmarks)  # its recorded points kept, not run again
    keys = [(b.sweep_run, b.concurrency) for b in session.benchmarks if b.sweep_run]
    assert len(keys) == len(set(keys))  # no point recorded twice
    # the Last action is the search's end, not the last trial's start (its server is stopped)
    assert session.last_action is not None and session.last_action.text.startswith(
        f"search q1 ({search.name}) done: 4 launches; best trial "), session.last_action
    crashed = [t for t in search.trial if t.status is TrialStatus.CRASHED]
    for trial in crashed:  # a crash: the derived profile broken with its label, the trial infeasible
        profile = next(p for p in session.launch if p.id == trial.profile)
        assert profile.status is ProfileStatus.BROKEN and profile.broken_reason.startswith("cuda_oom")
        assert trial.error.startswith("cuda_oom") and trial.value is None


async def _two_hosts(path: Path) -> list:
    from cockpit.control.search.consent import seal_search, search_fingerprint
    from cockpit.control.search.loop import SearchLoop
    from cockpit.control.search.server_trials import SEARCH, ServerTrialRunner
    from cockpit.control.transaction import SessionFile, edit
    from cockpit.sources.transport.ssh_pool import SshPool

    def sealed(e):  # noqa: ANN001, ANN202 -- the person's yes (the TUI's dialog seals the same)
        stamp = search_fingerprint(e.session, e.session.searches[0], ["box", "box2"])
        e.apply("q1 confirmed", lambda s: s.searches.__setitem__(0, s.searches[0].model_copy(
            update={"confirmed": seal_search(stamp)})), kind="search.confirmed")
    edit(path, sealed, "person")
    events: list = []
    async with SshPool() as pool:
        runner = ServerTrialRunner(pool)
        loop = SearchLoop(SessionFile(path, actor=SEARCH), str(path), "q1", runner, ["box", "box2"],
                          on_event=events.append)
        await loop.run()
    return events


def test_two_hosts_run_trials_at_once(folder, monkeypatch):
    path, ports = search_session(folder, hosts=("box", "box2"), trials=4,
                                 space={"--cuda-graph-max-bs": [4, 16], "--moe-runner-backend":
                                        ["flashinfer_trtllm", "triton"]}, output_len=24)
    parses: list[str] = []  # every parse of the session file, wherever it is read from
    real_parse = toml_store.loads_session
    monkeypatch.setattr(toml_store, "loads_session", lambda text, where="<string>": parses.append(str(where))
                        or real_parse(text, where))
    events = asyncio.run(_two_hosts(path))
    monkeypatch.undo()
    # The search's records, its trials' starts, sweeps and stops share one port over the file:
    # it is parsed again only when another writer changed it (here: none but the person's seal)
    assert 0 < len(parses) <= 3 * 4, parses  # 4 trials: at most 3 parses each (85 when every read parsed)
    session = load_session(path)
    search = session.searches[0]
    assert len(search.trial) == 4 and all(t.status is TrialStatus.OK for t in search.trial)
    assert {t.host for t in search.trial} == {"box", "box2"}
    # one trial each at a time, and both at once: a start on one host while the other's runs
    busy: set[str] = set()
    overlapped = False
    for event in events:
        if event.kind == "started":
            assert event.host not in busy
            busy.add(event.host)
            overlapped |= len(busy) == 2
        elif event.kind == "ended":
            busy.discard(event.host)
    assert overlapped
    for trial in search.trial:  # each host's trial server on that host's port; power tied to the trial
        profile = next(p for p in session.launch if p.id == trial.profile)
        assert trial.host is not None
        assert f"--port {ports[trial.host]}" in profile.command and profile.host == trial.host
        assert trial.power_mean_w and trial.power_mean_w > 110 and trial.output_tok_per_joule


def test_a_two_objective_search_records_both_figures_at_one_point_and_leaves_the_pick_to_a_person(folder):
    """`objective = [output_tok_s, output_tok_per_joule]`: each trial's figures are its own
    benchmarks' medians at c=8 (the same window), the run ends on the front, not a best."""
    from cockpit.model.search.pareto import dominates, pareto_front

    # no graph batch of 256 (with the base's memory fraction it crashes: a crash has no figures)
    path, _ = search_session(folder, trials=2, prune_below=0, space={
        "--cuda-graph-max-bs": [4, 16], "--moe-runner-backend": ["flashinfer_trtllm", "triton"]})

    def both(e):  # noqa: ANN001, ANN202
        e.apply("two objectives", lambda s: s.searches.__setitem__(0, s.searches[0].model_copy(
            update={"objective": ["output_tok_s", "output_tok_per_joule"]})), kind="search.edited")
    from cockpit.control.transaction import edit
    edit(path, both, "person")
    done = tune(path, "--yes", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    session = load_session(path)
    search = session.searches[0]
    assert search.picked is None  # a run never picks between objectives
    ok = [t for t in search.trial if t.status is TrialStatus.OK]
    assert len(ok) == 2, [(t.status, t.error) for t in search.trial]
    for trial in ok:
        at8 = [b for b in session.benchmarks if b.id in trial.benchmarks and b.concurrency == 8]
        assert at8 and trial.values == [at8[0].output_tok_s, at8[0].output_tok_per_joule]
        assert trial.value == trial.values[0] and trial.values[1] > 0
    front = pareto_front(search)
    assert front.points and not any(dominates(q.medians, p.medians, search.directions)
                                    for p in front.points for q in front.points if q is not p)
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["values"] for o in objects[:-1]] == [t.values for t in search.trial]
    assert objects[-1]["done"] is True and objects[-1]["picked"] is None
    assert {p["trial"] for p in objects[-1]["front"]} == {p.number for p in front.points}
