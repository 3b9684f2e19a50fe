"""The main screen's one 1 Hz timer: the header's clock and the live panes' data ages
("updated 3 s ago", "stale · 25 s"); a silent GPU feed raises an alert."""

from __future__ import annotations

import time

from textual.screen import Screen
from textual.timer import Timer

from cockpit.ui.port import CockpitPort
from cockpit.ui.widgets.chrome.header import CockpitHeader
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.metrics.pane import MetricsPane

_Ticked = tuple[CockpitHeader, HostDeck, GpuPane, TopologyPane, HostDeck, FleetPane]


class LiveTick:
    def __init__(self, screen: Screen[None], port: CockpitPort) -> None:
        self.screen = screen
        self.port = port
        self._widgets: _Ticked | None = None
        self._timer: Timer | None = None
        self._data_ticked_at = 0.0

    def start(self) -> None:
        self.tick()
        self._timer = self.screen.set_interval(1.0, self.tick)

    def _ticked(self) -> _Ticked:
        """The widgets the 1 Hz tick touches, found once (they live as long as the screen):
        querying the DOM for them each second was a tenth of the idle cockpit's CPU."""
        if self._widgets is None:
            screen = self.screen
            self._widgets = (screen.query_one(CockpitHeader), screen.query_one("#log-deck", HostDeck),
                             screen.query_one(GpuPane), screen.query_one(TopologyPane),
                             screen.query_one("#metrics-deck", HostDeck), screen.query_one(FleetPane))
        return self._widgets

    def tick_with_data(self) -> None:
        """A GPU tick arrived: age the panes now, in the frame that draws the new rows, and
        start the 1 s timer again from here. At 1 Hz sampling the screen is painted once a
        second instead of twice (the ages, then the rows)."""
        now = time.monotonic()
        if now - self._data_ticked_at < 0.5 or self._timer is None:  # faster sampling: 1 Hz still
            return
        self._data_ticked_at = now
        self.tick()
        self._timer.reset()

    def tick(self) -> None:
        header, logs, gpu, topology, metrics, fleet = self._ticked()
        header.show_clock(self.port.clock())
        for log in logs.all_panes:
            if isinstance(log, LogPane) and log.is_mounted:
                log.show_age()
        gpu.show_age()
        topology.show_age()
        if gpu.age.last_at is not None:  # a GPU feed that has reported: its silence is an alert
            self.port.raise_alert(self.port.alerts.observe_stale("gpu", gpu.age.stale(), gpu.age.text()))
        if metrics.has_class("-live") and isinstance(shown := metrics.shown, MetricsPane):
            shown.follow_axis()  # its charts end with the power chart
        fleet.show_age()
