"""CockpitApp: wiring and lifecycle. It owns the session controller, the live hub and state,
and two parts it builds and calls, each an object with its needs named in its constructor:

* `saving` (ui/app_saving.py, SessionSaving): the session (edits, undo, saving, merging other
  writers' saves) is the `SessionController`'s (control/session_controller.py, no Textual);
  SessionSaving turns its outcomes into toasts and timers. `save` writes the session with the
  `ui` table captured from the widgets; autosave is debounced (`ui.autosave`,
  `ui.autosave_delay_s`); the session file is polled for outside changes (`cockpit add` from a
  shell) and every save re-reads it under the lock: the other writer's records are merged by id
  with the local ones (model/edit/merge.py), never written over; quitting asks about unsaved edits;
* `feeds` (ui/app_live.py, LiveFeeds): `sources` (LiveSources) are run as workers through the
  live hub (control/live_hub.py: a log feed through its LogPipeline, once per kind@host, shared
  with a sweep's watch) whose items are folded first by the live state below the UI
  (live/state.py: the findings, tok/J, the metrics pane and the alerts read its snapshots) and
  routed by type to the panes that take them (ui/live/routes.py); the session hosts' feeds
  follow the session (only what the re-plan says is stopped and started); host states, alerts.

The App keeps thin methods for what its screens ask through the port (ui/port.py: `save`,
`reconnect_host`, ...) and hands Textual's messages for the parts to them.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual import events
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from cockpit.control.live_access import LiveSources
from cockpit.control.live_hub import LiveHub
from cockpit.control.session_controller import DiskSignature, SessionController
from cockpit.live.alerts import Alert, AlertBook
from cockpit.live.state import LiveState
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.package_drift import DriftRow
from cockpit.model.session import Session, UiState
from cockpit.ui.app_base import CockpitAppBase
from cockpit.ui.app_live import LiveFeeds
from cockpit.ui.app_saving import SessionSaving
from cockpit.ui.keys.commands import CockpitCommands, HostCommands
from cockpit.ui.keys_in_order import requests_landed
from cockpit.ui.live.diagnosis import FindingsWatch
from cockpit.ui.live.experiment import ExperimentControl
from cockpit.ui.messages import LiveFeedStopped, LiveItemReceived, ServerStartRequested, ServerStopRequested
from cockpit.ui.port import CockpitPort
from cockpit.ui.screens.main.screen import MainScreen
from cockpit.ui.widgets.fleet.pane import FleetPane

RECHECK_S = 1.0
"""How often the shown server states are checked against what runs (a search's, another writer's)."""


class CockpitApp(CockpitAppBase):
    CSS_PATH = Path(__file__).with_name("global.tcss")
    TITLE = "cockpit"
    COMMANDS = CockpitAppBase.COMMANDS | {CockpitCommands, HostCommands}
    # A mode (not get_default_screen) so that the screen's CSS_PATH is loaded.
    MODES = {"cockpit": MainScreen}
    DEFAULT_MODE = "cockpit"
    # ctrl+q goes through the same unsaved-edits question as q.
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
                Binding("ctrl+c", "help_quit", show=False, system=True)]

    def __init__(
        self,
        session: Session,
        path: Path,
        *,
        sources: LiveSources | None = None,
        clock: Callable[[], datetime] | None = None,
        theme: str | None = None,
        theme_dirs: list[Path] | None = None,
        keymap: dict[str, str] | None = None,
        watch_interval_s: float | None = 1.0,
        attach_servers: bool = False,
        disk_sig: DiskSignature | None = None,
    ) -> None:
        """`sources`: live feeds for the panes (demo replay, SSH tails, test fakes);
        `clock`: what the header shows (tests freeze it); `watch_interval_s`: how often the
        session file is checked for outside changes (None: never); `attach_servers`: look for
        servers of this session already running on its hosts (by PID file) when it opens;
        `disk_sig`: the signature of the read `session` came from (None: unknown, the first
        look reads the file and merges whatever another writer saved since)."""
        super().__init__(theme=theme or session.ui.theme, theme_dirs=theme_dirs)
        self.path = Path(path)
        self.controller = SessionController(session, self.path, disk_sig=disk_sig)
        self.controller.add_listener(self._session_changed)
        self.controller.add_save_listener(self._refresh_header)
        self.sources = sources or LiveSources()
        self.hub = LiveHub()  # one feed per kind@host, fanned out: the panes here, a sweep's watch
        self.live_state = LiveState()
        """The feeds' folds below the UI (live/state.py): the findings and the GPU pane's tok/J
        read its snapshots, as an assistant does."""
        self.hub.subscribe_all(self.live_state.take)  # folded first: a pane told of an item finds it there
        self.hub.subscribe_all(lambda key, item: self.post_message(LiveItemReceived(key, item)))
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC).astimezone())
        self.watch_interval_s = watch_interval_s
        self._restored = False  # the saved tab and focus applied (after the first frame)
        self._early_keys = False  # a key came before that
        self.keymap_problems: list[str] = []
        if keymap is None:  # the person's own keys (tests pass their own, or {})
            from cockpit.ui.keys.keymap_file import load_keymap

            keymap, self.keymap_problems = load_keymap()
        self.keymap = dict(keymap)
        self.startup_notes: list[str] = []
        """Said as toasts once the TUI is up (`cockpit new.toml`: the file was created)."""
        self.experiment = ExperimentControl(self)
        self.attach_servers = attach_servers
        self.feeds = LiveFeeds(self, self.sources, self.hub, self.live_state,
                               alerts=AlertBook(clock=lambda: self.clock().timestamp()),
                               alert_bell=bool(session.ui.alert_bell), session=lambda: self.controller.session,
                               main_screen=self._main_screen_if_up, server_crashed=self.experiment.server_crashed)
        self.saving = SessionSaving(self, self.controller, self.path, current_ui=self.current_ui,
                                    refresh_header=self._refresh_header, in_flight=self.experiment.in_flight)
        self.findings_watch = FindingsWatch(self)  # the header's count of open diagnosis findings

    @property
    def port(self) -> CockpitPort:
        """The app as its screens see it (ui/port.py); mypy checks that the app implements it."""
        return self

    @property
    def main_screen(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def _main_screen_if_up(self) -> MainScreen | None:
        """The main screen, or None while the app starts or exits."""
        if self.screen_stack and isinstance(screen := self.screen_stack[0], MainScreen):
            return screen
        return None

    def _refresh_header(self) -> None:
        if (screen := self._main_screen_if_up()) is not None:
            screen.refresh_header()

    # ----- the session (SessionSaving does the saving) -------------------------------------------
    @property
    def editor(self) -> SessionEditor:
        return self.controller.editor

    @property
    def autosave(self) -> bool:
        return self.controller.autosave

    @property
    def disk_conflict(self) -> bool:
        """The file on disk does not load: autosave waits, ctrl+s saves over it (kept as .bak)."""
        return self.controller.disk_broken

    @property
    def unsaved_edits(self) -> int:
        return self.controller.unsaved_edits

    def current_ui(self) -> UiState:
        """The view as it is now, saved in the session's `ui` table."""
        ui = self.editor.session.ui
        bell = self.feeds.alert_bell
        bell_saved = bell if (bell or ui.alert_bell is not None) else None  # unset stays unset
        return self.main_screen.capture_ui(ui.model_copy(update={"autosave": self.autosave, "alert_bell": bell_saved}))

    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool:
        return self.saving.save(announce=announce, over_broken=over_broken)

    def toggle_autosave(self) -> None:
        self.saving.toggle_autosave()

    async def action_quit(self) -> None:
        self.saving.request_quit()

    def request_quit(self) -> None:
        self.saving.request_quit()

    # ----- hosts and alerts (LiveFeeds follows the feeds) ---------------------------------------------
    @property
    def host_states(self) -> dict[str, str]:
        return self.feeds.host_states

    @property
    def alerts(self) -> AlertBook:
        return self.feeds.alerts

    def raise_alert(self, alert: Alert | None) -> None:
        self.feeds.raise_alert(alert)

    def toggle_alert_bell(self) -> None:
        self.feeds.toggle_alert_bell()

    def live_hosts(self) -> list[str]:
        return self.feeds.live_hosts()

    def reconnect_host(self, name: str) -> None:
        self.feeds.reconnect_host(name)

    def on_live_item_received(self, message: LiveItemReceived) -> None:
        self.feeds.item_received(message.feed, message.item)

    def on_live_feed_stopped(self, message: LiveFeedStopped) -> None:
        self.feeds.feed_stopped(message.feed, message.reason)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # One place turns a failed worker into an on-screen state instead of a crash.
        if event.state is WorkerState.ERROR:
            self.feeds.worker_failed(event.worker)

    def on_fleet_pane_next_source(self, _message: FleetPane.NextSource) -> None:
        self.feeds.next_fleet_source()

    @property
    def title_note(self) -> str | None:
        return self.sources.title_note

    @property
    def host_reads(self) -> dict[str, list[str]]:
        return self.sources.host_reads

    @property
    def has_fleet_source(self) -> bool:
        return self.sources.fleet is not None

    async def check_drift(self, session: Session) -> tuple[list[DriftRow], list[str]]:
        from cockpit.control.live_access import check_drift

        return await check_drift(session, self.sources)

    def trials_pool(self) -> Any:
        return self.experiment.service.pool()

    def _hangup_signals(self, *, install: bool) -> None:
        """SIGHUP (the terminal closed) and SIGTERM end the app as `q` does without asking, so
        its unmount cleanup runs (the demo's temporary folder); not under a test's pilot."""
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGHUP, signal.SIGTERM):
            try:
                if install:
                    loop.add_signal_handler(sig, self.terminal_hung_up)
                else:
                    loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):  # no such signal / loop closing
                pass

    def last_resort_cleanup(self) -> None:
        self.sources.run_stops()

    def on_mount(self) -> None:
        self._hangup_signals(install=True)
        if self.keymap:
            self.set_keymap(self.keymap)
        self.report_theme_problems()
        for key_problem in self.keymap_problems:
            self.notify(f"Key skipped: {key_problem}", severity="warning", timeout=10)
        for note in self.startup_notes:
            self.notify(note, timeout=8)
        self.call_after_refresh(self._restore_view)
        self.feeds.start()
        if self.watch_interval_s:
            self.saving.watch_session_file(self.watch_interval_s)
        self.experiment.say_cut_short()
        self.set_interval(RECHECK_S, self.experiment.recheck)
        self.findings_watch.start()
        if self.attach_servers and self.editor.session.launch:
            self.run_worker(self.experiment.attach(), group="experiment-attach", exit_on_error=False,
                            description="find this session's running servers")

    def _restore_view(self) -> None:
        """After the first frame: fill the hidden tabs, then put the view where `ui` says."""
        self.main_screen.render_hidden_tabs()
        # A key pressed between the first frame and now (`w`, a tab key) wins over the
        # saved tab and focus: undoing it would look like a lost key.
        self.main_screen.apply_ui(self.editor.session.ui, move=not self._early_keys)
        self._restored = True
        self.settle_after_first_frame()

    async def on_event(self, event: events.Event) -> None:
        if not self._restored and isinstance(event, events.Key):
            self._early_keys = True
        await super().on_event(event)

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        # A binding may ask for a form (`e`): the next key waits until that request has
        # landed, so it meets the form, never the screen behind (ui/keys_in_order.py).
        screen = self.screen
        handled = await super()._check_bindings(key, priority)
        if handled and not priority:
            await requests_landed(self, screen)
        return handled

    def on_key(self, event: events.Key) -> None:
        """A printable key that no binding where the focus is takes says so (issue 39: a `/`
        on the board did nothing and said nothing, so the letters after it ran as board
        commands). The App sees a key only when no widget on the way up took it."""
        if not event.is_printable or event.key in self.screen.active_bindings:
            return
        if self.screen is not self.main_screen:
            return
        where = self.main_screen.focused_key() or "this tab"
        self.notify(f"{event.character!r} does nothing in {where} · ? lists its keys", timeout=2)

    def _session_changed(self) -> None:
        """The controller's one signal: the session changed (edit, undo, merge)."""
        if (screen := self._main_screen_if_up()) is not None:
            screen.show_session(self.editor.session)
            self.feeds.follow_hosts()
            self.feeds.follow_prometheus()
        self.saving.schedule_autosave()

    # ----- themes -------------------------------------------------------------------------
    def next_theme(self) -> None:
        names = self.theme_names or [self.theme]
        index = names.index(self.theme) + 1 if self.theme in names else 0
        self.theme = names[index % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)

    # ----- the experiment loop (ui/live/experiment.py runs it) ------------------------------------------
    def on_server_start_requested(self, message: ServerStartRequested) -> None:
        self.experiment.start(message.profile_id, restart=message.restart)

    def on_server_stop_requested(self, message: ServerStopRequested) -> None:
        self.experiment.stop(message.profile_id)

    def action_confirm_log_command(self) -> None:
        from cockpit.ui.log_confirm import ask_log_command

        ask_log_command(self)

    def action_open_findings(self) -> None:
        from cockpit.ui.screens.findings import FindingsScreen

        if not isinstance(self.screen, FindingsScreen):
            self.push_screen(FindingsScreen())

    def action_run_sweep(self) -> None:
        self.experiment.sweep()

    def action_cancel_sweep(self) -> None:
        self.experiment.cancel_sweep()

    def action_resume_sweep(self) -> None:
        self.experiment.resume_sweep()

    def action_start_fallback(self) -> None:
        self.experiment.start_fallback()

    def show_run_status(self, text: str, profile_states: dict[str, str]) -> None:
        if (screen := self._main_screen_if_up()) is not None:
            screen.show_run_status(text, profile_states)

    def on_unmount(self) -> None:
        # (CockpitAppBase's on_unmount runs too: Textual calls each class's handler.)
        self.experiment.shutdown()
        self._hangup_signals(install=False)
        self.sources.run_stops()

