"""Two launch profiles side by side: per concurrency A's and B's value and B's change.

Any recorded figure can be compared (`COMPARE_FIGURES`: throughput, TTFT / ITL p50 and p99,
power, tok/J). Per concurrency a profile's value is the median of its runs there with
their spread (model/bench/estimate.py), as the chart (`bench_series`) plots it; B is
called better or worse only when the medians differ by more than both spreads, else the
row says "within noise" with the figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.bench.estimate import Estimate, per_profile_concurrency, verdict
from cockpit.model.enums import Metric, ProfileStatus
from cockpit.model.session import Benchmark, Session


@dataclass(frozen=True, slots=True)
class CompareFigure:
    key: str
    """The benchmark field (`Benchmark.<key>`) the figure is read from."""
    label: str
    higher_is_better: bool | None
    """None: neither way is better on its own (power)."""

    def of(self, bench: Benchmark) -> float | None:
        if self.key in _METRICS:  # per-stream speed follows from output tok/s when not recorded
            return bench.metric(Metric(self.key))
        value = getattr(bench, self.key)
        return None if value is None else float(value)


_METRICS = frozenset(m.value for m in Metric)

COMPARE_FIGURES: tuple[CompareFigure, ...] = (
    CompareFigure("total_tok_s", "total tok/s", True),
    CompareFigure("output_tok_s", "output tok/s", True),
    CompareFigure("output_tok_s_per_stream", "per-stream tok/s", True),
    CompareFigure("ttft_median_ms", "TTFT p50 ms", False),
    CompareFigure("ttft_p99_ms", "TTFT p99 ms", False),
    CompareFigure("itl_median_ms", "ITL p50 ms", False),
    CompareFigure("itl_p99_ms", "ITL p99 ms", False),
    CompareFigure("power_mean_w", "power W", None),
    CompareFigure("tok_per_joule", "tok/J total", True),
    CompareFigure("output_tok_per_joule", "tok/J output", True),
)
_BY_KEY = {f.key: f for f in COMPARE_FIGURES}


def figure(key: str) -> CompareFigure:
    """The figure of `key` (a `Metric` value or a benchmark field); unknown: total tok/s."""
    return _BY_KEY.get(str(key), COMPARE_FIGURES[0])


def next_figure(key: str) -> CompareFigure:
    """The figure `m` moves to after `key` (wrapping)."""
    i = COMPARE_FIGURES.index(figure(key))
    return COMPARE_FIGURES[(i + 1) % len(COMPARE_FIGURES)]


@dataclass(frozen=True, slots=True)
class CompareRow:
    concurrency: int
    a: float | None
    """A's median over its runs at this concurrency."""
    b: float | None
    higher_is_better: bool | None = True
    a_est: Estimate | None = None
    b_est: Estimate | None = None

    @property
    def change(self) -> float | None:
        """B relative to A (0.12 = B is 12 % higher); None when either is missing or A is 0."""
        if self.a is None or self.b is None or self.a == 0:
            return None
        return (self.b - self.a) / self.a

    @property
    def b_is_better(self) -> bool | None:
        """Whether B beats A on this figure beyond both spreads (None: within noise, equal,
        missing, or no better way)."""
        change = self.change
        if change is None or change == 0 or self.higher_is_better is None:
            return None
        if self.a_est is not None and self.b_est is not None:
            found = verdict(self.a_est, self.b_est, self.higher_is_better).better
            return None if found is None else found == "b"
        return (change > 0) == self.higher_is_better

    @property
    def within_noise(self) -> bool:
        """Both measured, different, and the difference inside a spread."""
        return (self.a_est is not None and self.b_est is not None and self.higher_is_better is not None
                and bool(self.change) and verdict(self.a_est, self.b_est, self.higher_is_better).better is None)

    def verdict_text(self, unit: str | None = None) -> str | None:
        if self.a_est is None or self.b_est is None:
            return None
        return verdict(self.a_est, self.b_est, self.higher_is_better, unit).text


def _points(session: Session, profile: str, fig: CompareFigure) -> dict[int, Estimate]:
    """The profile's estimate per concurrency (the median of its runs, with their spread)."""
    found = per_profile_concurrency([b for b in session.benchmarks if b.profile == profile], fig.of)
    return {conc: est for (_p, conc), est in found.items()}


def compare_rows(session: Session, a: str, b: str, metric: str) -> list[CompareRow]:
    """A row per concurrency that either profile has a value at, ascending."""
    fig = figure(metric)
    va, vb = _points(session, a, fig), _points(session, b, fig)
    rows = []
    for c in sorted(va.keys() | vb.keys()):
        ea, eb = va.get(c), vb.get(c)
        rows.append(CompareRow(c, ea.median if ea else None, eb.median if eb else None, fig.higher_is_better, ea, eb))
    return rows


def default_pair(session: Session, selected: str | None, base: str | None = None) -> tuple[str, str] | None:
    """Which two profiles to open a compare on: `base` (else the working profile, else the
    first) against `selected` (else the next profile after A). None with fewer than two.

    Where A or B is picked for the person (not `base`, not `selected`), a profile with
    recorded runs is picked over one without: a compare against a profile with no data
    shows nothing but gaps."""
    ids = [p.id for p in session.launch]
    if len(ids) < 2:
        return None
    has_runs = {b.profile for b in session.benchmarks if b.profile is not None}
    with_data = [x for x in ids if x in has_runs]
    working = next((p.id for p in session.launch if p.status is ProfileStatus.WORKING), None)
    a: str
    if base is not None and base in ids:
        a = base
    elif working is not None and (working in has_runs or not with_data):
        a = working
    else:
        a = with_data[0] if with_data else ids[0]
    b = selected if selected in ids and selected != a else None
    if b is None:
        start = ids.index(a)
        after = ids[start + 1:] + ids[:start]
        b = next((x for x in after if x in has_runs), after[0])
    return a, b


def step(ids: list[str], current: str, by: int, skip: str | None = None) -> str:
    """The id `by` places after `current` in `ids` (wrapping), passing over `skip`."""
    if current not in ids:  # gone (an undo, another writer): start again from the first
        return next((x for x in ids if x != skip), current)
    i = ids.index(current)
    for _ in ids:
        i = (i + by) % len(ids)
        if ids[i] != skip:
            return ids[i]
    return current
