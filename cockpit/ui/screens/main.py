"""The main screen: header, banner, targets strip, tabs, footer; renders the session.

It owns no session state: the App's SessionEditor does. `show_session` pushes the
current session into every view; intents from the views are handled in `MainIntents`.
At narrow or short sizes the main tab's three panes collapse to one at a time (`w`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Container, Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.css.scalar import Scalar, Unit
from textual.events import Click, Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Footer, Static

from cockpit.model.bench_compare import default_pair
from cockpit.model.enums import Metric
from cockpit.model.session import Session
from cockpit.model.targets import score_all
from cockpit.sources.host_feeds_plan import next_in
from cockpit.ui import messages as msg
from cockpit.ui.actions import BY_ID, SCOPE_TAB, TABS, bindings_for
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.screens.setup_intents import SetupIntents
from cockpit.ui.widgets.banner import LeftOffBanner
from cockpit.ui.widgets.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.fleet_pane import FleetPane
from cockpit.ui.widgets.gpu_pane import GpuPane
from cockpit.ui.widgets.header import CockpitHeader
from cockpit.ui.widgets.host_deck import HostDeck
from cockpit.ui.widgets.log_pane import LogPane
from cockpit.ui.widgets.metrics_pane import MetricsPane
from cockpit.ui.widgets.profiles_view import ProfilesView
from cockpit.ui.widgets.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.restorable import Restorable
from cockpit.ui.widgets.run_status import RunStatus
from cockpit.ui.widgets.tab_bar import TabBar, clickable
from cockpit.ui.widgets.targets_strip import TargetsStrip
from cockpit.ui.widgets.task_board import TaskBoard, TaskList
from cockpit.ui.widgets.setup_view import SetupView
from cockpit.ui.widgets.text_views import HandoffView, LastActionView
from cockpit.ui.widgets.topology_pane import TopologyPane

if TYPE_CHECKING:
    from cockpit.ui.app import CockpitApp

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
FIRST_FRAME_TASKS = 120  # per column: more than a terminal shows; the rest follow the first frame


class MainScreen(SetupIntents):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("screen")

    def __init__(self) -> None:
        super().__init__(id="main-screen")
        self.main_pane = "board"
        self.banner_dismissed = False

    def compose(self) -> ComposeResult:
        yield CockpitHeader(id="header")
        yield LeftOffBanner("", id="banner")
        yield TargetsStrip("", id="targets")
        yield TabBar(id="tabbar")
        with ContentSwitcher(initial="main", id="tabs"):
            with Container(id="main", classes="-pane-board"):
                yield Static("", id="pane-bar")
                yield TaskBoard(id="board")
                with Horizontal(id="live-row"):
                    # one log pane per host, one shown; `H` switches (actions.py: log.next-host)
                    yield HostDeck(self._log_pane, label="Log", key_hint=f"{BY_ID['log.next-host'].keys}: next host",
                                   id="log-deck")
                    with Vertical(id="live-side"):
                        yield GpuPane(id="gpu", clock=self._clock_s)
                        yield HostDeck(self._metrics_pane, label="Metrics", id="metrics-deck")
            yield SetupView(id="goal")
            yield DiscoveriesView(id="discoveries")
            yield BenchmarksView(id="benchmarks")
            yield FilesTable(id="files")
            yield PackagesTable(id="packages")
            yield ProfilesView(id="launch")
            yield LastActionView("last", id="last")
            yield TopologyPane(id="topology", clock=self._clock_s)
            yield HandoffView(id="handoff")
            yield FleetPane(id="fleet", clock=self._clock_s)
        yield RunStatus(id="run-status")
        yield Footer(compact=True)

    def _log_pane(self, primary: bool) -> LogPane:
        pane = LogPane(id="log" if primary else None, max_lines=self.app.editor.session.ui.log_buffer_lines,
                       clock=self._clock_s)
        if not primary:  # a new host's log starts with the view (filter, follow) now shown
            pane.apply_view_state(self.shown_pane("log").view_state)  # type: ignore[attr-defined]
        return pane

    def _metrics_pane(self, primary: bool) -> MetricsPane:
        return MetricsPane(id="metrics" if primary else None, axis_end=self._power_axis_end)

    def _power_axis_end(self) -> float | None:
        """Where the GPU pane's power sparklines end: the metrics charts end there too."""
        total = self.query_one(GpuPane).history.total_series()
        return total[-1][0] if total else None

    def on_mount(self) -> None:
        # Only the visible tab before the first frame, and of a big board only what a screen
        # can show; the app renders the rest right after (render_hidden_tabs).
        self.show_session(self.app.editor.session, first_frame=True)
        self.query_one(LeftOffBanner).show(self.app.editor.session.last_action)
        self.refresh_header()
        self.tick()
        self.set_interval(1.0, self.tick)
        self._update_pane_bar()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.on_theme_changed())

    def show_run_status(self, text: str, profile_states: dict[str, str]) -> None:
        """The experiment loop's line (server phase, sweep point) and the Launch list's marks."""
        self.query_one(RunStatus).show(text)
        self.query_one(ProfilesView).set_run_states(profile_states)

    # ----- rendering ------------------------------------------------------------------
    def show_session(self, session: Session, *, every_tab: bool = False, first_frame: bool = False) -> None:
        """Render the session: always the targets and header, the active tab now, and the
        other tabs when they are next shown (re-laying out hidden tabs on every key is slow)."""
        self._shown = session
        self._scores = score_all(session.goal.targets, session.benchmarks)
        self._fresh: set[str] = set()
        self.query_one(TargetsStrip).show(self._scores)
        self.query_one(LeftOffBanner).follow(session.last_action)
        fleet = session.prometheus or self.app.sources.fleet is not None  # the demo's replay has no [[prometheus]]
        self.query_one(TabBar).hidden = frozenset() if fleet else frozenset({"fleet"})
        for tab in TAB_IDS if every_tab else [self.active_tab]:
            self._render_tab(tab, first_frame=first_frame)
        self.refresh_header()

    def render_hidden_tabs(self) -> None:
        # Not the handoff: its Markdown widget mounts a block per paragraph (15,000 for a
        # 5,000-task session, seconds of work); it is rendered when its tab is shown.
        board = self.query_one(TaskBoard)
        if board.partial:
            board.show(self._shown)
        for tab in TAB_IDS:
            if tab != "handoff":
                self._render_tab(tab)

    def _render_tab(self, tab: str, *, first_frame: bool = False) -> None:
        if tab in self._fresh:
            return
        self._fresh.add(tab)
        session, scores = self._shown, self._scores
        if tab == "main":
            self.query_one(TaskBoard).show(session, first=FIRST_FRAME_TASKS if first_frame else None)
            self.call_after_refresh(self.fit_board)
        elif tab == "goal":
            self.query_one(SetupView).show(session, scores)
        elif tab == "discoveries":
            self.query_one(DiscoveriesView).show(session)
        elif tab == "benchmarks":
            self.query_one(BenchmarksView).show(session, scores)
        elif tab == "files":
            self.query_one(FilesTable).show(session)
        elif tab == "packages":
            self.query_one(PackagesTable).show(session)
        elif tab == "launch":
            self.query_one(ProfilesView).show(session)
        elif tab == "last":
            self.query_one(LastActionView).show(session)
        elif tab == "handoff":
            self.query_one(HandoffView).show(session)

    def refresh_header(self) -> None:
        app = self.app
        header = self.query_one(CockpitHeader)
        header.show_title(app.editor.session.title, app.path.name, app.sources.title_note)
        # Every host of the session, one added in the Goal tab too, with what is known of it.
        states = app.host_states
        header.show_hosts({**{h.name: states.get(h.name, "") for h in app.editor.session.hosts}, **states})
        header.show_alert(app.alerts.headline(), app.alerts.headline(terse=True))
        header.show_dirty(app.unsaved_edits, app.autosave, app.disk_conflict, app.controller.merge_note)

    def _clock_s(self) -> float:
        """The app's clock in seconds: the live panes' data ages (tests freeze or move it)."""
        return self.app.clock().timestamp()

    def tick(self) -> None:
        self.query_one(CockpitHeader).show_clock(self.app.clock())
        # The one timer that ages the live panes' data ("updated 3 s ago", "stale · 25 s").
        for log in self.query(LogPane):
            log.show_age()
        gpu = self.query_one(GpuPane)
        gpu.show_age()
        self.query_one(TopologyPane).show_age()
        if gpu.age.last_at is not None:  # a GPU feed that has reported: its silence is an alert
            self.app.raise_alert(self.app.alerts.observe_stale("gpu", gpu.age.stale(), gpu.age.text()))
        metrics = self.query_one("#metrics-deck", HostDeck)
        if metrics.has_class("-live"):
            metrics.shown.follow_axis()  # type: ignore[attr-defined]  # its charts end with the power chart
        self.query_one(FleetPane).show_age()

    def on_theme_changed(self) -> None:
        """Tables colour cells in Python from theme roles, so they re-render (hidden tabs when
        next shown)."""
        self.show_session(self.app.editor.session)

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
        focus_view() if focus_view else widget.focus()

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
            self.shown_pane(pane).focus()

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
        self.app.reconnect_host(host)

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

    # ----- screen-scope actions (keys from the registry's `screen` scope) --------------------
    def action_save(self) -> None:
        self.app.save(announce=True, over_broken=True)

    def action_undo(self) -> None:
        label = self.controller.undo()
        self.notify(f"Undone: {label}" if label else "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        label = self.controller.redo()
        self.notify(f"Redone: {label}" if label else "Nothing to redo", timeout=2)

    def action_quit(self) -> None:
        self.app.request_quit()

    def action_toggle_autosave(self) -> None:
        self.app.toggle_autosave()

    def action_next_theme(self) -> None:
        self.app.next_theme()

    def action_dismiss_banner(self) -> None:
        self.banner_dismissed = True
        self.query_one(LeftOffBanner).display = False

    def action_jump_to_alert(self) -> None:
        """Show the oldest unseen alert's cause (its tab and pane) and mark it seen."""
        alert = self.app.alerts.take()
        if alert is None:
            self.notify("No alerts", timeout=2)
            return
        self.action_show_tab(alert.tab)
        if alert.tab == "main" and alert.pane:
            self.focus_pane(alert.pane)
        if alert.kind == "failed":  # too long for a toast: whole, wrapped, with its fix
            from cockpit.ui.screens.failure_text import FailureTextScreen
            self.app.push_screen(FailureTextScreen(alert.short, alert.text))
        else:
            self.notify(alert.text, severity="warning", timeout=6)
        self.refresh_header()

    def action_toggle_alert_bell(self) -> None:
        self.app.toggle_alert_bell()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(dict(self.active_bindings), self.app.bound_key_displays()))

    def on_compare_requested(self, message: msg.CompareRequested) -> None:
        pair = default_pair(self.app.editor.session, message.selected, message.base)
        if pair is None:
            self.notify("Comparing needs two launch profiles", severity="warning", timeout=2)
            return
        metric = Metric(message.metric) if message.metric else Metric.TOTAL_TOK_S
        self.app.push_screen(CompareScreen(*pair, metric=metric))

    def on_fleet_pane_host_selected(self, message: FleetPane.HostSelected) -> None:
        """Enter on a Fleet row: that host's log and GPU panes, when the session has the host."""
        if message.session_host is None:
            self.notify(f"{message.host} is not a host of this session: add it under [[hosts]] to follow "
                        "its log and GPUs here", timeout=5)
            return
        self.action_show_tab("main", focus=False)
        log_deck = self.query_one("#log-deck", HostDeck)
        if log_deck.has(message.session_host):
            log_deck.show(message.session_host)
        self.focus_pane("log")
        self.notify(f"{message.session_host}: log and GPUs", timeout=2)

    # ----- the palette's way in ---------------------------------------------------------
    def scope_widget(self, scope: str) -> Widget:
        return {
            "goal": lambda: self.query_one(SetupView),
            "tasks": lambda: self.query_one(TaskBoard),
            "discoveries": lambda: self.query_one(DiscoveriesView),
            "benchmarks": lambda: self.query_one(BenchmarksView),
            "launch": lambda: self.query_one(ProfilesView),
            "packages": lambda: self.query_one(PackagesTable),
            "files": lambda: self.query_one(FilesTable),
            "log": lambda: self.shown_pane("log"),
            "handoff": lambda: self.query_one(HandoffView),
            "fleet": lambda: self.query_one(FleetPane),
        }[scope]()

    async def run_registry_action(self, action_id: str) -> None:
        """Run a registry action as if its key were pressed where it belongs."""
        spec = BY_ID[action_id]
        if spec.scope == "screen":
            await self.run_action(spec.action)
            return
        if spec.scope == "list":  # the list that has the focus
            focused = self.focused
            if isinstance(focused, Restorable) and focused is not None:
                await focused.run_action(spec.action)
            else:
                self.notify("No list has the focus", severity="warning", timeout=2)
            return
        self.action_show_tab(SCOPE_TAB[spec.scope], focus=False)
        if spec.scope in ("tasks", "log"):
            self.focus_pane("board" if spec.scope == "tasks" else "log")
        else:
            self.focus_tab(SCOPE_TAB[spec.scope])
        await self.scope_widget(spec.scope).run_action(spec.action)

