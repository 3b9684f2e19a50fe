"""What Optuna is told about each trial of the session: a crashed launch is never a feasible
point (Optuna reads a constraint value <= 0 as met, so a crash carries a positive one on every
constraint), a run that met its targets is feasible, one that missed a target is not.

Told as feasible, a crash at the worst value is merely "not the best" to TPE, which then goes
back to the crashing region at the small budgets a search runs with."""

from __future__ import annotations

import pytest
from optuna.trial import TrialState

from cockpit.control.search.study import _study
from cockpit.model.search.search import Search, SearchTrial, TrialStatus


def _trials_told(search: Search) -> dict[int, tuple[TrialState, tuple[float, ...] | None]]:
    """Optuna's view of each first trial, by the session's trial number (same order)."""
    firsts = sorted((t for t in search.trial if t.repeat_of is None), key=lambda t: t.number)
    told = _study(search, seed=1).get_trials(deepcopy=False)
    assert len(told) == len(firsts)
    return {t.number: (f.state, tuple(f.system_attrs["constraints"]) if "constraints" in f.system_attrs else None)
            for t, f in zip(firsts, told, strict=True)}


def _feasible(constraints: tuple[float, ...] | None) -> bool:
    return constraints is not None and all(c <= 0 for c in constraints)


@pytest.mark.parametrize("targets", [[], ["g1"], ["g1", "g2"]], ids=["no-target", "one-target", "two-targets"])
def test_a_crashed_trial_is_told_to_optuna_as_infeasible_on_every_constraint(targets: list[str]) -> None:
    search = Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1",
                                    "space": {"--a": [1, 2, 3]}, "constraints": targets})
    met = [-0.1] * len(targets)
    trials = [SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=900.0, constraints=met),
              SearchTrial(number=1, params={"--a": 2}, status=TrialStatus.CRASHED, error="cuda_oom"),
              SearchTrial(number=2, params={"--a": 3}, status=TrialStatus.OK, value=1000.0, constraints=met)]
    told = _trials_told(search.model_copy(update={"trial": trials}))
    state, constraints = told[1]
    assert state in (TrialState.COMPLETE, TrialState.FAIL)
    if state is TrialState.COMPLETE:
        assert constraints is not None and len(constraints) == 1 + len(targets)
        assert all(c > 0 for c in constraints), f"a crash told to Optuna with constraints {constraints}"
    assert _feasible(told[0][1]) and _feasible(told[2][1]), "a run that met its targets is feasible"


def test_a_run_that_missed_one_target_is_infeasible_and_one_at_the_target_is_feasible() -> None:
    search = Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1",
                                    "space": {"--a": [1, 2, 3]}, "constraints": ["g1", "g2"]})
    trials = [SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=900.0, constraints=[0.0, -0.5]),
              SearchTrial(number=1, params={"--a": 2}, status=TrialStatus.OK, value=1200.0, constraints=[-0.5, 0.01]),
              SearchTrial(number=2, params={"--a": 3}, status=TrialStatus.OK, value=800.0, constraints=[-0.5])]
    told = _trials_told(search.model_copy(update={"trial": trials}))
    assert _feasible(told[0][1]), "exactly at a target (gap 0) is met"
    assert not _feasible(told[1][1]), "1 % over a target is not met"
    assert not _feasible(told[2][1]), "a target with no figure is not shown to hold"
