"""Failures that are not the configuration's, and measurements the session holds already.

The runner here is a STAND-IN (nothing can really fail this way on demand in a unit test:
a missing server script, SSH refusing): it reports what ServerTrialRunner reports for
those, and the loop must tell them from a configuration's own crash."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cockpit.control.search.loop import SearchLoop
from cockpit.control.search.runner import TrialOutcome, TrialRequest
from cockpit.control.search.study import blamed
from cockpit.control.transaction import SessionFile
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.session import LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

SPACE = {"--cuda-graph-max-bs": [32, 64, 128], "--mem-fraction-static": [0.8, 0.85, 0.9]}


class FailingRunner:
    """STAND-IN: every launch ends the same way (`outcome`), whatever its flags."""

    def __init__(self, outcome: TrialOutcome) -> None:
        self.outcome = outcome
        self.launched: list[str] = []

    async def run_trial(self, request: TrialRequest, *, check_point, on_state) -> TrialOutcome:  # noqa: ANN001
        self.launched.append(request.profile_id)
        return TrialOutcome(self.outcome.status, error=self.outcome.error, phase=self.outcome.phase)


def _session(tmp_path: Path, **search: object) -> Path:
    path = tmp_path / "s.toml"
    save_session(Session(launch=[LaunchProfile(id="l1", name="base",
                                               command="python3 /srv/serve.py --mem-fraction-static 0.85")],
                         sweeps=[Sweep(id="s1", name="one point", concurrencies=[8])],
                         searches=[Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1",
                                                          "trials": 6, "space": SPACE, **search})]), path)
    return path


def _run(path: Path, runner: object) -> SearchLoop:
    events: list[str] = []
    loop = SearchLoop(SessionFile(path), str(path), "q1", runner, [None],  # type: ignore[arg-type]
                      on_event=lambda e: events.append(e.text))
    asyncio.run(loop.run())
    loop.events = events  # type: ignore[attr-defined]
    return loop


def test_a_missing_server_script_stops_the_search_after_the_second_and_is_no_crash(tmp_path):
    missing = TrialOutcome(TrialStatus.CRASHED, phase="starting",
                           error="crashed: python3: can't open file '/srv/serve.py': [Errno 2] No such file or directory")
    path = _session(tmp_path)
    runner = FailingRunner(missing)
    loop = _run(path, runner)
    assert len(runner.launched) == 2  # of a budget of 6
    search = load_session(path).searches[0]
    assert [t.status for t in search.trial] == [TrialStatus.FAILED, TrialStatus.FAILED]
    assert all(t.error.startswith("not the configuration's: crashed: python3: can't open file") for t in search.trial)
    assert blamed(search) == set()  # no crash region learnt from the environment's failure
    assert loop.errors and "the same failure with different configurations (trials 0 and 1)" in loop.errors[0]
    assert any(text.startswith("halted: ") for text in loop.events)  # type: ignore[attr-defined]


def test_ssh_down_stops_the_search_after_the_second(tmp_path):
    down = TrialOutcome(TrialStatus.FAILED, error="not started: ssh: connect to host box port 22: Connection refused")
    path = _session(tmp_path)
    runner = FailingRunner(down)
    loop = _run(path, runner)
    assert len(runner.launched) == 2 and loop.errors


def test_the_same_crash_while_capturing_is_each_configurations_own(tmp_path):
    oom = TrialOutcome(TrialStatus.CRASHED, phase="capturing",
                       error="cuda_oom: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    path = _session(tmp_path, trials=3)
    runner = FailingRunner(oom)
    loop = _run(path, runner)
    search = load_session(path).searches[0]
    assert len(runner.launched) == 3 and not loop.errors  # the budget, spent: crashes of configurations
    assert all(t.status is TrialStatus.CRASHED for t in search.trial)


class CountingRunner:
    """STAND-IN: records one point per launch (1,000 tok/s), as the real runner's sweep would."""

    def __init__(self, path: Path) -> None:
        self.sink = SessionFile(path)
        self.commands: list[str] = []

    async def run_trial(self, request: TrialRequest, *, check_point, on_state) -> TrialOutcome:  # noqa: ANN001
        profile = next(p for p in self.sink.session.launch if p.id == request.profile_id)
        self.commands.append(profile.command)
        ident = await self.sink.apply(lambda e: e.add_benchmark(label=request.run_id, profile=profile.id,
                                                                sweep="s1", concurrency=8, output_tok_s=1000.0))
        return TrialOutcome(TrialStatus.OK, [ident], ready_s=1.0)


def test_a_configuration_measured_in_the_session_is_reused_not_launched(tmp_path):
    path = tmp_path / "s.toml"
    measured = LaunchProfile(id="l2", name="tried by hand",
                             command="python3 /srv/serve.py --mem-fraction-static 0.80")  # 0.80, the space says 0.8
    session = Session(launch=[LaunchProfile(id="l1", name="base", command="python3 /srv/serve.py"), measured],
                      sweeps=[Sweep(id="s1", name="one point", concurrencies=[8])],
                      searches=[Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1",
                                                       "trials": 2, "space": {"--mem-fraction-static": [0.8, 0.9]}})])
    save_session(session, path)
    sink = SessionFile(path)
    asyncio.run(sink.apply(lambda e: e.add_benchmark(label="by hand", profile="l2", sweep="s1", concurrency=8,
                                                     output_tok_s=1200.0)))
    runner = CountingRunner(path)
    loop = SearchLoop(SessionFile(path), str(path), "q1", runner, [None], seed=3)
    asyncio.run(loop.run())
    search = load_session(path).searches[0]
    reused = [t for t in search.trial if t.reused]
    assert len(reused) == 1 and reused[0].profile == "l2" and reused[0].value == 1200.0
    assert reused[0].params == {"--mem-fraction-static": 0.8}
    # the first launch went to the configuration not measured; 0.8 comes back only as the race's relaunch
    assert runner.commands[0].endswith("--mem-fraction-static 0.9")
    new = [t for t in search.trial if not t.reused and t.repeat_of is None]
    assert [t.params for t in new] == [{"--mem-fraction-static": 0.9}]
    assert len(runner.commands) == 2 and not loop.errors
