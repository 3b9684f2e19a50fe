"""CockpitApp: wiring and lifecycle. Owns the SessionController and the live feeds.

* the session (edits, undo, saving, merging other writers' saves) is the
  `SessionController`'s (control/session_controller.py, no Textual); the app turns its
  outcomes into toasts and timers, and the controller tells the screen when to re-render;
* `save` writes the session with the `ui` table captured from the widgets; autosave is
  debounced (`ui.autosave`, `ui.autosave_delay_s`);
* the session file is polled for outside changes (`cockpit add` from a shell) and every
  save re-reads it under the lock: the other writer's records are merged by id with the
  local ones (model/edit/merge.py), never written over;
* `sources` (LiveSources) are run as workers through the live hub (live/hub.py: a log
  feed through its LogPipeline, once per kind@host, shared with a sweep's watch) whose
  items are routed by type to the panes that take them (ui/live/live_routes.py);
* the session hosts' feeds (`sources.hosts`, keyed `kind@host`) follow the session: after
  every change the plan is diffed (sources/host_feeds_plan.py) and only what it says is
  stopped and started, so a host added or edited is connected without a restart;
  `reconnect_host` restarts one host's feeds now, skipping the back-off.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual import events, work
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from cockpit.control.live_access import HostEvent, LiveFeed, LiveSources, host_state_text, hosts_with, split_key
from cockpit.control.session_controller import LOCK_RETRY_S, DiskSignature, SessionController
from cockpit.live.alerts import Alert, AlertBook, error_lines
from cockpit.live.fleet.fleet_sources import FleetSources
from cockpit.live.hub import LiveHub
from cockpit.live.log.log_items import LogLines, SourceState
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import MergeResult
from cockpit.model.package_drift import DriftRow
from cockpit.model.session import Session, UiState
from cockpit.store.errors import SessionFileError
from cockpit.ui.app_base import CockpitAppBase
from cockpit.ui.keys.commands import CockpitCommands, HostCommands
from cockpit.ui.live.diagnosis_live import FindingsWatch
from cockpit.ui.live.experiment import ExperimentControl
from cockpit.ui.live.live_routes import ROUTES, LivePane, state_pane
from cockpit.ui.messages import LiveFeedStopped, LiveItemReceived, ServerStartRequested, ServerStopRequested
from cockpit.ui.port import CockpitPort
from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen
from cockpit.ui.screens.main.main import MainScreen
from cockpit.ui.widgets.fleet.fleet_pane import FleetPane
from cockpit.ui.widgets.gpu.gpu_pane import GpuPane
from cockpit.ui.widgets.log.log_pane import LogPane

# What the header says of a host on this machine (no `ssh`): its log feed's state.
LOCAL_TAILING, LOCAL_WAITING, LOCAL_STOPPED = "tailing", "no log file yet", "stopped"


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
        watch_interval_s: float | None = 1.5,
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
        self.controller = SessionController(session, path, disk_sig=disk_sig)
        self.controller.add_listener(self._session_changed)
        self.host_states: dict[str, str] = {host.name: "" for host in session.hosts}
        """What the header says about each host ("connected", "reconnecting in 8 s", ...):
        view state, kept here rather than in the controller (which knows no connections)."""
        self.path = Path(path)
        self.sources = sources or LiveSources()
        self.hub = LiveHub()  # one feed per kind@host, fanned out: the panes here, a sweep's watch
        self.hub.subscribe_all(lambda key, item: self.post_message(LiveItemReceived(key, item)))
        self._prometheus_seen = tuple(session.prometheus)  # follow_prometheus acts on a change
        self.clock = clock or (lambda: datetime.now(UTC).astimezone())
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
        self._autosave_timer: Timer | None = None
        self.experiment = ExperimentControl(self)
        self.attach_servers = attach_servers
        self._live_keys: set[str] = set()  # keys of the session hosts' feeds now running
        self._feed_states: dict[Any, dict[str, str]] = {}  # pane -> feed key -> its state text
        self.alerts = AlertBook(clock=lambda: self.clock().timestamp())
        self.alert_bell = bool(session.ui.alert_bell)
        self.findings_watch = FindingsWatch(self)  # the header's count of open diagnosis findings

    @property
    def port(self) -> CockpitPort:
        """The app as its screens see it (ui/port.py); mypy checks that the app implements it."""
        return self

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

    @property
    def main_screen(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

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
        for name, feed in self.sources.items():
            self._start_feed(name, feed)
        self.follow_hosts(announce=False)
        for start in self.sources.on_start:
            self.run_worker(start(), group="live-helpers", exit_on_error=False,
                            description=getattr(start, "__qualname__", "live helper"))
        if self.sources.host_events is not None:
            self.sources.host_events.add_listener(self._host_event)
        if self.watch_interval_s:
            self.watch_session_file()
        self.experiment.say_cut_short()
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

    # ----- the session ----------------------------------------------------------------------
    @property
    def editor(self) -> SessionEditor:
        return self.controller.editor

    @property
    def autosave(self) -> bool:
        return self.controller.autosave

    @autosave.setter
    def autosave(self, value: bool) -> None:
        self.controller.autosave = value

    @property
    def disk_conflict(self) -> bool:
        """The file on disk does not load: autosave waits, ctrl+s saves over it (kept as .bak)."""
        return self.controller.disk_broken

    @property
    def unsaved_edits(self) -> int:
        return self.controller.unsaved_edits

    def _session_changed(self) -> None:
        """The controller's one signal: the session changed (edit, undo, merge)."""
        if self.screen_stack and isinstance(self.screen_stack[0], MainScreen):
            self.main_screen.show_session(self.editor.session)
            self.follow_hosts()
            self.follow_prometheus()
        self._schedule_autosave()

    # ----- saving -------------------------------------------------------------------------
    def current_ui(self) -> UiState:
        ui = self.editor.session.ui
        bell = self.alert_bell if (self.alert_bell or ui.alert_bell is not None) else None  # unset stays unset
        return self.main_screen.capture_ui(ui.model_copy(update={"autosave": self.autosave, "alert_bell": bell}))

    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool:
        """Save through the controller (merged with other writers' saves, under the lock)
        and say what happened. Returns False when nothing was written."""
        outcome = self.controller.save(self.current_ui(), over_broken=over_broken)
        if outcome.status == "busy":
            self.notify("Another writer is saving the session; trying again shortly", timeout=3)
            self._schedule_autosave(delay=LOCK_RETRY_S, force=True)
            return False
        if outcome.status == "broken":
            self.notify(f"Not saved: the session file on disk does not load (fix it, or ctrl+s to save "
                        f"over it; it is kept as .bak).\n{outcome.message}", severity="error", timeout=15)
            self.main_screen.refresh_header()
            return False
        if outcome.status == "failed":
            self.notify(f"Could not save: {outcome.message}", severity="error", timeout=10)
            return False
        if outcome.overwrote_broken:
            self.notify(f"The file on disk did not load; it is kept as {self.path.name}.bak",
                        severity="warning", timeout=8)
        if outcome.merge is not None:
            self._announce_merge(outcome.merge)
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
            self._autosave_timer = None
        if announce:
            self.notify(f"Saved {self.path.name}", timeout=3)
        self.main_screen.refresh_header()
        return True

    def _announce_merge(self, result: MergeResult) -> None:
        """Renumbered ids and conflicts in toasts (the header has the summary)."""
        if result.renumbered:
            self.notify("Another writer took these ids first; yours were renumbered: "
                        + ", ".join(f"{a} -> {b}" for a, b in result.renumbered.items()), timeout=8)
        if result.conflicts:
            lines = "\n".join(c.describe() for c in result.conflicts[:5])
            more = f"\n(+{len(result.conflicts) - 5} more in the journal)" if len(result.conflicts) > 5 else ""
            self.notify(f"Both you and another writer changed the same field; yours were kept:\n{lines}{more}",
                        severity="warning", timeout=12)

    def _schedule_autosave(self, delay: float | None = None, force: bool = False) -> None:
        if self.screen_stack and isinstance(self.screen_stack[0], MainScreen):
            self.main_screen.refresh_header()
        if not force and not self.controller.autosave_due:
            return
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
        wait = self.editor.session.ui.autosave_delay_s if delay is None else delay
        wait = max(wait, 0.01)  # a zero-interval Textual timer divides by zero
        self._autosave_timer = self.set_timer(wait, self._autosave)

    def _autosave(self) -> None:
        self._autosave_timer = None
        if not self.screen_stack:  # exiting: the screens (and the view to save) are gone
            return
        if self.controller.autosave_due:
            self.save()

    def toggle_autosave(self) -> None:
        self.autosave = not self.autosave
        self.notify(f"Autosave {'on' if self.autosave else 'off'}", timeout=2)
        self._schedule_autosave()

    # ----- quitting -----------------------------------------------------------------------
    async def action_quit(self) -> None:
        self.request_quit()

    def request_quit(self) -> None:
        if (in_flight := self.experiment.in_flight()) is not None:  # a sweep point would be lost: ask
            from cockpit.ui.screens.confirm_quit_sweep import ConfirmQuitSweepScreen

            def answer(quit_anyway: bool | None) -> None:
                if quit_anyway:
                    self._quit_saving()
                else:
                    self.notify("Not quit: the sweep goes on", timeout=3)

            self.push_screen(ConfirmQuitSweepScreen(in_flight), answer)
            return
        self._quit_saving()

    def _quit_saving(self) -> None:
        if not self.unsaved_edits:
            self._save_view_if_moved()
            self.exit()
            return

        def choose(choice: str | None) -> None:
            if choice == "save" and self.save():
                self.exit()
            elif choice == "discard":
                self.exit()

        self.push_screen(ConfirmQuitScreen(self.unsaved_edits), choose)

    def _save_view_if_moved(self) -> None:
        """No edits, but the view moved (tab, selection, theme): keep it for the reopen
        (merged with any outside change like every save)."""
        if self.current_ui() != self.editor.session.ui and not self.controller.disk_broken:
            self.save()

    # ----- themes -------------------------------------------------------------------------
    def next_theme(self) -> None:
        names = self.theme_names or [self.theme]
        index = names.index(self.theme) + 1 if self.theme in names else 0
        self.theme = names[index % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)

    # ----- live feeds and hosts ---------------------------------------------------------------
    def set_host_state(self, host: str, state: str) -> None:
        """What the header says about a host ("connected", "reconnecting in 8 s", ...)."""
        self.host_states[host] = state
        self.raise_alert(self.alerts.observe_host(host, state))
        self.main_screen.refresh_header()

    def _start_feed(self, name: str, feed: LiveFeed) -> None:
        """Run `feed` (`name`: a LiveSources field, or a host's `kind@host`) into its panes."""
        pane = self._state_pane(name)
        if pane is None:
            return
        self._set_feed_state(pane, name, feed.description)
        self._local_log_state(name, LOCAL_TAILING)
        interval = getattr(feed, "interval_s", None)
        if interval and hasattr(pane, "expect_every"):
            pane.expect_every(interval)  # a sampled feed: quiet for 5 intervals is stale
        self.run_worker(self._pump(name, feed), name=f"live-{name}", group=f"live-{name}",
                        description=feed.description, exclusive=True, exit_on_error=False)

    def _stop_feed(self, key: str) -> None:
        self.workers.cancel_group(self, f"live-{key}")
        self._live_keys.discard(key)
        for states in self._feed_states.values():
            states.pop(key, None)

    def _state_pane(self, key: str) -> LivePane | None:
        kind, host = split_key(key)
        return self._pane(state_pane(kind), host) if kind in ROUTES else None

    def _local_log_state(self, key: str, state: str) -> None:
        """A host on this machine has no connection to speak of: the header shows its log
        feed's state instead ("tailing", "no log file yet", "stopped")."""
        kind, name = split_key(key)
        hosts = self.sources.hosts
        host = hosts.hosts.get(name) if hosts is not None and name is not None and kind == "log" else None
        if host is not None and not host.ssh:
            self.set_host_state(host.name, state)

    def _set_feed_state(self, pane: LivePane, key: str, text: str) -> None:
        """A pane fed by several hosts (the GPUs) shows each feed's state, joined."""
        states = self._feed_states.setdefault(pane, {})
        states[key] = text
        pane.set_state(" · ".join(states.values()))

    # ----- the session hosts' feeds ----------------------------------------------------------
    def follow_hosts(self, *, announce: bool = True) -> None:
        """Bring the running feeds in line with the session's hosts (sources/host_feeds.py)."""
        hosts = self.sources.hosts
        if hosts is None or not self.screen_stack or not isinstance(self.screen_stack[0], MainScreen):
            return
        update = hosts.update(self.editor.session.hosts)
        self._apply_feed_update(update)
        change = update.change
        for name in change.hosts_removed:
            self.main_screen.drop_host(name)
            self.host_states.pop(name, None)
        for name in change.hosts_added:
            self.host_states.setdefault(name, "")
        if change.hosts_removed or change.hosts_added:
            self.main_screen.refresh_header()
        if announce and change:
            started = sorted({spec.host for spec in change.start})
            stopped = sorted(set(change.hosts_removed))
            parts = ([f"connecting {', '.join(started)}"] if started else []) + (
                [f"stopped {', '.join(stopped)} (removed)"] if stopped else [])
            if parts:
                self.notify("Hosts changed: " + "; ".join(parts), timeout=4)

    def _apply_feed_update(self, update: Any) -> None:
        for key in update.change.stop:
            self._stop_feed(key)
        for key, feed in update.feeds.items():
            self._live_keys.add(key)
            self._start_feed(key, feed)
        for key, reason in update.failed.items():
            if (pane := self._state_pane(key)) is not None:
                self._set_feed_state(pane, key, reason)

    def live_hosts(self) -> list[str]:
        """Session hosts with a live feed (the palette's "hosts: Reconnect NAME")."""
        hosts = self.sources.hosts
        return hosts_with(hosts.plan, "log", "gpu", "topology", "metrics") if hosts is not None else []

    def reconnect_host(self, name: str) -> None:
        """Connect `name` again now (no back-off) and restart all of its feeds."""
        hosts = self.sources.hosts
        if hosts is None or name not in self.live_hosts():
            self.notify(f"{name} has no live feed to reconnect", severity="warning", timeout=4)
            return
        self.alerts.reconnect_asked(name)  # the drop that follows is the person's, not "host dropped"
        self._apply_feed_update(hosts.reconnect(name))
        host = hosts.hosts.get(name)
        if host is not None and host.ssh:
            self.set_host_state(name, "connecting")
        self.notify(f"Reconnecting {name}", timeout=3)

    def follow_prometheus(self) -> None:
        """`[[prometheus]]` edits (here, or merged from another writer) are used at once: the
        Fleet tab's feed restarts on the session's sources (none: the tab says how to add one).
        A fleet feed that is not the session's (the demo's replay) is left alone."""
        wanted = tuple(self.editor.session.prometheus)
        if wanted == self._prometheus_seen:
            return
        self._prometheus_seen = wanted
        fleet = self.sources.fleet
        if fleet is not None and not isinstance(fleet, FleetSources):
            return
        if not wanted:
            if fleet is not None:
                self._stop_feed("fleet")
                self.sources.fleet = None
                self.main_screen.query_one(FleetPane).clear()
            return
        if fleet is None:
            fleet = self.sources.fleet = FleetSources.for_session(self.editor.session)
        elif not fleet.follow(self.editor.session):
            return
        self._stop_feed("fleet")
        self._start_feed("fleet", fleet)
        self.notify(f"Fleet: {fleet.label} ([[prometheus]] changed)", timeout=3)

    def on_fleet_pane_next_source(self, message: FleetPane.NextSource) -> None:
        """`s` in the Fleet tab: stop the shown Prometheus's feed, start the next one's."""
        fleet = self.sources.fleet
        if not isinstance(fleet, FleetSources) or len(fleet) < 2:
            self.notify("This session has one Prometheus source ([[prometheus]])", timeout=3)
            return
        self._stop_feed("fleet")
        fleet.step()
        self._start_feed("fleet", fleet)
        self.notify(f"Fleet: {fleet.label}", timeout=2)

    async def _pump(self, name: str, feed: LiveFeed) -> None:
        await self.hub.run(name, feed)  # its items reach the panes through subscribe_all
        # Say where the data came from: a one-shot feed (a topology) ending is normal.
        self.post_message(LiveFeedStopped(name, f"{feed.description} · finished"))

    def _pane(self, pane_id: str, host: str | None = None) -> LivePane | None:
        """The main screen's pane (for the log and metrics: `host`'s), or None while the app
        is starting or exiting."""
        if not self.screen_stack or not isinstance(self.screen_stack[0], MainScreen):
            return None
        try:
            pane = self.screen_stack[0].live_pane(pane_id, host)
        except NoMatches:
            return None
        return pane if isinstance(pane, LivePane) else None

    def on_live_item_received(self, message: LiveItemReceived) -> None:
        # An item can still be in flight while the app exits and its panes are gone, or
        # after its host left the session (its pane must not come back for it).
        kind, host = split_key(message.feed)
        if host is not None and message.feed not in self._live_keys:
            return
        for pane_id, takes in ROUTES.get(kind, ()):
            if isinstance(message.item, takes) and (pane := self._pane(pane_id, host)) is not None:
                pane.feed(message.item)
        item = message.item
        if isinstance(item, SourceState) and item.waiting is not None:
            self._local_log_state(message.feed, LOCAL_WAITING if item.waiting else LOCAL_TAILING)
        if isinstance(item, MetricsSnapshot):
            crash = self.alerts.observe_run(item.run_index, item.run_state, item.last_error, item.error_label)
            self.raise_alert(crash)
            if crash is not None:  # a server that was up: its profile and the last action say so
                self.experiment.server_crashed(host, item.last_error)
        elif isinstance(item, LogLines) and not item.preview:
            self.raise_alert(self.alerts.observe_error_lines(error_lines(item)))

    # ----- alerts -------------------------------------------------------------------------------
    def raise_alert(self, alert: Alert | None) -> None:
        """A new alert: the header shows it until seen (`!`); the bell rings if asked for."""
        if alert is None or not self.screen_stack or not isinstance(self.screen_stack[0], MainScreen):
            return
        self.main_screen.refresh_header()
        if self.alert_bell:
            self.bell()

    def toggle_alert_bell(self) -> None:
        self.alert_bell = not self.alert_bell
        self.notify(f"Alert bell {'on' if self.alert_bell else 'off'}", timeout=2)

    def on_log_pane_throughput_updated(self, message: LogPane.ThroughputUpdated) -> None:
        # Engine throughput and GPU power on one time axis: tokens per joule.
        gpu = self._pane("gpu")
        if isinstance(gpu, GpuPane):
            gpu.set_throughput(message.points or None)

    def _host_event(self, event: HostEvent) -> None:
        """SshPool's Host* events -> the header's host states."""
        state = host_state_text(event)
        if state is None:
            return
        label = str(event.host)
        names = self.sources.hosts.hosts_for_label(label) if self.sources.hosts is not None else []
        if not names:
            for host in self.editor.session.hosts:
                if host.ssh and (host.ssh == label or label.endswith(host.ssh) or host.ssh in label):
                    label = host.name
                    break
            names = [label]
        for name in names:  # two host entries on one machine share its connection
            self.host_states[name] = state
            self.raise_alert(self.alerts.observe_host(name, state))
        self.main_screen.refresh_header()

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
        if not self.screen_stack or not isinstance(self.screen_stack[0], MainScreen):
            return
        self.main_screen.show_run_status(text, profile_states)

    def on_unmount(self) -> None:
        # (CockpitAppBase's on_unmount runs too: Textual calls each class's handler.)
        self.experiment.shutdown()
        self._hangup_signals(install=False)
        self.sources.run_stops()

    def on_live_feed_stopped(self, message: LiveFeedStopped) -> None:
        kind, host = split_key(message.feed)
        if host is not None and message.feed not in self._live_keys:
            return  # stopped on purpose (host removed, restarted)
        pane = self._state_pane(message.feed)
        if pane is not None:
            self._set_feed_state(pane, message.feed, message.reason)
            self._local_log_state(message.feed, LOCAL_STOPPED)
            if hasattr(pane, "source_stopped"):
                pane.source_stopped()  # no more data: its age is marked stale

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # One place turns a failed worker into an on-screen state instead of a crash.
        worker = event.worker
        if event.state is WorkerState.ERROR and worker.group.startswith("live-"):
            reason = f"source failed: {worker.error}"
            self.post_message(LiveFeedStopped(worker.group.removeprefix("live-"), reason))
            self.raise_alert(self.alerts.observe_failure(worker.group.removeprefix("live-"), reason))

    # ----- outside changes to the session file ----------------------------------------------------
    @work(exclusive=True, group="session-watch", exit_on_error=False, description="watch the session file")
    async def watch_session_file(self) -> None:
        assert self.watch_interval_s
        while True:
            await asyncio.sleep(self.watch_interval_s)
            await self.check_disk()

    async def check_disk(self) -> None:
        """Take in what another writer saved: merged with unsaved local edits, which stay
        unsaved (the next save writes them, merged again under the lock)."""
        controller = self.controller
        sig = controller.outside_change()
        if sig is None:
            return
        base = controller.base
        try:
            theirs, read_sig = await asyncio.to_thread(controller.read_disk_signed)
        except SessionFileError as exc:
            controller.mark_broken(sig)
            self.notify(f"The session file changed on disk but does not load; keeping yours (autosave "
                        f"waits for a file that loads).\n{exc.render()}", severity="error", timeout=15)
            self.main_screen.refresh_header()
            return
        except OSError as exc:
            self.notify(f"Could not read {self.path}: {exc.strerror or exc}", severity="error", timeout=10)
            return
        result = controller.take_outside(theirs, read_sig, base)  # the signature of the text read
        if result is None:
            return  # a save merged it meanwhile, or it changed again: the next look takes it
        self._announce_merge(result)
        if not result.summary():
            self.notify("Reloaded: the session file changed on disk", timeout=4)
