"""Successive `/metrics` scrapes -> `ServerMetrics`: what the metrics pane shows for a server.

Gauges are shown as read. Counters become rates between the last two scrapes. Histograms
become p50 / p90 / p99 over a window, from the bucket deltas between the newest scrape and
the oldest one inside the window. A counter that goes down means the server restarted: the
fold starts a new run (no negative rate, no window across the restart).

Plain Python, no I/O: the scraper (sources/metrics/scrape.py) feeds it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from cockpit.parse.metrics.events import MetricsEvent, MetricsScrapeFailed
from cockpit.parse.metrics.prom_histogram import Histogram
from cockpit.parse.metrics.sglang_metrics import ServerScrape, sglang_scrape

QUANTILES: tuple[tuple[str, float], ...] = (("p50", 0.50), ("p90", 0.90), ("p99", 0.99))
# pane name -> histogram names, first present wins (0.3.x: time_per_output_token_seconds)
LATENCIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ttft", ("time_to_first_token_seconds",)),
    ("itl", ("inter_token_latency_seconds", "time_per_output_token_seconds")),
    ("e2e", ("e2e_request_latency_seconds",)),
)
RATES: tuple[tuple[str, str], ...] = (
    ("prompt_tokens_per_s", "prompt_tokens_total"),
    ("generation_tokens_per_s", "generation_tokens_total"),
    ("requests_per_s", "num_requests_total"),
    # newer SGLang families, where the server has them (0.5.x)
    ("retracted_per_s", "num_retracted_requests_total"),
    ("gpu_busy", "forward_execution_seconds_total"),
    ("gpu_busy", "gpu_execution_seconds_total"),
    ("flops_per_s", "estimated_flops_per_gpu_total"),
    ("read_bytes_per_s", "estimated_read_bytes_per_gpu_total"),
)

Percentiles = Mapping[str, float | None]


@dataclass(frozen=True, slots=True)
class ServerMetrics:
    """One view of a server's metrics; latencies in seconds. Plain dicts (never mutated), so
    it pickles: a folding process can hand it to the UI process as MetricsSnapshot is."""

    state: str = "waiting"
    """waiting (no scrape yet), ok, failing (the last scrape failed), not-sglang."""
    at: float | None = None
    """When the last good scrape was taken (the fold's clock)."""
    gauges: Mapping[str, float] = field(default_factory=dict)
    rates: Mapping[str, float] = field(default_factory=dict)
    """Per second between the last two scrapes of this run; empty after the first scrape."""
    latency: Mapping[str, Percentiles] = field(default_factory=dict)
    """ttft / itl / e2e -> p50 / p90 / p99 over the window (None: no request finished in it)."""
    latency_all: Mapping[str, Percentiles] = field(default_factory=dict)
    """The same since the server started (the cumulative histograms of the last scrape)."""
    window_s: float = 60.0
    window_span_s: float = 0.0
    """How much of the window the scrapes of this run cover so far."""
    run_index: int = 0
    """Counts server restarts seen (counter resets); 0 for the first run."""
    missing: tuple[str, ...] = ()
    gauges_by_dp: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """gauge -> dp_rank -> value (the per-rank figures of data-parallel servers)."""
    graph_passes: Mapping[str, float] = field(default_factory=dict)
    """cuda_graph_passes_total by mode (decode_cuda_graph, decode_none, ...), cumulative."""
    error: str | None = None
    failures: int = 0
    """Consecutive failed scrapes."""
    scrapes: int = 0
    models: tuple[str, ...] = ()


def _percentiles(h: Histogram | None) -> dict[str, float | None]:
    return {name: (h.quantile(q) if h is not None else None) for name, q in QUANTILES}


def _pick(scrape: ServerScrape, names: tuple[str, ...]) -> Histogram | None:
    return next((scrape.histograms[n] for n in names if n in scrape.histograms), None)


def _reset(old: ServerScrape, new: ServerScrape) -> bool:
    """A counter or a histogram count went down: the server behind the URL restarted."""
    if any(new.counters[k] < v for k, v in old.counters.items() if k in new.counters):
        return True
    return any(new.histograms[k].count < h.count for k, h in old.histograms.items() if k in new.histograms)


class ServerMetricsFold:
    """Folds scrapes (with the time each was taken) into `ServerMetrics` snapshots."""

    def __init__(self, window_s: float = 60.0) -> None:
        self.window_s = window_s
        self._history: deque[tuple[float, ServerScrape]] = deque()
        self._run = 0
        self._scrapes = 0
        self._failures = 0
        self._error: str | None = None
        self._last = ServerMetrics(window_s=window_s)

    @property
    def snapshot(self) -> ServerMetrics:
        return self._last

    @property
    def scrapes(self) -> tuple[ServerScrape, ...]:
        """The scrapes of this server run in the window (and one before it), oldest first:
        what the diagnosis reads (counters first to last, gauges over the window)."""
        return tuple(scrape for _t, scrape in self._history)

    def failed(self, reason: str) -> ServerMetrics:
        """A scrape failed or timed out: the figures stay (they age), the state says so."""
        self._failures += 1
        self._error = reason
        self._last = replace(self._last, state="failing", error=reason, failures=self._failures)
        return self._last

    def feed(self, event: MetricsEvent) -> ServerMetrics:
        """Fold one scraper event (sources/metrics/scrape.py), on the scraper's clock."""
        if isinstance(event, MetricsScrapeFailed):
            return self.failed(event.reason)
        return self.add(sglang_scrape(event.exposition), event.taken_at)

    def add(self, scrape: ServerScrape, t: float) -> ServerMetrics:
        self._scrapes += 1
        self._failures, self._error = 0, None
        if self._history and (_reset(self._history[-1][1], scrape) or t <= self._history[-1][0]):
            self._run += 1 if _reset(self._history[-1][1], scrape) else 0
            self._history.clear()
        self._history.append((t, scrape))
        while len(self._history) > 2 and self._history[1][0] <= t - self.window_s:
            self._history.popleft()  # keep one scrape at or before the window's start
        rates: dict[str, float] = {}
        if len(self._history) >= 2:
            (t0, prev), (t1, cur) = self._history[-2], self._history[-1]
            for name, counter in RATES:
                if counter in cur.counters and counter in prev.counters:
                    rates[name] = (cur.counters[counter] - prev.counters[counter]) / (t1 - t0)
        first_t, first = self._history[0]
        latency: dict[str, Percentiles] = {}
        latency_all: dict[str, Percentiles] = {}
        for pane, names in LATENCIES:
            newest = _pick(scrape, names)
            if newest is None:
                continue
            latency_all[pane] = dict(_percentiles(newest))
            older = _pick(first, names) if len(self._history) >= 2 else None
            delta = newest.minus(older) if older is not None else None
            latency[pane] = dict(_percentiles(delta))
        self._last = ServerMetrics(
            state="ok" if scrape.is_sglang else "not-sglang", at=t,
            gauges=scrape.gauges, rates=dict(rates),
            latency=dict(latency), latency_all=dict(latency_all),
            window_s=self.window_s, window_span_s=t - first_t, run_index=self._run,
            missing=scrape.missing, scrapes=self._scrapes, models=scrape.models,
            gauges_by_dp=scrape.gauges_by_dp, graph_passes=dict(scrape.by_label.get("cuda_graph_passes_total", {})),
        )
        return self._last

