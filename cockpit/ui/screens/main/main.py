"""The main screen: header, banner, targets strip, tabs, footer; renders the session.

It owns no session state: the App's SessionEditor does. `show_session` pushes the
current session into every view; intents from the views are handled in `MainIntents`.
At narrow or short sizes the main tab's three panes collapse to one at a time (`w`).
"""

from __future__ import annotations

import time
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Container, Horizontal, Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from cockpit.model.bench.compare import default_pair
from cockpit.model.bench.targets import score_all
from cockpit.model.enums import Metric
from cockpit.model.session import Session
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import BY_ID, SCOPE_TAB, bindings_for
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.screens.main.main_panes import TAB_IDS
from cockpit.ui.screens.main.main_view_state import MainViewState
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter
from cockpit.ui.widgets.chrome.header import CockpitHeader
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.chrome.run_status import RunStatus
from cockpit.ui.widgets.chrome.tab_bar import TabBar
from cockpit.ui.widgets.fleet.fleet_pane import FleetPane
from cockpit.ui.widgets.gpu.gpu_pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.log_pane import LogPane
from cockpit.ui.widgets.metrics.metrics_pane import MetricsPane
from cockpit.ui.widgets.session.banner import LeftOffBanner
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.session.restorable import Restorable
from cockpit.ui.widgets.session.setup_view import SetupView
from cockpit.ui.widgets.session.targets_strip import TargetsStrip
from cockpit.ui.widgets.session.task_board import TaskBoard
from cockpit.ui.widgets.session.text_views import HandoffView, LastActionView

FIRST_FRAME_TASKS = 120  # per column: more than a terminal shows; the rest follow the first frame


class MainScreen(MainViewState):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("screen")

    def __init__(self) -> None:
        super().__init__(id="main-screen")
        self.main_pane = "board"
        self.banner_dismissed = False
        self._tick_widgets: tuple[CockpitHeader, HostDeck, GpuPane, TopologyPane, HostDeck, FleetPane] | None = None
        self._tick_timer: Timer | None = None
        self._data_ticked_at = 0.0

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
                        yield GpuPane(id="gpu", clock=self._clock_s, throughput_of=self._log_throughput,
                                      history=self.port.live_state.power)
                        yield HostDeck(self._metrics_pane, label="Metrics", id="metrics-deck")
            yield SetupView(id="goal", host_reads=self.port.host_reads)
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
        yield FittedFooter()

    def _log_pane(self, primary: bool) -> LogPane:
        pane = LogPane(id="log" if primary else None, max_lines=self.port.controller.session.ui.log_buffer_lines,
                       clock=self._clock_s)
        if not primary:  # a new host's log starts with the view (filter, follow) now shown
            pane.apply_view_state(self.shown_pane("log").view_state)  # type: ignore[attr-defined]
        return pane

    def _metrics_pane(self, primary: bool) -> MetricsPane:
        return MetricsPane(id="metrics" if primary else None, axis_end=self._power_axis_end)

    def _log_throughput(self) -> tuple[tuple[float, float], ...]:
        """The log's generation throughput as the live state folded it (tokens per joule)."""
        log = self.port.live_state.log()
        return log.throughput if log is not None else ()

    def _power_axis_end(self) -> float | None:
        """Where the GPU pane's power sparklines end: the metrics charts end there too."""
        total = self.query_one(GpuPane).history.total_series()
        return total[-1][0] if total else None

    def on_mount(self) -> None:
        # Only the visible tab before the first frame, and of a big board only what a screen
        # can show; the app renders the rest right after (render_hidden_tabs).
        self.show_session(self.port.controller.session, first_frame=True)
        self.query_one(LeftOffBanner).show(self.port.controller.session.last_action)
        self.refresh_header()
        self.tick()
        self._tick_timer = self.set_interval(1.0, self.tick)
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
        fleet = session.prometheus or self.port.has_fleet_source  # the demo's replay has no [[prometheus]]
        self.query_one(TabBar).hidden = frozenset() if fleet else frozenset({"fleet"})
        for tab in TAB_IDS if every_tab else [self.active_tab]:
            self._render_tab(tab, first_frame=first_frame)
        self.refresh_header()

    def render_hidden_tabs(self) -> None:
        # Not the handoff: it is made (in a thread) when its tab is shown.
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
            from cockpit.store.handoff.markdown import render_handoff

            self.query_one(HandoffView).render_from(session, render_handoff)

    def refresh_header(self) -> None:
        app = self.port
        header = self.query_one(CockpitHeader)
        header.show_title(app.controller.session.title, app.path.name, app.title_note)
        # Every host of the session, one added in the Goal tab too, with what is known of it.
        states = app.host_states
        header.show_hosts({**{h.name: states.get(h.name, "") for h in app.controller.session.hosts}, **states})
        header.show_alert(app.alerts.headline(), app.alerts.headline(terse=True))
        header.show_dirty(app.unsaved_edits, app.autosave, app.disk_conflict, app.controller.merge_note)

    def _clock_s(self) -> float:
        """The app's clock in seconds: the live panes' data ages (tests freeze or move it)."""
        return self.port.clock().timestamp()

    def _ticked(self) -> tuple[CockpitHeader, HostDeck, GpuPane, TopologyPane, HostDeck, FleetPane]:
        """The widgets the 1 Hz tick touches, found once (they live as long as the screen):
        querying the DOM for them each second was a tenth of the idle cockpit's CPU."""
        if self._tick_widgets is None:
            self._tick_widgets = (self.query_one(CockpitHeader), self.query_one("#log-deck", HostDeck),
                                  self.query_one(GpuPane), self.query_one(TopologyPane),
                                  self.query_one("#metrics-deck", HostDeck), self.query_one(FleetPane))
        return self._tick_widgets

    def tick_with_data(self) -> None:
        """A GPU tick arrived: age the panes now, in the frame that draws the new rows, and
        start the 1 s timer again from here. At 1 Hz sampling the screen is painted once a
        second instead of twice (the ages, then the rows)."""
        now = time.monotonic()
        if now - self._data_ticked_at < 0.5 or self._tick_timer is None:  # faster sampling: 1 Hz still
            return
        self._data_ticked_at = now
        self.tick()
        self._tick_timer.reset()

    def tick(self) -> None:
        header, logs, gpu, topology, metrics, fleet = self._ticked()
        header.show_clock(self.port.clock())
        # The one timer that ages the live panes' data ("updated 3 s ago", "stale · 25 s").
        for log in logs.all_panes:
            if isinstance(log, LogPane) and log.is_mounted:
                log.show_age()
        gpu.show_age()
        topology.show_age()
        if gpu.age.last_at is not None:  # a GPU feed that has reported: its silence is an alert
            self.port.raise_alert(self.port.alerts.observe_stale("gpu", gpu.age.stale(), gpu.age.text()))
        if metrics.has_class("-live"):
            metrics.shown.follow_axis()  # type: ignore[attr-defined]  # its charts end with the power chart
        fleet.show_age()

    def on_theme_changed(self) -> None:
        """Tables colour cells in Python from theme roles, so they re-render (hidden tabs when
        next shown)."""
        self.show_session(self.port.controller.session)

    # ----- screen-scope actions (keys from the registry's `screen` scope) --------------------
    def action_save(self) -> None:
        self.port.save(announce=True, over_broken=True)

    def action_undo(self) -> None:
        label = self.controller.undo()
        self.notify(f"Undone: {label}" if label else "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        label = self.controller.redo()
        self.notify(f"Redone: {label}" if label else "Nothing to redo", timeout=2)

    def action_quit(self) -> None:
        self.port.request_quit()

    def action_toggle_autosave(self) -> None:
        self.port.toggle_autosave()

    def action_next_theme(self) -> None:
        self.port.next_theme()

    def action_dismiss_toasts(self) -> None:
        self.app.clear_notifications()

    def action_dismiss_banner(self) -> None:
        self.banner_dismissed = True
        self.query_one(LeftOffBanner).display = False

    def action_jump_to_alert(self) -> None:
        """Show the oldest unseen alert's cause (its tab and pane) and mark it seen."""
        alert = self.port.alerts.take()
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
        self.port.toggle_alert_bell()

    def action_search_log(self) -> None:
        """`/` where the focused pane has no search of its own: the log's (issue 39: `/` on the
        board did nothing, and the pattern typed next ran as board commands)."""
        self.action_show_tab("main", focus=False)
        self.focus_pane("log")
        self.shown_pane("log").action_search()  # type: ignore[attr-defined]

    def action_open_search(self) -> None:
        from cockpit.ui.screens.search import SearchScreen

        self.app.push_screen(SearchScreen())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(dict(self.active_bindings), self.port.bound_key_displays()))

    def on_compare_requested(self, message: msg.CompareRequested) -> None:
        pair = default_pair(self.port.controller.session, message.selected, message.base)
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

