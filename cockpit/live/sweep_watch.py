"""What cockpit saw while one sweep point ran: GPU power (mean, peak, share of the summed
limits), the server log's peak running and queued requests, the error labels it showed,
and the server's own TTFT / ITL percentiles over the point (its `/metrics` at the point's
start, or when the client's main run started, and end; live/sweep_server_metrics.py). Fed by whatever samples GPUs and follows the
log (the TUI's feeds, the CLI's own) and by the runner's two scrapes; pure arithmetic, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cockpit.live.sweep_server_metrics import window_fields
from cockpit.parse.gpu_sample import GpuSample
from cockpit.parse.log_events import DecodeBatch, ErrorBlock, ErrorLine, LogEvent, PrefillBatch
from cockpit.parse.sglang_metrics import ServerScrape

__all__ = ["PointWatch"]


class PointWatch:
    """Folds GPU ticks and log events of one point; `fields()` gives the Benchmark fields."""

    def __init__(self) -> None:
        self.tick_power: list[float] = []
        """Summed draw of the host's GPUs, one value per tick."""
        self.limit_w: float | None = None
        self.peak_running: int | None = None
        self.peak_queued: int | None = None
        self.error_labels: set[str] = set()
        self.server_start: ServerScrape | None = None
        self.server_end: ServerScrape | None = None
        """The server's `/metrics` just before the client started and just after it exited."""
        self.server_main: ServerScrape | None = None
        """The server's `/metrics` when the client said its main run started (its warm-up
        answered): the window starts there. None: not said, or not read then."""

    def gpu_tick(self, samples: Iterable[GpuSample]) -> None:
        """One tick: every GPU of the host at one instant. A tick where a GPU's draw is
        unknown is left out (a partial sum would read as a power drop)."""
        draws = [s.power_w for s in samples]
        if not draws or any(d is None for d in draws):
            return
        self.tick_power.append(sum(float(d) for d in draws if d is not None))
        limits = [s.power_limit_w for s in samples]
        if all(limits):
            self.limit_w = sum(float(x) for x in limits if x)

    def log_event(self, event: LogEvent | Any) -> None:
        if isinstance(event, (PrefillBatch, DecodeBatch)):
            if event.running_req is not None:
                self.peak_running = max(self.peak_running or 0, event.running_req)
            if event.queue_req is not None:
                self.peak_queued = max(self.peak_queued or 0, event.queue_req)
        elif isinstance(event, (ErrorLine, ErrorBlock)):
            self.error_labels.update(event.labels)

    def fields(self, *, total_tokens: int | None, duration_s: float | None,
               total_tok_s: float | None = None) -> dict[str, Any]:
        """Power figures, log peaks and the server's percentiles over the point; tokens per
        joule = tokens / (mean power x duration), i.e. total tok/s / mean power: the tool's
        own throughput when it gives one (its duration is rounded to the millisecond, which
        is percents of a short point)."""
        out: dict[str, Any] = {}
        if self.tick_power:
            mean = sum(self.tick_power) / len(self.tick_power)
            out["power_mean_w"] = round(mean, 1)
            out["power_peak_w"] = round(max(self.tick_power), 1)
            if self.limit_w:
                out["power_share"] = round(mean / self.limit_w, 4)
            if total_tok_s and mean > 0:
                out["tok_per_joule"] = round(total_tok_s / mean, 4)
            elif total_tokens and duration_s and mean > 0:
                out["tok_per_joule"] = round(total_tokens / (mean * duration_s), 4)
        if self.peak_running is not None:
            out["peak_running"] = self.peak_running
        if self.peak_queued is not None:
            out["peak_queued"] = self.peak_queued
        if self.error_labels:
            out["error_labels"] = sorted(self.error_labels)
        out.update(window_fields(self.server_start, self.server_end, main=self.server_main))
        return out
