"""LiveState: what the hub's feeds add up to, folded once per `kind@host` below the UI.

    source -> pipeline -> hub -> LiveState (this fold) -> snapshot(host) -> panes, the
                                                           diagnosis, alerts, MCP

Every reader asks the same fold for a `LiveSnapshot` (live/snapshot.py): the TUI's findings,
`cockpit diagnose` (a snapshot of files, `snapshot_of`), an assistant's resources and tools. So at
one moment they read one log tail, one GPU history, one `/metrics` window and one tok/J,
never a copy each (the first two steps folded per consumer: panes, MCP, the CLI).

Plain Python, no Textual, no I/O: `take(key, item)` is the hub's `subscribe_all`
listener; a snapshot is frozen (tuples of what the folds hold, no copy of a line).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import assert_never

from cockpit.live.gpu.power_history import PowerHistory
from cockpit.live.items import GpuItem, LiveItem, LogItem, MetricsItem, TopologyItem
from cockpit.live.log.items import ERROR_LINE, NOTE_LINE, RUN, LogLines, SourceState, SummaryBefore
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.metrics.server_metrics import ServerMetrics, ServerMetricsFold
from cockpit.live.routes import views_of
from cockpit.live.snapshot import GpuSnapshot, LiveSnapshot, LogSnapshot, ServerSnapshot, TopologySnapshot
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot

__all__ = ["GPU_HISTORY", "KEPT_LINES", "LiveState", "split_key"]

KEPT_LINES = 5_000
"""A log's last display lines kept (what the diagnosis and an assistant read; the log pane
keeps its own longer ring to scroll back in)."""
GPU_HISTORY = 2_048
"""GPU samples kept per feed: ~4 minutes of 8 GPUs at 1 Hz (power and links over a stretch;
the findings watch reads them every few seconds, so not more)."""
POWER_POINTS = 900
"""Power points per GPU (the GPU pane's history)."""
METRICS_WINDOW_S = 60.0
"""The `/metrics` fold's window (the metrics pane's)."""
SERVER_VIEWS = 2_000
"""Folded `/metrics` views kept per server (the metrics pane's chart points)."""


# ----- the folds (mutable, private to LiveState) ---------------------------------------------
class _LogFold:
    def __init__(self, kept: int) -> None:
        self.lines: deque[str] = deque(maxlen=kept)
        self.total = self.read = 0
        self.preview = 0  # lines of a preview at the end, replaced by the full batch
        self.metrics: MetricsSnapshot | None = None
        self.summary_before: Mapping[str, object] | None = None
        self.state: str | None = None
        self.connected: bool | None = None

    def take(self, item: LogItem) -> None:
        if isinstance(item, LogLines):
            self._lines(item)
        elif isinstance(item, MetricsSnapshot):
            self.metrics = item
        elif isinstance(item, SourceState):
            self.state = item.text or self.state
            self.connected = item.connected if item.connected is not None else self.connected
        elif isinstance(item, SummaryBefore):
            self.summary_before = item.summary
        else:
            assert_never(item)

    def _lines(self, item: LogLines) -> None:
        if self.preview and not item.preview and item.lines:
            for _ in range(min(self.preview, len(self.lines))):  # the full batch holds them again
                self.lines.pop()
            self.total -= self.preview
            self.read -= self.preview
            self.preview = 0
        added = notes = 0
        for segment in item.segments:
            kind = segment[0]
            if kind == RUN:
                texts: list[str] = segment[1]
                self.lines.extend(texts)
                added += len(texts)
            elif kind in (ERROR_LINE, NOTE_LINE):
                self.lines.append(str(segment[1]))
                added += 1
                notes += kind == NOTE_LINE
            # a BLOCK only marks lines already held
        self.total += added
        self.read += added - notes
        if item.preview:
            self.preview += added

    def snapshot(self) -> LogSnapshot:
        lines = tuple(self.lines)
        return LogSnapshot(lines, self.total - len(lines) + 1, self.total, self.read, self.metrics,
                           self.summary_before, self.state, self.connected)


class _GpuFold:
    def __init__(self, kept: int) -> None:
        self.tick: GpuSamplesTaken | None = None
        self.history: deque[GpuSample] = deque(maxlen=kept)
        self.power = PowerHistory(maxlen=POWER_POINTS)
        self.problem: str | None = None

    def take(self, item: GpuItem) -> GpuSamplesTaken | None:
        """Fold `item`; the tick it was, if it was one (the all-GPU power fold takes it too).
        A topology is the live state's to fold apart (`LiveState.take`)."""
        if isinstance(item, GpuSamplesTaken):
            return self._tick(item)
        if isinstance(item, GpuStreamInterrupted):
            self.problem = f"{item.host}: {item.reason}; restarting in {item.retry_in_s:.0f} s"
        elif isinstance(item, GpuSourceUnavailable):
            self.tick, self.problem = None, item.message
            self.power.forget(item.host)
        elif isinstance(item, TopologyMatrix):
            pass
        else:
            assert_never(item)
        return None

    def _tick(self, tick: GpuSamplesTaken) -> GpuSamplesTaken:
        self.tick, self.problem = tick, None
        self.history.extend(tick.samples)
        self.power.add(tick.samples, t=tick.taken_at)
        return tick

    def snapshot(self) -> GpuSnapshot:
        return GpuSnapshot(self.tick, tuple(self.history), tuple(self.power.total_series()), self.problem)


class _TopologyFold:
    def __init__(self) -> None:
        self.matrix: TopologyMatrix | None = None
        self.problem: str | None = None

    def take(self, item: TopologyItem) -> None:
        if isinstance(item, TopologyMatrix):
            self.matrix, self.problem = item, None
        elif isinstance(item, GpuSourceUnavailable):
            self.problem = item.message
        else:
            assert_never(item)

    def snapshot(self) -> TopologySnapshot:
        return TopologySnapshot(self.matrix, self.problem)


class _ServerFold:
    def __init__(self, window_s: float) -> None:
        self.fold = ServerMetricsFold(window_s)
        self.views: deque[ServerMetrics] = deque(maxlen=SERVER_VIEWS)

    def take(self, item: MetricsItem) -> None:
        if isinstance(item, (MetricsScraped, MetricsScrapeFailed)):
            self.views.append(self.fold.feed(item))
        else:
            assert_never(item)

    def snapshot(self) -> ServerSnapshot:
        return ServerSnapshot(self.views[-1] if self.views else self.fold.snapshot, self.fold.scrapes,
                              tuple(self.views))


_Fold = _LogFold | _GpuFold | _TopologyFold | _ServerFold
KINDS = ("log", "gpu", "topology", "metrics", "fleet")


def split_key(key: str) -> tuple[str, str | None]:
    """`kind@host` -> (kind, host); a fixed feed's key is its kind alone (host None)."""
    kind, _, host = key.partition("@")
    return kind, host or None


class LiveState:
    """The folds of every feed the hub runs, by key; `snapshot(host)` reads them."""

    def __init__(self, *, kept_lines: int = KEPT_LINES, gpu_history: int = GPU_HISTORY,
                 metrics_window_s: float = METRICS_WINDOW_S) -> None:
        self.kept_lines = kept_lines
        self.gpu_history = gpu_history
        self.metrics_window_s = metrics_window_s
        self._folds: dict[str, _Fold] = {}
        """key -> its fold, in the order their first items came (`snapshot(None)` takes the first)."""
        self._topology_of: dict[str, _TopologyFold] = {}
        """A GPU feed that reads the topology too: its matrix, by the GPU feed's key."""
        self._fleet: FleetSnapshot | None = None
        self.power = PowerHistory(maxlen=POWER_POINTS)
        """Every GPU feed's GPUs, each host's apart: what the GPU pane draws (its rows'
        sparklines, the totals, tok/J's joules). Read it; only `take` adds to it."""
        self.taken = 0
        """Items folded so far (a test or a watch can see that something came)."""

    # ----- what the hub hands over --------------------------------------------------------
    def take(self, key: str, item: LiveItem) -> None:
        """One item of feed `key` (the hub's `subscribe_all` listener; what no fold takes,
        a feed's end among them, is passed over)."""
        kind, _host = split_key(key)
        if kind not in views_of(kind, item):  # the one routing table (live/routes.py) says what a kind carries
            return
        self.taken += 1
        if kind == "fleet":
            if isinstance(item, FleetSnapshot):
                self._fleet = item
            return
        if kind == "gpu" and isinstance(item, TopologyMatrix):  # nvidia-smi's feed reads topo -m too
            self._topology_of.setdefault(key, _TopologyFold()).take(item)
            return
        fold = self._folds.get(key)
        if fold is None:
            made = self._make(kind)
            if made is None:
                return
            fold = self._folds[key] = made
        # the routing table let through only the kind's items: each fold takes its own
        if isinstance(fold, _GpuFold) and isinstance(item, GpuItem):
            tick = fold.take(item)
            if tick is not None:
                self.power.add(tick.samples, t=tick.taken_at)
            elif isinstance(item, GpuSourceUnavailable):
                self.power.forget(item.host)
        elif isinstance(fold, _LogFold) and isinstance(item, LogItem):
            fold.take(item)
        elif isinstance(fold, _TopologyFold) and isinstance(item, TopologyItem):
            fold.take(item)
        elif isinstance(fold, _ServerFold) and isinstance(item, MetricsItem):
            fold.take(item)

    def _make(self, kind: str) -> _Fold | None:
        if kind == "log":
            return _LogFold(self.kept_lines)
        if kind == "gpu":
            return _GpuFold(self.gpu_history)
        if kind == "topology":
            return _TopologyFold()
        if kind == "metrics":
            return _ServerFold(self.metrics_window_s)
        return None

    def forget(self, key: str) -> None:
        """`key`'s feed stopped on purpose (its host left the session, or it restarts)."""
        kind, host = split_key(key)
        if isinstance(self._folds.pop(key, None), _GpuFold):
            self.power.forget(host)  # its GPUs leave the totals
        self._topology_of.pop(key, None)
        if kind == "fleet":
            self._fleet = None

    def clear(self) -> None:
        """Everything gone (the assistant's feeds restart); a pane bound to `power` keeps the old."""
        self._folds.clear()
        self.power = PowerHistory(maxlen=POWER_POINTS)
        self._topology_of.clear()
        self._fleet = None

    # ----- reading ------------------------------------------------------------------------
    def keys(self, kind: str) -> list[str]:
        """The keys of `kind` folded so far, in the order their first items came."""
        return [key for key in self._folds if split_key(key)[0] == kind]

    def hosts(self) -> list[str]:
        """The hosts any feed has said something for, in the order they first did."""
        seen: dict[str, None] = {}
        for key in self._folds:
            host = split_key(key)[1]
            if host is not None:
                seen.setdefault(host)
        return list(seen)

    def _fold(self, kind: str, host: str | None) -> _Fold | None:
        if host is not None:
            fold = self._folds.get(f"{kind}@{host}")
            return fold if fold is not None else None
        keys = self.keys(kind)
        return self._folds[keys[0]] if keys else None

    def log(self, host: str | None = None) -> LogSnapshot | None:
        fold = self._fold("log", host)
        return fold.snapshot() if isinstance(fold, _LogFold) else None

    def gpu(self, host: str | None = None) -> GpuSnapshot | None:
        fold = self._fold("gpu", host)
        return fold.snapshot() if isinstance(fold, _GpuFold) else None

    def topology(self, host: str | None = None) -> TopologySnapshot | None:
        fold = self._fold("topology", host)
        if isinstance(fold, _TopologyFold):
            return fold.snapshot()
        gpu_keys = [f"gpu@{host}"] if host is not None else self.keys("gpu")
        inside = next((self._topology_of[k] for k in gpu_keys if k in self._topology_of), None)
        return inside.snapshot() if inside is not None else None

    def server(self, host: str | None = None) -> ServerSnapshot | None:
        fold = self._fold("metrics", host)
        return fold.snapshot() if isinstance(fold, _ServerFold) else None

    def log_at(self, key: str) -> LogSnapshot | None:
        """The log fold of feed `key` exactly (`log@host`, or a fixed `log`)."""
        fold = self._folds.get(key)
        return fold.snapshot() if isinstance(fold, _LogFold) else None

    def server_at(self, key: str) -> ServerSnapshot | None:
        """The `/metrics` fold of feed `key` exactly (`metrics@host`, or a fixed `metrics`)."""
        fold = self._folds.get(key)
        return fold.snapshot() if isinstance(fold, _ServerFold) else None

    @property
    def fleet(self) -> FleetSnapshot | None:
        return self._fleet

    def snapshot(self, host: str | None = None) -> LiveSnapshot:
        """`host`'s state now (None: the first feed of each kind, as a one-host session has)."""
        return LiveSnapshot(host, self.log(host), self.gpu(host), self.topology(host), self.server(host),
                            self._fleet)
