"""Targets scored from recorded benchmarks: best-so-far and met are computed, never typed."""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.session import Benchmark, Target


@dataclass(frozen=True, slots=True)
class TargetScore:
    target: Target
    best: Benchmark | None
    best_value: float | None

    @property
    def met(self) -> bool:
        return self.best_value is not None and self.target.comparator.holds(self.best_value, self.target.value)

    @property
    def progress(self) -> float | None:
        """Fraction of the goal reached (1.0 = met), for bars; None without data."""
        if self.best_value is None or self.target.value == 0:
            return None
        if self.target.comparator.higher_is_better:
            return self.best_value / self.target.value
        return self.target.value / self.best_value if self.best_value else None


def in_range(target: Target, bench: Benchmark) -> bool:
    if target.concurrency_min is None and target.concurrency_max is None:
        return True
    if bench.concurrency is None:
        return False
    low = target.concurrency_min or 1
    high = target.concurrency_max
    return bench.concurrency >= low and (high is None or bench.concurrency <= high)


def score_target(target: Target, benchmarks: list[Benchmark]) -> TargetScore:
    best: Benchmark | None = None
    best_value: float | None = None
    for bench in benchmarks:
        if not in_range(target, bench):
            continue
        value = bench.metric(target.metric)
        if value is None:
            continue
        better = (
            best_value is None
            or (value > best_value if target.comparator.higher_is_better else value < best_value)
        )
        if better:
            best, best_value = bench, value
    return TargetScore(target, best, best_value)


def score_all(targets: list[Target], benchmarks: list[Benchmark]) -> list[TargetScore]:
    return [score_target(t, benchmarks) for t in targets]
