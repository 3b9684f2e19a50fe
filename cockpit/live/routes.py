"""Which view takes which live items: the one routing table of the hub's feeds, below the UI.

A feed is routed by its kind (`log`, `gpu`, `topology`, `metrics`, `fleet`; from its key
`kind@host`) to views by name, each taking the item types listed (checked with
`isinstance`). The live state's folds (live/state.py: what the findings, tok/J and an
assistant's resources read) and the TUI's panes (ui/live/live_routes.py: a view is the pane
of that id) both route by this table, so a new item type is added here once.
"""

from __future__ import annotations

from cockpit.live.log.items import LogLines, SourceState, SummaryBefore
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.metrics.server_metrics import ServerMetrics
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot

__all__ = ["FLEET_ITEMS", "GPU_ITEMS", "LOG_ITEMS", "METRICS_ITEMS", "ROUTES", "TOPOLOGY_ITEMS", "Route",
           "state_view", "views_of"]

LOG_ITEMS: tuple[type, ...] = (LogLines, MetricsSnapshot, SourceState, SummaryBefore)
"""A LogPipeline's items (control/log_pipeline.py)."""
GPU_ITEMS: tuple[type, ...] = (GpuSamplesTaken, GpuStreamInterrupted, GpuSourceUnavailable, TopologyMatrix, list, tuple)
"""A GPU feed's events (a list or tuple: one tick of GpuSamples, the demo replay's shape)."""
TOPOLOGY_ITEMS: tuple[type, ...] = (TopologyMatrix, GpuSourceUnavailable)
METRICS_ITEMS: tuple[type, ...] = (MetricsScraped, MetricsScrapeFailed, ServerMetrics)
FLEET_ITEMS: tuple[type, ...] = (FleetSnapshot,)

Route = tuple[tuple[str, tuple[type, ...]], ...]

ROUTES: dict[str, Route] = {
    "log": (("log", LOG_ITEMS),),
    "gpu": (("gpu", GPU_ITEMS),),
    # nvidia-smi's query has no NUMA field: topo -m's affinity fills it in on the GPU view
    "topology": (("topology", TOPOLOGY_ITEMS), ("gpu", (TopologyMatrix,))),
    "metrics": (("metrics", METRICS_ITEMS),),
    "fleet": (("fleet", FLEET_ITEMS),),
}


def views_of(kind: str, item: object) -> list[str]:
    """The views that take `item` of a `kind` feed."""
    return [view for view, takes in ROUTES.get(kind, ()) if isinstance(item, takes)]


def state_view(kind: str) -> str:
    """The view that shows a feed's state (its first route)."""
    return ROUTES[kind][0][0]
