"""What a reader of the live state gets: frozen snapshots of one host's folds at one moment
(live/state.py makes them), and `snapshot_of`, the same shape made of files (`cockpit
diagnose`: what a colleague pasted stands in for the live hosts).

Plain Python, no Textual, no I/O: tuples of what the folds hold, no copy of a line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cockpit.live.gpu.power_history import Point, tokens_per_joule
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.metrics.server_metrics import ServerMetrics
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.parse.metrics.sglang_metrics import ServerScrape

__all__ = ["GpuSnapshot", "LiveSnapshot", "LogSnapshot", "ServerSnapshot", "TopologySnapshot", "snapshot_of"]


@dataclass(frozen=True, slots=True)
class LogSnapshot:
    lines: tuple[str, ...] = ()
    """The last display lines (already inert), oldest first."""
    first_line: int = 1
    """The 1-based number of `lines[0]` among all lines taken."""
    total: int = 0
    """Lines taken so far (the source's own notes among them): unchanged means the log has
    not moved."""
    read: int = 0
    """Log lines read so far (the source's notes, "── rotated ──", not counted)."""
    metrics: MetricsSnapshot | None = None
    summary_before: Mapping[str, object] | None = None
    state: str | None = None
    """The source in words ("tail gpu1:/var/log/sglang.log")."""
    connected: bool | None = None

    @property
    def throughput(self) -> tuple[Point, ...]:
        """Generation tokens/s (summed over DP ranks) by log time, oldest first."""
        return () if self.metrics is None else tuple(self.metrics.points.get("gen_throughput", ()))


@dataclass(frozen=True, slots=True)
class GpuSnapshot:
    tick: GpuSamplesTaken | None = None
    """The newest tick (None before the first, or after the source said it has no GPUs)."""
    history: tuple[GpuSample, ...] = ()
    """The last GPU_HISTORY samples, in time order."""
    power_total: tuple[Point, ...] = ()
    """Summed draw of the feed's GPUs after each tick (W)."""
    problem: str | None = None
    """Why no fresh sample comes ("gpu1: connection refused; restarting in 4 s")."""


@dataclass(frozen=True, slots=True)
class TopologySnapshot:
    matrix: TopologyMatrix | None = None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class ServerSnapshot:
    metrics: ServerMetrics = ServerMetrics()
    """The folded view (what the metrics pane shows)."""
    scrapes: tuple[ServerScrape, ...] = ()
    """The window's scrapes of this server run, oldest first (what the diagnosis reads)."""
    views: tuple[ServerMetrics, ...] = ()
    """The folded view after each scrape, oldest first (the metrics pane's chart points)."""


@dataclass(frozen=True, slots=True)
class LiveSnapshot:
    """One host's live state at one moment (`host` None: the first feed of each kind)."""

    host: str | None = None
    log: LogSnapshot | None = None
    gpu: GpuSnapshot | None = None
    topology: TopologySnapshot | None = None
    server: ServerSnapshot | None = None
    fleet: FleetSnapshot | None = None

    @property
    def tokens_per_joule(self) -> float | None:
        """The log's generated tokens over the GPUs' energy, on the span both cover (the
        GPU pane's tok/J, live/gpu/power_history.py)."""
        if self.log is None or self.gpu is None:
            return None
        return tokens_per_joule(self.log.throughput, self.gpu.power_total)

    @property
    def scrapes(self) -> tuple[ServerScrape, ...]:
        return () if self.server is None else self.server.scrapes


def snapshot_of(*, log_lines: Sequence[str] | None = None, gpus: Iterable[GpuSample] = (),
                topology: TopologyMatrix | None = None, scrapes: Iterable[ServerScrape] = ()) -> LiveSnapshot:
    """A snapshot of what files hold (`cockpit diagnose`: what a colleague pasted stands in
    for the live hosts): the same shape the live state hands the TUI and an assistant."""
    lines = tuple(log_lines) if log_lines is not None else None
    samples = tuple(gpus)
    pages = tuple(scrapes)
    return LiveSnapshot(
        log=LogSnapshot(lines, 1, len(lines), len(lines)) if lines is not None else None,
        gpu=GpuSnapshot(history=samples) if samples else None,
        topology=TopologySnapshot(topology) if topology is not None else None,
        server=ServerSnapshot(scrapes=pages) if pages else None,
    )
