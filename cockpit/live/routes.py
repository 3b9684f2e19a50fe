"""Which view takes which live items: the one routing table of the hub's feeds, below the UI.

A feed is routed by its kind (`log`, `gpu`, `topology`, `metrics`, `fleet`; from its key
`kind@host`) to views by name, each taking the item types listed (checked with
`isinstance`): the members of the kind's alias in live/items.py, whose union is `LiveItem`.
The live state's folds (live/state.py: what the findings, tok/J and an assistant's resources
read) and the TUI's panes (ui/live/routes.py: a view is the pane of that id) both route
by this table, so a new item type is added to its kind's alias once.
"""

from __future__ import annotations

from typing import get_args

from cockpit.live.items import FleetItem, GpuItem, LiveItem, LogItem, MetricsItem, TopologyItem
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix

__all__ = ["FLEET_ITEMS", "GPU_ITEMS", "LOG_ITEMS", "METRICS_ITEMS", "ROUTES", "TOPOLOGY_ITEMS", "Route",
           "state_view", "views_of"]


def _members(alias: object) -> tuple[type, ...]:
    """The classes of an item alias (live/items.py): a union's members, or the one class."""
    members = get_args(alias) or (alias,)
    classes = tuple(m for m in members if isinstance(m, type))
    if len(classes) != len(members):
        raise TypeError(f"a live item alias holds classes only: {alias}")
    return classes


LOG_ITEMS = _members(LogItem)
GPU_ITEMS = _members(GpuItem)
TOPOLOGY_ITEMS = _members(TopologyItem)
METRICS_ITEMS = _members(MetricsItem)
FLEET_ITEMS = _members(FleetItem)

Route = tuple[tuple[str, tuple[type, ...]], ...]

ROUTES: dict[str, Route] = {
    "log": (("log", LOG_ITEMS),),
    "gpu": (("gpu", GPU_ITEMS),),
    # nvidia-smi's query has no NUMA field: topo -m's affinity fills it in on the GPU view
    "topology": (("topology", TOPOLOGY_ITEMS), ("gpu", (TopologyMatrix,))),
    "metrics": (("metrics", METRICS_ITEMS),),
    "fleet": (("fleet", FLEET_ITEMS),),
}


def views_of(kind: str, item: LiveItem) -> list[str]:
    """The views that take `item` of a `kind` feed."""
    return [view for view, takes in ROUTES.get(kind, ()) if isinstance(item, takes)]


def state_view(kind: str) -> str:
    """The view that shows a feed's state (its first route)."""
    return ROUTES[kind][0][0]
