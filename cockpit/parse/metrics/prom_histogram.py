"""Cumulative Prometheus histograms: bucket deltas over a window and their quantiles.

`quantile` follows PromQL's `histogram_quantile`: linear interpolation inside the bucket
that holds the rank, the first bucket starting at 0, and a rank in the `+Inf` bucket
answered with the highest finite bound (the histogram cannot say more).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Histogram:
    """Cumulative counts per upper bound (`le`), ascending, `+Inf` last when present."""

    buckets: tuple[tuple[float, float], ...]
    count: float = 0.0
    total: float = 0.0  # the `_sum` sample (seconds for a latency histogram)

    def minus(self, older: Histogram) -> Histogram | None:
        """The observations made since `older`; None when a count went down (a reset) or the
        buckets changed (a restart with other bounds): the window must start again."""
        if [le for le, _ in older.buckets] != [le for le, _ in self.buckets]:
            return None
        diff = tuple((le, c - o) for (le, c), (_, o) in zip(self.buckets, older.buckets))
        if any(d < 0 for _, d in diff) or self.count < older.count:
            return None
        return Histogram(diff, self.count - older.count, self.total - older.total)

    def quantile(self, q: float) -> float | None:
        """The q-quantile (0..1) of the observations, or None when there are none."""
        if not self.buckets:
            return None
        observed = self.buckets[-1][1]
        if observed <= 0:
            return None
        rank = q * observed
        lower, below = 0.0, 0.0
        for le, cum in self.buckets:
            if cum >= rank:
                if math.isinf(le):
                    return lower  # highest finite bound: the text cannot say more
                if cum == below:
                    return le
                if le <= 0:
                    return le
                return lower + (le - lower) * (rank - below) / (cum - below)
            lower, below = le, cum
        return lower

    def bucket(self, q: float) -> tuple[float, float] | None:
        """The bucket (lower, upper bound) that holds the q-quantile's rank: all the histogram
        knows of it. `quantile` interpolates inside it as PromQL does, so with few observations
        all in one bucket (lower 10 ms, upper 20 ms) the p99 reads 19.9 ms whatever they were.
        The `+Inf` bucket gives (highest finite bound, inf); None without observations."""
        if not self.buckets or self.buckets[-1][1] <= 0:
            return None
        rank = q * self.buckets[-1][1]
        lower = 0.0
        for le, cum in self.buckets:
            if cum >= rank:
                return lower, le
            lower = le
        return lower, math.inf

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count > 0 else None
