"""How much of the budget the race keeps (control/search/plan.py): RACE_SHARE of the launches,
but SMALL_RACE_SHARE (at least one launch) under SMALL_BUDGET, where exploring pays more
(bench_search.py: crashbest and the held-out small surfaces)."""

from __future__ import annotations

import random

from cockpit.control.search.plan import RACE_SHARE, SMALL_BUDGET, next_launch
from cockpit.model.search.search import Search, SearchTrial, TrialStatus

SPACE = {"--cuda-graph-max-bs": [16, 32, 64, 128, 256], "--chunked-prefill-size": [1024, 2048, 4096, 8192],
         "--attention-backend": ["fa3", "flashinfer", "triton"]}  # 60 configurations


def _figure(params: dict) -> float:
    bs = {16: 0.8, 32: 0.9, 64: 1.0, 128: 0.97, 256: 0.9}[params["--cuda-graph-max-bs"]]
    return 2000.0 * bs * {"fa3": 1.05, "flashinfer": 1.0, "triton": 0.9}[params["--attention-backend"]]


def _first_relaunch(budget: int) -> int | None:
    """The launch number (1-based) of the run's first relaunch, with 5 % noise."""
    search = Search(id="q1", name="x", profile="l1", sweep="s1", trials=budget, space=SPACE, seed=7)  # type: ignore[arg-type]
    rng = random.Random(3)
    for number in range(budget):
        step = next_launch(search, budget, seed=7)
        assert step is not None
        if step.repeat_of is not None:
            return number + 1
        trial = SearchTrial(number=number, params=step.params, status=TrialStatus.OK,
                            value=_figure(step.params) * rng.gauss(1.0, 0.05))
        search = search.model_copy(update={"trial": [*search.trial, trial]})
    return None


def test_a_small_budget_explores_to_its_last_launch():
    assert SMALL_BUDGET > 9
    assert _first_relaunch(9) == 9  # eight configurations, then the leader's second launch


def test_a_larger_budget_keeps_its_share_for_the_race():
    budget = max(SMALL_BUDGET, 30)
    first = _first_relaunch(budget)
    assert first is not None and first <= budget - round(budget * RACE_SHARE) + 1



def _clear_leader() -> Search:
    """Three configurations launched four times each, 2 % noise, the runner-up 2 % behind, the third 20 %."""
    search = Search(id="q1", name="x", profile="l1", sweep="s1", trials=30, space=SPACE, seed=7)  # type: ignore[arg-type]
    rng = random.Random(5)
    trials: list[SearchTrial] = []
    for first, (bs, figure) in enumerate([(64, 2000.0), (32, 1960.0), (16, 1600.0)]):
        params = {"--cuda-graph-max-bs": bs, "--chunked-prefill-size": 4096, "--attention-backend": "fa3"}
        for launch in range(4):
            trials.append(SearchTrial(number=len(trials), params=params, status=TrialStatus.OK,
                                      repeat_of=None if launch == 0 else first * 4,
                                      value=figure * rng.gauss(1.0, 0.02)))
    return search.model_copy(update={"trial": trials})


def test_the_race_variants_relaunch_what_was_launched_and_repeat_for_a_seed(monkeypatch):
    """The race picks measured and not kept (bench_search.py `race-top-two`, `race-ucb`) relaunch
    a configuration the run launched, the same one for the same seed; top-two's draws share the
    race between the two within the noise of each other, never the one 20 % behind; the bandit
    relaunches its best bound."""
    import cockpit.control.search.plan as plan

    search = _clear_leader()
    monkeypatch.setattr(plan, "RACE_PICK", "top-two")
    picks = [next_launch(search, 13, seed=seed) for seed in range(60)]
    assert all(p is not None and p.repeat_of in (0, 4, 8) for p in picks)
    again = next_launch(search, 13, seed=5)
    assert again is not None and picks[5] is not None and again.repeat_of == picks[5].repeat_of
    counts = {first: sum(1 for p in picks if p is not None and p.repeat_of == first) for first in (0, 4, 8)}
    assert counts[0] >= 15 and counts[4] >= 15 and counts[8] == 0  # the two within the noise race, not the third
    monkeypatch.setattr(plan, "RACE_PICK", "ucb")
    assert {(p.repeat_of if p else None) for p in (next_launch(search, 13, seed=k) for k in range(5))} == {0}


def test_the_even_race_relaunches_the_least_launched_of_the_top_told_apart_or_not(monkeypatch):
    """bench_search.py `race-even-top3` (measured, not kept): the oracle's even race, which keeps
    relaunching the board's top three, the least launched first, even the one 20 % behind that
    the kept race has told apart and leaves alone."""
    import cockpit.control.search.plan as plan

    full = _clear_leader()
    search = full.model_copy(update={"trial": full.trial[:9]})  # the third launched once, the others four times
    assert {(p.repeat_of if p else None) for p in (next_launch(search, 10, seed=k) for k in range(5))} != {8}
    monkeypatch.setattr(plan, "RACE_PICK", "even-top")
    assert {(p.repeat_of if p else None) for p in (next_launch(search, 10, seed=k) for k in range(5))} == {8}


def test_the_trust_region_variant_draws_only_next_to_the_boards_top(monkeypatch):
    """bench_search.py `local-*` (measured, not kept): from LOCAL_FROM first launches on, the
    next configuration differs from one of the board's top three in at most one flag."""
    from cockpit.control.search import study
    from cockpit.model.search.scoring import leaderboard
    from cockpit.model.search.space import config_key

    search = _clear_leader()
    monkeypatch.setattr(study, "LOCAL_FROM", 3)
    tops = [dict(config_key(search, g.first.params)) for g in leaderboard(search) if g.feasible][:3]
    for seed in range(20):
        params = study.propose(search, seed=seed)
        assert params is not None
        key = config_key(search, params)
        assert min(sum(top.get(k) != v for k, v in key) for top in tops) <= 1, params
    monkeypatch.setattr(study, "LOCAL_FROM", None)  # off (the kept search): it strays further
    far = [study.propose(search, seed=seed) for seed in range(20)]
    assert any(min(sum(top.get(k) != v for k, v in config_key(search, p)) for top in tops) > 1
               for p in far if p is not None)
