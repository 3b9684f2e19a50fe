"""The loop's bookkeeping with a runner that measures nothing real (each trial's points are
written as the runner would, figures from a table): the budget is kept, no configuration
twice, and `repeats` relaunch the leading configuration after the budget, with its spread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cockpit.control.search.loop import SearchLoop
from cockpit.control.search.runner import TrialOutcome, TrialRequest
from cockpit.control.sweep_records import TransactionSink
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.search.search_scoring import best_config
from cockpit.model.search.search_space import config_key
from cockpit.model.session import LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

SPEED = {32: 1000.0, 64: 1400.0, 128: 1200.0}


class TableRunner:
    """Records one point per trial: SPEED of its graph batch, the relaunches a little off."""

    def __init__(self, path: Path) -> None:
        self.sink = TransactionSink(path)
        self.launches = 0

    async def run_trial(self, request: TrialRequest, *, check_point, on_state) -> TrialOutcome:  # noqa: ANN001
        session = self.sink.session
        profile = next(p for p in session.launch if p.id == request.profile_id)
        bs = int(profile.command.split("--cuda-graph-max-bs ")[1].split()[0])
        value = SPEED[bs] * (1.0 + 0.01 * (self.launches % 3 - 1))
        self.launches += 1
        ident = await self.sink.apply(lambda e: e.add_benchmark(label=request.run_id, profile=profile.id,
                                                                concurrency=8, output_tok_s=value))
        return TrialOutcome(TrialStatus.OK, [ident], ready_s=1.0)


def test_budget_kept_no_configuration_twice_and_repeats_measure_the_noise(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(launch=[LaunchProfile(id="l1", name="base", command="serve --cuda-graph-max-bs 32")],
                         sweeps=[Sweep(id="s1", name="one point", concurrencies=[8])],
                         searches=[Search(id="q1", name="bs", profile="l1", sweep="s1", trials=3, repeats=2,
                                          space={"--cuda-graph-max-bs": [32, 64, 128]})]), path)
    runner = TableRunner(path)
    loop = SearchLoop(TransactionSink(path), str(path), "q1", runner, [None])
    asyncio.run(loop.run())
    search = load_session(path).searches[0]
    firsts = [t for t in search.trial if t.repeat_of is None]
    repeats = [t for t in search.trial if t.repeat_of is not None]
    assert len(firsts) == 3 and len({config_key(search, t.params) for t in firsts}) == 3
    lead = next(t for t in firsts if t.params["--cuda-graph-max-bs"] == 64)
    assert len(repeats) == 2 and all(t.repeat_of == lead.number and t.params == lead.params for t in repeats)
    assert all(t.profile == lead.profile for t in repeats)  # the same launch profile, launched again
    best = best_config(search)
    assert best is not None and best.first is lead and len(best.values) == 3 and best.spread and best.spread > 0
    assert runner.launches == 5 and not loop.errors
