"""One figure of a (profile, workload, concurrency) over all its runs: the median with its
spread, never the best run.

The same flags measured twice differ by several percent (4,211 and 4,427 tok/s), so a
view that takes each profile's best run favours the profile run most often. Every view
and decision reads this estimate instead: the median, the runs' min–max and n, and from
three runs on a bootstrap interval of the median (95 %, a fixed seed: the same runs give
the same interval on every screen and in every file).

"A is better than B" only when the medians differ by more than both spreads (each the
bootstrap interval, or the min–max below three runs); otherwise the two are within noise.

Where most figures have one run (a search's configurations, each launched once or twice),
the spread cannot be read off each figure: the noise between runs of one configuration is
pooled over those run more than once (`pooled_noise`), and two figures are told apart when
their medians differ by more than that noise allows (`separated`). Plain Python, no Textual.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cockpit.model.experiment_records import Benchmark

__all__ = ["BOOTSTRAP_FROM", "DEFAULT_NOISE", "Estimate", "GroupKey", "Verdict", "estimate", "estimates",
           "group_runs", "per_profile_concurrency", "pooled_noise", "separated", "shown_number", "standard_error",
           "verdict", "workload_of"]

BOOTSTRAP_FROM = 3
"""Runs from which the spread is a bootstrap interval (below: min–max)."""
_RESAMPLES = 2000
_SEED = 35  # fixed: an interval is a property of the runs, not of when it was drawn
_LEVEL = 0.95
DEFAULT_NOISE = 0.05
"""The run-to-run noise (a share of the figure) assumed until reruns measure it: the 4–10 %
the same flags give between launches on one GPU (issue 35's 4,211 vs 4,427)."""
SEPARATION_Z = 1.5  # standard errors of the difference that tell two figures apart

GroupKey = tuple[str, str, int]
"""(profile id or "", workload, concurrency)."""

ValueOf = Callable[[Benchmark], float | None]


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _num(value: float) -> str:
    """Four significant figures under 1,000 (a search's small objectives: 0.4213 tok/J)."""
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def shown_number(value: float) -> str:
    """A figure as an estimate's `shown` writes it (4,310; 0.4213)."""
    return _num(value)


@dataclass(frozen=True, slots=True)
class Estimate:
    median: float
    minimum: float
    maximum: float
    n: int
    ci: tuple[float, float] | None = None
    """The bootstrap interval of the median (n >= 3), else None."""
    runs: tuple[str, ...] = ()
    """The benchmarks it stands on, in recorded order."""
    median_run: str | None = None
    """The run whose value is nearest the median (the one a table marks)."""

    @property
    def low(self) -> float:
        """The spread's lower end: the bootstrap interval's, else the smallest run."""
        return self.ci[0] if self.ci is not None else self.minimum

    @property
    def high(self) -> float:
        return self.ci[1] if self.ci is not None else self.maximum

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def spread(self) -> float | None:
        """Half the runs' min–max range (None: one run, no spread measured)."""
        return (self.maximum - self.minimum) / 2 if self.n > 1 else None

    def shown(self, unit: str = "") -> str:
        """`4,310 tok/s (4,211–4,427, n=3)`: the median with its unit, the runs' min–max and n
        (a search's trial lines and handoff)."""
        value = _num(self.median) + (f" {unit}" if unit else "")
        if self.n == 1:
            return f"{value} (n=1)"
        return f"{value} ({_num(self.minimum)}–{_num(self.maximum)}, n={self.n})"

    def spread_text(self) -> str:
        """`n=3, 4,211–4,427, 95% CI 4,230–4,410`; one run: `n=1, no spread`."""
        if self.n == 1:
            return "n=1, no spread"
        text = f"n={self.n}, {_fmt(self.minimum)}–{_fmt(self.maximum)}"
        if self.ci is not None:
            text += f", 95% CI {_fmt(self.ci[0])}–{_fmt(self.ci[1])}"
        return text

    def text(self, unit: str | None = None) -> str:
        """`4,320 tok/s median (n=3, 4,211–4,427, 95% CI ...)`."""
        value = _fmt(self.median) + (f" {unit}" if unit else "")
        if self.n == 1:
            return f"{value} (one run, no spread)"
        return f"{value} median ({self.spread_text()})"


@functools.lru_cache(maxsize=4096)
def _median_interval(values: tuple[float, ...]) -> tuple[float, float]:
    # cached: a search's leaderboard asks for the same configurations' estimates every launch
    rng = random.Random(_SEED)
    n = len(values)
    medians = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(_RESAMPLES))
    tail = (1 - _LEVEL) / 2
    return medians[int(tail * _RESAMPLES)], medians[min(_RESAMPLES - 1, int((1 - tail) * _RESAMPLES))]


def estimate(values: Sequence[float], runs: Sequence[str] = ()) -> Estimate:
    """The estimate of `values` (one per run, in recorded order; `runs` their ids). ValueError when empty."""
    if not values:
        raise ValueError("no runs to estimate from")
    ordered = sorted(values)  # the interval does not depend on the order runs were recorded in
    median = statistics.median(ordered)
    ci = _median_interval(tuple(ordered)) if len(ordered) >= BOOTSTRAP_FROM else None
    median_run = None
    if runs:
        median_run = min(zip(values, runs), key=lambda vr: (abs(vr[0] - median), vr[0]))[1]
    return Estimate(median, ordered[0], ordered[-1], len(ordered), ci, tuple(runs), median_run)


def workload_of(bench: Benchmark) -> str:
    """The workload a run measured: its sweep, else its dataset and lengths (an imported run)."""
    if bench.sweep:
        return f"sweep {bench.sweep}"
    return f"{bench.dataset or 'dataset ?'} {bench.input_len or '?'}/{bench.output_len or '?'}"


def group_runs(benchmarks: Iterable[Benchmark], value_of: ValueOf) -> dict[GroupKey, list[tuple[Benchmark, float]]]:
    """Runs with a concurrency and a value, per (profile, workload, concurrency), in recorded order."""
    out: dict[GroupKey, list[tuple[Benchmark, float]]] = {}
    for bench in benchmarks:
        value = value_of(bench)
        if bench.concurrency is None or value is None:
            continue
        out.setdefault((bench.profile or "", workload_of(bench), bench.concurrency), []).append((bench, value))
    return out


def _of(runs: list[tuple[Benchmark, float]]) -> Estimate:
    return estimate([v for _, v in runs], [b.id for b, _ in runs])


def estimates(benchmarks: Iterable[Benchmark], value_of: ValueOf) -> dict[GroupKey, Estimate]:
    return {key: _of(runs) for key, runs in group_runs(benchmarks, value_of).items()}


def per_profile_concurrency(benchmarks: Iterable[Benchmark], value_of: ValueOf) -> dict[tuple[str, int], Estimate]:
    """One estimate per (profile, concurrency) for views whose axis is concurrency alone (the
    chart, compare): where a profile ran several workloads at a concurrency, the workload
    with the most runs there (a tie: the one recorded last), never a mix of workloads."""
    benches = list(benchmarks)
    position = {id(b): i for i, b in enumerate(benches)}
    chosen: dict[tuple[str, int], tuple[tuple[int, int], list[tuple[Benchmark, float]]]] = {}
    for (profile, _workload, conc), runs in group_runs(benches, value_of).items():
        rank = (len(runs), position[id(runs[-1][0])])
        known = chosen.get((profile, conc))
        if known is None or rank > known[0]:
            chosen[(profile, conc)] = (rank, runs)
    return {key: _of(runs) for key, (_rank, runs) in chosen.items()}


@dataclass(frozen=True, slots=True)
class Verdict:
    better: str | None
    """"a" or "b" when one is better beyond both spreads; None: within noise (or a figure
    with no better way)."""
    text: str
    """`B better: +8.2 % (4,620 vs 4,270; spreads 120 and 95)` or `within noise: ...`."""


def verdict(a: Estimate, b: Estimate, higher_is_better: bool | None, unit: str | None = None) -> Verdict:
    """Whether B beats A (or A beats B) by more than both spreads."""
    diff = b.median - a.median
    change = f"{diff / a.median:+.1%}" if a.median else f"{diff:+g}"
    unit_text = f" {unit}" if unit else ""
    figures = (f"{_fmt(b.median)} vs {_fmt(a.median)}{unit_text}; spread B {_fmt(b.width)} (n={b.n}), "
               f"A {_fmt(a.width)} (n={a.n})")
    if abs(diff) <= a.width or abs(diff) <= b.width or diff == 0:
        return Verdict(None, f"within noise: {change} ({figures})")
    if higher_is_better is None:
        return Verdict(None, f"B {change} ({figures})")
    b_wins = (diff > 0) == higher_is_better
    return Verdict("b" if b_wins else "a", f"{'B' if b_wins else 'A'} better: {change} ({figures})")


def pooled_noise(groups: Sequence[Sequence[float]]) -> float | None:
    """The relative standard deviation between runs of one configuration, pooled over the
    groups run more than once (None: none was rerun)."""
    dof = 0
    total = 0.0
    for values in groups:
        if len(values) < 2:
            continue
        centre = statistics.fmean(values)
        if not centre:
            continue
        total += (len(values) - 1) * (statistics.stdev(values) / abs(centre)) ** 2
        dof += len(values) - 1
    return math.sqrt(total / dof) if dof else None


def standard_error(est: Estimate, noise: float) -> float:
    """The uncertainty of an estimate's median: the relative noise over the root of its runs."""
    return abs(est.median) * noise / math.sqrt(est.n)


def separated(a: Estimate, b: Estimate, noise: float) -> bool:
    """Whether `a` and `b` differ by more than `noise` (relative, between runs) allows:
    SEPARATION_Z standard errors of their difference. The pooled-noise counterpart of
    `verdict`, for figures of one or two runs whose own spread says little."""
    se = math.hypot(standard_error(a, noise), standard_error(b, noise))
    return abs(a.median - b.median) > SEPARATION_Z * se
