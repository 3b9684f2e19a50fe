"""What a stream of SGLang log events adds up to: the parse-log summary, time-windowed
metric series (summed over DP ranks), and the server runs (see server_runs.py).

Plain Python, no I/O, no Textual: the live pane calls `LogMetrics.apply_all(events)` on
each batch of parsed events and redraws from the state.
"""

from __future__ import annotations

import calendar
import time
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache

from cockpit.parse.error_labels import line_error_labels
from cockpit.parse.log_summary import KIND_MARKERS, batch_line_figures
from cockpit.parse.log_events import (
    BenchResult, DecodeBatch, ErrorBlock, ErrorLine, LogEvent, PrefillBatch,
)

_READY_TEXT = "The server is fired up and ready to roll"


@dataclass
class LogSummary:
    """The `parse-log --json` object (product.md), folded event by event."""

    prefill_lines: int = 0
    decode_lines: int = 0
    last_gen_throughput: float | None = None
    max_gen_throughput: float | None = None
    max_running_req: int | None = None
    max_queue_req: int | None = None
    errors: set[str] = field(default_factory=set)
    bench: dict | None = None
    ready: bool = False

    def apply(self, event: LogEvent) -> None:
        if isinstance(event, (DecodeBatch, PrefillBatch)):
            # the summary counts by the README's substring rules (what grep sees), which
            # can differ from the typed fields on mangled lines; recompute them here
            for kind, marker in KIND_MARKERS:  # each kind counts once per line, as grep would
                m = marker.search(event.line)
                if m is not None:
                    self._batch_figures(kind, event.line[m.end():])
            self.errors.update(line_error_labels(event.line))  # a trigger glued to a batch line
        elif isinstance(event, (ErrorLine, ErrorBlock)):
            self.errors.update(event.labels)
        elif isinstance(event, BenchResult):
            self.bench = dict(event.values)
        if not self.ready and _READY_TEXT in event.line and not isinstance(event, (ErrorBlock, BenchResult)):
            self.ready = True

    def _batch_figures(self, kind: str, rest: str) -> None:
        r, q, gens = batch_line_figures(rest, kind)
        if kind == "decode":
            self.decode_lines += 1
            if gens:
                self.last_gen_throughput = gens[-1]
                top = max(gens)
                if self.max_gen_throughput is None or top > self.max_gen_throughput:
                    self.max_gen_throughput = top
        else:
            self.prefill_lines += 1
        if r is not None and (self.max_running_req is None or r > self.max_running_req):
            self.max_running_req = r
        if q is not None and (self.max_queue_req is None or q > self.max_queue_req):
            self.max_queue_req = q

    def to_dict(self) -> dict:
        return {
            "prefill_lines": self.prefill_lines,
            "decode_lines": self.decode_lines,
            "last_gen_throughput": self.last_gen_throughput,
            "max_gen_throughput": self.max_gen_throughput,
            "max_running_req": self.max_running_req,
            "max_queue_req": self.max_queue_req,
            "errors": sorted(self.errors),
            "bench": None if self.bench is None else dict(self.bench),
            "ready": self.ready,
        }


@dataclass
class MetricSeries:
    """(t, value) points over a sliding window, bounded in count, with current and peak."""

    name: str
    window_s: float = 900.0
    maxlen: int = 4096
    points: deque = field(default_factory=deque)
    current: float | None = None
    peak: float | None = None  # over the whole stream, not only the window

    def add(self, t: float, value: float) -> None:
        points = self.points
        if points and points[-1][0] == t:
            points[-1] = (t, value)  # one point per timestamp: DP ranks report in the same second
        else:
            points.append((t, value))
        while len(points) > self.maxlen or (points and points[0][0] < t - self.window_s):
            points.popleft()
        self.current = value
        if self.peak is None or value > self.peak:
            self.peak = value

    def values(self) -> list[float]:
        return [v for _, v in self.points]

    def window_peak(self) -> float | None:
        return max((v for _, v in self.points), default=None)


@lru_cache(maxsize=4096)
def _dated_seconds(ts: str) -> float | None:
    try:
        date, _, clock = ts.partition(" ")
        if len(date) == 5:  # `MM-DD HH:MM:SS`: no year, pick a fixed one
            date = "2000-" + date
        y, mo, d = (int(x) for x in date.split("-"))
        return calendar.timegm((y, mo, d, 0, 0, 0)) + _clock_seconds(clock)
    except (ValueError, OverflowError):
        return None


def _clock_seconds(clock: str) -> float:
    h, m, s = clock.replace(",", ".").split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


class TimestampClock:
    """Record timestamps -> seconds. Dated stamps are absolute (as UTC); time-only stamps
    (pre-0.3.4 logs) count days forward when the clock goes back more than 12 hours."""

    def __init__(self) -> None:
        self._day = 0
        self._last_clock: float | None = None
        self.last: float | None = None

    def seconds(self, ts: str | None) -> float | None:
        if ts is None:
            return self.last
        if " " in ts:
            t = _dated_seconds(ts)
        else:
            try:
                clock = _clock_seconds(ts)
            except ValueError:
                return self.last
            if self._last_clock is not None and clock < self._last_clock - 43200:
                self._day += 1
            self._last_clock = clock
            t = self._day * 86400.0 + clock
        if t is not None:
            self.last = t
        return self.last


@dataclass
class _RankSample:
    t: float
    gen: float | None = None
    running: int | None = None
    queued: int | None = None
    usage: float | None = None


class LogMetrics:
    """Summary + metric series + server runs, folded from events.

    Each DP rank logs its own batch lines, so the server's figures are per-rank latest
    values combined: throughput, running and queued requests summed; token usage the
    maximum (the fullest rank retracts first). A rank silent for `stale_s` drops out.
    """

    def __init__(self, window_s: float = 900.0, maxlen: int = 4096, stale_s: float = 60.0) -> None:
        from cockpit.live.server_runs import ServerRunTracker  # sibling module, no cycle at import

        self.summary = LogSummary()
        self.runs = ServerRunTracker()
        self.clock = TimestampClock()
        self.stale_s = stale_s
        self.gen_throughput = MetricSeries("gen_throughput", window_s, maxlen)
        self.running_req = MetricSeries("running_req", window_s, maxlen)
        self.queue_req = MetricSeries("queue_req", window_s, maxlen)
        self.token_usage = MetricSeries("token_usage", window_s, maxlen)
        self._ranks: dict[int | None, _RankSample] = {}
        self._n = 0

    def apply_all(self, events: list[LogEvent]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: LogEvent) -> None:
        self._n += 1
        self.summary.apply(event)
        self.runs.apply(event)
        if isinstance(event, (DecodeBatch, PrefillBatch)):
            t = self.clock.seconds(event.ts)
            self._sample(event, float(self._n) if t is None else t)
        elif event.ts is not None:
            self.clock.seconds(event.ts)

    def _sample(self, event: DecodeBatch | PrefillBatch, t: float) -> None:
        sample = self._ranks.get(event.ranks.dp)
        if sample is None:
            sample = self._ranks[event.ranks.dp] = _RankSample(t)
        sample.t = t
        if event.running_req is not None:
            sample.running = event.running_req
        if event.queue_req is not None:
            sample.queued = event.queue_req
        usage = event.token_usage if event.token_usage is not None else event.full_token_usage
        if usage is not None:
            sample.usage = usage
        if isinstance(event, DecodeBatch) and event.gen_throughput is not None:
            sample.gen = event.gen_throughput
        for stale in [k for k, s in self._ranks.items() if s.t < t - self.stale_s]:
            del self._ranks[stale]
        fresh = list(self._ranks.values())
        if isinstance(event, DecodeBatch) and event.gen_throughput is not None:
            total = sum(s.gen for s in fresh if s.gen is not None)
            self.gen_throughput.add(t, total)
            run = self.runs.current
            if run is not None and (run.peak_gen_throughput is None or total > run.peak_gen_throughput):
                run.peak_gen_throughput = total
        if event.running_req is not None:
            self.running_req.add(t, float(sum(s.running for s in fresh if s.running is not None)))
        if event.queue_req is not None:
            self.queue_req.add(t, float(sum(s.queued for s in fresh if s.queued is not None)))
        if usage is not None:
            self.token_usage.add(t, max(s.usage for s in fresh if s.usage is not None))

    @property
    def dp_ranks(self) -> int:
        """How many DP ranks are currently reporting."""
        return len(self._ranks)

    def now(self) -> float:
        """The log's own idea of now (last timestamp seen), else the wall clock."""
        return self.clock.last if self.clock.last is not None else time.time()
