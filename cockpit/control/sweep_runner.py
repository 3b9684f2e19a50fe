"""Run a sweep on a running launch profile: per point, the SGLang bench client on the host
(sources/server/bench_hosts.py), its result read from the JSONL file it appends (its stdout block as a
fallback), recorded as a Benchmark tied to the profile with what cockpit saw meanwhile
(sweep_watch). No Textual: the TUI and `cockpit sweep` drive the same runner.

* Progress: `on_event` gets PointStarted / PointProgress / PointRetrying / PointRecorded /
  PointSkipped / PointFailed, then SweepFinished; a SweepNote says once what the sweep
  records without (a server that exposes no metrics).
* Observations: call `gpu_tick(samples)` and `log_event(event)` from the GPU and log feeds;
  they count for the point running at the time. With `server_metrics` (a
  ServerMetricsProbe), the server's `/metrics` is read just before each client starts and
  just after it exits: the point's server-side TTFT / ITL percentiles (sweep_server_metrics).
  When the client prints its main-run line (`main_run_line`: its warm-up answered), the
  start is read again then, so the warm-up is left out; without that line (another client)
  the window keeps the warm-up and the benchmark's notes say so.
* Power: the GPU ticks and log batches count for the point's measured run only, from the
  client's main-run line (moved to its progress bar's first draw, after newer clients' 1 s
  pause) to its last request (the bar at n/n, the result block, or its exit); the imports
  and warm-up before are left out (sweep_watch). Without the line, the whole client run,
  said in the notes; without any GPU sample, one note says why (`gpu_unavailable`).
* A failed point (the client gave no result, every request failed, or `server_health`
  says the server stopped answering) is never recorded: PointFailed, and with
  `on_fail="stop"` (the default) the points after it are not run (`SweepOutcome.not_run`).
* Cancel: `cancel()` kills the running client; points already recorded stay.
* A dropped link during a point: the runner waits for it to come back, records the point
  if its record reached the host's file before the drop, else kills what is left and runs
  the point once more; then marks it failed. Each point has a key (sweep, run, concurrency)
  and a key already recorded is never recorded again.

Beside it: the events it says (sweep_events), a point's record and where it goes
(sweep_sink), the client's output as it is read (sweep_client_output).
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from cockpit.live.experiment.sweep_client_output import ClientOutput
from cockpit.live.experiment.sweep_events import (
    PointFailed,
    PointProgress,
    PointRecorded,
    PointRetrying,
    PointSkipped,
    PointStarted,
    SweepEvent,
    SweepFinished,
    SweepNote,
    SweepOutcome,
)
from cockpit.live.experiment.sweep_plan import PlannedPoint, SweepPlan
from cockpit.live.experiment.sweep_server_metrics import ServerMetricsProbe
from cockpit.live.experiment.sweep_sink import PointSink, benchmark_fields
from cockpit.live.experiment.sweep_watch import PointWatch
from cockpit.live.log.items import LogLines
from cockpit.parse.bench.result_jsonl import BenchOutcome, from_record, from_stdout, last_record
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.metrics.sglang_metrics import ServerScrape
from cockpit.sources.server.bench_hosts import BenchHost, LinkLost

__all__ = ["ON_FAIL", "SweepRunner"]

_PROGRESS_EVERY_S = 0.2
ON_FAIL = ("stop", "skip")


class SweepRunner:
    def __init__(self, plan: SweepPlan, host: BenchHost, sink: PointSink, *,
                 on_event: Callable[[SweepEvent], Any] | None = None, clock: Callable[[], float] = time.monotonic,
                 retries: int = 1, server_metrics: ServerMetricsProbe | None = None,
                 log_settle_s: float = 0.3, on_fail: str = "stop",
                 server_health: Callable[[], Awaitable[str | None]] | None = None) -> None:
        """`on_fail`: "stop" (the points after a failed one are not run) or "skip" (they
        are). `server_health`: None when the server answers, else why not; asked before
        each point and after one that failed, so a dead server fails points, never records
        them."""
        if on_fail not in ON_FAIL:
            raise ValueError(f"on_fail is one of {', '.join(ON_FAIL)}, not {on_fail!r}")
        self.on_fail = on_fail
        self.server_health = server_health
        self.gpu_note: str | None = None
        """Why the GPU source gives nothing (set by whoever feeds `gpu_tick`): said in the
        notes of a point that got no power."""
        self.log_note: str | None = None
        """Why the server's log cannot be read (set by whoever feeds `log_lines`): said in the
        notes of a point that got no log peaks."""
        self.gpu_source: str | None = None
        """The GPU source in words (set by whoever feeds `gpu_tick`): said in each point's
        energy check."""
        self.plan = plan
        self.log_settle_s = log_settle_s
        self.host = host
        self.sink = sink
        self.on_event = on_event or (lambda event: None)
        self.clock = clock
        self.retries = retries
        self.server_metrics = server_metrics
        self.watch: PointWatch | None = None
        """The running point's observations (None between points)."""
        self.log_caught_up: Callable[[], Awaitable[None]] | None = None
        """Set by whoever feeds `log_lines` from a pipeline: waits until what its tail read
        is parsed and handed over (after `log_settle_s`, before the point's log is closed)."""
        self.current: PlannedPoint | None = None
        self._task: asyncio.Task[Any] | None = None
        self._cancelled = False

    # -- observations, from the feeds ----------------------------------------------------------
    def gpu_tick(self, samples: Iterable[GpuSample]) -> None:
        if self.watch is not None:
            if self.gpu_source is not None:
                self.watch.gpu_source = self.gpu_source
            self.watch.gpu_tick(samples)

    def log_event(self, event: Any) -> None:
        if self.watch is not None:
            self.watch.log_event(event)

    def log_lines(self, item: LogLines) -> None:
        """A LogLines of the host's log pipeline (the hub's, shared with the log pane)."""
        if self.watch is not None:
            self.watch.log_lines(item)

    def log_unavailable(self, reason: str) -> None:
        """The server's log feed failed (an unreachable host, a file it cannot read): why."""
        self.log_note = reason

    def gpu_unavailable(self, reason: str) -> None:
        """The GPU source cannot give samples (no driver, no exporter, no source): why."""
        self.gpu_note = reason

    # -- control ------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the sweep: the running client is killed; recorded points stay."""
        self._cancelled = True
        if self._task is not None:
            self._task.cancel()

    async def run(self) -> SweepOutcome:
        outcome = SweepOutcome()
        total = len(self.plan.points)
        for point in self.plan.points:
            if self._cancelled:
                break
            if outcome.failed and self.on_fail == "stop":
                outcome.not_run.append(point.concurrency)
                continue
            self.current = point
            self._task = asyncio.ensure_future(self._point(point, total, outcome))
            try:
                await self._task
            except asyncio.CancelledError:
                if not self._cancelled:  # run() itself was cancelled: not ours to swallow
                    raise
            finally:
                self._task = None
                self.watch = None
                self.current = None
        outcome.cancelled = self._cancelled
        self.on_event(SweepFinished(outcome))
        return outcome

    # -- one point --------------------------------------------------------------------------------
    async def _point(self, point: PlannedPoint, total: int, outcome: SweepOutcome) -> None:
        ident = self.sink.recorded(point.key)
        if ident is not None:
            outcome.recorded.append(ident)
            self.on_event(PointSkipped(point.index, total, point.concurrency, ident))
            return
        started = self.clock()
        reason = await self._server_down()
        for attempt in range(1, self.retries + 2):
            if reason:
                break
            result, reason = await self._attempt(point, total, attempt, started)
            if result is not None and not result[0].completed and result[0].completed is not None:
                # every request failed: no measurement of the server, whatever the figures say
                down = await self._server_down()
                reason = down or f"no request completed (0 of {point.prompts}): nothing measured"
                break
            if result is not None:
                try:
                    fields = benchmark_fields(self.plan, point, result[0], result[1],
                                              no_power_reason=self.gpu_note, no_log_reason=self.log_note)
                    ident = await self.sink.record(point.key, fields)
                except (OSError, ValueError) as exc:  # not saved, or a figure the model refuses
                    reason = f"not recorded: {exc}"
                    break
                outcome.recorded.append(ident)
                self.on_event(PointRecorded(point.index, total, point.concurrency, ident, fields,
                                            self.clock() - started, result[0].fields.get("duration_s"),
                                            result[2], result[0].source))
                return
            if reason.startswith("link lost") and attempt <= self.retries:
                self.on_event(PointRetrying(point.index, total, point.concurrency, reason))
                reason = ""
                continue
            reason = await self._server_down() or reason  # a dead server is the cause to say
            break
        outcome.failed.append((point.concurrency, reason))
        self.on_event(PointFailed(point.index, total, point.concurrency, reason, self.clock() - started))

    async def _server_down(self) -> str:
        """Why the server does not answer ("" when it does, or when nothing asks)."""
        if self.server_health is None:
            return ""
        why = await self.server_health()
        return f"the server stopped answering ({why})" if why else ""

    async def _attempt(self, point: PlannedPoint, total: int, attempt: int,
                       started: float) -> tuple[tuple[BenchOutcome, PointWatch, float | None] | None, str]:
        """One run of the client: (the result and what was seen, "") or (None, why not)."""
        main_scrape: list[asyncio.Future[Any]] = []
        try:
            return await self._run_client(point, total, attempt, started, main_scrape)
        finally:
            for task in main_scrape:  # awaited on every way out but a cancel: then it stops too
                task.cancel()

    async def _run_client(self, point: PlannedPoint, total: int, attempt: int, started: float,
                          main_scrape: list[asyncio.Future[Any]],
                          ) -> tuple[tuple[BenchOutcome, PointWatch, float | None] | None, str]:
        argv = self.plan.argv(point, attempt)
        out_file = point.output_file(self.plan.folder, attempt)
        pidfile = out_file + ".pid"
        output = ClientOutput()
        last_emit = [0.0]
        watch = PointWatch()

        def on_output(stream: str, text: str) -> None:
            changed = output.feed(stream, text)
            if output.main_run == "started":  # the measured run: power and log peaks from here
                watch.open_window()
                if output.sending:
                    watch.restart_window()
                if output.ended:
                    watch.close_window()
            if output.main_run == "started" and not main_scrape and self.server_metrics is not None:
                # The client prints this after its warm-up answered and before it sends the main
                # requests: a main-run observation can only land before this read if its first
                # token comes back faster than the line's trip here plus the read's round trip;
                # then it is left out, never a warm-up counted in (newer sglang sleeps 1 s there).
                main_scrape.append(asyncio.ensure_future(self._main_run_scrape(watch)))
            if changed and self.clock() - last_emit[0] >= _PROGRESS_EVERY_S:
                last_emit[0] = self.clock()
                self.on_event(PointProgress(point.index, total, point.concurrency, self.clock() - started,
                                            output.progress))

        watch.server_start = await self._server_scrape()
        self.watch = watch
        self.on_event(PointStarted(point.index, total, point.concurrency, attempt, shlex.join(argv)))
        client_start = self.clock()
        try:
            status = await self.host.run(argv, folder=self.plan.folder, pidfile=pidfile, on_output=on_output)
        except LinkLost as exc:
            self.watch = None
            await _settled(main_scrape)
            # the record may have reached the file before the link went: it counts, once
            try:
                record = last_record(await self.host.read_text(out_file) or "")
                if record is not None:
                    watch.server_end = await self._server_scrape()  # the client is done: nothing of it comes later
                    return (from_record(record), watch, None), ""
                await self.host.kill_leftover(pidfile, out_file)
            except LinkLost as again:
                return None, f"link lost: {again}"
            return None, f"link lost: {exc}"
        except OSError as exc:  # no such interpreter, no room for the output folder
            self.watch = None
            return None, f"cannot run the client: {exc}"
        client_s = self.clock() - client_start
        watch.close_window()  # its last request was answered by now, whatever it printed
        # The log is read by a tail that polls (over SSH too): the batch lines the server wrote
        # in the point's last moments arrive just after the client exits; they still count.
        await asyncio.sleep(self.log_settle_s)
        if self.log_caught_up is not None:
            await self.log_caught_up()
        self.watch = None
        await _settled(main_scrape)  # the main-run read lands before the end one
        watch.server_end = await self._server_scrape()
        try:
            record = last_record(await self.host.read_text(out_file) or "")
        except LinkLost:
            record = None  # the client's stdout came whole: its block is the fallback
        result = from_record(record) if record is not None else from_stdout(output.lines())
        if result is None:
            said = "; ".join(list(output.tail)[-3:]) or "no output"
            return None, f"exit status {status}, no result: {said}"
        return (result, watch, client_s), ""

    async def _main_run_scrape(self, watch: PointWatch) -> None:
        """The start read again as the client's main run starts; a failed read keeps the first."""
        scrape = await self._server_scrape()
        if scrape is not None:
            watch.server_main = scrape

    async def _server_scrape(self) -> ServerScrape | None:
        """The server's metrics now (None without a probe or an endpoint); says once why not."""
        if self.server_metrics is None:
            return None
        scrape = await self.server_metrics.read()
        if (notice := self.server_metrics.notice()) is not None:
            self.on_event(SweepNote(notice))
        return scrape


async def _settled(tasks: list[asyncio.Future[Any]]) -> None:
    """Wait for the main-run read; one that failed leaves the earlier start read in place."""
    for task in tasks:
        try:
            await task
        except Exception:  # any failure of that one read: the pre-start read stays
            pass
