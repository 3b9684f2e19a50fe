"""The main screen's tabs and panes: which tab and pane are shown and focused, `w` and `H`,
the log and metrics of one host at a time, and the board's share of the rows."""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.css.scalar import Scalar, Unit
from textual.events import Click, Resize
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from cockpit.control.live_access import next_in
from cockpit.ui.focus_now import focus_now
from cockpit.ui.keys.actions import TABS
from cockpit.ui.screens.main.setup_intents import SetupIntents
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.chrome.tab_bar import TabBar, clickable
from cockpit.ui.widgets.gpu.gpu_pane import GpuPane
from cockpit.ui.widgets.session.task_board import TaskBoard, TaskList

MAIN_PANES = ("board", "log", "gpu")
METRICS_PANE = "metrics"
"""A fourth main pane once a host has a `metrics_url` (beside the GPUs; alone when narrow)."""
DECKS = {"log-deck": "log", "metrics-deck": METRICS_PANE}
# Below either size the main tab shows one pane at a time.
NARROW_WIDTH = 100
SHORT_HEIGHT = 30
TAB_IDS = [tab for tab, *_ in TABS]
BOARD_SHARE = 0.5  # of the main tab's rows, at most: the log is what changes
BOARD_CHROME = 3  # a column's border and title
BOARD_MIN_ROWS = 5


class MainPanes(SetupIntents):
    """Tabs and panes of the main screen (MainScreen renders into them)."""

    main_pane: str

    def _render_tab(self, tab: str, *, first_frame: bool = False) -> None:
        raise NotImplementedError  # MainScreen's

    # ----- tabs and panes -------------------------------------------------------------
    @property
    def active_tab(self) -> str:
        return self.query_one("#tabs", ContentSwitcher).current or "main"

    def action_show_tab(self, tab: str, focus: bool = True) -> None:
        if tab not in TAB_IDS:
            return
        self._render_tab(tab)
        self.query_one("#tabs", ContentSwitcher).current = tab
        self.query_one(TabBar).active = tab
        if focus:
            self.focus_tab(tab)

    def focus_tab(self, tab: str) -> None:
        if tab == "main":
            self.focus_pane(self.main_pane)
            return
        widget = self.query_one(f"#{tab}")
        focus_view = getattr(widget, "focus_view", None)
        focus_view() if focus_view else focus_now(widget)

    @property
    def main_panes(self) -> tuple[str, ...]:
        """The main tab's panes, `w` order: the metrics pane once a host has one."""
        return MAIN_PANES + ((METRICS_PANE,) if self.query_one("#metrics-deck").has_class("-live") else ())

    def shown_pane(self, pane: str) -> Widget:
        """The widget of a main pane: for the log and metrics, the shown host's."""
        if pane in ("log", METRICS_PANE):
            return self.query_one(f"#{pane}-deck", HostDeck).shown
        return self.query_one(f"#{pane}")

    def _mark_pane(self, pane: str) -> None:
        main = self.query_one("#main")
        for name in (*MAIN_PANES, METRICS_PANE):
            main.set_class(name == pane, f"-pane-{name}")
        self._update_pane_bar()

    def focus_pane(self, pane: str) -> None:
        self.main_pane = pane
        self._mark_pane(pane)
        if pane == "board":
            self.query_one(TaskBoard).focus_board()
        else:
            focus_now(self.shown_pane(pane))

    def action_next_pane(self) -> None:
        if self.active_tab != "main":
            self.action_show_tab("main")
            return
        panes = self.main_panes
        current = self._focused_main_pane() or self.main_pane
        index = panes.index(current) if current in panes else -1
        self.focus_pane(panes[(index + 1) % len(panes)])

    def _focused_main_pane(self) -> str | None:
        node: Widget | None = self.focused
        while node is not None and node is not self:
            if node.id in MAIN_PANES:
                return node.id
            if node.id in DECKS:
                return DECKS[node.id]
            node = node.parent  # type: ignore[assignment]
        return None

    def on_descendant_focus(self) -> None:
        pane = self._focused_main_pane()
        if pane and pane != self.main_pane:
            self.main_pane = pane
            self._mark_pane(pane)

    # ----- several hosts: the log (and metrics) of one at a time -----------------------------
    def live_pane(self, pane_id: str, host: str | None) -> Widget | None:
        """The pane that takes a feed's items: a host's own log or metrics pane (made on
        first use), or the one pane of that id."""
        if pane_id in ("log", METRICS_PANE):
            deck = self.query_one(f"#{pane_id}-deck", HostDeck)
            if pane_id == METRICS_PANE and not deck.has_class("-live"):
                deck.add_class("-live")  # a metrics source: the pane takes its place
                self.query_one("#live-side").add_class("-metrics")
                self._update_pane_bar()
            if deck.has(host):
                return deck.pane_for(host)
            pane = deck.pane_for(host)
            self.refresh_bindings()  # a second host: `H` appears in the footer
            return pane
        try:
            return self.query_one(f"#{pane_id}")
        except NoMatches:
            return None

    def drop_host(self, host: str) -> None:
        """`host` left the session: its log and metrics panes go, its GPUs leave the table."""
        for deck in self.query(HostDeck):
            deck.drop(host)
        self.query_one(GpuPane).forget_host(host)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_log_host":  # in the footer only when there is another host to show
            return any(len(deck.hosts) > 1 for deck in self.query(HostDeck))
        return True

    def action_next_log_host(self) -> None:
        """The next host's log; its metrics too (in the metrics pane: the next metrics host)."""
        log, metrics = self.query_one("#log-deck", HostDeck), self.query_one("#metrics-deck", HostDeck)
        if self._focused_main_pane() == METRICS_PANE:
            metrics.show(next_in(metrics.hosts, metrics.current))
            return
        host = next_in(log.hosts, log.current)
        if host is None:
            return
        log.show(host)
        if metrics.has(host):
            metrics.show(host)

    def action_reconnect_shown(self) -> None:
        host = self.query_one("#log-deck", HostDeck).current
        if host is None:
            self.notify("No host's log is shown: reconnect a host from the palette (hosts: Reconnect …)",
                        severity="warning", timeout=4)
            return
        self.port.reconnect_host(host)

    def on_host_deck_shown(self, message: HostDeck.Shown) -> None:
        self.refresh_bindings()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < NARROW_WIDTH or event.size.height < SHORT_HEIGHT
        self.set_class(narrow, "-narrow")
        self.call_after_refresh(self.fit_board)

    def fit_board(self) -> None:
        """The board gets the rows its longest column needs (at most `BOARD_SHARE` of the
        main tab), the log and GPUs the rest; narrow, the one pane shown fills the tab."""
        board = self.query_one(TaskBoard)
        main = self.query_one("#main")
        if self.has_class("-narrow") or not main.size.height:
            if board.styles.height is not None and board.styles.height.unit is not Unit.FRACTION:
                board.styles.height = None  # the stylesheet's again
            return
        lists = list(board.query(TaskList))
        need = max((lst.virtual_size.height for lst in lists), default=0) + BOARD_CHROME
        rows = max(BOARD_MIN_ROWS, min(need, int(main.size.height * BOARD_SHARE)))
        if board.styles.height != Scalar(rows, Unit.CELLS, Unit.WIDTH):
            board.styles.height = rows

    def _update_pane_bar(self) -> None:
        parts: list[tuple[str | tuple[str, str], str | None]] = []
        for name, label in zip(self.main_panes, ("Board", "Log", "GPUs", "Metrics")):
            style = "bold reverse $primary" if name == self.main_pane else ""
            parts.append(((f" {label} ", style), name))
        parts.append((("  w: next pane", "$foreground-muted"), None))
        self.query_one("#pane-bar", Static).update(clickable(parts, "pane"))

    def on_click(self, event: Click) -> None:
        """A click on a tab label or on the narrow main tab's pane switcher."""
        meta = event.style.meta
        if (tab := meta.get("tab")) in TAB_IDS:
            event.stop()
            self.action_show_tab(tab)
        elif (pane := meta.get("pane")) in self.main_panes:
            event.stop()
            self.focus_pane(pane)
