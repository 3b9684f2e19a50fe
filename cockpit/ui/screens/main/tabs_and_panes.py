"""The main screen's tabs and panes: which tab and pane are shown and focused, `w` and `H`,
the log and metrics of one host at a time, the board's share of the rows, where an alert
came from, and the widget each palette scope acts on (the screen's handlers call these; it
owns one `TabsAndPanes`)."""

from __future__ import annotations

from collections.abc import Callable

from textual.css.query import NoMatches
from textual.css.scalar import Scalar, Unit
from textual.dom import DOMNode
from textual.events import Click
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from cockpit.control.live_access import next_in
from cockpit.live.alerts import Alert
from cockpit.ui.focus_now import focus_now
from cockpit.ui.keys.actions import BY_ID, SCOPE_TAB, TABS
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.chrome.tab_bar import TabBar, clickable
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.metrics.pane import MetricsPane
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.session.restorable import Restorable
from cockpit.ui.widgets.session.setup_view import SetupView
from cockpit.ui.widgets.session.task_board import TaskBoard, TaskList
from cockpit.ui.widgets.session.text_views import HandoffView

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
SCOPE_VIEWS: dict[str, type[Widget]] = {
    "goal": SetupView, "tasks": TaskBoard, "discoveries": DiscoveriesView, "benchmarks": BenchmarksView,
    "launch": ProfilesView, "packages": PackagesTable, "files": FilesTable, "handoff": HandoffView,
    "fleet": FleetPane,
}
"""The widget a registry scope's keys are bound on (the log's is the shown host's pane)."""


class TabsAndPanes:
    """Tabs and panes of `screen` (the main screen renders into them); `render_tab(tab)`
    renders a tab before it is first shown."""

    def __init__(self, screen: Screen[None], render_tab: Callable[[str], None]) -> None:
        self.screen = screen
        self.render_tab = render_tab
        self.main_pane = "board"
        self._refit = False
        """The board's rows were to be fitted while the main tab was hidden."""

    # ----- tabs and panes -------------------------------------------------------------
    @property
    def active_tab(self) -> str:
        return self.screen.query_one("#tabs", ContentSwitcher).current or "main"

    def show_tab(self, tab: str, focus: bool = True) -> None:
        if tab not in TAB_IDS:
            return
        self.render_tab(tab)
        self.screen.query_one("#tabs", ContentSwitcher).current = tab
        if tab == "main" and self._refit:
            self._refit = False
            self.screen.call_after_refresh(self.fit_board)
        self.screen.query_one(TabBar).active = tab
        if focus:
            self.focus_tab(tab)

    def focus_tab(self, tab: str) -> None:
        if tab == "main":
            self.focus_pane(self.main_pane)
            return
        widget = self.screen.query_one(f"#{tab}")
        focus_view = getattr(widget, "focus_view", None)  # the views that focus a list inside
        focus_view() if focus_view else focus_now(widget)

    @property
    def main_panes(self) -> tuple[str, ...]:
        """The main tab's panes, `w` order: the metrics pane once a host has one."""
        return MAIN_PANES + ((METRICS_PANE,) if self.screen.query_one("#metrics-deck").has_class("-live") else ())

    def shown_pane(self, pane: str) -> Widget:
        """The widget of a main pane: for the log and metrics, the shown host's."""
        if pane in ("log", METRICS_PANE):
            return self.screen.query_one(f"#{pane}-deck", HostDeck).shown
        return self.screen.query_one(f"#{pane}")

    def shown_log(self) -> LogPane:
        """The shown host's log pane (the log deck makes only log panes)."""
        pane = self.shown_pane("log")
        assert isinstance(pane, LogPane)
        return pane

    def shown_metrics(self) -> MetricsPane | None:
        pane = self.shown_pane(METRICS_PANE)
        return pane if isinstance(pane, MetricsPane) else None

    def scope_widget(self, scope: str) -> Widget:
        """The widget a registry scope's actions run on (the palette's way in)."""
        return self.shown_log() if scope == "log" else self.screen.query_one(SCOPE_VIEWS[scope])

    def _mark_pane(self, pane: str) -> None:
        main = self.screen.query_one("#main")
        for name in (*MAIN_PANES, METRICS_PANE):
            main.set_class(name == pane, f"-pane-{name}")
        self.update_pane_bar()

    def focus_pane(self, pane: str) -> None:
        self.main_pane = pane
        self._mark_pane(pane)
        if pane == "board":
            self.screen.query_one(TaskBoard).focus_board()
        else:
            focus_now(self.shown_pane(pane))

    def next_pane(self) -> None:
        if self.active_tab != "main":
            self.show_tab("main")
            return
        panes = self.main_panes
        current = self.focused_main_pane() or self.main_pane
        index = panes.index(current) if current in panes else -1
        self.focus_pane(panes[(index + 1) % len(panes)])

    def focused_main_pane(self) -> str | None:
        node: DOMNode | None = self.screen.focused
        while node is not None and node is not self.screen:
            if node.id in MAIN_PANES:
                return node.id
            if node.id in DECKS:
                return DECKS[node.id]
            node = node.parent
        return None

    def follow_focus(self) -> None:
        """Focus moved inside the screen (a click, Tab): the pane bar follows."""
        pane = self.focused_main_pane()
        if pane and pane != self.main_pane:
            self.main_pane = pane
            self._mark_pane(pane)

    def show_cause(self, alert: Alert) -> None:
        """Where `alert` came from: its tab and pane; a failure's text whole, wrapped, with
        its fix (too long for a toast), anything else in a toast."""
        self.show_tab(alert.tab)
        if alert.tab == "main" and alert.pane:
            self.focus_pane(alert.pane)
        if alert.kind == "failed":
            from cockpit.ui.screens.failure_text import FailureTextScreen
            self.screen.app.push_screen(FailureTextScreen(alert.short, alert.text))
        else:
            self.screen.notify(alert.text, severity="warning", timeout=6)

    async def run_registry_action(self, action_id: str) -> None:
        """Run a registry action as if its key were pressed where it belongs (the palette)."""
        spec, screen = BY_ID[action_id], self.screen
        if spec.scope == "screen":
            await screen.run_action(spec.action)
            return
        if spec.scope == "list":  # the list that has the focus
            focused = screen.focused
            if isinstance(focused, Restorable) and focused is not None:
                await focused.run_action(spec.action)
            else:
                screen.notify("No list has the focus", severity="warning", timeout=2)
            return
        self.show_tab(SCOPE_TAB[spec.scope], focus=False)
        if spec.scope in ("tasks", "log"):
            self.focus_pane("board" if spec.scope == "tasks" else "log")
        else:
            self.focus_tab(SCOPE_TAB[spec.scope])
        await self.scope_widget(spec.scope).run_action(spec.action)

    # ----- several hosts: the log (and metrics) of one at a time -----------------------------
    def live_pane(self, pane_id: str, host: str | None) -> Widget | None:
        """The pane that takes a feed's items: a host's own log or metrics pane (made on
        first use), or the one pane of that id."""
        if pane_id in ("log", METRICS_PANE):
            deck = self.screen.query_one(f"#{pane_id}-deck", HostDeck)
            if pane_id == METRICS_PANE and not deck.has_class("-live"):
                deck.add_class("-live")  # a metrics source: the pane takes its place
                self.screen.query_one("#live-side").add_class("-metrics")
                self.update_pane_bar()
            if deck.has(host):
                return deck.pane_for(host)
            pane = deck.pane_for(host)
            self.screen.refresh_bindings()  # a second host: `H` appears in the footer
            return pane
        try:
            return self.screen.query_one(f"#{pane_id}")
        except NoMatches:
            return None

    def drop_host(self, host: str) -> None:
        """`host` left the session: its log and metrics panes go, its GPUs leave the table."""
        for deck in self.screen.query(HostDeck):
            deck.drop(host)
        self.screen.query_one(GpuPane).forget_host(host)

    def several_hosts(self) -> bool:
        """`H` is in the footer only when there is another host to show."""
        # (asked for every key's footer: the two decks by id, not a walk of the whole screen)
        decks = [self.screen.query_one(f"#{deck}", HostDeck) for deck in DECKS]
        return any(len(deck.hosts) > 1 for deck in decks)

    def next_log_host(self) -> None:
        """The next host's log; its metrics too (in the metrics pane: the next metrics host)."""
        log = self.screen.query_one("#log-deck", HostDeck)
        metrics = self.screen.query_one("#metrics-deck", HostDeck)
        if self.focused_main_pane() == METRICS_PANE:
            metrics.show(next_in(metrics.hosts, metrics.current))
            return
        host = next_in(log.hosts, log.current)
        if host is None:
            return
        log.show(host)
        if metrics.has(host):
            metrics.show(host)

    def shown_log_host(self) -> str | None:
        return self.screen.query_one("#log-deck", HostDeck).current

    def show_host(self, host: str) -> None:
        """`host`'s log in the main tab, focused (a Fleet row's Enter)."""
        self.show_tab("main", focus=False)
        log_deck = self.screen.query_one("#log-deck", HostDeck)
        if log_deck.has(host):
            log_deck.show(host)
        self.focus_pane("log")

    # ----- the board's rows, the pane bar, clicks ----------------------------------------------
    def resized(self, size: Size) -> None:
        narrow = size.width < NARROW_WIDTH or size.height < SHORT_HEIGHT
        self.screen.set_class(narrow, "-narrow")
        self.screen.call_after_refresh(self.fit_board)

    def fit_board(self) -> None:
        """The board gets the rows its longest column needs (at most `BOARD_SHARE` of the
        main tab), the log and GPUs the rest; narrow, the one pane shown fills the tab."""
        board = self.screen.query_one(TaskBoard)
        main = self.screen.query_one("#main")
        if not self.screen.has_class("-narrow") and not main.size.height:
            # The main tab is hidden or not laid out yet (no rows to share): fitted when it is
            # next shown or drawn, not set back to the stylesheet's height meanwhile.
            if self.active_tab == "main":
                self.screen.call_after_refresh(self.fit_board)
            else:
                self._refit = True
            return
        if self.screen.has_class("-narrow"):
            if board.styles.height is not None and board.styles.height.unit is not Unit.FRACTION:
                board.styles.height = None  # the stylesheet's again
            return
        lists = list(board.query(TaskList))
        need = max((lst.virtual_size.height for lst in lists), default=0) + BOARD_CHROME
        rows = max(BOARD_MIN_ROWS, min(need, int(main.size.height * BOARD_SHARE)))
        if board.styles.height != Scalar(rows, Unit.CELLS, Unit.WIDTH):
            board.styles.height = rows

    def update_pane_bar(self) -> None:
        parts: list[tuple[str | tuple[str, str], str | None]] = []
        for name, label in zip(self.main_panes, ("Board", "Log", "GPUs", "Metrics")):
            style = "bold reverse $primary" if name == self.main_pane else ""
            parts.append(((f" {label} ", style), name))
        parts.append((("  w: next pane", "$foreground-muted"), None))
        self.screen.query_one("#pane-bar", Static).update(clickable(parts, "pane"))

    def clicked(self, event: Click) -> None:
        """A click on a tab label or on the narrow main tab's pane switcher."""
        meta = event.style.meta
        if (tab := meta.get("tab")) in TAB_IDS:
            event.stop()
            self.show_tab(tab)
        elif (pane := meta.get("pane")) in self.main_panes:
            event.stop()
            self.focus_pane(pane)
