"""The main screen: header, banner, targets strip, tabs, footer; renders the session.

It owns no session state: the App's SessionController does. Textual hands the views'
intents and the keys' actions to the screen, so its `on_*` and `action_*` methods are
thin: each calls the object that holds that part (composed here, not inherited):
the tabs and panes (`TabsAndPanes`), the session's rendering (`SessionRender`), the saved
view (`ViewState`), the 1 Hz tick (`LiveTick`) and the intent handlers (`TaskHandlers`,
`RecordHandlers`, `SetupHandlers`, each one SessionEditor call through an `EditRunner`).
At narrow or short sizes the main tab's three panes collapse to one at a time (`w`).
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Container, Horizontal, Vertical
from textual.events import Click, Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from cockpit.model.session import Session, UiState
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import BY_ID, bindings_for
from cockpit.ui.port import CockpitPort, port_of
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.screens.main.edit_runner import EditRunner
from cockpit.ui.screens.main.live_tick import LiveTick
from cockpit.ui.screens.main.record_handlers import RecordHandlers
from cockpit.ui.screens.main.session_render import SessionRender
from cockpit.ui.screens.main.setup_handlers import SetupHandlers
from cockpit.ui.screens.main.tabs_and_panes import TabsAndPanes
from cockpit.ui.screens.main.task_handlers import TaskHandlers
from cockpit.ui.screens.main.view_state import ViewState
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter
from cockpit.ui.widgets.chrome.header import CockpitHeader
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.chrome.run_status import RunStatus
from cockpit.ui.widgets.chrome.tab_bar import TabBar
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.metrics.pane import MetricsPane
from cockpit.ui.widgets.session.banner import LeftOffBanner
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.session.setup_view import SetupView
from cockpit.ui.widgets.session.targets_strip import TargetsStrip
from cockpit.ui.widgets.session.task_board import TaskBoard
from cockpit.ui.widgets.session.text_views import HandoffView, LastActionView


class MainScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("screen")

    def __init__(self) -> None:
        super().__init__(id="main-screen")
        self.banner_dismissed = False
        self.port: CockpitPort = port_of(self)
        """What this screen may ask of the app (ui/port.py)."""
        self.panes = TabsAndPanes(self, render_tab=self._render_tab)
        self.rendering = SessionRender(self, self.port, self.panes)
        self.view = ViewState(self, self.panes)
        self.ticks = LiveTick(self, self.port)
        edits = EditRunner(self.port.controller, self.notify)
        self.tasks = TaskHandlers(self, edits)
        self.records = RecordHandlers(self, edits, self.port, self.panes, lambda: self.banner_dismissed)
        self.setup = SetupHandlers(self, edits)

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
            pane.apply_view_state(self.panes.shown_log().view_state)
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

    def _clock_s(self) -> float:
        """The app's clock in seconds: the live panes' data ages (tests freeze or move it)."""
        return self.port.clock().timestamp()

    def _render_tab(self, tab: str) -> None:
        self.rendering.render_tab(tab)

    def on_mount(self) -> None:
        # Only the visible tab before the first frame, and of a big board only what a screen
        # can show; the app renders the rest right after (render_hidden_tabs).
        self.show_session(self.port.controller.session, first_frame=True)
        self.query_one(LeftOffBanner).show(self.port.controller.session.last_action)
        self.refresh_header()
        self.ticks.start()
        self.panes.update_pane_bar()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.on_theme_changed())

    def on_theme_changed(self) -> None:
        """Tables colour cells in Python from theme roles, so they re-render (hidden tabs when
        next shown)."""
        self.show_session(self.port.controller.session)

    # ----- what the app asks of the screen (app.py, app_live.py, app_saving.py) --------------
    def show_session(self, session: Session, *, every_tab: bool = False, first_frame: bool = False) -> None:
        self.rendering.show_session(session, every_tab=every_tab, first_frame=first_frame)

    def render_hidden_tabs(self) -> None:
        self.rendering.render_hidden_tabs()

    def refresh_header(self) -> None:
        self.rendering.refresh_header()

    def show_run_status(self, text: str, profile_states: dict[str, str]) -> None:
        """The experiment loop's line (server phase, sweep point) and the Launch list's marks."""
        self.query_one(RunStatus).show(text)
        self.query_one(ProfilesView).set_run_states(profile_states)

    def tick(self) -> None:
        self.ticks.tick()

    def tick_with_data(self) -> None:
        self.ticks.tick_with_data()

    def live_pane(self, pane_id: str, host: str | None) -> Widget | None:
        return self.panes.live_pane(pane_id, host)

    def drop_host(self, host: str) -> None:
        self.panes.drop_host(host)

    def capture_ui(self, base: UiState) -> UiState:
        return self.view.capture(base)

    def apply_ui(self, ui: UiState, *, move: bool = True) -> None:
        self.view.apply(ui, move=move)

    def focused_key(self) -> str | None:
        return self.view.focused_key()

    @property
    def active_tab(self) -> str:
        return self.panes.active_tab

    @property
    def main_pane(self) -> str:
        """The main tab's pane shown (narrow) and marked in the pane bar."""
        return self.panes.main_pane

    @property
    def main_panes(self) -> tuple[str, ...]:
        return self.panes.main_panes

    def shown_pane(self, pane: str) -> Widget:
        return self.panes.shown_pane(pane)

    def focus_pane(self, pane: str) -> None:
        self.panes.focus_pane(pane)

    # ----- Textual's events ------------------------------------------------------------------
    def on_resize(self, event: Resize) -> None:
        self.panes.resized(event.size)

    def on_click(self, event: Click) -> None:
        self.panes.clicked(event)

    def on_descendant_focus(self) -> None:
        self.panes.follow_focus()

    def on_host_deck_shown(self, _message: HostDeck.Shown) -> None:
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.panes.several_hosts() if action == "next_log_host" else True

    # ----- screen-scope actions (keys from the registry's `screen` scope) --------------------
    def action_show_tab(self, tab: str, focus: bool = True) -> None:
        self.panes.show_tab(tab, focus)

    def action_next_pane(self) -> None:
        self.panes.next_pane()

    def action_next_log_host(self) -> None:
        self.panes.next_log_host()

    def action_reconnect_shown(self) -> None:
        host = self.panes.shown_log_host()
        if host is None:
            self.notify("No host's log is shown: reconnect a host from the palette (hosts: Reconnect …)",
                        severity="warning", timeout=4)
            return
        self.port.reconnect_host(host)

    def action_save(self) -> None:
        self.port.save(announce=True, over_broken=True)

    def action_undo(self) -> None:
        label = self.port.controller.undo()
        self.notify(f"Undone: {label}" if label else "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        label = self.port.controller.redo()
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

    def action_set_last_action(self) -> None:
        self.records.set_last_action()

    def action_add_target(self) -> None:
        self.setup.add_target()

    def action_jump_to_alert(self) -> None:
        """Show the oldest unseen alert's cause (its tab and pane) and mark it seen."""
        alert = self.port.alerts.take()
        if alert is None:
            self.notify("No alerts", timeout=2)
            return
        self.panes.show_cause(alert)
        self.refresh_header()

    def action_toggle_alert_bell(self) -> None:
        self.port.toggle_alert_bell()

    def action_search_log(self) -> None:
        """`/` where the focused pane has no search of its own: the log's (issue 39: `/` on the
        board did nothing, and the pattern typed next ran as board commands)."""
        self.panes.show_tab("main", focus=False)
        self.panes.focus_pane("log")
        self.panes.shown_log().action_search()

    def action_open_search(self) -> None:
        from cockpit.ui.screens.search import SearchScreen

        self.app.push_screen(SearchScreen())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(dict(self.active_bindings), self.port.bound_key_displays()))

    # ----- the views' intents -------------------------------------------------------------------
    def on_task_add_requested(self, message: msg.TaskAddRequested) -> None:
        self.tasks.add_task(message)

    def on_task_edit_requested(self, message: msg.TaskEditRequested) -> None:
        self.tasks.edit_task(message)

    def on_task_delete_requested(self, message: msg.TaskDeleteRequested) -> None:
        self.tasks.delete_task(message)

    def on_task_move_requested(self, message: msg.TaskMoveRequested) -> None:
        self.tasks.move_task(message)

    def on_task_reorder_requested(self, message: msg.TaskReorderRequested) -> None:
        self.tasks.reorder_task(message)

    def on_task_link_requested(self, message: msg.TaskLinkRequested) -> None:
        self.tasks.link_task(message)

    def on_task_review_acknowledged(self, message: msg.TaskReviewAcknowledged) -> None:
        self.tasks.acknowledge_review(message)

    def on_discovery_add_requested(self, _message: msg.DiscoveryAddRequested) -> None:
        self.tasks.add_discovery()

    def on_discovery_edit_requested(self, message: msg.DiscoveryEditRequested) -> None:
        self.tasks.edit_discovery(message)

    def on_discovery_status_cycle_requested(self, message: msg.DiscoveryStatusCycleRequested) -> None:
        self.tasks.cycle_discovery_status(message)

    def on_benchmark_add_requested(self, _message: msg.BenchmarkAddRequested) -> None:
        self.records.new_benchmark()

    def on_log_pane_bench_result_seen(self, message: LogPane.BenchResultSeen) -> None:
        """"Record this result" in the log: the form filled with the block's figures."""
        self.records.new_benchmark(message.fields, announce=True)

    def on_benchmark_edit_requested(self, message: msg.BenchmarkEditRequested) -> None:
        self.records.edit_benchmark(message)

    def on_benchmark_delete_requested(self, message: msg.BenchmarkDeleteRequested) -> None:
        self.records.delete_benchmark(message)

    def on_profile_mark_working_requested(self, message: msg.ProfileMarkWorkingRequested) -> None:
        self.records.mark_profile_working(message)

    def on_profile_copy_requested(self, message: msg.ProfileCopyRequested) -> None:
        self.records.copy_profile(message)

    def on_handoff_write_requested(self, _message: msg.HandoffWriteRequested) -> None:
        self.records.write_handoff()

    def on_handoff_copy_requested(self, _message: msg.HandoffCopyRequested) -> None:
        self.records.copy_handoff()

    def on_record_add_requested(self, message: msg.RecordAddRequested) -> None:
        self.records.add_record(message)

    def on_record_edit_requested(self, message: msg.RecordEditRequested) -> None:
        self.records.edit_record(message)

    def on_record_delete_requested(self, message: msg.RecordDeleteRequested) -> None:
        self.records.delete_record(message)

    def on_drift_check_requested(self, message: msg.DriftCheckRequested) -> None:
        self.records.check_drift(message)

    def on_setup_add_requested(self, message: msg.SetupAddRequested) -> None:
        self.setup.add(message)

    def on_setup_edit_requested(self, message: msg.SetupEditRequested) -> None:
        self.setup.edit(message)

    def on_setup_delete_requested(self, message: msg.SetupDeleteRequested) -> None:
        self.setup.delete(message)

    def on_instruction_move_requested(self, message: msg.InstructionMoveRequested) -> None:
        self.setup.move_instruction(message)

    def on_file_detail_requested(self, message: msg.FileDetailRequested) -> None:
        self.setup.file_detail(message)

    def on_benchmark_detail_requested(self, message: msg.BenchmarkDetailRequested) -> None:
        self.setup.benchmark_detail(message)

    def on_compare_requested(self, message: msg.CompareRequested) -> None:
        self.records.compare(message)

    def on_fleet_pane_host_selected(self, message: FleetPane.HostSelected) -> None:
        """Enter on a Fleet row: that host's log and GPU panes, when the session has the host."""
        if message.session_host is None:
            self.notify(f"{message.host} is not a host of this session: add it under [[hosts]] to follow "
                        "its log and GPUs here", timeout=5)
            return
        self.panes.show_host(message.session_host)
        self.notify(f"{message.session_host}: log and GPUs", timeout=2)

    # ----- the palette's way in ---------------------------------------------------------
    async def run_registry_action(self, action_id: str) -> None:
        """Run a registry action as if its key were pressed where it belongs."""
        await self.panes.run_registry_action(action_id)
