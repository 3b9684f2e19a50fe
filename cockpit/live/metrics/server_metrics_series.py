"""A server's metrics over time: the series the metrics pane charts (plain Python, no I/O).

Each good scrape folded into `ServerMetrics` adds a point (its scrape time, the figure) to
each series it has a figure for; failing scrapes add nothing, so a gap shows as a gap.
Time is the scrape's wall clock, the same axis as the GPU samples' power history.
"""

from __future__ import annotations

from collections import deque

from cockpit.live.metrics.server_metrics import ServerMetrics

Point = tuple[float, float]

SERIES: tuple[tuple[str, str, str, str], ...] = (
    # name, label, where in ServerMetrics, key
    ("ttft_p50", "TTFT p50", "latency", "ttft"),
    ("itl_p50", "ITL p50", "latency", "itl"),
    ("out_tok_s", "out tok/s", "rates", "generation_tokens_per_s"),
    ("req_s", "req/s", "rates", "requests_per_s"),
)


class ServerMetricsSeries:
    """Bounded series of the figures a latency target is judged by, oldest first."""

    def __init__(self, maxlen: int = 2000) -> None:
        self.points: dict[str, deque[Point]] = {name: deque(maxlen=maxlen) for name, *_ in SERIES}
        self._last_at: float | None = None

    def add(self, m: ServerMetrics) -> None:
        """Take a snapshot's figures once per scrape (the same snapshot again adds nothing)."""
        if m.state != "ok" or m.at is None or m.at == self._last_at:
            return
        if self._last_at is not None and m.at < self._last_at:  # another clock: start over
            for series in self.points.values():
                series.clear()
        self._last_at = m.at
        for name, _label, where, key in SERIES:
            value = _value(m, where, key)
            if value is not None:
                self.points[name].append((m.at, value))

    def series(self, name: str) -> list[Point]:
        return list(self.points[name])

    def __bool__(self) -> bool:
        return any(self.points.values())


def _value(m: ServerMetrics, where: str, key: str) -> float | None:
    if where == "rates":
        return m.rates.get(key)
    if m.window_span_s <= 0:  # one scrape: no window yet (its since-start figure is not "now")
        return None
    return (m.latency.get(key) or {}).get("p50")
