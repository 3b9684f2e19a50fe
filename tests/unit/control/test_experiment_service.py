"""The experiment service (control/experiment.py) driven with no UI, as `cockpit run` /
`cockpit sweep` and a launch search drive it: start -> ready -> sweep -> a benchmark per
point -> stop with nothing left; a crash -> the profile broken -> the working one offered
and started; a person's "no" runs nothing.

The server is the STAND-IN (cockpit/sandbox/sglang_server.py: real-format log lines and HTTP
endpoints, no model, no GPU), the bench client the STAND-IN bench_serving through the real
argv (tests/sweep_support.py); processes, ports and the session file are real.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from standin.procs import free_port, group_members, server_pid, standin_command

from sweep_support import make_bench_python

from cockpit.control.experiment import ExperimentService
from cockpit.control.experiment_types import Question, ServerPhase, StatesChanged
from cockpit.control.transaction import SessionFile
from cockpit.live.experiment.sweep_events import PointRecorded
from cockpit.model.edit.edits import PERSON
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session


def _campaign(tmp_path: Path, runs: Path, *, crash: bool = False) -> Path:
    port = free_port()
    extra = ("--standin-load-s", "0.2", "--standin-capture-s", "0.2")
    profiles = [LaunchProfile(id="l1", name="known good", host="box", status=ProfileStatus.WORKING,
                              command=standin_command(sys.executable, port, *extra),
                              python=make_bench_python(tmp_path / "py"))]
    if crash:
        profiles.append(LaunchProfile(id="l2", name="too big", host="box",
                                      command=standin_command(sys.executable, port, *extra, "--standin-crash", "capture")))
    path = tmp_path / "loop.toml"
    save_session(Session(title="loop", hosts=[Host(name="box", run_dir=str(runs),
                                                   log_path=str(tmp_path / "server.log"))],
                         launch=profiles,
                         sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=8, prompts=4,
                                       concurrencies=[1, 2])]), path)
    return path


class Person:
    """The caller's question to a person: what was asked, answered `answer`."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[Question] = []

    async def __call__(self, question: Question) -> bool:
        self.asked.append(question)
        return self.answer


def _journal(path: Path) -> list[str]:
    return [event.text for event in load_session(path).journal]


async def test_start_ready_sweep_records_each_point_then_stop_leaves_nothing(tmp_path: Path, runs: Path) -> None:
    path = _campaign(tmp_path, runs)
    events: list[object] = []
    service = ExperimentService(path, SessionFile(path), on_event=events.append)
    person = Person()
    try:
        started = await service.start("l1", person)
        assert started.kind == "ready", started
        assert [q.kind for q in person.asked] == ["launch"]  # a command never run: asked first
        assert "--port" in person.asked[0].plan.preview()
        assert [e.phase for e in events if isinstance(e, ServerPhase)][-1] == "ready"
        assert service.profile_states["l1"].startswith("ready") and any(isinstance(e, StatesChanged) for e in events)

        swept = await service.sweep("s1", person)
        assert swept.status == "done", swept
        assert [q.kind for q in person.asked] == ["launch", "sweep"]
        session = load_session(path)
        assert [(b.sweep, b.concurrency, b.profile) for b in session.benchmarks] == [("s1", 1, "l1"), ("s1", 2, "l1")]
        assert all(b.peak_running is not None for b in session.benchmarks)  # the log, watched through the hub
        assert len([e for e in events if isinstance(e, PointRecorded)]) == 2
        assert "2 of 2 points recorded" in session.last_action.text
        # the confirmations are the person's; the points the sweep's
        journal = _journal(path)
        assert any(t.startswith("sweep s1 confirmed") and "via" not in t for t in journal)
        assert any("via sweep" in t for t in journal)

        pgid = int(next(runs.glob("*/*.pid")).read_text())
        assert group_members(pgid)
        (stopped,) = await service.stop(["box"])
        assert stopped.error is None and stopped.result.clean and stopped.result.pid is not None
        assert not group_members(pgid)
        assert not list(runs.glob("*/*.pid"))  # its PID file went with it (issue 39)
        assert any("server stopped on box" in t for t in _journal(path))
        assert "box" not in service.servers
    finally:
        await service.close(pool=True)


async def test_a_crash_marks_the_profile_broken_and_the_fallback_starts_the_working_one(tmp_path: Path,
                                                                                         runs: Path) -> None:
    path = _campaign(tmp_path, runs, crash=True)
    service = ExperimentService(path, SessionFile(path, actor=PERSON))
    person = Person()
    try:
        crashed = await service.start("l2", person)
        assert crashed.kind == "crashed" and crashed.error_label, crashed
        assert crashed.fallback_id == "l1" and service.fallback_id == "l1"
        assert service.profile_states["l2"] == "crashed"
        l2 = next(p for p in load_session(path).launch if p.id == "l2")
        assert l2.status is ProfileStatus.BROKEN and crashed.error_label in (l2.broken_reason or "")

        fallback = await service.start_fallback(person)
        assert fallback is not None and (fallback.kind, fallback.profile_id) == ("ready", "l1")
        assert service.fallback_id is None and await service.start_fallback(person) is None
        (stopped,) = await service.stop(["box"])
        assert stopped.result.clean
    finally:
        await service.close(pool=True)


async def test_a_no_runs_nothing_and_records_no_confirmation(tmp_path: Path, runs: Path) -> None:
    path = _campaign(tmp_path, runs)
    service = ExperimentService(path, SessionFile(path, actor=PERSON))
    try:
        out = await service.start("l1", Person(answer=False))
        assert out.kind == "not_confirmed" and not out.ok
        assert not list(runs.glob("*/*.pid"))  # nothing was started
        assert next(p for p in load_session(path).launch if p.id == "l1").confirmed is None
        assert service.profile_states == {}
        swept = await service.sweep("s1", Person())  # no server: not ready, nothing asked
        assert swept.status == "not_ready"
    finally:
        await service.close(pool=True)


async def test_a_crash_after_ready_is_said_once_whichever_check_sees_it_first(tmp_path: Path, runs: Path) -> None:
    """The once-a-second recheck can see the process gone before the followed log's crash
    line arrives (a loaded machine): the crash is said by the recheck, not forgotten, and
    the log's check after it says nothing twice."""
    path = _campaign(tmp_path, runs)
    service = ExperimentService(path, SessionFile(path, actor=PERSON))
    try:
        assert (await service.start("l1", Person())).kind == "ready"
        leader = int(next(runs.glob("*/*.pid")).read_text())
        os.kill(server_pid(runs), signal.SIGUSR1)  # the stand-in dies as under load (OOM traceback, exit 1)
        for _ in range(100):
            if not group_members(leader):
                break
            await asyncio.sleep(0.1)
        assert not group_members(leader)
        await service.reconcile()
        assert service.profile_states.get("l1") == "crashed"
        assert await service.check_crash("box", "torch.OutOfMemoryError: CUDA out of memory") == []
        said = [t for t in _journal(path) if "crashed after ready" in t]
        assert len(said) == 1 and "l1 (known good) on box: crashed after ready (exit 1)" in said[0], said
    finally:
        await service.close(pool=True)
