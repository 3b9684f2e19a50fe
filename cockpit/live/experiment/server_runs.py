"""A server log cut into runs by lifecycle: launch (server args) -> loading weights ->
capturing CUDA graphs -> ready -> error or stopped. Each run keeps its own figures so a
restart does not blur the numbers of the one before."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from cockpit.parse.log.error_labels import FATAL_LABELS  # defined there (the log pane uses it too)
from cockpit.parse.log.events import (
    NO_RANKS,
    CudaGraphCapture,
    DecodeBatch,
    ErrorBlock,
    ErrorLine,
    KvCacheSize,
    LoadingWeights,
    LogEvent,
    PrefillBatch,
    Ready,
    ServerArgs,
    ServerStopped,
)
from cockpit.parse.log.summary import LogSummary

RunState = Literal["starting", "loading", "capturing", "ready", "error", "stopped"]
RUN_STATES: tuple[str, ...] = ("starting", "loading", "capturing", "ready", "error", "stopped")

_STARTING = ("starting", "loading", "capturing")


@dataclass
class ServerRun:
    index: int
    state: str = "starting"
    started_ts: str | None = None
    ready_ts: str | None = None
    ended_ts: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    kv_capacity: int | None = None  # max_total_num_tokens, else the allocated #tokens
    graph_capture_s: float | None = None
    peak_gen_throughput: float | None = None  # summed over DP ranks (set by LogMetrics)
    error_labels: set[str] = field(default_factory=set)
    last_error: str | None = None  # the exception line, or the error line itself
    summary: LogSummary = field(default_factory=LogSummary)
    time_to_ready_s: float | None = None  # set by a launch cockpit followed (launch_lifecycle)

    @property
    def model(self) -> str | None:
        value = self.args.get("served_model_name") or self.args.get("model_path")
        return value if isinstance(value, str) else None

    @property
    def active(self) -> bool:
        return self.state not in ("error", "stopped")


class ServerRunTracker:
    def __init__(self, max_runs: int = 100) -> None:
        self.runs: list[ServerRun] = []
        self.max_runs = max_runs
        self._count = 0

    @property
    def current(self) -> ServerRun | None:
        return self.runs[-1] if self.runs else None

    @property
    def state(self) -> str | None:
        run = self.current
        return run.state if run else None

    def _new_run(self, event: LogEvent) -> ServerRun:
        previous = self.current
        if previous is not None and previous.active:
            previous.state = "stopped"  # relaunched without a crash line: it was stopped
            previous.ended_ts = previous.ended_ts or event.ts
        self._count += 1
        run = ServerRun(index=self._count, started_ts=event.ts)
        self.runs.append(run)
        del self.runs[: -self.max_runs]
        return run

    def open_run(self, event: LogEvent) -> ServerRun:
        """The current run, a new one (started at `event`) when there is none yet."""
        return self.current or self._new_run(event)

    def apply(self, event: LogEvent) -> None:
        run = self.current
        if isinstance(event, ServerArgs):
            if run is None or run.state != "starting" or run.summary.decode_lines or run.summary.prefill_lines:
                run = self._new_run(event)
            run.args = dict(event.args)
        elif isinstance(event, LoadingWeights) and event.phase == "begin" and (
                run is None or run.state in ("ready", "error", "stopped")):
            run = self._new_run(event)  # restarted, the launch line not in view
        elif run is None:
            run = self._new_run(event)
        run.summary.apply(event)
        self._transition(run, event)

    def _transition(self, run: ServerRun, event: LogEvent) -> None:
        if isinstance(event, LoadingWeights):
            if run.state in ("starting", "loading"):
                run.state = "loading"
        elif isinstance(event, CudaGraphCapture):
            if event.phase in ("begin", "progress") and run.state in _STARTING:
                run.state = "capturing"
            elif event.phase == "end" and event.elapsed_s is not None:
                run.graph_capture_s = max(run.graph_capture_s or 0.0, event.elapsed_s)
        elif isinstance(event, KvCacheSize):
            if event.tokens is not None and (event.source == "summary" or run.kv_capacity is None):
                run.kv_capacity = event.tokens
        elif isinstance(event, Ready):
            if run.state in _STARTING:
                run.state = "ready"
                run.ready_ts = event.ts
        elif isinstance(event, (DecodeBatch, PrefillBatch)):
            if run.state in _STARTING:
                run.state = "ready"  # serving batches: it is up even if we missed the banner
        elif isinstance(event, ServerStopped):
            if run.active:
                run.state = "stopped"
                run.ended_ts = event.ts
        elif isinstance(event, ErrorLine):
            run.error_labels.update(event.labels)
            run.last_error = event.line
            if FATAL_LABELS.intersection(event.labels):
                self._crash(run, event)
        elif isinstance(event, ErrorBlock):
            run.error_labels.update(event.labels)
            run.last_error = event.exception or run.last_error
            if "traceback" in event.labels and event.ranks != NO_RANKS:
                self._crash(run, event)

    @staticmethod
    def _crash(run: ServerRun, event: LogEvent) -> None:
        if run.state != "error":
            run.state = "error"
            run.ended_ts = event.ts
