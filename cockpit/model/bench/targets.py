"""Targets scored from recorded benchmarks: best-so-far and met are computed, never typed.

Two kinds of target read the runs differently:
* a throughput floor (`total_tok_s >= 5000`) is met by the best run in its range: a
  server reaches its top throughput at some concurrency, and that is what the floor asks;
* every other target with a concurrency range (a latency ceiling, a per-stream speed)
  promises something at each concurrency of the range, so a profile meets it only when
  every run of that profile in the range does. The run that breaks it is named, so a
  c=2 run's 400 ms TTFT cannot hide a c=32 run's 5,000 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.enums import Metric
from cockpit.model.session import Benchmark, Target

# Aggregate throughputs: the server's total over all streams, highest at some concurrency.
# Per-stream speed is not one: it is what each user sees, so a floor on it holds per run.
THROUGHPUT_METRICS = frozenset({Metric.TOTAL_TOK_S, Metric.OUTPUT_TOK_S, Metric.REQUEST_THROUGHPUT})


@dataclass(frozen=True, slots=True)
class TargetScore:
    target: Target
    best: Benchmark | None
    """The run the score stands on: the best run, or (every-run targets) the worst run in
    range of the profile that comes closest."""
    best_value: float | None
    breaking: Benchmark | None = None
    """Every-run targets not met: the run in range that breaks it (worst of the closest profile)."""
    runs: int = 0
    """Runs of `best`'s profile in range (every-run targets; 0 otherwise)."""

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
        """`b7 at c=32: 5,000` naming the run that breaks the target; None when none does."""
        run = self.breaking
        if run is None or self.best_value is None:
            return None
        where = f" at c={run.concurrency}" if run.concurrency is not None else ""
        return f"{run.id}{where}: {self.best_value:g}"


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


def _best_run(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    best: Benchmark | None = None
    best_value: float | None = None
    for bench in benchmarks:
        if not in_range(target, bench):
            continue
        value = bench.metric(target.metric)
        if value is not None and _better(target, value, best_value):
            best, best_value = bench, value
    return TargetScore(target, best, best_value)


def _every_run(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    # Each profile stands on its worst run in range; the target on the best of those.
    worst: dict[str | None, tuple[Benchmark, float]] = {}
    counts: dict[str | None, int] = {}
    for bench in benchmarks:
        if not in_range(target, bench):
            continue
        value = bench.metric(target.metric)
        if value is None:
            continue
        counts[bench.profile] = counts.get(bench.profile, 0) + 1
        known = worst.get(bench.profile)
        if known is None or _better(target, known[1], value):
            worst[bench.profile] = (bench, value)
    chosen: tuple[Benchmark, float] | None = None
    for run in worst.values():
        if chosen is None or _better(target, run[1], chosen[1]):
            chosen = run
    if chosen is None:
        return TargetScore(target, None, None)
    bench, value = chosen
    broken = not target.comparator.holds(value, target.value)
    return TargetScore(target, bench, value, breaking=bench if broken else None, runs=counts[bench.profile])


def score_target(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    return _every_run(target, benchmarks) if every_run(target) else _best_run(target, benchmarks)


def score_all(targets: list[Target], benchmarks: list[Benchmark]) -> list[TargetScore]:
    return [score_target(t, benchmarks) for t in targets]
