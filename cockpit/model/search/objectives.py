"""A search's objectives as figures a person reads (name, unit) and a trial's figures for a
search with several objectives: every objective read at ONE sweep point (`at_concurrency`,
else the point where the first objective is best), so a point of the front is one operating
point, not the best throughput of one concurrency beside the best tok/J of another."""

from __future__ import annotations

import statistics

from cockpit.model.bench.figures import figure_of
from cockpit.model.enums import Metric
from cockpit.model.search.search import Direction, Search
from cockpit.model.session import Benchmark

__all__ = ["heading", "label", "objective_values", "unit"]


def unit(objective: str) -> str:
    """`tok/s`, `tok/J`, `ms`, `W`, `req/s`."""
    if objective == "power_mean_w":
        return "W"
    try:
        return figure_of(Metric(objective)).unit
    except ValueError:
        return ""


def label(objective: str) -> str:
    """`output tok/s`, `output tok/J`, `TTFT p99`: the figure's name as the app shows it."""
    if objective == "power_mean_w":
        return "power"
    try:
        return figure_of(Metric(objective)).name
    except ValueError:
        return objective


def heading(objective: str) -> str:
    """`output tok/s`, `TTFT p99 ms`, `power W`: the name with its unit, said once."""
    name, what = label(objective), unit(objective)
    return name if not what or what in name else f"{name} {what}"


def _figure(bench: Benchmark, name: str) -> float | None:
    value = getattr(bench, name, None)
    if value is None and name == "output_tok_s_per_stream" and bench.output_tok_s is not None and bench.concurrency:
        return bench.output_tok_s / bench.concurrency
    return float(value) if value is not None else None


def _point_medians(benches: list[Benchmark], name: str) -> dict[int | None, float]:
    """Per concurrency the median of the runs there (a sweep's repeats are one point)."""
    runs: dict[int | None, list[float]] = {}
    for bench in benches:
        value = _figure(bench, name)
        if value is not None:
            runs.setdefault(bench.concurrency, []).append(value)
    return {conc: statistics.median(values) for conc, values in runs.items()}


def objective_values(search: Search, benches: list[Benchmark]) -> list[float]:
    """One figure per objective at one sweep point (empty: a search with one objective, or no
    point has every objective)."""
    if not search.multi:
        return []
    medians = [_point_medians(benches, name) for name in search.objectives]
    points = set.intersection(*(set(m) for m in medians))
    if search.at_concurrency is not None:
        points &= {search.at_concurrency}
    if not points:
        return []
    sign = 1.0 if search.directions[0] is Direction.MAXIMIZE else -1.0
    # the first objective's best point (the lowest concurrency on a tie: the same as the first seen)
    at = max(sorted(points, key=lambda c: c or 0), key=lambda c: sign * medians[0][c])
    return [m[at] for m in medians]
