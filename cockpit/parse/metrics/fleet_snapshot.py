"""What the Fleet tab shows: a `FleetSnapshot` of hosts, their GPUs and SGLang servers, and
`bin_series` to put a history on the chart's time axis. Plain frozen dataclasses; FleetModel
(fleet_model.py) makes them, the Fleet tab and `cockpit fleet` draw them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FleetGpu:
    index: str
    power_w: float | None
    limit_w: float | None
    util_pct: float | None


@dataclass(frozen=True, slots=True)
class FleetServer:
    instance: str
    figures: Mapping[str, float | None] = field(default_factory=dict)
    """gen_tok_s, prompt_tok_s, req_s, running, queued, ttft_p50/p99, itl_p50/p99 (seconds);
    None: the series exists but had no data in the window (no requests)."""
    missing: tuple[str, ...] = ()
    """Families this server's Prometheus series lack (said in the row)."""
    history: tuple[tuple[float, float], ...] = ()
    """Generation tokens/s over time."""
    rate_window_s: float | None = None
    """The window this server's rates are over (its own target's scrape interval sets it)."""

    def get(self, fig: str) -> float | None:
        return self.figures.get(fig)


@dataclass(frozen=True, slots=True)
class FleetHost:
    name: str
    state: str = "ok"
    """ok, down (a target Prometheus cannot scrape), missing (no series)."""
    note: str = ""
    gpus: tuple[FleetGpu, ...] = ()
    servers: tuple[FleetServer, ...] = ()
    missing: tuple[str, ...] = ()
    """DCGM fields none of this host's GPUs has (a limit not exported...)."""
    power_history: tuple[tuple[float, float], ...] = ()
    session_host: str | None = None
    """The session host of this name (selecting the row focuses its panes), if any."""

    @property
    def power_w(self) -> float | None:
        vals = [g.power_w for g in self.gpus if g.power_w is not None]
        return sum(vals) if vals else None

    @property
    def limit_w(self) -> float | None:
        vals = [g.limit_w for g in self.gpus if g.limit_w is not None]
        return sum(vals) if vals and len(vals) == len(self.gpus) else None

    @property
    def util_pct(self) -> float | None:
        vals = [g.util_pct for g in self.gpus if g.util_pct is not None]
        return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True, slots=True)
class FleetSnapshot:
    source: str
    url: str
    at: float
    hosts: tuple[FleetHost, ...] = ()
    state: str = "ok"
    """connecting, ok, failing (the last query failed: the figures are the last good ones)."""
    error: str | None = None
    error_kind: str | None = None
    history_s: float = 3 * 3600.0
    notes: tuple[str, ...] = ()
    position: tuple[int, int] | None = None
    """Which of the session's `[[prometheus]]` sources this is, (2, 2), when it has several."""
    rate_window_s: float | None = None
    rate_window_note: str = ""
    """The rate window and where it came from ("rate over 240 s (scrape 60 s)")."""

    @property
    def label(self) -> str:
        """`lab` or, one of several, `lab (2/2)`."""
        return f"{self.source} ({self.position[0]}/{self.position[1]})" if self.position else self.source

    def to_json(self) -> dict[str, Any]:
        def pts(p: Iterable[tuple[float, float]]) -> list[list[float]]:
            return [[t, v] for t, v in p]
        return {
            "source": self.source, "url": self.url, "at": self.at, "state": self.state,
            "error": self.error, "error_kind": self.error_kind, "notes": list(self.notes),
            "rate_window_s": self.rate_window_s, "rate_window": self.rate_window_note,
            "hosts": [{
                "name": h.name, "state": h.state, "note": h.note, "session_host": h.session_host,
                "power_w": h.power_w, "limit_w": h.limit_w, "util_pct": h.util_pct, "missing": list(h.missing),
                "gpus": [{"index": g.index, "power_w": g.power_w, "limit_w": g.limit_w, "util_pct": g.util_pct}
                         for g in h.gpus],
                "servers": [{"instance": s.instance, **dict(s.figures), "rate_window_s": s.rate_window_s,
                             "missing": list(s.missing),
                             "history_points": len(s.history)} for s in h.servers],
                "power_history_points": len(h.power_history),
            } for h in self.hosts],
        }



def bin_series(points: Sequence[tuple[float, float]], width: int, *, start: float, end: float) -> list[float | None]:
    """Points averaged into `width` equal time bins over [start, end]; None for an empty bin.

    Range history (one point a step) and live refreshes (one a second) share one time axis.
    A bin narrower than the points' spacing is empty between two points: it holds the last
    value when the next point is no further than twice the usual spacing (a gap stays a gap)."""
    if width <= 0 or end <= start:
        return []
    sums, counts = [0.0] * width, [0] * width
    span = end - start
    inside = [(t, v) for t, v in points if start <= t <= end]
    for t, v in inside:
        i = min(width - 1, int((t - start) / span * width))
        sums[i] += v
        counts[i] += 1
    out: list[float | None] = [s / c if c else None for s, c in zip(sums, counts)]
    if len(inside) >= 2:
        gaps = sorted(b[0] - a[0] for a, b in zip(inside, inside[1:]))
        hold_bins = 2 * gaps[len(gaps) // 2] / span * width
        filled = [i for i, c in enumerate(counts) if c]
        for a, b in zip(filled, filled[1:]):
            if 1 < b - a <= hold_bins + 1:
                for i in range(a + 1, b):
                    out[i] = out[a]
    return out
