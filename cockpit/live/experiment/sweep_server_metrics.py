"""The server's own latency percentiles over one sweep point.

The runner reads the server's `/metrics` just before a point's client starts and just after
it exits; the TTFT and ITL histograms' bucket deltas between those two scrapes are exactly
the observations the server made during the point (SGLang observes a request's latencies
before it answers, so nothing of the point arrives after the client has exited). When the
client says its main run starts (after its warm-up answered), the runner reads it once more
and the window starts there (`main`): the warm-up's latencies are left out.

* TTFT from `sglang:time_to_first_token_seconds`; ITL from `sglang:inter_token_latency_seconds`,
  else 0.3.x's `sglang:time_per_output_token_seconds` (the metrics pane's mapping,
  live/metrics/server_metrics.py `LATENCIES`). Ranks are combined as parse/metrics/sglang_metrics.py does.
* A counter or histogram count that went down between the two (the server restarted):
  no figures for the point, never negative ones.
* No endpoint (HTTP 404: started without `--enable-metrics`; text without `sglang:`
  families): the probe stops asking for the rest of the sweep and says so once.

No Textual; the math (`window_fields`) is pure, the probe does the reading.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from cockpit.live.metrics.server_metrics import LATENCIES
from cockpit.parse.metrics.events import MetricsEvent, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import ExpositionCache
from cockpit.parse.metrics.sglang_metrics import ServerScrape, sglang_scrape

__all__ = ["ServerMetricsProbe", "metrics_url_for", "window_fields"]

_WINDOW = (("ttft", dict(LATENCIES)["ttft"]), ("itl", dict(LATENCIES)["itl"]))
_QUANTILES = (("p50", 0.50), ("p90", 0.90), ("p95", 0.95), ("p99", 0.99))
ENABLE_HINT = "run the server with --enable-metrics"


def _restarted(start: ServerScrape, end: ServerScrape) -> bool:
    """A counter or a histogram count went down: the server behind the URL restarted."""
    if any(end.counters[k] < v for k, v in start.counters.items() if k in end.counters):
        return True
    return any(end.histograms[k].count < h.count for k, h in start.histograms.items() if k in end.histograms)


def window_fields(start: ServerScrape | None, end: ServerScrape | None, *,
                  main: ServerScrape | None = None) -> dict[str, Any]:
    """`server_{ttft,itl}_{p50,p90,p95,p99}_ms` from the observations between `start` and `end`,
    each interpolated in its bucket as PromQL's `histogram_quantile` does, and `server_buckets`:
    per figure the bucket [lower, upper] ms it lies in (the measurement's resolution).

    `main`: the scrape taken when the client said its main run started; the window then
    starts there (the warm-up left out). Empty when a scrape is missing or the server
    restarted in between (from `start` on, `main` or not); a latency whose family the end
    lacks, or that saw no observation in the window, is left out."""
    if main is not None:
        if start is not None and _restarted(start, main):
            return {}
        start = main
    if start is None or end is None or _restarted(start, end):
        return {}
    out: dict[str, Any] = {}
    buckets: dict[str, list[float]] = {}
    for short, names in _WINDOW:
        # the first family the server has (0.3.x: time_per_output_token_seconds for ITL)
        name = next((n for n in names if n in end.histograms), None)
        if name is None:
            continue
        # SGLang's histograms are labelled: a family shows only after its first observation,
        # so one absent at the start (a fresh server) means nothing observed before the point
        before = start.histograms.get(name)
        delta = end.histograms[name] if before is None else end.histograms[name].minus(before)
        if delta is None:  # bounds changed or a bucket went down: a restart
            return {}
        for qname, q in _QUANTILES:
            value, bucket = delta.quantile(q), delta.bucket(q)
            if value is not None:
                out[f"server_{short}_{qname}_ms"] = round(value * 1000.0, 3)
                if bucket is not None and math.isfinite(bucket[1]):  # the +Inf bucket: the value is its floor
                    buckets[f"server_{short}_{qname}_ms"] = [round(b * 1000.0, 3) for b in bucket]
    if buckets:
        out["server_buckets"] = buckets
    return out


def metrics_url_for(host: object, server: str, port: int) -> str:
    """The host's `metrics_url`, else the profile's server's `/metrics`."""
    url = getattr(host, "metrics_url", None)
    if url:
        return str(url)
    name = f"[{server}]" if ":" in server else server
    return f"http://{name}:{port}/metrics"


class ServerMetricsProbe:
    """Reads the server's `/metrics` for the runner: `read()` gives a `ServerScrape` or None.

    `scrape` is one scrape as an event (sources/metrics/scrape.py `scrape_once`, bound to
    the URL and the host's SSH connection by the caller). `notice()` gives, once per sweep,
    the line that says why points carry no server percentiles."""

    def __init__(self, url: str, scrape: Callable[[ExpositionCache], Awaitable[MetricsEvent]]) -> None:
        self.url = url
        self._scrape = scrape
        self._cache = ExpositionCache()
        self.absent: str | None = None
        """Why the server has no metrics to read (set: no more reads this sweep)."""
        self._notice: str | None = None
        self._said = False

    async def read(self) -> ServerScrape | None:
        if self.absent is not None:
            return None
        event = await self._scrape(self._cache)
        if isinstance(event, MetricsScrapeFailed):
            if event.reason.startswith("HTTP 404") or "not Prometheus exposition" in event.reason:
                self._absent(f"{event.reason}")
            else:  # refused, timed out: this point goes without; the next one asks again
                self._say(f"server metrics not read from {self.url} ({event.reason}): "
                          "those points carry no server percentiles")
            return None
        scrape = sglang_scrape(event.exposition)
        if not scrape.is_sglang:
            self._absent("no sglang: metrics in the text")
            return None
        return scrape

    def _absent(self, reason: str) -> None:
        self.absent = reason
        self._say(f"the server exposes no metrics at {self.url} ({reason}): {ENABLE_HINT} "
                  "for server-side TTFT/ITL percentiles per point")

    def _say(self, text: str) -> None:
        if not self._said and self._notice is None:
            self._notice = text

    def notice(self) -> str | None:
        """The line to say, the first time there is one; None after (and before)."""
        text, self._notice = self._notice, None
        if text is not None:
            self._said = True
        return text
