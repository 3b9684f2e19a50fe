"""LiveItem: what a live feed hands the hub, as a closed union of the item types (below the UI).

    source -> pipeline -> hub -> LiveItem -> the live state's folds (live/state.py),
                                             the panes (ui/live/routes.py), the sweep's watch

One alias per feed kind (`log`, `gpu`, `topology`, `metrics`, `fleet`: the routing table's,
live/routes.py), and `LiveItem` their union. A function that takes one of them dispatches with
`isinstance` and ends in `assert_never`, so mypy says where a new item type is not handled;
the routing table's tuples are these aliases' members (one list of types, not two).
`live_item` closes the union at run time too: the hub takes nothing else from a feed.
"""

from __future__ import annotations

from typing import TypeAlias

from cockpit.live.log.items import LogLines, SourceState, SummaryBefore
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot

__all__ = ["FleetItem", "GpuItem", "LiveItem", "LogItem", "MetricsItem", "TopologyItem", "live_item"]

LogItem: TypeAlias = LogLines | MetricsSnapshot | SourceState | SummaryBefore
"""A LogPipeline's items (control/log_pipeline.py)."""
GpuItem: TypeAlias = GpuSamplesTaken | GpuStreamInterrupted | GpuSourceUnavailable | TopologyMatrix
"""A GPU feed's events (nvidia-smi's feed reads `topo -m` too)."""
TopologyItem: TypeAlias = TopologyMatrix | GpuSourceUnavailable
"""A topology feed's (NVML's, `topo -m` over SSH, a file)."""
MetricsItem: TypeAlias = MetricsScraped | MetricsScrapeFailed
"""A `/metrics` feed's scrapes (folded by live/metrics/server_metrics.py)."""
FleetItem: TypeAlias = FleetSnapshot
"""A Prometheus fleet feed's readings."""
LiveItem: TypeAlias = LogItem | GpuItem | TopologyItem | MetricsItem | FleetItem
"""Any live feed's item: the hub's, the TUI's `LiveItemReceived`'s, the live state's."""


def live_item(item: object, source: str) -> LiveItem:
    """`item` as a LiveItem; anything else is a TypeError naming what `source` yielded (a feed
    outside the union is said where it enters, not passed over by every view)."""
    if isinstance(item, LiveItem):
        return item
    raise TypeError(f"{source} yields a {type(item).__name__}, not a live item (live/items.py)")
