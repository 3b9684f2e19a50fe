"""What a stream of SGLang log events adds up to: the parse-log summary (folded as
parse/log/log_summary defines it), time-windowed metric series (summed over DP ranks), and the
server runs (see live/experiment/server_runs.py).

Plain Python, no I/O, no Textual: the live pane calls `LogMetrics.apply_all(events)` on
each batch of parsed events and redraws from the state.
"""

from __future__ import annotations

import calendar
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from cockpit.live.experiment.server_runs import ServerRunTracker
from cockpit.parse.log.batch_lines import series_figures
from cockpit.parse.log.events import DecodeBatch, HttpRequest, LogEvent, PlainLine, PrefillBatch
from cockpit.parse.log.sglang_patterns import READY_TEXT
from cockpit.parse.log.summary import BatchFigures, LogSummary

_STARTING = ("starting", "loading", "capturing")
_NO_TIME = float("nan")  # no batch group yet: unequal to every time, itself included


@dataclass
class MetricSeries:
    """(t, value) points over a sliding window, bounded in count, with current and peak."""

    name: str
    window_s: float = 900.0
    maxlen: int = 4096
    points: deque[tuple[float, float]] = field(default_factory=deque)
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
        self._last_ts: str | None = None
        self.last: float | None = None

    def seconds(self, ts: str | None) -> float | None:
        if ts is None:
            return self.last
        if ts == self._last_ts:  # the same stamp again (most lines): the same answer
            return self.last
        self._last_ts = ts
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


class _RankSample:
    __slots__ = ("t", "gen", "running", "queued", "usage")

    def __init__(self, t: float) -> None:
        self.t = t
        self.gen: float | None = None
        self.running: int | None = None
        self.queued: int | None = None
        self.usage: float | None = None


class LogMetrics:
    """Summary + metric series + server runs, folded from events.

    Each DP rank logs its own batch lines, so the server's figures are per-rank latest
    values combined: throughput, running and queued requests summed; token usage the
    maximum (the fullest rank retracts first). A rank silent for `stale_s` drops out.

    Folding is per batch of events, not per line: batch lines only have their timestamp
    read as they pass; the summary figures of a run of them are computed once, for the
    whole summary and the current server run alike; the series get one point per log
    timestamp, from each rank's newest values at that time (so only the newest batch line
    of each rank in a second has its fields parsed). A series' peak is therefore the peak
    of those per-timestamp values.
    """

    def __init__(self, window_s: float = 900.0, maxlen: int = 4096, stale_s: float = 60.0) -> None:
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

    def apply(self, event: LogEvent) -> None:
        self.apply_all((event,))

    def apply_all(self, events: Iterable[LogEvent]) -> None:
        lines: list[str] = []  # batch lines not yet in the summaries
        group: list[LogEvent] = []  # batch events of one timestamp, not yet in the series
        group_t = _NO_TIME
        clock, runs = self.clock, self.runs
        for event in events:
            self._n += 1
            cls = type(event)
            if cls is DecodeBatch or cls is PrefillBatch:
                run = runs.current
                if run is None:
                    run = runs.open_run(event)
                if run.state in _STARTING:
                    run.state = "ready"  # serving batches: it is up even if we missed the banner
                t = clock.seconds(event.ts)
                if t is None:
                    t = float(self._n)
                if t != group_t:
                    if group:
                        self._fold_group(group_t, group)
                        group = []
                    group_t = t
                group.append(event)
                lines.append(event.line)
            elif (cls is PlainLine or cls is HttpRequest) and runs.current is not None \
                    and READY_TEXT not in event.line:
                if event.ts is not None:  # nothing else to fold for these
                    clock.seconds(event.ts)
            else:
                if group:
                    self._fold_group(group_t, group)
                    group, group_t = [], _NO_TIME
                if lines:
                    self._fold_lines(lines)
                    lines = []
                self.summary.apply_other(event)
                runs.apply(event)
                if event.ts is not None:
                    clock.seconds(event.ts)
        if group:
            self._fold_group(group_t, group)
        if lines:
            self._fold_lines(lines)

    def _fold_lines(self, lines: list[str]) -> None:
        fig = BatchFigures.of(lines)
        self.summary.add(fig)
        run = self.runs.current
        if run is not None:
            run.summary.add(fig)

    def _fold_group(self, t: float, group: list[LogEvent]) -> None:
        """Batch events sharing timestamp `t`, in order: each rank's newest values, then one
        point per series (as if folded line by line, the last line of `t` winning)."""
        ranks = self._ranks
        limit = t - self.stale_s
        first = group[0].ranks.dp
        # line by line, the group's first line would have dropped every other stale rank
        for dp in [k for k, s in ranks.items() if s.t < limit and k != first]:
            del ranks[dp]
        found: dict[int | None, int] = {}  # dp -> bits of the fields seen, newest line first
        seen = 0
        for event in reversed(group):
            dp = event.ranks.dp
            bits = found.get(dp, 0)
            decode = type(event) is DecodeBatch
            if bits == 15 or (bits & 7 == 7 and not decode):
                found[dp] = bits
                continue
            sample = ranks.get(dp)
            if sample is None:
                sample = ranks[dp] = _RankSample(t)
            running, queued, usage, gen = series_figures(event)  # type: ignore[arg-type]
            if not bits & 1 and running is not None:
                sample.running, bits = running, bits | 1
            if not bits & 2 and queued is not None:
                sample.queued, bits = queued, bits | 2
            if not bits & 4 and usage is not None:
                sample.usage, bits = usage, bits | 4
            if not bits & 8 and gen is not None:
                sample.gen, bits = gen, bits | 8
            found[dp] = bits
            seen |= bits
        for dp in found:
            sample = ranks.get(dp)
            if sample is None:
                ranks[dp] = _RankSample(t)
            else:
                sample.t = t
        for stale in [k for k, s in ranks.items() if s.t < limit]:
            del ranks[stale]
        fresh = list(ranks.values())
        if seen & 8:
            total = sum(s.gen for s in fresh if s.gen is not None)
            self.gen_throughput.add(t, total)
            run = self.runs.current
            if run is not None and (run.peak_gen_throughput is None or total > run.peak_gen_throughput):
                run.peak_gen_throughput = total
        if seen & 1:
            self.running_req.add(t, float(sum(s.running for s in fresh if s.running is not None)))
        if seen & 2:
            self.queue_req.add(t, float(sum(s.queued for s in fresh if s.queued is not None)))
        if seen & 4:
            self.token_usage.add(t, max(s.usage for s in fresh if s.usage is not None))

    def seed_summary(self, earlier: dict[str, object]) -> None:
        """The summary of the log before the first event folded (see LogSummary.add_before)."""
        self.summary.add_before(earlier)

    @property
    def dp_ranks(self) -> int:
        """How many DP ranks are currently reporting."""
        return len(self._ranks)

    def now(self) -> float:
        """The log's own idea of now (last timestamp seen), else the wall clock."""
        return self.clock.last if self.clock.last is not None else time.time()
