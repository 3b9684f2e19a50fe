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
