"""Which pane takes which live items: the routing table of the app's feeds.

Each pane declares the item types it takes (`TAKES`, checked with `isinstance`); a feed
(a LiveSources field, or a session host's `kind@host`) is routed by its kind to panes by
widget id, each filtered by the types it takes from that feed. The log and metrics panes
are one per host (MainScreen.live_pane picks the host's). A log feed is run through its
own LogPipeline on the way.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from cockpit.parse.nvsmi_topo import TopologyMatrix
from cockpit.ui.widgets.fleet_pane import FleetPane
from cockpit.ui.widgets.gpu_pane import GpuPane
from cockpit.ui.widgets.log_pane import LogPane
from cockpit.ui.widgets.metrics_pane import MetricsPane
from cockpit.ui.widgets.topology_pane import TopologyPane


@runtime_checkable
class LivePane(Protocol):
    TAKES: ClassVar[tuple[type, ...]]

    def feed(self, item: Any) -> None: ...

    def set_state(self, text: str) -> None: ...


Route = tuple[tuple[str, tuple[type, ...]], ...]

ROUTES: dict[str, Route] = {
    "log": (("log", LogPane.TAKES),),
    "gpu": (("gpu", GpuPane.TAKES),),
    # nvidia-smi's query has no NUMA field: topo -m's affinity fills it in on the GPU pane
    "topology": (("topology", TopologyPane.TAKES), ("gpu", (TopologyMatrix,))),
    "metrics": (("metrics", MetricsPane.TAKES),),
    "fleet": (("fleet", FleetPane.TAKES),),
}


def state_pane(feed: str) -> str:
    """The pane that shows a feed's state (its first route)."""
    return ROUTES[feed][0][0]
