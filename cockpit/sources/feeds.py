"""How live data gets into the app: feeds injected into `CockpitApp(sources=...)`.

A feed is any object with an async `stream()` that yields items (a batch of log lines,
a GPU tick, a topology). The app runs each feed in its own worker (a log feed
through its LogPipeline) and routes every item by its type to the panes that take it
(ui/live/routes.py). Nothing
here imports a concrete source, so the demo replay, real SSH tails and test fakes all
plug in the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cockpit.sources.live_feed import LiveFeed
from cockpit.sources.transport.host_events import HostEvent

if TYPE_CHECKING:
    from cockpit.sources.host_feeds import HostFeeds

__all__ = ["HostEventSource", "LiveFeed", "LiveSources"]


class HostEventSource(Protocol):
    """What tells of connections (the SshPool): the header shows its Host* events."""

    def add_listener(self, callback: Callable[[HostEvent], object]) -> object: ...


@dataclass
class LiveSources:
    """Feeds by pane: `log` -> LogPane.feed, `gpu` -> GpuPane.feed, `topology` -> TopologyPane.feed,
    `metrics` -> MetricsPane.feed; `hosts`: the session hosts' own feeds, several of each."""

    log: LiveFeed | None = None
    gpu: LiveFeed | None = None
    topology: LiveFeed | None = None
    metrics: LiveFeed | None = None
    hosts: HostFeeds | None = None
    """A HostFeeds (sources/host_feeds.py): the feeds of the session's hosts, keyed
    `kind@host`, re-planned by the app whenever the session changes."""
    fleet: LiveFeed | None = None
    """`[[prometheus]]`: FleetSnapshots for the Fleet tab (sources/metrics/fleet_feed.py's FleetFeed)."""

    host_reads: dict[str, list[str]] = field(default_factory=dict)
    """Host -> what the pane feeds above read there, said on the Goal tab's host line (the
    demo's replays run on lxc, which its session file says nothing of)."""
    title_note: str | None = None
    """Shown in the header beside the title (the demo says DEMO here)."""
    on_start: list[Callable[[], Coroutine[object, object, None]]] = field(default_factory=list)
    """Coroutine factories the app runs beside the feeds (the demo's log writer)."""
    on_stop: list[Callable[[], object]] = field(default_factory=list)
    """Plain callables the app calls when it exits (cleanup of what the demo wrote)."""
    exit_notes: list[str] = field(default_factory=list)
    """Said on stderr once the TUI has given the terminal back (a print while it still holds
    the alternate screen is lost with it)."""
    host_events: HostEventSource | None = None
    """An object with `add_listener(callback)` (the SshPool) whose Host* events the header shows."""

    def run_stops(self) -> None:
        """Each `on_stop` callable, once (the app's unmount, then the CLI's last resort after a
        hangup); a failing one is said and the rest still run."""
        while self.on_stop:
            stop = self.on_stop.pop(0)
            try:
                stop()
            except Exception as exc:  # cleanup must not turn an exit into a crash
                print(f"cockpit: cleanup failed: {exc}", file=sys.stderr)

    def items(self) -> list[tuple[str, LiveFeed]]:
        return [(name, feed) for name, feed in (("log", self.log), ("gpu", self.gpu), ("topology", self.topology),
                                                  ("metrics", self.metrics), ("fleet", self.fleet)) if feed is not None]
