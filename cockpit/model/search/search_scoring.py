"""A trial's figures from its benchmarks: the objective, the constraint values Optuna reads
(<= 0 met), power and tok/J; and the leaderboard over trials, noise-aware: a configuration
relaunched (`repeats`) is scored by its median with the spread between launches
(model/bench/estimate.py), and a new best is called better only beyond both spreads and
the noise measured that way. A constraint is a target, judged on its own statistic (a
`TTFT p99 <= X` target on each run's p99, a point's median over its runs)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from cockpit.model.bench.estimate import Estimate, estimate
from cockpit.model.bench.targets import score_target
from cockpit.model.search.search import Direction, Search, SearchTrial, TrialStatus
from cockpit.model.search.search_space import ConfigKey, config_key
from cockpit.model.session import Benchmark, Session

__all__ = ["ConfigResult", "TrialScore", "best_config", "leaderboard", "noise_share", "objective_at",
           "score_trial", "better"]

CRASH_CONSTRAINT = 1.0  # a crash: every constraint fails by a whole goal


@dataclass(frozen=True, slots=True)
class TrialScore:
    value: float | None
    constraints: list[float]
    power_mean_w: float | None = None
    output_tok_per_joule: float | None = None
    ttft_p99_ms: float | None = None


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
    for conc, value in _point_medians(benches, search.objective).items():
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
    value = objective_at(search, benches)
    constraints = [_constraint(session, ref, benches) for ref in search.constraints]
    at = [b for b in benches if search.at_concurrency is None or b.concurrency == search.at_concurrency]
    power = _point_medians(at, "power_mean_w").values()
    tpj = _point_medians(at, "output_tok_per_joule").values()
    ttft = _point_medians(benches, "ttft_p99_ms").values()  # the worst point's median p99
    return TrialScore(value, constraints, max(power, default=None), max(tpj, default=None),
                      max(ttft, default=None))


@dataclass(slots=True)
class ConfigResult:
    """One configuration over its launches (a trial and its repeats)."""

    key: ConfigKey
    trials: list[SearchTrial] = field(default_factory=list)

    @property
    def values(self) -> list[float]:
        return [t.value for t in self.trials if t.status is TrialStatus.OK and t.value is not None]

    @property
    def first(self) -> SearchTrial:
        return self.trials[0]

    @property
    def feasible(self) -> bool:
        ok = [t for t in self.trials if t.status is TrialStatus.OK]
        return bool(ok) and all(c <= 0 for t in ok for c in t.constraints) and bool(self.values)

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values) if self.values else None

    @property
    def estimate(self) -> Estimate | None:
        """The median over its launches with their spread (model/bench/estimate.py): what the
        leaderboard and the best are decided on."""
        values = self.values
        if not values:
            return None
        ids = [f"trial {t.number}" for t in self.trials if t.status is TrialStatus.OK and t.value is not None]
        return estimate(values, ids)

    @property
    def median(self) -> float | None:
        est = self.estimate
        return est.median if est is not None else None

    @property
    def spread(self) -> float | None:
        """The standard deviation between launches (None: launched once)."""
        return statistics.stdev(self.values) if len(self.values) > 1 else None


def leaderboard(search: Search) -> list[ConfigResult]:
    """Feasible configurations first, best mean first; then the rest in trial order."""
    groups: dict[ConfigKey, ConfigResult] = {}
    for trial in sorted(search.trial, key=lambda t: t.number):
        key = config_key(search, trial.params)
        groups.setdefault(key, ConfigResult(key)).trials.append(trial)
    sign = -1.0 if search.direction is Direction.MAXIMIZE else 1.0
    return sorted(groups.values(), key=lambda g: (not g.feasible, sign * (g.median or 0.0) if g.feasible else 0.0,
                                                  g.first.number))


def noise_share(search: Search) -> float:
    """The noise between relaunches of one configuration, as a share of its mean (0: none measured)."""
    shares = [g.spread / g.mean for g in leaderboard(search) if g.spread is not None and g.mean]
    return max(shares, default=0.0)


def best_config(search: Search) -> ConfigResult | None:
    """The best feasible configuration, in trial order: a later one takes the lead only when its
    median beats the leader's by more than both spreads and the noise between launches."""
    noise = noise_share(search)
    lead: ConfigResult | None = None
    for group in sorted((g for g in leaderboard(search) if g.feasible), key=lambda g: g.first.number):
        est = group.estimate
        lead_est = lead.estimate if lead is not None else None
        if lead is None or est is None or lead_est is None:
            lead = lead or group
            continue
        margin = max(abs(lead_est.median) * noise, lead_est.width, est.width)
        if search.direction is Direction.MAXIMIZE and est.median > lead_est.median + margin:
            lead = group
        elif search.direction is Direction.MINIMIZE and est.median < lead_est.median - margin:
            lead = group
    return lead
