"""What the Benchmarks chart plots: throughput per launch profile per concurrency.

Plain data, no Textual: the chart widget only draws what `chart_data` returns. A line per
launch profile (in the session's order; benchmarks with no profile form one more line),
a point per concurrency holding the median of that profile's runs there with their spread
(model/bench/estimate.py: never the best run, so a profile re-run more often does not
look better), the profile with the highest median per concurrency,
and each target on the shown metric as a horizontal line over its concurrency range.
Concurrency is plotted on a log2 axis: `x(c) = log2(c)`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from cockpit.model.bench.estimate import per_profile_concurrency
from cockpit.model.bench.figures import format_value
from cockpit.model.bench.targets import score_target
from cockpit.model.enums import Metric
from cockpit.model.session import SYMBOL, Benchmark, Session, Target

CHART_METRICS: tuple[Metric, ...] = (Metric.TOTAL_TOK_S, Metric.OUTPUT_TOK_S, Metric.OUTPUT_TOK_S_PER_STREAM)
"""The throughputs the chart cycles through (all higher-is-better)."""

METRIC_LABELS = {
    Metric.TOTAL_TOK_S: "total tok/s",
    Metric.OUTPUT_TOK_S: "output tok/s",
    Metric.OUTPUT_TOK_S_PER_STREAM: "per-stream tok/s",
}

NO_PROFILE = ""
"""The series key of benchmarks recorded without a launch profile."""


def next_metric(metric: Metric) -> Metric:
    """The chart metric after `metric` (a metric the chart does not show starts the cycle)."""
    if metric not in CHART_METRICS:
        return CHART_METRICS[0]
    return CHART_METRICS[(CHART_METRICS.index(metric) + 1) % len(CHART_METRICS)]


def x_of(concurrency: int) -> float:
    """Where a concurrency sits on the chart's log2 axis."""
    return math.log2(concurrency)


@dataclass(frozen=True, slots=True)
class Point:
    concurrency: int
    value: float
    """The median over the point's runs."""
    bench_id: str
    """The median run."""
    low: float | None = None
    """The spread (bootstrap interval from 3 runs, else min–max)."""
    high: float | None = None
    n: int = 1


@dataclass(frozen=True, slots=True)
class Series:
    key: str
    """The launch profile id (`NO_PROFILE` for benchmarks without one)."""
    name: str
    """The profile's name as recorded (untrusted: sanitize before showing)."""
    points: tuple[Point, ...]
    """One per concurrency, ascending."""

    def at(self, concurrency: int) -> Point | None:
        return next((p for p in self.points if p.concurrency == concurrency), None)


@dataclass(frozen=True, slots=True)
class Best:
    concurrency: int
    key: str
    """The series (profile id) with the highest value at this concurrency."""
    value: float


@dataclass(frozen=True, slots=True)
class TargetLine:
    target_id: str
    value: float
    low: int | None
    """Lowest concurrency the target applies to (None: from the axis' start)."""
    high: int | None
    """Highest concurrency the target applies to (None: to the axis' end)."""
    met: bool
    text: str
    """The target as a person reads it (`>= 1000 tok/s at concurrency 1..2`)."""


@dataclass(frozen=True, slots=True)
class ChartData:
    metric: Metric
    series: tuple[Series, ...]
    best: tuple[Best, ...]
    """Per concurrency present in any series, ascending."""
    targets: tuple[TargetLine, ...]
    unplotted: int
    """Benchmarks without a concurrency or without a value for the metric."""

    @property
    def concurrencies(self) -> tuple[int, ...]:
        return tuple(b.concurrency for b in self.best)

    @property
    def empty(self) -> bool:
        return not self.best

    def y_max(self) -> float:
        """The top of the value axis: every point and target line fits under it."""
        values = [max(p.value, p.high or 0.0) for s in self.series for p in s.points] + [t.value for t in self.targets]
        return max(values, default=0.0)

    def best_count(self, key: str) -> int:
        """At how many concurrencies the series `key` is the best."""
        return sum(1 for b in self.best if b.key == key)

    def best_runs(self) -> tuple[tuple[int, int, str], ...]:
        """The best profile per concurrency with neighbours of one winner merged:
        (first concurrency, last concurrency, series key), ascending."""
        runs: list[tuple[int, int, str]] = []
        for best in self.best:
            if runs and runs[-1][2] == best.key:
                runs[-1] = (runs[-1][0], best.concurrency, best.key)
            else:
                runs.append((best.concurrency, best.concurrency, best.key))
        return tuple(runs)

    def ticks(self, max_ticks: int) -> tuple[int, ...]:
        """Concurrencies to label on the x axis: all of them when they fit, else every k-th
        counted back from the last (the high end, where lines part, reads evenly), and the first."""
        conc = self.concurrencies
        if len(conc) <= max_ticks:
            return conc
        if max_ticks < 2:
            return conc[:1]
        stride = math.ceil((len(conc) - 1) / (max_ticks - 1))
        picks = list(range(len(conc) - 1, -1, -stride))
        picks[-1] = 0  # within one stride of the start: the first concurrency takes its place
        return tuple(conc[i] for i in reversed(picks))


def value_ticks(top: float, most: int = 5) -> tuple[float, ...]:
    """Round levels from 0 up to at least `top` (1, 2, 2.5 or 5 times a power of ten apart),
    no more than `most` of them (2 at least); `top` <= 0 gives (0, 1)."""
    if top <= 0:
        return (0.0, 1.0)
    most = max(2, most)
    raw = top / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    count = math.ceil(top / step - 1e-9)
    return tuple(float(round(i * step, 10)) for i in range(count + 1))


def span_ticks(low: float, high: float, most: int = 5) -> tuple[float, ...]:
    """Round levels inside [low, high] (1, 2, 2.5 or 5 times a power of ten apart), at most
    `most` of them: the axis of a scatter whose values sit far from zero (2,981-4,547 tok/s
    reads 3k 3.5k 4k 4.5k, not plotext's 2981.2 3372.7 ...); one level when low == high."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return (low,)
    most = max(2, most)
    raw = (high - low) / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return tuple(float(round(i * step, 10)) for i in range(first, math.floor(high / step + 1e-9) + 1))


def short_number(value: float) -> str:
    """An axis label: 1500 -> 1.5k, 2500000 -> 2.5M, 12.5 -> 12.5."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def _value(bench: Benchmark, metric: Metric) -> float | None:
    return bench.metric(metric)


def series_of(session: Session, metric: Metric) -> tuple[tuple[Series, ...], int]:
    """The line per profile (a point per concurrency: the median of its runs), and how many
    benchmarks had nothing to plot."""
    names = {p.id: p.name for p in session.launch}
    unplotted = sum(1 for b in session.benchmarks if b.concurrency is None or _value(b, metric) is None)
    best: dict[str, dict[int, Point]] = {}
    for (profile, conc), est in per_profile_concurrency(session.benchmarks, lambda b: _value(b, metric)).items():
        best.setdefault(profile or NO_PROFILE, {})[conc] = Point(conc, est.median, est.median_run or est.runs[0],
                                                                  est.low, est.high, est.n)
    order = [p.id for p in session.launch] + [NO_PROFILE]
    series = tuple(
        Series(key, names.get(key, "(no profile)"), tuple(sorted(best[key].values(), key=lambda p: p.concurrency)))
        for key in order if key in best
    )
    return series, unplotted


def best_per_concurrency(series: Iterable[Series]) -> tuple[Best, ...]:
    """The highest value at each concurrency; a tie goes to the series listed first."""
    top: dict[int, Best] = {}
    for line in series:
        for p in line.points:
            known = top.get(p.concurrency)
            if known is None or p.value > known.value:
                top[p.concurrency] = Best(p.concurrency, line.key, p.value)
    return tuple(top[c] for c in sorted(top))


def target_lines(targets: Iterable[Target], benchmarks: list[Benchmark], metric: Metric) -> tuple[TargetLine, ...]:
    """The targets on `metric`, each as a level over the concurrencies it applies to."""
    out = []
    for target in targets:
        if target.metric is not metric:
            continue
        met = score_target(target, benchmarks).met
        # `≥ 1,000 tok/s`: the chart's own metric is the target's figure, said in its caption
        text = f"{SYMBOL[target.comparator]} {format_value(target.value, target.figure.unit)}"
        if target.concurrency_min is not None or target.concurrency_max is not None:
            low, high = target.concurrency_min or 1, target.concurrency_max
            text += f" at {low}..{high}" if high is not None else f" at >= {low}"
        out.append(TargetLine(target.id, target.value, target.concurrency_min, target.concurrency_max, met, text))
    return tuple(out)


def chart_data(session: Session, metric: Metric = Metric.TOTAL_TOK_S) -> ChartData:
    series, unplotted = series_of(session, metric)
    return ChartData(metric, series, best_per_concurrency(series),
                     target_lines(session.goal.targets, session.benchmarks, metric), unplotted)
