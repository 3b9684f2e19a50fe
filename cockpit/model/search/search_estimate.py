"""A configuration's figure over all its launches: the median with its spread (min–max, n),
the noise between launches pooled over every configuration launched more than once, and
whether two configurations are told apart by more than that noise.

The search's own small estimate (`launch_estimate`): a general estimate module of the model
may take its place; the search asks only for median, min, max and n.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_NOISE", "LaunchEstimate", "launch_estimate", "pooled_noise", "separated", "standard_error"]

DEFAULT_NOISE = 0.05
"""The launch-to-launch noise (a share of the figure) assumed until relaunches measure it:
the 4–10 % the same flags give between launches on one GPU (issue 35's 4,211 vs 4,427)."""
SEPARATION_Z = 1.5  # standard errors of the difference that tell two configurations apart


@dataclass(frozen=True, slots=True)
class LaunchEstimate:
    """One configuration's figure over its launches."""

    median: float
    low: float
    high: float
    n: int

    @property
    def spread(self) -> float | None:
        """Half the min–max range (None: launched once, no spread measured)."""
        return (self.high - self.low) / 2 if self.n > 1 else None

    @property
    def width(self) -> float:
        return self.high - self.low

    def text(self, unit: str | None = None) -> str:
        """`4,310 tok/s median (n=3, 4,211–4,427)`; one launch: `(one run, no spread)`, as the
        model's estimate (model/bench/estimate.py) words it."""
        value = _num(self.median) + (f" {unit}" if unit else "")
        if self.n == 1:
            return f"{value} (one run, no spread)"
        return f"{value} median (n={self.n}, {_num(self.low)}–{_num(self.high)})"

    def shown(self) -> str:
        """`4,310 (4,211–4,427, n=3)`: the median, its range and n."""
        if self.n == 1:
            return f"{_num(self.median)} (n=1)"
        return f"{_num(self.median)} ({_num(self.low)}–{_num(self.high)}, n={self.n})"


def _num(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def launch_estimate(values: Sequence[float]) -> LaunchEstimate | None:
    """The median, min, max and count of a configuration's launches (None: none)."""
    if not values:
        return None
    return LaunchEstimate(statistics.median(values), min(values), max(values), len(values))


def pooled_noise(groups: Sequence[Sequence[float]]) -> float | None:
    """The relative standard deviation between launches of one configuration, pooled over
    the groups launched more than once (None: no configuration was relaunched)."""
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


def standard_error(estimate: LaunchEstimate, noise: float) -> float:
    """The uncertainty of a configuration's figure: the noise over the root of its launches."""
    return abs(estimate.median) * noise / math.sqrt(estimate.n)


def separated(a: LaunchEstimate, b: LaunchEstimate, noise: float) -> bool:
    """Whether `a` and `b` differ by more than the noise allows (SEPARATION_Z standard errors
    of their difference)."""
    se = math.hypot(standard_error(a, noise), standard_error(b, noise))
    return abs(a.median - b.median) > SEPARATION_Z * se
