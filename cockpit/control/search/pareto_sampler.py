"""What a search with several objectives launches next: Optuna's multi-objective TPE
(MOTPE: `TPESampler` with one direction per objective), rebuilt from the session's trials
as study.py rebuilds the single-objective study, and relaunches of the front's points.

A small launch budget is why TPE and not NSGA-II: NSGA-II breeds a population (50 by
default) per generation, more launches than a search has; TPE steers after a few. The
budget's last share (plan.PARETO_RACE_SHARE, at least one launch) goes to relaunches: a front point
launched once has no spread and its place on the front may be noise, so the front's points
with one launch (those within the noise of another first) are launched again, until each
has two or the budget ends. Crash pins (study.blamed) and tried configurations are never
proposed. Pure: the loop and the offline simulation both call it.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

from cockpit.control.search.next_launch import NextLaunch
from cockpit.control.search.study import (
    CONSTRAINTS_KEY,
    blamed,
    constraints_of,
    distributions,
    holds_pinned,
    known_params,
    run_seed,
    startup_trials,
    tell_launched,
    trial_constraints,
    tried_keys,
)
from cockpit.model.search.pareto import pareto_front
from cockpit.model.search.search import Direction, Search, SearchTrial, SpaceValue, TrialStatus
from cockpit.model.search.space import config_key, grid, normalise

__all__ = ["pareto_launch", "propose_multi"]

_ASKS = 24  # asks before TPE is given up for a random untried configuration
NOTHING_SEEN = 1e12  # a crash's figure to minimise before any launch got one: worse than any
MAX_LISTED = 100_000  # a space larger than this is sampled, not listed, once TPE gives up


def _worst(search: Search) -> list[float]:
    """Per objective the worst figure seen: what a crash counts as (it is infeasible too)."""
    rows = [t.values for t in search.trial if len(t.values) == len(search.objectives)]
    out = []
    for i, direction in enumerate(search.directions):
        seen = [row[i] for row in rows]
        if direction is Direction.MAXIMIZE:
            out.append(min(seen, default=0.0))
        else:
            out.append(max(seen, default=NOTHING_SEEN))
    return out


def _frozen(search: Search, trial: SearchTrial, dists: dict[str, Any], worst: list[float]) -> Any | None:
    import optuna
    from optuna.trial import TrialState

    params = known_params(search, trial, dists)
    if params is None:
        return None
    attrs = {CONSTRAINTS_KEY: trial_constraints(search, trial)}
    if trial.status is TrialStatus.RUNNING:  # on another host: the constant liar keeps away from it
        return optuna.trial.create_trial(state=TrialState.RUNNING, params=params, distributions=dists)
    if trial.status is TrialStatus.CRASHED:
        return optuna.trial.create_trial(values=worst, params=params, distributions=dists, system_attrs=attrs)
    if trial.status is TrialStatus.OK and len(trial.values) == len(search.objectives):
        return optuna.trial.create_trial(values=list(trial.values), params=params, distributions=dists,
                                         system_attrs=attrs)
    return optuna.trial.create_trial(state=TrialState.FAIL, params=params, distributions=dists)


def _study(search: Search, seed: int, sampler: str) -> Any:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    major = int(optuna.__version__.split(".")[0])
    extra: dict[str, Any] = {"constraints_func": constraints_of} if major < 5 else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if sampler == "nsga2":
            chosen: Any = optuna.samplers.NSGAIISampler(seed=seed, population_size=max(4, startup_trials(search)),
                                                        **extra)
        else:
            chosen = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup_trials(search), multivariate=True,
                                                constant_liar=True, **extra)
    study = optuna.create_study(directions=[d.value for d in search.directions], sampler=chosen)
    dists = distributions(search)
    worst = _worst(search)
    tell_launched(study, search, lambda trial: _frozen(search, trial, dists, worst))
    return study, dists


def propose_multi(search: Search, *, seed: int | None = None, sampler: str = "tpe") -> dict[str, SpaceValue] | None:
    """The next new configuration (None: none untried is left outside the crash pins).
    `sampler`: "tpe" (MOTPE, the default), "nsga2" or "random" (the offline comparison's)."""
    tried = tried_keys(search)
    avoid = blamed(search)
    base = run_seed(search) if seed is None else seed
    step_seed = base + len(search.trial)
    rng = random.Random(step_seed)

    def fresh(params: dict[str, SpaceValue]) -> bool:
        key = config_key(search, params)
        return key not in tried and not holds_pinned(key, avoid)

    if sampler != "random":
        study, dists = _study(search, step_seed, sampler)
        for _ in range(_ASKS):
            asked = study.ask(dists)
            params = normalise(search, asked.params)
            if fresh(params):
                return params
            # tried already (or pinned): left RUNNING in this throw-away study, so the liar moves on
    if search.grid_size() <= MAX_LISTED:
        left = [p for p in grid(search) if fresh(p)]
        return normalise(search, rng.choice(left)) if left else None
    for _ in range(1000):
        point = {k: rng.choice(search.values_of(k)) for k in search.space}
        if fresh(point):
            return normalise(search, point)
    return None


def _relaunch(search: Search) -> NextLaunch | None:
    """A front point launched once, those within the noise of another first (None: every front
    point has two launches)."""
    front = pareto_front(search)
    once = [p for p in front.points if p.launches < 2]
    if not once:
        return None
    pick = min(once, key=lambda p: (not p.close_to, front.points.index(p)))
    why = (f"relaunch of trial {pick.number}: a front point within the noise of trial {pick.close_to[0]}"
           if pick.close_to else f"relaunch of trial {pick.number}: a front point has at least two launches")
    return NextLaunch(dict(pick.config.first.params), pick.number, why)


def pareto_launch(search: Search, budget: int, *, seed: int, race_share: float, sampler: str = "tpe") -> NextLaunch | None:
    """The next launch within `budget` launches in all (None: spent, or nothing left to learn)."""
    left = budget - sum(1 for t in search.trial if not t.reused)
    if left <= 0:
        return None
    reserve = max(1, round(budget * race_share))
    if left <= reserve and (again := _relaunch(search)) is not None:
        return again
    params = propose_multi(search, seed=seed, sampler=sampler)
    if params is not None:
        return NextLaunch(params, None, "")
    return _relaunch(search)  # the space is exhausted: relaunches still firm up the front
