"""The Fleet tab: every host's GPUs and every SGLang server, read through Prometheus.

Public surface:

* `feed(item)`: a `FleetSnapshot` of the `sources.fleet` feed (sources/metrics/fleet_feed.py);
* `set_state(text)`: the feed's description; before any feed the tab says how to add a
  `[[prometheus]]` source;
* `show_age()`: the border subtitle says when Prometheus last answered;
* keys (registry scope `fleet`): up / down move between hosts, enter focuses the selected
  host's log and GPU panes (posts `HostSelected`, the screen handles it), `s` asks for the
  next `[[prometheus]]` source (posts `NextSource`, the app restarts the feed; offered only
  when the snapshots say there are several); a snapshot of another source starts the age afresh.

The look lives in pane.tcss; rows are built by render/fleet.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from cockpit.live.data_age import DataAge, stale_after
from cockpit.live.items import FleetItem, LiveItem
from cockpit.live.routes import FLEET_ITEMS
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.render.fleet import ADD_ONE, render_fleet, state_line
from cockpit.ui.render.gpu import Palette
from cockpit.ui.safe_text import inert_renderable, plain
from cockpit.ui.theme.themes import role_style
from cockpit.ui.widgets.chrome.age_mark import show_age
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked
from cockpit.ui.widgets.chrome.redraw_once import RedrawOnce


class FleetTable(Widget):
    """The rows, redrawn in place every refresh: a new layout only when the number of lines
    changes (a Static's update lays the whole screen out again, every second)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = Text()

    def show(self, text: Text) -> None:
        self.text = text
        lines = text.plain.count("\n") + 1
        if self.styles.height is None or self.styles.height.value != lines:
            self.styles.height = lines
        self.refresh()

    def render(self) -> Text:
        return self.text


class FleetPane(FocusMarked, RedrawOnce, VerticalScroll, can_focus=True):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")
    BINDINGS = bindings_for("fleet")

    class HostSelected(Message):
        """Enter on a host row: focus that host's log and GPU panes."""

        def __init__(self, host: str, session_host: str | None) -> None:
            super().__init__()
            self.host = host
            self.session_host = session_host

    class NextSource(Message):
        """`s`: show the session's next `[[prometheus]]` source."""

    TAKES: tuple[type, ...] = FLEET_ITEMS

    def __init__(self, *, id: str | None = None, clock: Callable[[], float] | None = None) -> None:
        super().__init__(id=id)
        self.age = DataAge("answered", clock=clock or time.time)
        self.border_title = "Fleet"
        self.state_text = ""
        self.snapshot: FleetSnapshot | None = None
        self.cursor = 0
        self._state_shown: object = None

    def compose(self) -> ComposeResult:
        yield Static(plain(ADD_ONE, multiline=True), classes="fleet-help", markup=False)
        yield Static("", classes="fleet-state", markup=False)
        yield FleetTable(classes="fleet-table")

    # ----- the live side -----------------------------------------------------------------
    def feed(self, item: LiveItem) -> None:
        if not isinstance(item, FleetItem):  # the routing table sent another kind's: a bug
            raise TypeError(f"FleetPane takes no {type(item).__name__}")
        old = self.snapshot
        if old is not None and (old.source, old.url, old.position) != (item.source, item.url, item.position):
            self.age.last_at = None  # another source: not "answered 2 s ago" for one that never did
        self.snapshot = item
        had_hosts = old is not None and bool(old.hosts)
        if (old is None or old.position is None) != (item.position is None) or had_hosts != bool(item.hosts):
            self.refresh_bindings()  # `s` only with several sources, enter only with a host
        if item.state == "ok":
            self.age.seen()
        self.cursor = min(self.cursor, max(0, len(item.hosts) - 1))
        self._schedule_render()

    def clear(self) -> None:
        """No `[[prometheus]]` any more: back to saying how to add one."""
        self.state_text, self.snapshot, self.cursor, self._state_shown = "", None, 0, None
        self.age.last_at = None
        self.border_title, self.border_subtitle = "Fleet", ""
        self.refresh_bindings()
        self._schedule_render()

    def expect_every(self, interval_s: float) -> None:
        self.age.stale_after_s = stale_after(interval_s)

    def show_age(self) -> None:
        if self.state_text:
            show_age(self, self.age)

    # ----- keys ------------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        hosts = self.snapshot.hosts if self.snapshot else ()
        if hosts:
            self.cursor = (self.cursor + step) % len(hosts)
            self._schedule_render()

    def action_select_host(self) -> None:
        hosts = self.snapshot.hosts if self.snapshot else ()
        if hosts:
            host = hosts[self.cursor]
            self.post_message(self.HostSelected(host.name, host.session_host))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_source":  # in the footer only when there is another source to show
            return self.snapshot is not None and self.snapshot.position is not None
        if action in ("select_host", "cursor"):  # no host rows: nothing to select or focus
            return self.snapshot is not None and bool(self.snapshot.hosts)
        return True

    def action_next_source(self) -> None:
        self.post_message(self.NextSource())

    # ----- rendering ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        self._render_pending = False
        if not self.is_mounted:
            return
        state = self.query_one(".fleet-state", Static)
        table = self.query_one(FleetTable)
        helps = self.query_one(".fleet-help", Static)
        helps.display = not self.state_text  # no [[prometheus]]: say how to add one
        state.display = bool(self.state_text)
        if not self.state_text:
            table.display = False
            return
        pal = Palette(self.app.theme_variables, role_style)
        width = max(40, self.scrollable_content_region.width or self.size.width)
        line = inert_renderable(state_line(self.snapshot, self.state_text, pal))
        if line != self._state_shown:  # the same words every second: no new layout
            self._state_shown = line
            state.update(line)
        snap = self.snapshot
        shown = snap is not None and snap.state != "connecting"
        if table.display != shown:
            table.display = shown
        if snap is not None and shown:
            table.show(inert_renderable(render_fleet(snap, width, pal, self.cursor)))
        if snap is not None:
            ok = sum(1 for h in snap.hosts if h.state == "ok")
            title = f"Fleet · {snap.label}" + (f" · {ok}/{len(snap.hosts)} hosts" if shown else "")
            if self.border_title != title:
                self.border_title = title
        self.show_age()
