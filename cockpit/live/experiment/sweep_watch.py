"""What cockpit saw while one sweep point ran: GPU power (mean, peak, share of the summed
limits) and the server log's peak running and queued requests over the measured run (the
client's main run, not its start-up), the error labels it showed,
and the server's own TTFT / ITL percentiles over the point (its `/metrics` at the point's
start, or when the client's main run started, and end;
live/experiment/sweep_server_metrics.py). Fed by whatever samples GPUs and follows the log
(the TUI's feeds, the CLI's own) and by the runner's two scrapes; pure arithmetic, no I/O.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cockpit.live.experiment.sweep_server_metrics import window_fields
from cockpit.live.gpu.power_history import tok_per_joule
from cockpit.live.log.items import BLOCK, ERROR_LINE, LogLines
from cockpit.model.bench.energy_audit import (
    FROM_REQUESTS,
    FROM_RUNNING,
    PowerSample,
    WindowEnergy,
    audit_window,
    replay_closed_loop,
    steady_from_first_tokens,
    steady_from_running,
    tokens_between,
)
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.events import DecodeBatch, ErrorBlock, ErrorLine, LogEvent, PrefillBatch
from cockpit.parse.metrics.sglang_metrics import ServerScrape

__all__ = ["NO_MAIN_RUN_NOTE", "NO_POWER_DEFAULT", "NO_STEADY_TOKENS_NOTE", "UNALIGNED_TIMINGS_NOTE", "PointWatch",
           "too_few_requests_note"]


NO_MAIN_RUN_NOTE = ("power and log peaks cover the whole client run, its start-up included (no main-run start "
                    "line seen in time)")
NO_POWER_DEFAULT = "the GPU source gave no samples during the run"
_FROM_RUNNING_NOTE = "steady tok/J not known: the steady window comes from the server's running count, and "
NO_STEADY_TOKENS_NOTE = (_FROM_RUNNING_NOTE + "tokens inside it need the client's per-request timings (add "
                         "--output-details to the sweep's extra args)")
UNALIGNED_TIMINGS_NOTE = (_FROM_RUNNING_NOTE + "the client's per-request timings did not line up with its requests "
                          "(a failed request, or lists of unequal length)")
UNPLACED_TIMINGS_NOTE = (_FROM_RUNNING_NOTE + "the client's per-request timings cannot be placed without its main "
                         "run's start line (not seen)")


def too_few_requests_note(requests: int, concurrency: int) -> str:
    """The client timed every request, but too few for a steady window of their own (ML.ENERGY's:
    the first and last `concurrency` first tokens are the ramp-up and the drain)."""
    return (f"steady tok/J not known: {requests} requests at concurrency {concurrency} leave no steady window "
            f"between the ramp-up's and the drain's {concurrency} first tokens (more than {2 * concurrency} "
            f"requests needed: raise the sweep's prompts per concurrency); the steady power is from the "
            f"server's running count")


class _Fold:
    """GPU draw and log peaks over one stretch of the point."""

    def __init__(self) -> None:
        self.tick_power: list[float] = []
        """Summed draw of the host's GPUs, one value per tick."""
        self.ticks: list[PowerSample] = []
        """The same ticks with their time and the GPUs' summed energy counter (J)."""
        self.limit_w: float | None = None
        self.peak_running: int | None = None
        self.peak_queued: int | None = None

    def tick(self, draw: float, limit_w: float | None, sample: PowerSample | None = None) -> None:
        self.tick_power.append(draw)
        if sample is not None:
            self.ticks.append(sample)
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

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        """Seconds since the epoch, as GPU samples are stamped: where the windows begin and end."""
        self.run_start: float | None = None
        self.run_end: float | None = None
        """The measured run's start (the window's last (re)opening) and end, on `clock`."""
        self.clock_offsets: list[float] = []
        """Per tick: its samples' time minus when it arrived (a remote host's clock, a source's lag)."""
        self.running: list[tuple[float, int]] = []
        """(arrival, running requests) as the server's log said them: the steady window without
        the client's per-request timings."""
        self.gpu_source: str | None = None
        """The GPU source in words (`nvml every 1 s`), said in the energy check."""
        self._steady_note: str | None = None
        """Why the steady window has no tok/J, or no window at all (set by `fields`)."""
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
            self.run_start = self.clock()

    def restart_window(self) -> None:
        """The bar's first draw: the requests go out now; what came between is a pause."""
        if self.window == "open" and self.run is not None:
            fresh = _Fold()
            fresh.peak_running, fresh.peak_queued = self.run.peak_running, self.run.peak_queued
            self.run, self.window = fresh, "restarted"
            self.run_start = self.clock()

    def close_window(self) -> None:
        if self.window in ("open", "restarted"):
            self.window = "closed"
            self.run_end = self.clock()

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
        arrived = self.clock()
        stamps = [float(s.timestamp) for s in samples if s.timestamp is not None]
        t = max(stamps) if stamps else arrived
        self.clock_offsets.append(t - arrived)
        energies = [s.energy_mj for s in samples]
        energy = sum(float(e) for e in energies if e is not None) / 1000.0 if all(e is not None for e in energies) else None
        # an averaged draw describes the middle of its window (model/bench/energy_audit.py)
        lag = max(float(s.power_window_s or 0.0) for s in samples) / 2
        sample = PowerSample(t, draw, energy, watts_at=t - lag if lag else None)
        self.whole.tick(draw, limit, sample)
        if self.run is not None and self.window != "closed":
            self.run.tick(draw, limit, sample)

    def log_event(self, event: LogEvent | object) -> None:
        if isinstance(event, (PrefillBatch, DecodeBatch)):
            if event.running_req is not None:
                self.running.append((self.clock(), event.running_req))
            self.whole.batch(event)
            if self.run is not None:
                self.run.batch(event)
        elif isinstance(event, (ErrorLine, ErrorBlock)):
            self.error_labels.update(event.labels)

    def log_lines(self, item: LogLines) -> None:
        """A log pipeline's rows (control/log_pipeline.py, the panes' own): their batch peaks
        and error labels, as `log_event` folds them from the events (no second parse)."""
        if item.preview:  # the backlog of a first read: from before the point
            return
        running, queued = item.peaks
        if running is not None:  # the most these lines said, at their arrival
            self.running.append((self.clock(), running))
        if running is not None or queued is not None:
            self.whole.peaks(running, queued)
            if self.run is not None:
                self.run.peaks(running, queued)
        for segment in item.segments:
            if segment[0] in (ERROR_LINE, BLOCK):
                self.error_labels.update(segment[2])

    # -- the record -------------------------------------------------------------------------------
    def fields(self, *, total_tokens: int | None, duration_s: float | None,
               total_tok_s: float | None = None, output_tok_s: float | None = None,
               details: Mapping[str, Any] | None = None, concurrency: int | None = None) -> dict[str, object]:
        """Power figures, log peaks and the server's percentiles over the point; tokens per
        joule = tokens / (mean power x duration), i.e. tok/s / mean power: the tool's own
        throughput when it gives one (its duration is rounded to the millisecond, which is
        percents of a short point). `tok_per_joule` counts input and output tokens,
        `output_tok_per_joule` the generated ones only. The mean power is ∫ W dt over the
        seconds the samples span (model/bench/energy_audit.py), not a mean of ticks; beside
        it the energy of the run by integral and by the GPUs' counter, the check of one
        against the other, and the steady-state window's own figures (`steady_*`), from the
        client's per-request timings (`details`: its --output-details lists) or else from
        the server's running count."""
        fold = self.run if self.run is not None else self.whole
        out: dict[str, object] = {}
        self._steady_note = None
        if fold.tick_power:
            main = self._main_window(fold)
            mean = main.mean_w if main is not None and main.mean_w is not None else (
                sum(fold.tick_power) / len(fold.tick_power))
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
            if main is not None:
                out.update(_energy_fields("energy", main))
                out.update(self._steady_fields(details, concurrency))
        if fold.peak_running is not None:
            out["peak_running"] = fold.peak_running
        if fold.peak_queued is not None:
            out["peak_queued"] = fold.peak_queued
        if self.error_labels:
            out["error_labels"] = sorted(self.error_labels)
        out.update(window_fields(self.server_start, self.server_end, main=self.server_main))
        return out

    # -- energy over windows ----------------------------------------------------------------------
    def _offset(self) -> float:
        """The samples' clock minus the watch's: where a window on the watch's clock lies
        among the samples' timestamps."""
        return statistics.median(self.clock_offsets) if self.clock_offsets else 0.0

    def _audit(self, start: float, end: float) -> WindowEnergy:
        """A window on the watch's clock, audited over every tick seen (the ticks just outside
        it give its edges)."""
        off = self._offset()
        return audit_window(self.whole.ticks, start + off, end + off, source=self.gpu_source or "GPU source")

    def _main_window(self, fold: _Fold) -> WindowEnergy | None:
        if self.run is not None and self.run_start is not None:
            end = self.run_end if self.run_end is not None else self.clock()
            if end > self.run_start:
                return self._audit(self.run_start, end)
        if len(fold.ticks) >= 2:  # no main-run line: the whole client run, as its ticks span it
            off = self._offset()
            return self._audit(fold.ticks[0].t - off, fold.ticks[-1].t - off)
        return None

    def _steady_fields(self, details: Mapping[str, Any] | None, concurrency: int | None) -> dict[str, object]:
        window: tuple[float, float] | None = None
        tokens = input_tokens = None
        source = None
        requests = _requests(details, concurrency) if self.run_start is not None else None
        # why the client's timings gave no window: said when the tokens inside the log's window go unknown
        no_tokens = (NO_STEADY_TOKENS_NOTE if not (details or {}).get("ttfts") else
                     UNPLACED_TIMINGS_NOTE if self.run_start is None else UNALIGNED_TIMINGS_NOTE)
        if requests is not None and concurrency:
            times, input_lens = requests
            rel = steady_from_first_tokens([r.first_token for r in times], concurrency)
            if rel is None:
                no_tokens = too_few_requests_note(len(times), concurrency)
            else:
                window, source = (self.run_start + rel[0], self.run_start + rel[1]), FROM_REQUESTS  # type: ignore[operator]
                tokens = tokens_between(times, *rel)
                input_tokens = sum(n for r, n in zip(times, input_lens) if rel[0] <= r.first_token <= rel[1])
        if window is None:
            start = self.run_start if self.run_start is not None else float("-inf")
            end = self.run_end if self.run_end is not None else float("inf")
            window = steady_from_running([(t, n) for t, n in self.running if start <= t <= end], concurrency)
            source = FROM_RUNNING if window is not None else None
        if window is None or source is None:
            self._steady_note = ("no steady window: neither the client's per-request timings nor the server's "
                                 "running count gave one")
            return {}
        audit = self._audit(*window)
        out = {"steady_from": source, "steady_s": round(audit.duration_s, 3), **_energy_fields("steady", audit)}
        if audit.mean_w is not None:
            out["steady_power_w"] = round(audit.mean_w, 1)
        if tokens is not None and (output := audit.tok_per_joule(tokens)) is not None:
            out["steady_output_tok_per_joule"] = round(output, 4)
            if (total := audit.tok_per_joule(tokens + (input_tokens or 0))) is not None:
                out["steady_tok_per_joule"] = round(total, 4)
        elif source == FROM_RUNNING:
            self._steady_note = no_tokens
        return out

    def notes(self, *, no_power_reason: str | None = None, no_log_reason: str | None = None) -> list[str]:
        """What the record goes without: the main-run window, power (one note, why), the log's
        peaks when its feed failed (why)."""
        out = []
        if self.run is None:
            out.append(NO_MAIN_RUN_NOTE)
        if self._steady_note:
            out.append(self._steady_note)
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


def _energy_fields(prefix: str, audit: WindowEnergy) -> dict[str, object]:
    """`<prefix>_j` (∫ W dt over the window), `<prefix>_counter_j` (the GPUs' counter over
    its readings in the window), `<prefix>_check` (source, interval, coverage, integral vs
    counter) and `<prefix>_flagged` (coverage under 90 % or a disagreement over 2 %)."""
    out: dict[str, object] = {f"{prefix}_check": audit.check_text(), f"{prefix}_flagged": not audit.valid}
    if (energy := audit.window_j) is not None:
        out[f"{prefix}_j"] = round(energy, 1)
    if audit.counter_j is not None:
        out[f"{prefix}_counter_j"] = round(audit.counter_j, 1)
    return out


def _requests(details: Mapping[str, Any] | None, concurrency: int | None) -> tuple[list[Any], list[int]] | None:
    """The client's per-request timings replayed (closed loop at `concurrency`), with each
    request's input length; None when the record has none (no --output-details) or they
    do not line up."""
    if not details or not concurrency:
        return None
    ttfts, itls = details.get("ttfts"), details.get("itls")
    errors = details.get("errors") or []
    if not isinstance(ttfts, list) or not isinstance(itls, list) or len(ttfts) != len(itls) or not ttfts:
        return None
    if any(errors):  # a failed request's timings are zeros: the replay would place it wrongly
        return None
    try:
        output_lens = [int(n) for n in details.get("output_lens") or []] or None
        input_lens = [int(n) for n in details.get("input_lens") or []] or [0] * len(ttfts)
        times = replay_closed_loop([float(t) for t in ttfts], [[float(g) for g in row] for row in itls], concurrency,
                                   output_lens=output_lens)
    except (TypeError, ValueError):
        return None
    return times, input_lens
