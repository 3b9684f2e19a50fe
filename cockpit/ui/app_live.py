"""The app's live feeds: run through the live hub, routed to their panes, the session
hosts' feeds kept in line with the session, the Fleet tab's Prometheus, host states and alerts.

`LiveFeeds` is an object the App owns (ui/app.py builds it, wires the hub to it and hands it
the App's messages):
* `sources` (LiveSources) are run as workers through the live hub (control/live_hub.py) whose items
  are folded by the live state (live/state.py) and routed by type to the panes that take them
  (ui/live/routes.py); a `/metrics` scrape reaches its pane as the live state folded it;
* the session hosts' feeds (`sources.hosts`, keyed `kind@host`) follow the session: after
  every change the plan is diffed (sources/host_feeds_plan.py) and only what it says is
  stopped and started; `reconnect_host` restarts one host's feeds now, skipping the back-off;
* what the header says of each host (`host_states`) and the alerts (`alerts`, the bell).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.css.query import NoMatches
from textual.worker import Worker

from cockpit.control.live_access import (
    FeedUpdate,
    FleetSources,
    HostEvent,
    LiveFeed,
    LiveSources,
    host_state_text,
    hosts_with,
    split_key,
)
from cockpit.control.live_hub import LiveHub
from cockpit.live.alerts import Alert, AlertBook, error_lines
from cockpit.live.items import LiveItem
from cockpit.live.log.items import LogLines, SourceState
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.state import LiveState
from cockpit.model.session import PrometheusSource, Session
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.ui.live.routes import ROUTES, LivePane, state_pane
from cockpit.ui.messages import LiveFeedStopped
from cockpit.ui.screens.main.screen import MainScreen
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.metrics.pane import MetricsPane

# What the header says of a host on this machine (no `ssh`): its log feed's state.
LOCAL_TAILING, LOCAL_WAITING, LOCAL_STOPPED = "tailing", "no log file yet", "stopped"


class LiveFeeds:
    def __init__(self, app: App[None], sources: LiveSources, hub: LiveHub, live_state: LiveState, *,
                 alerts: AlertBook, alert_bell: bool, session: Callable[[], Session],
                 main_screen: Callable[[], MainScreen | None],
                 server_crashed: Callable[[str | None, str | None], None]) -> None:
        """`app`: where the feeds' workers run and the toasts show; `alerts`, `alert_bell`:
        the alert book and whether a new alert rings; `session`: the open session (its hosts
        and `[[prometheus]]`); `main_screen`: the main screen while it is up (None while the
        app starts or exits); `server_crashed`: told when a followed log says its server
        crashed (host, last error)."""
        self.app = app
        self.sources = sources
        self.hub = hub
        self.live_state = live_state
        self.alerts = alerts
        self.alert_bell = alert_bell
        self._session = session
        self._main_screen = main_screen
        self._server_crashed = server_crashed
        self.host_states: dict[str, str] = {host.name: "" for host in session().hosts}
        """What the header says about each host ("connected", "reconnecting in 8 s", ...):
        view state, kept here rather than in the controller (which knows no connections)."""
        self._prometheus_seen = tuple(session().prometheus)  # follow_prometheus acts on a change
        self._live_keys: set[str] = set()  # keys of the session hosts' feeds now running
        self._feed_states: dict[LivePane, dict[str, str]] = {}  # pane -> feed key -> its state text

    def _refresh_header(self) -> None:
        if (screen := self._main_screen()) is not None:
            screen.refresh_header()

    # ----- live feeds and hosts ---------------------------------------------------------------
    def start(self) -> None:
        """At mount: the fixed feeds, the session hosts' feeds, the helpers, the host events."""
        for name, feed in self.sources.items():
            self._start_feed(name, feed)
        self.follow_hosts(announce=False)
        for helper in self.sources.on_start:
            self.app.run_worker(helper(), group="live-helpers", exit_on_error=False,
                                description=getattr(helper, "__qualname__", "live helper"))
        if self.sources.host_events is not None:
            self.sources.host_events.add_listener(self.host_event)

    def set_host_state(self, host: str, state: str) -> None:
        """What the header says about a host ("connected", "reconnecting in 8 s", ...)."""
        self.host_states[host] = state
        self.raise_alert(self.alerts.observe_host(host, state))
        self._refresh_header()

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
        self.app.run_worker(self._pump(name, feed), name=f"live-{name}", group=f"live-{name}",
                            description=feed.description, exclusive=True, exit_on_error=False)

    def _stop_feed(self, key: str) -> None:
        self.app.workers.cancel_group(self.app, f"live-{key}")
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
        screen = self._main_screen()
        if hosts is None or screen is None:
            return
        update = hosts.update(self._session().hosts)
        self._apply_feed_update(update)
        change = update.change
        for name in change.hosts_removed:
            for kind in ("log", "gpu", "topology", "metrics"):
                self.live_state.forget(f"{kind}@{name}")  # its figures leave the findings and tok/J too
            screen.drop_host(name)
            self.host_states.pop(name, None)
        for name in change.hosts_added:
            self.host_states.setdefault(name, "")
        if change.hosts_removed or change.hosts_added:
            screen.refresh_header()
        if announce and change:
            started = sorted({spec.host for spec in change.start})
            stopped = sorted(set(change.hosts_removed))
            parts = ([f"connecting {', '.join(started)}"] if started else []) + (
                [f"stopped {', '.join(stopped)} (removed)"] if stopped else [])
            if parts:
                self.app.notify("Hosts changed: " + "; ".join(parts), timeout=4)

    def _apply_feed_update(self, update: FeedUpdate) -> None:
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
            self.app.notify(f"{name} has no live feed to reconnect", severity="warning", timeout=4)
            return
        self.alerts.reconnect_asked(name)  # the drop that follows is the person's, not "host dropped"
        self._apply_feed_update(hosts.reconnect(name))
        host = hosts.hosts.get(name)
        if host is not None and host.ssh:
            self.set_host_state(name, "connecting")
        self.app.notify(f"Reconnecting {name}", timeout=3)

    def follow_prometheus(self) -> None:
        """`[[prometheus]]` edits (here, or merged from another writer) are used at once: the
        Fleet tab's feed restarts on the session's sources (none: the tab says how to add one).
        A fleet feed that is not the session's (the demo's replay) is left alone."""
        session = self._session()
        wanted: tuple[PrometheusSource, ...] = tuple(session.prometheus)
        if wanted == self._prometheus_seen:
            return
        self._prometheus_seen = wanted
        fleet = self.sources.fleet
        if fleet is not None and not isinstance(fleet, FleetSources):
            return
        if not wanted:
            if fleet is not None:
                self._stop_feed("fleet")
                self.live_state.forget("fleet")
                self.sources.fleet = None
                if (screen := self._main_screen()) is not None:
                    screen.query_one(FleetPane).clear()
            return
        if fleet is None:
            fleet = FleetSources.for_session(session)
            self.sources.fleet = fleet
        elif not fleet.follow(session):
            return
        self._stop_feed("fleet")
        self._start_feed("fleet", fleet)
        self.app.notify(f"Fleet: {fleet.label} ([[prometheus]] changed)", timeout=3)

    def next_fleet_source(self) -> None:
        """`s` in the Fleet tab: stop the shown Prometheus's feed, start the next one's."""
        fleet = self.sources.fleet
        if not isinstance(fleet, FleetSources) or len(fleet) < 2:
            self.app.notify("This session has one Prometheus source ([[prometheus]])", timeout=3)
            return
        self._stop_feed("fleet")
        fleet.step()
        self._start_feed("fleet", fleet)
        self.app.notify(f"Fleet: {fleet.label}", timeout=2)

    async def _pump(self, name: str, feed: LiveFeed) -> None:
        await self.hub.run(name, feed)  # its items reach the panes through subscribe_all
        # Say where the data came from: a one-shot feed (a topology) ending is normal.
        self.app.post_message(LiveFeedStopped(name, f"{feed.description} · finished"))

    def _pane(self, pane_id: str, host: str | None = None) -> LivePane | None:
        """The main screen's pane (for the log and metrics: `host`'s), or None while the app
        is starting or exiting."""
        screen = self._main_screen()
        if screen is None:
            return None
        try:
            pane = screen.live_pane(pane_id, host)
        except NoMatches:
            return None
        return pane if isinstance(pane, LivePane) else None

    def item_received(self, feed: str, item: LiveItem) -> None:
        """An item of `feed` (folded into the live state already): to the panes that take it,
        the header's host state, the alerts."""
        # An item can still be in flight while the app exits and its panes are gone, or
        # after its host left the session (its pane must not come back for it).
        kind, host = split_key(feed)
        if host is not None and feed not in self._live_keys:
            return
        if isinstance(item, (MetricsScraped, MetricsScrapeFailed)):  # shown as the live state folded it
            if isinstance(pane := self._pane("metrics", host), MetricsPane) and \
                    (server := self.live_state.server_at(feed)) is not None:
                pane.show_server(server)
        else:
            for pane_id, takes in ROUTES.get(kind, ()):
                if isinstance(item, takes) and (pane := self._pane(pane_id, host)) is not None:
                    pane.feed(item)
        if isinstance(item, GpuSamplesTaken) and (screen := self._main_screen()) is not None:
            screen.tick_with_data()  # the ages repaint in the frame of the new rows
        if isinstance(item, SourceState) and item.waiting is not None:
            self._local_log_state(feed, LOCAL_WAITING if item.waiting else LOCAL_TAILING)
        if isinstance(item, MetricsSnapshot):
            if isinstance(gpu := self._pane("gpu"), GpuPane):
                gpu.throughput_changed()  # tok/J: it reads the log's throughput from the live state
            log = self.live_state.log_at(feed)  # the alerts read the live state's run, as MCP does
            run = log.metrics if log is not None and log.metrics is not None else item
            crash = self.alerts.observe_run(run.run_index, run.run_state, run.last_error, run.error_label)
            self.raise_alert(crash)
            if crash is not None:  # a server that was up: its profile and the last action say so
                self._server_crashed(host, run.last_error)
        elif isinstance(item, LogLines) and not item.preview:
            self.raise_alert(self.alerts.observe_error_lines(error_lines(item)))

    def feed_stopped(self, feed: str, reason: str) -> None:
        kind, host = split_key(feed)
        if host is not None and feed not in self._live_keys:
            return  # stopped on purpose (host removed, restarted)
        pane = self._state_pane(feed)
        if pane is not None:
            self._set_feed_state(pane, feed, reason)
            self._local_log_state(feed, LOCAL_STOPPED)
            if hasattr(pane, "source_stopped"):
                pane.source_stopped()  # no more data: its age is marked stale

    def worker_failed(self, worker: Worker[object]) -> None:
        """A feed's worker raised: its pane says so (a stop message) and an alert is raised,
        instead of a crash."""
        if not worker.group.startswith("live-"):
            return
        key = worker.group.removeprefix("live-")
        reason = f"source failed: {worker.error}"
        self.app.post_message(LiveFeedStopped(key, reason))
        self.raise_alert(self.alerts.observe_failure(key, reason))

    # ----- alerts -------------------------------------------------------------------------------
    def raise_alert(self, alert: Alert | None) -> None:
        """A new alert: the header shows it until seen (`!`); the bell rings if asked for."""
        screen = self._main_screen()
        if alert is None or screen is None:
            return
        screen.refresh_header()
        if self.alert_bell:
            self.app.bell()

    def toggle_alert_bell(self) -> None:
        self.alert_bell = not self.alert_bell
        self.app.notify(f"Alert bell {'on' if self.alert_bell else 'off'}", timeout=2)

    def host_event(self, event: HostEvent) -> None:
        """SshPool's Host* events -> the header's host states."""
        state = host_state_text(event)
        if state is None:
            return
        label = str(event.host)
        names = self.sources.hosts.hosts_for_label(label) if self.sources.hosts is not None else []
        if not names:
            for host in self._session().hosts:
                if host.ssh and (host.ssh == label or label.endswith(host.ssh) or host.ssh in label):
                    label = host.name
                    break
            names = [label]
        for name in names:  # two host entries on one machine share its connection
            self.host_states[name] = state
            self.raise_alert(self.alerts.observe_host(name, state))
        self._refresh_header()
