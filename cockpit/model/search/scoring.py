"""A trial's figures from its benchmarks: the objective, the constraint values Optuna reads
(<= 0 met), power and tok/J; and the leaderboard over configurations, noise-aware: each is
scored on the median over all its launches with its uncertainty (model/bench/estimate.py), the
leader is the best once that uncertainty is counted, and whether it is told apart from the
runner-up decides if the two race on (control/search/plan.py)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from cockpit.model.bench.estimate import DEFAULT_NOISE, SEPARATION_Z, Estimate, estimate, pooled_noise, separated, shown_number
from cockpit.model.bench.targets import score_target
from cockpit.model.search.objectives import objective_values, unit
from cockpit.model.search.search import Direction, Search, SearchTrial, TrialStatus
from cockpit.model.search.shrunk import Shrunk, launch_noise, prior_noise, prior_worth, shrunk
from cockpit.model.search.space import ConfigKey, config_key
from cockpit.model.session import Benchmark, Session

__all__ = ["Certainty", "ConfigResult", "TrialScore", "best_config", "better", "certainty", "contenders",
           "leaderboard", "noise_of", "noise_share", "objective_at", "score_trial"]

CRASH_CONSTRAINT = 1.0  # a crash: every constraint fails by a whole goal
RANK = "shrunk"  # the leader's ranking: "shrunk" (shrunk.py) or "median" (each configuration's own launches)
FEASIBLE_P = 0.5  # the shrunk chance every constraint holds from which a configuration counts as feasible
SHRUNK_Z = SEPARATION_Z  # sds of the shrunk estimates' difference that tell two configurations apart
# of the configurations not told apart from the top, the one launched most leads (the best moves only by more than the noise)
LEAD_MOST_LAUNCHED = True


@dataclass(frozen=True, slots=True)
class TrialScore:
    value: float | None
    constraints: list[float]
    power_mean_w: float | None = None
    output_tok_per_joule: float | None = None
    ttft_p99_ms: float | None = None
    values: list[float] = field(default_factory=list)
    """Several objectives: one figure each, at one sweep point (objectives.py)."""


def _figure(bench: Benchmark, name: str) -> float | None:
    value = getattr(bench, name, None)
    if value is None and name == "output_tok_s_per_stream" and bench.output_tok_s is not None and bench.concurrency:
        return bench.output_tok_s / bench.concurrency
    return float(value) if value is not None else None


def better(search: Search, value: float, than: float | None) -> bool:
    if than is None:
        return True
    return value > than if search.direction is Direction.MAXIMIZE else value < than


def _point_medians(benches: list[Benchmark], name: str) -> dict[int | None, float]:
    """Per concurrency the median of the runs there (a sweep's repeats are one point, never
    their best run)."""
    runs: dict[int | None, list[float]] = {}
    for bench in benches:
        value = _figure(bench, name)
        if value is not None:
            runs.setdefault(bench.concurrency, []).append(value)
    return {conc: statistics.median(values) for conc, values in runs.items()}


def objective_at(search: Search, benches: list[Benchmark]) -> float | None:
    """The figure at `at_concurrency`, else the sweep's best point (each point the median of its runs)."""
    best: float | None = None
    for conc, value in _point_medians(benches, search.primary).items():
        if search.at_concurrency is not None and conc != search.at_concurrency:
            continue
        if better(search, value, best):
            best = value
    return best


def _constraint(session: Session, target_id: str, benches: list[Benchmark]) -> float:
    """How far the trial's runs are from the target, as a share of it (<= 0: met)."""
    target = next(t for t in session.goal.targets if t.id == target_id)
    score = score_target(target, benches)
    if score.best_value is None:
        return CRASH_CONSTRAINT  # no run in the target's range: not shown to hold
    scale = abs(target.value) or 1.0
    gap = (target.value - score.best_value) if target.comparator.higher_is_better else (score.best_value - target.value)
    if gap == 0 and target.comparator.value in (">", "<"):
        gap = 1e-9
    return gap / scale


def score_trial(session: Session, search: Search, bench_ids: list[str]) -> TrialScore:
    benches = [b for b in session.benchmarks if b.id in set(bench_ids)]
    values = objective_values(search, benches)
    value = (values[0] if values else None) if search.multi else objective_at(search, benches)
    constraints = [_constraint(session, ref, benches) for ref in search.constraints]
    at = [b for b in benches if search.at_concurrency is None or b.concurrency == search.at_concurrency]
    power = _point_medians(at, "power_mean_w").values()
    tpj = _point_medians(at, "output_tok_per_joule").values()
    ttft = _point_medians(benches, "ttft_p99_ms").values()  # the worst point's median p99
    return TrialScore(value, constraints, max(power, default=None), max(tpj, default=None),
                      max(ttft, default=None), values)


@dataclass(slots=True)
class ConfigResult:
    """One configuration over its launches (a trial and its repeats)."""

    key: ConfigKey
    trials: list[SearchTrial] = field(default_factory=list)
    shrunk: Shrunk | None = None
    """The posterior over every launch (shrunk.py), set by the leaderboard; None: not fitted."""

    @property
    def values(self) -> list[float]:
        return [t.value for t in self.trials if t.status is TrialStatus.OK and t.value is not None]

    @property
    def first(self) -> SearchTrial:
        return self.trials[0]

    @property
    def estimate(self) -> Estimate | None:
        """The median over its launches, with min–max and n (None: no launch got a figure)."""
        values = self.values
        return estimate(values) if values else None

    @property
    def feasible(self) -> bool:
        """Got ready every launch, and each constraint holds on the median over its launches."""
        ok = [t for t in self.trials if t.status is TrialStatus.OK]
        if not ok or not self.values or any(t.status is TrialStatus.CRASHED for t in self.trials):
            return False
        if self.shrunk is not None:
            return self.shrunk.p_feasible >= FEASIBLE_P
        width = max((len(t.constraints) for t in ok), default=0)
        return all(statistics.median([t.constraints[i] if i < len(t.constraints) else CRASH_CONSTRAINT
                                      for t in ok]) <= 0 for i in range(width))

    @property
    def mean(self) -> float | None:
        """The figure the search ranks on: the shrunk estimate where fitted, else the median
        over its launches."""
        if self.shrunk is not None:
            return self.shrunk.value
        estimate = self.estimate
        return estimate.median if estimate is not None else None

    @property
    def median(self) -> float | None:
        est = self.estimate
        return est.median if est is not None else None

    @property
    def spread(self) -> float | None:
        """Half the min–max range between launches (None: launched once)."""
        estimate = self.estimate
        return estimate.spread if estimate is not None else None


def _plain_groups(search: Search) -> list[ConfigResult]:
    groups: dict[ConfigKey, ConfigResult] = {}
    for trial in sorted(search.trial, key=lambda t: t.number):
        key = config_key(search, trial.params)
        groups.setdefault(key, ConfigResult(key)).trials.append(trial)
    return list(groups.values())


_CACHE: dict[object, dict[ConfigKey, Shrunk] | None] = {}


def _fit(search: Search, groups: list[ConfigResult]) -> dict[ConfigKey, Shrunk] | None:
    """The shrunk estimates (cached: a launch asks for the leaderboard several times)."""
    ok = [g for g in groups if g.values and not any(t.status is TrialStatus.CRASHED for t in g.trials)]
    data = tuple((g.key, tuple(g.values), tuple(tuple(t.constraints) for t in g.trials if t.status is TrialStatus.OK))
                 for g in ok)
    cache_key = (repr(search.space), data)
    if cache_key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[cache_key] = shrunk(search, [(k, v, [list(c) for c in cs]) for k, v, cs in data])
    return _CACHE[cache_key]


def _groups(search: Search) -> list[ConfigResult]:
    groups = _plain_groups(search)
    if RANK == "shrunk" and not search.multi:
        posts = _fit(search, groups)
        if posts is not None:
            for g in groups:
                g.shrunk = posts.get(g.key)
    return groups


def _apart(a: ConfigResult, b: ConfigResult, noise: float) -> bool:
    """Whether two configurations are told apart: their shrunk estimates by SEPARATION_Z sds
    of the difference where fitted, else their medians by the noise."""
    if a.shrunk is not None and b.shrunk is not None:
        return abs(math.log(a.shrunk.value / b.shrunk.value)) > SHRUNK_Z * math.hypot(a.shrunk.sd_log,
                                                                                         b.shrunk.sd_log)
    ea, eb = a.estimate, b.estimate
    assert ea is not None and eb is not None
    return separated(ea, eb, noise)


def noise_of(search: Search) -> tuple[float, bool]:
    """The relative noise between launches of one configuration, and whether relaunches
    measured it (False: DEFAULT_NOISE, assumed)."""
    measured = pooled_noise([g.values for g in _plain_groups(search)])
    return (measured, True) if measured is not None else (DEFAULT_NOISE, False)


def noise_share(search: Search) -> float:
    """The noise between relaunches of one configuration, as a share of its figure (0: none measured)."""
    noise, measured = noise_of(search)
    return noise if measured else 0.0


def _ranked(search: Search, groups: list[ConfigResult]) -> list[ConfigResult]:
    sign = -1.0 if search.direction is Direction.MAXIMIZE else 1.0
    return sorted(groups, key=lambda g: (sign * (g.mean or 0.0), g.first.number))


def leaderboard(search: Search) -> list[ConfigResult]:
    """Feasible configurations first, the leader first, then the others by `mean` (the shrunk
    estimate from every launch where fitted, else the median over their own launches); then the
    rest in trial order. The leader: of the configuration ranked first and those not told apart
    from it by the noise, the one launched most (the first ranked on a tie): a lucky single
    launch within the noise does not take the lead from a configuration measured several times;
    one beyond the noise does."""
    noise, _ = noise_of(search)
    groups = _groups(search)
    feasible = _ranked(search, [g for g in groups if g.feasible])
    if feasible and (feasible[0].shrunk is None or LEAD_MOST_LAUNCHED):
        top = feasible[0]
        close = [g for g in feasible if g.estimate is not None and not _apart(top, g, noise)]
        lead = max(close, key=lambda g: len(g.values))  # max keeps the first (best median) on a tie
        feasible = [lead, *(g for g in feasible if g is not lead)]
    return feasible + [g for g in groups if not g.feasible]


def best_config(search: Search) -> ConfigResult | None:
    """The leader: the feasible configuration whose median over its launches is best once
    its uncertainty is counted (a single launch is worth less than several)."""
    board = leaderboard(search)
    return board[0] if board and board[0].feasible else None


@dataclass(frozen=True, slots=True)
class Certainty:
    """How sure the search is of its leader."""

    best: ConfigResult
    runner_up: ConfigResult | None
    noise: float
    measured: bool
    """Whether relaunches measured the noise (False: DEFAULT_NOISE assumed)."""
    unit: str = ""
    """The objective's unit (`tok/s`), said after each median."""
    model_noise: float | None = None
    """The launch noise the shrunk estimates weigh with, which `told apart` rests on (None: not
    fitted, the medians are told apart by `noise`)."""
    relaunches: int = 0
    """Relaunches behind the measured noise (degrees of freedom)."""

    @property
    def separated(self) -> bool:
        """The leader beats the runner-up by more than the noise (True with no runner-up)."""
        if self.runner_up is None:
            return True
        return _apart(self.best, self.runner_up, self.noise)

    def shown(self, objective: str) -> str:
        """`output_tok_s median 4,310 tok/s (4,211–4,427, n=3); runner-up trial 7 median 4,120 tok/s
        (n=1): ahead by more than the noise; noise ...` (noise_text)."""
        lead = self.best.estimate
        assert lead is not None
        pooled = _pooled(self.best, self.unit, " from every launch")
        return f"{objective} median {lead.shown(self.unit)}{pooled}; {self.against()}"

    def against(self) -> str:
        """`runner-up trial 7 median 4,120 tok/s (n=1): ahead by more than the noise; noise 3.1 % measured
        between relaunches`: the leader against the runner-up (the Search view's second line)."""
        noise = self.noise_text()
        if self.runner_up is None:
            return f"no runner-up; {noise}"
        other = self.runner_up.estimate
        assert other is not None
        verdict = "ahead by more than the noise" if self.separated else "within the noise of it (not told apart)"
        pooled = _pooled(self.runner_up, self.unit)
        runner = f"runner-up trial {self.runner_up.first.number} median {other.shown(self.unit)}{pooled}"
        return f"{runner}: {verdict}; {noise}"

    def noise_text(self) -> str:
        """`noise 6.3% (0.6% measured over 1 relaunch, weighed with a 7% prior worth 4)`: the
        noise that told the two apart or not, and where it comes from."""
        if self.model_noise is None:
            return f"noise {self.noise:.1%} {'measured between relaunches' if self.measured else 'assumed'}"
        prior = f"a {prior_noise():.0%} prior worth {prior_worth():g} relaunches"
        if not self.measured or not self.relaunches:
            return f"noise {self.model_noise:.1%} ({prior}, none measured yet)"
        plural = "es" if self.relaunches != 1 else ""
        return (f"noise {self.model_noise:.1%} ({self.noise:.1%} measured over {self.relaunches} relaunch{plural}, "
                f"weighed with {prior})")


def _pooled(group: ConfigResult, unit: str, said: str = "") -> str:
    """`, estimate 4,250 tok/s from every launch`: the shrunk figure the leader is ranked on (none: not fitted)."""
    if group.shrunk is None:
        return ""
    return f", estimate {shown_number(group.shrunk.value)}{f' {unit}' if unit else ''}{said}"


def certainty(search: Search) -> Certainty | None:
    """The leader, the runner-up and whether they are told apart (None: no feasible configuration)."""
    board = [g for g in leaderboard(search) if g.feasible]
    if not board:
        return None
    noise, measured = noise_of(search)
    model_noise, relaunches = None, 0
    if board[0].shrunk is not None:  # told apart on the shrunk estimates: their noise is the one to say
        logs = [[math.log(v) for v in g.values if v > 0] for g in _plain_groups(search)]
        model_noise = launch_noise(logs)
        relaunches = sum(max(0, len(g) - 1) for g in logs)
    return Certainty(board[0], board[1] if len(board) > 1 else None, noise, measured, unit(search.primary),
                     model_noise, relaunches)


def contenders(search: Search, most: int = 3) -> list[ConfigResult]:
    """The leader and the configurations not told apart from it (at most `most`), best first."""
    board = [g for g in leaderboard(search) if g.feasible]
    if not board:
        return []
    noise, _ = noise_of(search)
    out = [board[0]]
    for group in board[1:]:
        if not _apart(board[0], group, noise):
            out.append(group)
        if len(out) >= most:
            break
    return out
