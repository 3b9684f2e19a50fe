"""The metrics pane: a server's own `/metrics` (SGLang `--enable-metrics`): requests, KV
usage, token and request rates, TTFT / ITL / e2e percentiles over a window, and the names
the endpoint lacks.

Public surface:

* `show_server(snapshot)`: the live state's fold of the host's `/metrics` (live/state.py:
  the figures an assistant and the diagnosis read too); the app shows each scrape so;
* `feed(item)`: a `MetricsScraped` / `MetricsScrapeFailed` folded here (a pane with no
  live state);
* `set_state(text)`: the source in words ("metrics http://... via ssh lxc every 5 s").

Items only update state; one redraw per batch. The look lives in `pane.tcss`.
The app routes a host's `metrics@host` feed here (one pane per host, ui/widgets/chrome/host_deck.py).
Once two scrapes in the window have figures, sparklines of TTFT / ITL p50 and the token and
request rates follow, ending where `axis_end()` says (the GPU pane's last power sample):
the same time axis as the power sparklines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from cockpit.live.items import LiveItem, MetricsItem
from cockpit.live.metrics.server_metrics import ServerMetrics, ServerMetricsFold
from cockpit.live.metrics.server_metrics_series import ServerMetricsSeries
from cockpit.live.routes import METRICS_ITEMS
from cockpit.live.snapshot import ServerSnapshot
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.ui.render.metrics import (
    chart_lines,
    figure_lines,
    latency_lines,
    missing_lines,
    signal_lines,
    state_line,
)
from cockpit.ui.safe_text import plain
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked

NO_SOURCE = "no metrics_url configured"


class MetricsPane(FocusMarked, VerticalScroll, can_focus=True):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    TAKES: tuple[type, ...] = METRICS_ITEMS
    """The items `feed` takes (the app's routing table, ui/live/routes.py)."""

    def __init__(self, *, window_s: float = 60.0, axis_end: Callable[[], float | None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fold = ServerMetricsFold(window_s)
        self.metrics: ServerMetrics = self.fold.snapshot
        self.series = ServerMetricsSeries()
        self.axis_end = axis_end
        self.source: str | None = None
        self._drawn_end: float | None = None
        self.border_title = "Server metrics"

    def compose(self) -> ComposeResult:
        yield Static(classes="metrics-state")
        yield Static(classes="metrics-figures")
        yield Static(classes="metrics-latency")
        yield Static(classes="metrics-chart")
        yield Static(classes="metrics-signals")
        yield Static(classes="metrics-missing")

    def on_mount(self) -> None:
        self._redraw()

    def set_state(self, text: str) -> None:
        self.source = text
        self.border_subtitle = text
        if self.is_mounted:
            self._redraw()

    def show_server(self, server: ServerSnapshot) -> None:
        """The host's `/metrics` as the live state folded it: its views since the last shown
        become chart points (all of them after a restart or a clock that went back)."""
        views = server.views
        last = self.metrics.at
        shown = next((i for i in range(len(views) - 1, -1, -1) if views[i].at == last), None) \
            if last is not None else None
        for view in views[shown + 1 if shown is not None else 0:]:
            self.series.add(view)
        self.metrics = server.metrics
        if self.is_mounted:
            self._redraw()

    def feed(self, item: LiveItem) -> None:
        if not isinstance(item, MetricsItem):  # the routing table sent another kind's: a bug
            raise TypeError(f"MetricsPane takes no {type(item).__name__}")
        if isinstance(item, (MetricsScraped, MetricsScrapeFailed)):
            self.metrics = self.fold.feed(item)
        else:
            assert_never(item)
        self.series.add(self.metrics)
        if self.is_mounted:
            self._redraw()

    def _redraw(self) -> None:
        if not self.query(".metrics-state"):
            return  # mounted, its lines not yet: on_mount draws
        m = self.metrics
        state = self.query_one(".metrics-state", Static)
        if m.state == "waiting" and self.source is None:
            state.update(plain(NO_SOURCE))
        else:
            state.update(plain(state_line(m)))
        state.set_class(m.state == "failing", "-error")
        state.set_class(m.state == "not-sglang" or bool(m.missing), "-warning")
        figures = self.query_one(".metrics-figures", Static)
        figures.update(plain("\n".join(figure_lines(m)), multiline=True))
        latency = self.query_one(".metrics-latency", Static)
        latency.update(plain("\n".join(latency_lines(m)), multiline=True))
        for widget in (figures, latency):
            widget.set_class(m.state == "failing", "-stale")
        signals = self.query_one(".metrics-signals", Static)
        signals.update(plain("\n".join(signal_lines(m)), multiline=True))
        signals.display = bool(signal_lines(m))
        self.query_one(".metrics-missing", Static).update(plain("\n".join(missing_lines(m)), multiline=True))
        self._draw_chart()

    def on_resize(self) -> None:
        if self.series:
            self._draw_chart()  # as wide as the pane now is

    def follow_axis(self) -> None:
        """The power chart moved on (the app calls this each second): the charts follow."""
        if self.is_mounted and self.series and self._axis() != self._drawn_end:
            self._draw_chart()

    def _axis(self) -> float | None:
        end = self.axis_end() if self.axis_end is not None else None
        return end if end is not None else self.metrics.at

    def _draw_chart(self) -> None:
        if not self.query(".metrics-chart"):
            return
        self._drawn_end = end = self._axis()
        chart = chart_lines(self.series, max(20, self.scrollable_content_region.width - 1), t_end=end)
        widget = self.query_one(".metrics-chart", Static)
        widget.update(plain("\n".join(chart), multiline=True))
        widget.display = bool(chart)
        widget.set_class(self.metrics.state == "failing", "-stale")
