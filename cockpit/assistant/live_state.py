"""The live state of a session's hosts, for the assistant: the log's last lines, the
server run and its metrics, the latest GPU sample, the topology.

The feeds are the TUI's (`sources_for_session`: one SSH connection per host, the log
through its LogPipeline) and start on the first read of a live resource, not when the
server starts: an assistant that only reads the handoff never connects anywhere. What
they yield is folded by the live state the TUI folds with (live/state.py: the log's last
lines, already inert, its newest MetricsSnapshot, the GPU history and tok/J, the topology,
the server's `/metrics` window), so a finding read here and in the TUI come from one shape
of input (live/diagnosis/inputs.py `inputs_of`).

No read waits on a host for long: the first one gives the feeds `first_wait_s` to say
something, later ones answer from what is held. A host that cannot be reached is said
in words (the feed's own "gpu1: connection refused; reconnecting in 4 s").
The feeds restart when the session's hosts change in the file. What the resources say
from this state is in live_resources.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cockpit.control.live_hub import FeedEnded, HubItem, LiveHub
from cockpit.live.log.items import SourceState
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.snapshot import LiveSnapshot
from cockpit.live.state import LiveState as LiveFolds
from cockpit.model.session import Session
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.sources.feeds import LiveFeed, LiveSources
from cockpit.sources.log.batch import describe_event
from cockpit.sources.session_feeds import sources_for_session
from cockpit.sources.transport.host_events import HostEvent

KEPT_LINES = 2000
"""The most lines the log resource gives (the fold keeps the diagnosis's longer tail)."""
FIRST_WAIT_S = 3.0


@dataclass
class FeedState:
    """What one feed has said so far."""

    description: str
    state: str | None = None
    """The source in words, as its pane's border shows it ("gpu1: connection refused; ...")."""
    connected: bool | None = None
    stopped: str | None = None
    """Why the feed ended with an error (it is not restarted until the hosts change)."""
    last_at: float | None = None
    started: float = field(default_factory=time.monotonic)

    def heard(self) -> None:
        self.last_at = time.time()

    @property
    def failed(self) -> bool:
        """Nothing more will come soon: the feed ended in error or lost its host."""
        return self.stopped is not None or self.connected is False

    def words(self) -> dict[str, str | bool | float]:
        out: dict[str, str | bool | float] = {"source": self.description}
        if self.state and self.state != self.description:
            out["state"] = self.state
        if self.connected is not None:
            out["connected"] = self.connected
        if self.stopped:
            out["stopped"] = self.stopped
        if self.last_at is not None:
            out["age_s"] = round(time.time() - self.last_at, 1)
        return out


def _feeds_of(sources: LiveSources, session: Session, on_host_event: Callable[[HostEvent], None]
              ) -> tuple[list[tuple[str, LiveFeed]], dict[str, str]]:
    """(name, feed) for the resources: the session's first log, GPU, topology and `/metrics`
    feeds (the diagnosis reads the server's metrics, as the TUI's does). The
    TUI's sources plan a feed per host and kind (`kind@host`); the resources show the first
    host of each kind, as they always did. Also, by kind, why a feed was not built (a
    `log_command` no person confirmed: the assistant never starts it)."""
    if sources.hosts is None:
        return list(sources.items()), {}
    from cockpit.sources.host_feeds_plan import split_key

    sources.hosts.add_listener(on_host_event)
    update = sources.hosts.update(session.hosts)
    out: dict[str, LiveFeed] = {}
    for key, feed in update.feeds.items():
        kind, _host = split_key(key)
        if kind in ("log", "gpu", "topology", "metrics") and kind not in out:
            out[kind] = feed
    failed: dict[str, str] = {}
    for key, reason in update.failed.items():
        failed.setdefault(split_key(key)[0], reason)
    return [*out.items(), *sources.items()], failed


class LiveState:
    def __init__(self, make_sources: Callable[[Session], LiveSources] = sources_for_session, *,
                 kept_lines: int = KEPT_LINES, first_wait_s: float = FIRST_WAIT_S) -> None:
        self.make_sources = make_sources
        self.first_wait_s = first_wait_s
        self.kept_lines = kept_lines
        self.state = LiveFolds()
        """The feeds' folds, as the TUI's (live/state.py); the resources and the diagnosis read it."""
        self.hosts: dict[str, str] = {}
        """Host label -> its connection in words (from the SSH pool)."""
        self.feeds: dict[str, FeedState] = {}
        self._sources: LiveSources | None = None
        self._hub = LiveHub()
        self._hub.subscribe_all(self.state.take)
        self._tasks: list[asyncio.Task[None]] = []
        self._hosts_key: str | None = None
        self._lock = asyncio.Lock()

    # ----- what the folds hold now --------------------------------------------------------
    def snapshot(self) -> LiveSnapshot:
        """The state now: the first feed of each kind (the resources show the first host's)."""
        return self.state.snapshot()

    @property
    def lines(self) -> tuple[str, ...]:
        log = self.state.log()
        return log.lines[-self.kept_lines:] if log is not None else ()

    @property
    def lines_seen(self) -> int:
        log = self.state.log()
        return log.read if log is not None else 0

    @property
    def metrics(self) -> MetricsSnapshot | None:
        log = self.state.log()
        return log.metrics if log is not None else None

    @property
    def summary_before(self) -> dict[str, object] | None:
        log = self.state.log()
        return dict(log.summary_before) if log is not None and log.summary_before is not None else None

    @property
    def gpu(self) -> GpuSamplesTaken | None:
        gpu = self.state.gpu()
        return gpu.tick if gpu is not None else None

    @property
    def gpu_history(self) -> tuple[GpuSample, ...]:
        gpu = self.state.gpu()
        return gpu.history if gpu is not None else ()

    @property
    def gpu_problem(self) -> str | None:
        gpu = self.state.gpu()
        return gpu.problem if gpu is not None else None

    @property
    def topology(self) -> TopologyMatrix | None:
        topology = self.state.topology()
        return topology.matrix if topology is not None else None

    @property
    def topology_problem(self) -> str | None:
        topology = self.state.topology()
        return topology.problem if topology is not None else None

    # ----- starting, restarting, stopping ------------------------------------------------
    async def ensure(self, session: Session) -> None:
        """Feeds running for the session's hosts as they are now (started on first use)."""
        key = repr([h.model_dump(mode="json") for h in session.hosts])
        async with self._lock:
            if key == self._hosts_key:
                return
            await self._stop()
            self._reset()
            self._hosts_key = key
            sources = self._sources = self.make_sources(session)
            if sources.host_events is not None:
                sources.host_events.add_listener(self._host_event)
            built, failed = _feeds_of(sources, session, self._host_event)
            for name, feed in built:
                self.feeds[name] = FeedState(getattr(feed, "description", name))
                self._tasks.append(asyncio.create_task(self._run(name, feed), name=f"cockpit-mcp-{name}"))
            for name, reason in failed.items():  # said on the resource instead of "no log"
                self.feeds.setdefault(name, FeedState(reason, stopped=reason))

    async def settle(self, name: str, shows: str | None = None) -> FeedState | None:
        """Feed `name`'s state once it has what a resource shows (`shows`: "server" for the
        log's run and metrics), or it failed, or `first_wait_s` after it started: only the
        first reads after a start wait at all."""
        feed = self.feeds.get(name)
        if feed is None:
            return None
        deadline = feed.started + self.first_wait_s
        while not (feed.failed or self._has(shows or name)) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return feed

    def _has(self, name: str) -> bool:
        if name == "log":
            return self.feeds[name].last_at is not None
        if name == "server":
            return self.metrics is not None
        if name == "gpu":
            return self.gpu is not None or self.gpu_problem is not None
        if name == "metrics":
            server = self.state.server()
            return server is not None and server.metrics.state != "waiting"
        return self.topology is not None or self.topology_problem is not None

    async def close(self) -> None:
        async with self._lock:
            await self._stop()

    async def _stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        sources, self._sources = self._sources, None
        pool = None
        if sources is not None:
            pool = sources.host_events or (getattr(sources.hosts, "_pool", None) if sources.hosts else None)
        if pool is not None and hasattr(pool, "close"):
            with contextlib.suppress(Exception):
                await pool.close()

    def _reset(self) -> None:
        self.state.clear()
        self.hosts = {}
        self.feeds = {}

    # ----- what the feeds say ------------------------------------------------------------
    async def _run(self, name: str, feed: LiveFeed) -> None:
        """The feed through a live hub (control/live_hub.py: a log through its LogPipeline), folded
        by the live state (live/state.py) as the TUI's are; here only the feed's own words
        (its source state, connected or not) are kept beside it."""
        state = self.feeds[name]

        def take(item: HubItem | FeedEnded) -> None:
            if not isinstance(item, FeedEnded):
                self._heard(state, item)

        leave = self._hub.subscribe(name, take)
        try:
            await self._hub.run(name, feed)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - said on the resource, not raised into the server
            state.stopped = str(exc) or type(exc).__name__
        finally:
            leave()

    @staticmethod
    def _heard(state: FeedState, item: HubItem) -> None:
        state.heard()
        if isinstance(item, SourceState):
            state.state = item.text or state.state
            state.connected = item.connected if item.connected is not None else state.connected
        elif isinstance(item, GpuSamplesTaken):
            state.connected = True
        elif isinstance(item, GpuStreamInterrupted):
            state.connected = False

    def _host_event(self, event: HostEvent) -> None:
        host = getattr(event, "host", None)
        if host is None:
            return
        self.hosts[host] = describe_event(event)
