"""What cockpit saw while one sweep point ran: GPU power (mean, peak, share of the summed
limits) and the server log's peak running and queued requests over the measured run (the
client's main run, not its start-up), the error labels it showed,
and the server's own TTFT / ITL percentiles over the point (its `/metrics` at the point's
start, or when the client's main run started, and end;
live/experiment/sweep_server_metrics.py). Fed by whatever samples GPUs and follows the log
(the TUI's feeds, the CLI's own) and by the runner's two scrapes; pure arithmetic, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cockpit.live.experiment.sweep_server_metrics import window_fields
from cockpit.live.gpu.power_history import tok_per_joule
from cockpit.live.log.log_items import BLOCK, ERROR_LINE, LogLines
from cockpit.parse.gpu.gpu_sample import GpuSample
from cockpit.parse.log.log_events import DecodeBatch, ErrorBlock, ErrorLine, LogEvent, PrefillBatch
from cockpit.parse.metrics.sglang_metrics import ServerScrape

__all__ = ["NO_MAIN_RUN_NOTE", "NO_POWER_DEFAULT", "PointWatch"]


NO_MAIN_RUN_NOTE = ("power and log peaks cover the whole client run, its start-up included (no main-run start "
                    "line seen in time)")
NO_POWER_DEFAULT = "the GPU source gave no samples during the run"


class _Fold:
    """GPU draw and log peaks over one stretch of the point."""

    def __init__(self) -> None:
        self.tick_power: list[float] = []
        """Summed draw of the host's GPUs, one value per tick."""
        self.limit_w: float | None = None
        self.peak_running: int | None = None
        self.peak_queued: int | None = None

    def tick(self, draw: float, limit_w: float | None) -> None:
        self.tick_power.append(draw)
        if limit_w:
            self.limit_w = limit_w

    def batch(self, event: PrefillBatch | DecodeBatch) -> None:
        self.peaks(event.running_req, event.queue_req)

    def peaks(self, running: int | None, queued: int | None) -> None:
        if running is not None:
            self.peak_running = max(self.peak_running or 0, running)
        if queued is not None:
            self.peak_queued = max(self.peak_queued or 0, queued)


class PointWatch:
    """Folds GPU ticks and log events of one point; `fields()` gives the Benchmark fields.

    The measured run is a window inside the client's life: `open_window()` at its main-run
    line (the warm-up answered; the imports, dataset load and warm-up left out),
    `restart_window()` when the main run's progress bar first shows (newer clients pause
    1 s after that line), `close_window()` at its last request (the bar at n/n, the result
    block, or the client's exit). Power and the log peaks are the window's; without a
    window (a client that never says it), the whole client run's, with a note. Log
    batches count from the window's opening until the runner detaches the watch: a tail
    delivers the run's last lines after the client exits."""

    def __init__(self) -> None:
        self.whole = _Fold()
        """Everything from the client's start."""
        self.run: _Fold | None = None
        """The measured run (None: its start line not seen)."""
        self.window: str | None = None
        """None, "open", "restarted" (moved to the bar's first draw), "closed"."""
        self.error_labels: set[str] = set()
        self.server_start: ServerScrape | None = None
        self.server_end: ServerScrape | None = None
        """The server's `/metrics` just before the client started and just after it exited."""
        self.server_main: ServerScrape | None = None
        """The server's `/metrics` when the client said its main run started (its warm-up
        answered): the window starts there. None: not said, or not read then."""

    # -- the window ---------------------------------------------------------------------------
    def open_window(self) -> None:
        if self.window is None:
            self.window, self.run = "open", _Fold()

    def restart_window(self) -> None:
        """The bar's first draw: the requests go out now; what came between is a pause."""
        if self.window == "open" and self.run is not None:
            fresh = _Fold()
            fresh.peak_running, fresh.peak_queued = self.run.peak_running, self.run.peak_queued
            self.run, self.window = fresh, "restarted"

    def close_window(self) -> None:
        if self.window in ("open", "restarted"):
            self.window = "closed"

    @property
    def measured(self) -> bool:
        """The window opened: the figures are the main run's."""
        return self.run is not None

    # -- observations ---------------------------------------------------------------------------
    def gpu_tick(self, samples: Iterable[GpuSample]) -> None:
        """One tick: every GPU of the host at one instant. A tick where a GPU's draw is
        unknown is left out (a partial sum would read as a power drop)."""
        samples = list(samples)
        draws = [s.power_w for s in samples]
        if not draws or any(d is None for d in draws):
            return
        draw = sum(float(d) for d in draws if d is not None)
        limits = [s.power_limit_w for s in samples]
        limit = sum(float(x) for x in limits if x) if all(limits) else None
        self.whole.tick(draw, limit)
        if self.run is not None and self.window != "closed":
            self.run.tick(draw, limit)

    def log_event(self, event: LogEvent | Any) -> None:
        if isinstance(event, (PrefillBatch, DecodeBatch)):
            self.whole.batch(event)
            if self.run is not None:
                self.run.batch(event)
        elif isinstance(event, (ErrorLine, ErrorBlock)):
            self.error_labels.update(event.labels)

    def log_lines(self, item: LogLines) -> None:
        """A log pipeline's rows (live/log/log_pipeline.py, the panes' own): their batch peaks
        and error labels, as `log_event` folds them from the events (no second parse)."""
        if item.preview:  # the backlog of a first read: from before the point
            return
        running, queued = item.peaks
        if running is not None or queued is not None:
            self.whole.peaks(running, queued)
            if self.run is not None:
                self.run.peaks(running, queued)
        for segment in item.segments:
            if segment[0] in (ERROR_LINE, BLOCK):
                self.error_labels.update(segment[2])

    # -- the record -------------------------------------------------------------------------------
    def fields(self, *, total_tokens: int | None, duration_s: float | None,
               total_tok_s: float | None = None, output_tok_s: float | None = None) -> dict[str, Any]:
        """Power figures, log peaks and the server's percentiles over the point; tokens per
        joule = tokens / (mean power x duration), i.e. tok/s / mean power: the tool's own
        throughput when it gives one (its duration is rounded to the millisecond, which is
        percents of a short point). `tok_per_joule` counts input and output tokens,
        `output_tok_per_joule` the generated ones only."""
        fold = self.run if self.run is not None else self.whole
        out: dict[str, Any] = {}
        if fold.tick_power:
            mean = sum(fold.tick_power) / len(fold.tick_power)
            out["power_mean_w"] = round(mean, 1)
            out["power_peak_w"] = round(max(fold.tick_power), 1)
            if fold.limit_w:
                out["power_share"] = round(mean / fold.limit_w, 4)
            # live/power_history.tok_per_joule, the GPU pane's too: per second, or over the run
            total = (tok_per_joule(total_tok_s, mean) if total_tok_s else
                     tok_per_joule(total_tokens, mean * duration_s) if total_tokens and duration_s else None)
            if total is not None:
                out["tok_per_joule"] = round(total, 4)
            if output_tok_s and (output := tok_per_joule(output_tok_s, mean)) is not None:
                out["output_tok_per_joule"] = round(output, 4)
        if fold.peak_running is not None:
            out["peak_running"] = fold.peak_running
        if fold.peak_queued is not None:
            out["peak_queued"] = fold.peak_queued
        if self.error_labels:
            out["error_labels"] = sorted(self.error_labels)
        out.update(window_fields(self.server_start, self.server_end, main=self.server_main))
        return out

    def notes(self, *, no_power_reason: str | None = None, no_log_reason: str | None = None) -> list[str]:
        """What the record goes without: the main-run window, power (one note, why), the log's
        peaks when its feed failed (why)."""
        out = []
        if self.run is None:
            out.append(NO_MAIN_RUN_NOTE)
        fold = self.run if self.run is not None else self.whole
        if not fold.tick_power:
            if self.whole.tick_power:  # samples came, none inside the run: it was shorter than a tick
                out.append("no power: no GPU sample came inside the main run (shorter than the GPU source's "
                           "interval? lower the host's gpu_interval_s)")
            else:
                out.append(f"no power: {no_power_reason or NO_POWER_DEFAULT}")
        if no_log_reason and fold.peak_running is None and fold.peak_queued is None:
            out.append(f"no log peaks: {no_log_reason}")
        return out
