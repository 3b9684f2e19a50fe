"""What each target-able figure is: the quantity, its statistic, whose measurement
(the bench client's or the server's histogram), its unit and which way is better.

A target names one `Metric` (a Benchmark field); its statistic is part of that name, so
`ttft_ms` stays the client's mean it always was and reads `TTFT mean`, `ttft_p99_ms` is the
p99. `parse_figure` takes what a person types (`ttft p99`, `TTFT_P99_MS`, `server itl p50`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.model.enums import Metric
from cockpit.model.figures import number

__all__ = ["FIGURES", "Figure", "figure_of", "format_value", "parse_figure"]


@dataclass(frozen=True, slots=True)
class Figure:
    metric: Metric
    quantity: str
    """`TTFT`, `ITL`, `total tok/s` ..."""
    statistic: str | None
    """`mean`, `median`, `p90`, `p95`, `p99`; None for a figure of the whole run (a throughput)."""
    unit: str
    server: bool = False
    """Read from the server's histogram (`/metrics`), not the bench client."""
    higher_is_better: bool = False

    @property
    def name(self) -> str:
        """`TTFT p99`, `server TTFT p50`, `total tok/s` (the unit follows the value)."""
        who = "server " if self.server else ""
        return f"{who}{self.quantity} {self.statistic}" if self.statistic else f"{who}{self.quantity}"


def _latencies() -> list[Figure]:
    out = []
    stats = (("mean", ""), ("median", "_median"), ("p90", "_p90"), ("p95", "_p95"), ("p99", "_p99"))
    for quantity, stem, mean in (("TTFT", "ttft", "ttft_ms"), ("ITL", "itl", "itl_ms"), ("TPOT", "tpot", "tpot_ms"),
                                 ("E2E", "e2e", "e2e_latency_ms")):
        for stat, suffix in stats:
            key = mean if stat == "mean" else f"{stem}{suffix}_ms"
            out.append(Figure(Metric(key), quantity, stat, "ms"))
    for quantity, stem in (("TTFT", "ttft"), ("ITL", "itl")):
        for stat in ("p50", "p90", "p95", "p99"):
            out.append(Figure(Metric(f"server_{stem}_{stat}_ms"), quantity, stat, "ms", server=True))
    return out


FIGURES: tuple[Figure, ...] = (
    Figure(Metric.TOTAL_TOK_S, "total tok/s", None, "tok/s", higher_is_better=True),
    Figure(Metric.OUTPUT_TOK_S, "output tok/s", None, "tok/s", higher_is_better=True),
    Figure(Metric.OUTPUT_TOK_S_PER_STREAM, "per-stream tok/s", None, "tok/s", higher_is_better=True),
    Figure(Metric.REQUEST_THROUGHPUT, "requests/s", None, "req/s", higher_is_better=True),
    Figure(Metric.REQUEST_GOODPUT, "goodput", None, "req/s", higher_is_better=True),
    Figure(Metric.TOK_PER_JOULE, "total tok/J", None, "tok/J", higher_is_better=True),
    Figure(Metric.OUTPUT_TOK_PER_JOULE, "output tok/J", None, "tok/J", higher_is_better=True),
    *_latencies(),
)
_BY_METRIC = {f.metric: f for f in FIGURES}
assert set(_BY_METRIC) == set(Metric), "every Metric has its figure"


def figure_of(metric: Metric) -> Figure:
    return _BY_METRIC[metric]


def format_value(value: float, unit: str | None = None) -> str:
    """`2,000`, `19.94`, `0.312`: the one formatter's number (model/figures.py), then the unit."""
    text = number(value)
    return f"{text} {unit}" if unit else text


_WORDS = re.compile(r"[\s_/-]+")
_STAT_ALIASES = {"avg": "mean", "average": "mean", "p50": "median", "med": "median"}


def parse_figure(text: str) -> Metric:
    """A figure as typed: a Metric value (`ttft_p99_ms`) or words (`ttft p99`, `server itl p50`,
    `TTFT mean`, `total tok/s`). ValueError saying what is known when nothing matches."""
    raw = text.strip()
    try:
        return Metric(raw.lower())
    except ValueError:
        pass
    words = [w for w in _WORDS.split(raw.lower()) if w and w != "ms"]
    server = bool(words) and words[0] == "server"
    if server:
        words = words[1:]
    for fig in FIGURES:
        if fig.server != server:
            continue
        want = [w for w in _WORDS.split(fig.quantity.lower()) if w]
        stat = fig.statistic
        if fig.server and stat == "p50":
            names = [[*want, "p50"], [*want, "median"]]
        elif stat is None:
            names = [want]
        else:
            names = [[*want, stat]] + [[*want, a] for a, s in _STAT_ALIASES.items() if s == stat]
            if stat == "mean":
                names.append(want)
        if words in names:
            return fig.metric
    known = ", ".join(f.name for f in FIGURES)
    raise ValueError(f"{text!r} is not a recorded figure (one of: {known})")
