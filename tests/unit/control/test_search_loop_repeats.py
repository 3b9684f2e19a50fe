"""The loop's bookkeeping with a runner that measures nothing real (each trial's points are
written as the runner would, figures from a table): the budget is kept, no configuration
twice, and relaunches race the leader against the runner-up until they are told apart by
more than the noise or the budget ends; the best has at least two launches."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cockpit.control.search.loop import SearchLoop
from cockpit.control.search.runner import TrialOutcome, TrialRequest
from cockpit.control.transaction import SessionFile
from cockpit.model.search.scoring import best_config
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.search.space import config_key
from cockpit.model.session import LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

SPEED = {32: 1000.0, 64: 1400.0, 128: 1200.0}
CLOSE = {32: 1000.0, 64: 1400.0, 128: 1390.0}  # 64 and 128 within the noise of each other


class TableRunner:
    """Records one point per trial: its graph batch's figure from `table`, the relaunches a little off."""

    def __init__(self, path: Path, table: dict[int, float] = SPEED) -> None:
        self.sink = SessionFile(path)
        self.launches = 0
        self.table = table

    async def run_trial(self, request: TrialRequest, *, check_point, on_state) -> TrialOutcome:  # noqa: ANN001
        session = self.sink.session
        profile = next(p for p in session.launch if p.id == request.profile_id)
        bs = int(profile.command.split("--cuda-graph-max-bs ")[1].split()[0])
        value = self.table[bs] * (1.0 + 0.03 * (self.launches % 3 - 1))
        self.launches += 1
        ident = await self.sink.apply(lambda e: e.add_benchmark(label=request.run_id, profile=profile.id,
                                                                concurrency=8, output_tok_s=value))
        return TrialOutcome(TrialStatus.OK, [ident], ready_s=1.0)


def _run(tmp_path: Path, table: dict[int, float], trials: int, repeats: int,
         seed: int = 1) -> tuple[Search, TableRunner]:
    path = tmp_path / "s.toml"
    save_session(Session(launch=[LaunchProfile(id="l1", name="base", command="serve --cuda-graph-max-bs 32")],
                         sweeps=[Sweep(id="s1", name="one point", concurrencies=[8])],
                         searches=[Search(id="q1", name="bs", profile="l1", sweep="s1", trials=trials,
                                          repeats=repeats, space={"--cuda-graph-max-bs": [32, 64, 128]})]), path)
    runner = TableRunner(path, table)
    loop = SearchLoop(SessionFile(path), str(path), "q1", runner, [None], seed=seed)
    asyncio.run(loop.run())
    assert not loop.errors
    return load_session(path).searches[0], runner


def test_budget_kept_no_configuration_twice_and_the_race_stops_once_the_best_is_told_apart(tmp_path):
    search, runner = _run(tmp_path, SPEED, trials=3, repeats=2)
    firsts = [t for t in search.trial if t.repeat_of is None]
    repeats = [t for t in search.trial if t.repeat_of is not None]
    assert len(firsts) == 3 and len({config_key(search, t.params) for t in firsts}) == 3
    lead = next(t for t in firsts if t.params["--cuda-graph-max-bs"] == 64)
    # one relaunch tells 1,400 apart from 1,200 (3 % noise): the fifth launch is not spent
    assert len(repeats) == 1 and repeats[0].repeat_of == lead.number and repeats[0].profile == lead.profile
    best = best_config(search)
    assert best is not None and best.first is lead and len(best.values) == 2 and best.spread and best.spread > 0
    assert runner.launches == 4


def test_a_leader_within_the_noise_of_the_runner_up_races_it_to_the_end_of_the_budget(tmp_path):
    search, runner = _run(tmp_path, CLOSE, trials=3, repeats=3)
    assert runner.launches == 6  # never told apart: the whole budget races
    repeats = [t for t in search.trial if t.repeat_of is not None]
    raced = {t.params["--cuda-graph-max-bs"] for t in repeats}
    assert raced == {64, 128}  # the leader and the runner-up, not only whoever led at the time
    best = best_config(search)
    assert best is not None and len(best.values) >= 2
