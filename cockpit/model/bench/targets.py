"""Targets scored from recorded benchmarks: best-so-far and met are computed, never typed.

A target is judged on its own figure and statistic (`TTFT p99 <= 2000` on each run's
recorded p99, never the mean), and never on a single run: the runs of one (profile,
workload, concurrency) make one point, whose value is their median with its spread
(model/bench/estimate.py). A profile re-run more often cannot win by its luckiest run.

Two kinds of target read the points differently:
* a throughput floor (`total_tok_s >= 5000`) is met by the best point in its range: a
  server reaches its top throughput at some concurrency, and that is what the floor asks;
* every other target with a concurrency range (a latency ceiling, a per-stream speed)
  promises something at each concurrency of the range, so a profile meets it only when
  every point of that profile in the range does. The point that breaks it is named (by
  its median run), so a c=2 point's 400 ms TTFT cannot hide a c=32 point's 5,000 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.bench.estimate import Estimate, GroupKey, estimates
from cockpit.model.enums import Metric
from cockpit.model.session import Benchmark, Target

# Aggregate throughputs: the server's total over all streams, highest at some concurrency.
# Per-stream speed is not one: it is what each user sees, so a floor on it holds per run.
THROUGHPUT_METRICS = frozenset({Metric.TOTAL_TOK_S, Metric.OUTPUT_TOK_S, Metric.REQUEST_THROUGHPUT})


@dataclass(frozen=True, slots=True)
class TargetScore:
    target: Target
    best: Benchmark | None
    """The median run of the point the score stands on: the best point, or (every-run
    targets) the worst point in range of the profile that comes closest."""
    best_value: float | None
    """That point's median."""
    breaking: Benchmark | None = None
    """Every-run targets not met: the median run of the point in range that breaks it."""
    runs: int = 0
    """Runs the score reads: of `best`'s profile in range (every-run targets), else of the best point."""
    estimate: Estimate | None = None
    """The point's median, spread and n."""

    @property
    def met(self) -> bool:
        return self.best_value is not None and self.target.comparator.holds(self.best_value, self.target.value)

    @property
    def every_run(self) -> bool:
        return every_run(self.target)

    @property
    def progress(self) -> float | None:
        """Fraction of the goal reached (1.0 = met), for bars; None without data."""
        if self.best_value is None or self.target.value == 0:
            return None
        if self.target.comparator.higher_is_better:
            return self.best_value / self.target.value
        return self.target.value / self.best_value if self.best_value else None

    def breaking_text(self) -> str | None:
        """`b7 at c=32: 5,000 ms median (n=3, ...)` naming the point that breaks the target; None when none does."""
        run = self.breaking
        if run is None or self.best_value is None:
            return None
        where = f" at c={run.concurrency}" if run.concurrency is not None else ""
        return f"{run.id}{where}: {self.value_text()}"

    def value_text(self) -> str:
        """`2,140 ms median (n=3, 1,980–2,300, 95% CI ...)`; `no data`."""
        if self.estimate is None:
            return "no data" if self.best_value is None else f"{self.best_value:g}"
        return self.estimate.text(self.target.figure.unit)


def every_run(target: Target) -> bool:
    """Whether each run in the target's range must meet it (not just the best one)."""
    if target.concurrency_min is None and target.concurrency_max is None:
        return False
    return not (target.comparator.higher_is_better and target.metric in THROUGHPUT_METRICS)


def in_range(target: Target, bench: Benchmark) -> bool:
    if target.concurrency_min is None and target.concurrency_max is None:
        return True
    if bench.concurrency is None:
        return False
    low = target.concurrency_min or 1
    high = target.concurrency_max
    return bench.concurrency >= low and (high is None or bench.concurrency <= high)


def _better(target: Target, value: float, than: float | None) -> bool:
    return than is None or (value > than if target.comparator.higher_is_better else value < than)


def _groups(target: Target, benchmarks: list[Benchmark]) -> dict[GroupKey, tuple[Estimate, Benchmark]]:
    """Each (profile, workload, concurrency) in the target's range: its estimate and median run."""
    in_reach = [b for b in benchmarks if in_range(target, b)]
    by_id = {b.id: b for b in in_reach}
    out: dict[GroupKey, tuple[Estimate, Benchmark]] = {}
    for key, est in estimates(in_reach, lambda b: b.metric(target.metric)).items():
        out[key] = (est, by_id[est.median_run or est.runs[0]])
    return out


def _best_group(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    chosen: tuple[Estimate, Benchmark] | None = None
    for est, run in _groups(target, benchmarks).values():
        if chosen is None or _better(target, est.median, chosen[0].median):
            chosen = (est, run)
    if chosen is None:
        return TargetScore(target, None, None)
    est, run = chosen
    return TargetScore(target, run, est.median, runs=est.n, estimate=est)


def _every_point(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    # Each profile stands on its worst point (median over the point's runs) in range; the
    # target on the best of those.
    worst: dict[str, tuple[Estimate, Benchmark]] = {}
    counts: dict[str, int] = {}
    for (profile, _workload, _conc), (est, run) in _groups(target, benchmarks).items():
        counts[profile] = counts.get(profile, 0) + est.n
        known = worst.get(profile)
        if known is None or _better(target, known[0].median, est.median):
            worst[profile] = (est, run)
    chosen: tuple[str, Estimate, Benchmark] | None = None
    for profile, (est, run) in worst.items():
        if chosen is None or _better(target, est.median, chosen[1].median):
            chosen = (profile, est, run)
    if chosen is None:
        return TargetScore(target, None, None)
    profile, est, run = chosen
    broken = not target.comparator.holds(est.median, target.value)
    return TargetScore(target, run, est.median, breaking=run if broken else None, runs=counts[profile], estimate=est)


def score_target(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    return _every_point(target, benchmarks) if every_run(target) else _best_group(target, benchmarks)


def score_all(targets: list[Target], benchmarks: list[Benchmark]) -> list[TargetScore]:
    return [score_target(t, benchmarks) for t in targets]
