"""The optimizer's choice of the next configuration, from the session's trials alone.

Over a space of at most MAX_GRID configurations the choice is model_sampler.py's (a
Bayesian linear model of flag values and pairs, Thompson draws; chosen over Optuna's TPE by
measurement: benchmarks/bench_search.py). Over a larger one it is an Optuna study rebuilt
from the trials: every finished trial a `create_trial` added to a fresh in-memory study, a
running one (on another host) a RUNNING trial so TPE's constant liar keeps away from it,
crashed ones COMPLETE but infeasible, pruned ones PRUNED with the figure they reached.
Either way the first choices are a space-filling (Latin hypercube) design, and no
configuration holding a combination a crash is pinned on (one value, or a pair, never seen
in a launch that got ready) is proposed again.
"""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cockpit.model.search.scoring import CRASH_CONSTRAINT
from cockpit.model.search.search import Direction, Search, SearchTrial, SpaceValue, Stepped, TrialStatus
from cockpit.model.search.space import ConfigKey, config_key, grid, normalise

if TYPE_CHECKING:  # optuna is imported when a study is built (~0.5 s a command that never searches need not pay)
    from optuna import Study
    from optuna.distributions import BaseDistribution
    from optuna.trial import FrozenTrial

__all__ = ["blamed", "Combo", "CONSTRAINTS_KEY", "constraints_of", "crash_hypotheses", "crash_suspects",
           "distributions", "holds_pinned", "known_params", "propose", "run_seed", "SAMPLERS", "startup_trials", "tell_launched",
           "trial_constraints", "tried_keys"]

CONSTRAINTS_KEY = "constraints"  # optuna's system_attrs key for a trial's constraint values
_ASKS = 24  # asks before giving up on TPE finding an untried configuration


def startup_trials(search: Search) -> int:
    """Space-filling trials before the model steers: about a third of the budget, 3 to 6."""
    return max(3, min(6, search.trials // 3))


def tried_keys(search: Search) -> set[ConfigKey]:
    return {config_key(search, t.params) for t in search.trial}


Combo = tuple[tuple[str, str], ...]
"""One or two (flag, value) pairs, sorted: what a crash is pinned on."""


def _combos(key: ConfigKey, size: int) -> list[Combo]:
    return list(itertools.combinations(key, size))


def crash_suspects(search: Search) -> list[set[Combo]]:
    """Per crashed configuration, the smallest combinations of its values (single values,
    else pairs) that never ran in a launch that got ready: the suspects for its crash."""
    seen: set[Combo] = set()
    for trial in search.trial:
        if trial.status in (TrialStatus.OK, TrialStatus.PRUNED):
            key = config_key(search, trial.params)
            seen |= set(_combos(key, 1)) | set(_combos(key, 2))
    out: list[set[Combo]] = []
    crashed = {config_key(search, t.params) for t in search.trial if t.status is TrialStatus.CRASHED}
    for key in sorted(crashed):
        for size in (1, 2):
            suspects = set(_combos(key, size)) - seen
            if suspects:
                out.append(suspects)
                break
    return out


SINGLE_WEIGHT = 2.0
"""How much likelier one value alone is to be a crash's culprit than one pair of its values
(bench_search.py measured 1, 2 and singles only)."""


def crash_hypotheses(search: Search) -> list[dict[Combo, float]]:
    """Per crash not yet explained, the combinations that may have caused it with their prior
    weights: each single value and each pair of its values never seen in a launch that got
    ready (a single SINGLE_WEIGHT, a pair 1). A crash holding a pinned combination is
    explained by it (that region is never proposed again), so it casts no doubt on its other
    values: a backend that crashed beside a pinned graph size is not avoided for it."""
    seen: set[Combo] = set()
    for trial in search.trial:
        if trial.status in (TrialStatus.OK, TrialStatus.PRUNED):
            key = config_key(search, trial.params)
            seen |= set(_combos(key, 1)) | set(_combos(key, 2))
    pinned = blamed(search)
    out: list[dict[Combo, float]] = []
    for key in sorted({config_key(search, t.params) for t in search.trial if t.status is TrialStatus.CRASHED}):
        if holds_pinned(key, pinned):
            continue
        weights = {c: SINGLE_WEIGHT for c in _combos(key, 1) if c not in seen}
        weights.update({c: 1.0 for c in _combos(key, 2) if c not in seen})
        if weights:
            out.append(weights)
    return out


def blamed(search: Search) -> set[Combo]:
    """The combinations a crash is pinned on: a crashed configuration's only single value, else
    its only pair of values, that never ran in a launch that got ready. A configuration holding
    one is in the crashing region and never launched (TPE alone counts a crash as merely "not
    the best" and goes back at small budgets)."""
    return {next(iter(s)) for s in crash_suspects(search) if len(s) == 1}


def holds_pinned(key: ConfigKey, pinned: set[Combo]) -> bool:
    values = set(key)
    return any(set(combo) <= values for combo in pinned)


def _fresh(search: Search, params: dict[str, SpaceValue], tried: set[ConfigKey], avoid: set[Combo]) -> bool:
    key = config_key(search, params)
    return key not in tried and not holds_pinned(key, avoid)


def distributions(search: Search) -> dict[str, BaseDistribution]:
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    out: dict[str, BaseDistribution] = {}
    for key, dim in search.space.items():
        if isinstance(dim, Stepped):
            if dim.integral:
                out[key] = IntDistribution(int(dim.low), int(dim.high), step=int(dim.step))
            else:
                out[key] = FloatDistribution(dim.low, dim.high, step=dim.step)
        else:
            out[key] = CategoricalDistribution(list(dim))
    return out


def trial_constraints(search: Search, trial: SearchTrial) -> list[float]:
    # [launched] + one per target: a crash fails them all
    if trial.status is TrialStatus.CRASHED:
        return [CRASH_CONSTRAINT] * (1 + len(search.constraints))
    values = list(trial.constraints) + [CRASH_CONSTRAINT] * (len(search.constraints) - len(trial.constraints))
    return [-1.0, *values[:len(search.constraints)]]


def known_params(search: Search, trial: SearchTrial, dists: dict[str, BaseDistribution]
                 ) -> dict[str, SpaceValue] | None:
    """The trial's values in the space as it is now (None: the space changed since, so the
    trial says nothing about every dimension, or a value is outside it)."""
    params = normalise(search, trial.params)
    if set(params) != set(dists):
        return None
    try:
        for key, value in params.items():
            dists[key]._contains(dists[key].to_internal_repr(value))  # noqa: SLF001 -- refuse a value outside
    except (ValueError, TypeError):
        return None
    return params


def _frozen(search: Search, trial: SearchTrial, dists: dict[str, BaseDistribution], worst: float) -> FrozenTrial | None:
    import optuna
    from optuna.trial import TrialState

    params = known_params(search, trial, dists)
    if params is None:
        return None
    attrs = {CONSTRAINTS_KEY: trial_constraints(search, trial)}
    if trial.status is TrialStatus.RUNNING:
        return optuna.trial.create_trial(state=TrialState.RUNNING, params=params, distributions=dists)
    if trial.status is TrialStatus.PRUNED:
        reached = trial.value if trial.value is not None else worst
        return optuna.trial.create_trial(state=TrialState.PRUNED, params=params, distributions=dists,
                                         intermediate_values={0: reached}, system_attrs=attrs)
    if trial.status is TrialStatus.CRASHED:
        return optuna.trial.create_trial(value=worst, params=params, distributions=dists, system_attrs=attrs)
    if trial.status is TrialStatus.OK and trial.value is not None:
        return optuna.trial.create_trial(value=trial.value, params=params, distributions=dists, system_attrs=attrs)
    return optuna.trial.create_trial(state=TrialState.FAIL, params=params, distributions=dists)


def _worst(search: Search) -> float:
    values = [t.value for t in search.trial if t.value is not None]
    if not values:
        return 0.0
    return min(values) if search.direction is Direction.MAXIMIZE else max(values)


def constraints_of(trial: FrozenTrial) -> Sequence[float]:
    return tuple(trial.system_attrs.get(CONSTRAINTS_KEY, (CRASH_CONSTRAINT,)))


TPE_SETTINGS: dict[str, Any] = {"multivariate": True, "constant_liar": True}
"""TPE's settings over a space too large for the model (bench_search.py `--variants tpe...`)."""


def _study(search: Search, seed: int, kind: str = "tpe") -> Study:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # Optuna 5 reads a trial's constraints from it (set_constraint / system_attrs) and deprecates
    # constraints_func; 4.x needs the function to know the search is constrained
    major = int(optuna.__version__.split(".")[0])
    extra: dict[str, Any] = {"constraints_func": constraints_of} if major < 5 else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # multivariate is "experimental" to Optuna
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler: optuna.samplers.BaseSampler
        if kind == "gp":  # Optuna's Gaussian process (needs torch and scipy; bench_search.py `--variants gp`)
            sampler = optuna.samplers.GPSampler(seed=seed, n_startup_trials=startup_trials(search), **extra)
        else:
            sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup_trials(search),
                                                 **{**TPE_SETTINGS, **extra})
    study = optuna.create_study(direction=search.direction.value, sampler=sampler)
    dists = distributions(search)
    worst = _worst(search)
    tell_launched(study, search, lambda trial: _frozen(search, trial, dists, worst))
    return study


def tell_launched(study: Study, search: Search, freeze: Callable[[SearchTrial], FrozenTrial | None]) -> None:
    """Each configuration the search launched, told to `study` once (its relaunches are already in)."""
    for trial in sorted(search.trial, key=lambda t: t.number):
        if trial.repeat_of is not None:
            continue
        frozen = freeze(trial)
        if frozen is not None:
            study.add_trial(frozen)


def _latin_point(search: Search, index: int, count: int, seed: int) -> dict[str, SpaceValue]:
    """Point `index` of a `count`-point Latin hypercube over the space's value lists."""
    rng = random.Random(seed)
    point: dict[str, SpaceValue] = {}
    for key in search.space:
        values = search.values_of(key)
        order = list(range(count))
        rng.shuffle(order)
        cell = order[index % count]
        point[key] = values[min(len(values) - 1, int((cell + rng.random()) * len(values) / count))]
    return point


def run_seed(search: Search) -> int:
    """The sampler's seed for one run: the person's `seed`, else a fresh one (runs differ)."""
    return search.seed if search.seed is not None else random.SystemRandom().randrange(2 ** 31)


SAMPLERS = ("model", "tpe", "gp", "random")
MODEL_STARTUP: int | None = 2
LOCAL_FROM: int | None = None
"""From this many first launches on, the model draws only among the configurations within
LOCAL_RADIUS flags of the board's top LOCAL_TOP (a trust region; None: the whole grid). Measured
with bench_search.py `--variants local-*` and not kept."""
LOCAL_TOP = 3
LOCAL_RADIUS = 1


def _near_top(search: Search, left: list[dict[str, SpaceValue]], firsts: int) -> list[dict[str, SpaceValue]]:
    """`left` cut to the neighbours of the board's top (all of `left` when off, early, or none is near)."""
    if LOCAL_FROM is None or firsts < LOCAL_FROM:
        return left
    from cockpit.model.search.scoring import leaderboard

    tops = [dict(config_key(search, g.first.params)) for g in leaderboard(search) if g.feasible][:LOCAL_TOP]
    if not tops:
        return left
    near = [p for p in left
            if any(sum(top.get(k) != v for k, v in config_key(search, p)) <= LOCAL_RADIUS for top in tops)]
    return near or left
"""Space-filling launches before the model steers (None: as TPE, startup_trials); bench_search.py measured."""


def propose(search: Search, *, seed: int | None = None, sampler: str | None = None,
            startup: int | None = None) -> dict[str, SpaceValue] | None:
    """The next configuration to launch, never one already tried or running, nor one holding
    a combination a crash is pinned on (None: no such configuration is left).

    `seed`: the run's seed (one per run; each choice derives its own from it); `sampler`:
    "model" (the default over a space of at most MAX_GRID configurations), "tpe" (Optuna's,
    the default over a larger one) or "random"; `startup`: space-filling choices first."""
    from cockpit.control.search.model_sampler import MAX_GRID, model_choice

    tried = tried_keys(search)
    avoid = blamed(search)
    base_seed = run_seed(search) if seed is None else seed
    firsts = [t for t in search.trial if t.repeat_of is None]
    kind = sampler or ("model" if search.grid_size() <= MAX_GRID else "tpe")
    if startup is not None:
        start = startup
    else:  # the model learns from two launches on; TPE needs a few more to split good from bad
        start = MODEL_STARTUP if kind == "model" and MODEL_STARTUP is not None else startup_trials(search)
    if len(firsts) < start and kind != "random":
        for shift in range(8):
            point = _latin_point(search, len(firsts), start, base_seed + shift * 7919)
            if _fresh(search, point, tried, avoid):
                return normalise(search, point)
    step_seed = base_seed + len(search.trial)
    rng = random.Random(step_seed)
    if kind in ("model", "random") and search.grid_size() <= MAX_GRID:
        left = [p for p in grid(search) if _fresh(search, p, tried, avoid)]
        if kind == "random":
            return normalise(search, rng.choice(left)) if left else None
        chosen = model_choice(search, _near_top(search, left, len(firsts)), step_seed, crash_hypotheses(search))
        return normalise(search, chosen) if chosen is not None else None
    study = _study(search, step_seed, kind)
    dists = distributions(search)
    for _ in range(_ASKS):
        asked = study.ask(dists)
        params = normalise(search, asked.params)
        if _fresh(search, params, tried, avoid):
            return params
        # a configuration already run (or in a crashing region): left RUNNING in this throw-away study, so the liar moves on
    if search.grid_size() <= 100_000:
        left = [p for p in grid(search) if _fresh(search, p, tried, avoid)]
        return normalise(search, rng.choice(left)) if left else None
    for _ in range(1000):
        point = {k: rng.choice(search.values_of(k)) for k in search.space}
        if _fresh(search, point, tried, avoid):
            return normalise(search, point)
    return None
