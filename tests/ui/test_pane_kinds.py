"""Each live pane takes its kind's items (the routing table, live/routes.py) and refuses, by
name, an item of another kind: a routing bug is said, not drawn as nothing."""

from __future__ import annotations

import pytest
from textual.widget import Widget

from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.routes import ROUTES
from cockpit.parse.gpu.events import GpuStreamInterrupted
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.ui.live.routes import LivePane
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.metrics.pane import MetricsPane

PANES: dict[str, type[Widget]] = {"log": LogPane, "gpu": GpuPane, "topology": TopologyPane,
                                  "metrics": MetricsPane, "fleet": FleetPane}
FLEET = FleetSnapshot("prometheus", "http://127.0.0.1:9090", 1000.0)


@pytest.mark.parametrize("kind", sorted(PANES))
def test_a_pane_takes_its_kinds_items_and_refuses_another_kinds(kind: str) -> None:
    pane = PANES[kind]()
    assert isinstance(pane, LivePane)
    assert pane.TAKES == ROUTES[kind][0][1]
    foreign = GpuStreamInterrupted("gpu1", "connection lost", 4) if kind in ("fleet", "log", "metrics") else FLEET
    with pytest.raises(TypeError, match=f"{type(pane).__name__} takes no {type(foreign).__name__}"):
        pane.feed(foreign)
    if kind != "log":
        with pytest.raises(TypeError, match="takes no MetricsSnapshot"):
            pane.feed(MetricsSnapshot())
