"""The live state of a session's hosts, for the assistant: the log's last lines, the
server run and its metrics, the latest GPU sample, the topology.

The feeds are the TUI's (`sources_for_session`: one SSH connection per host, the log
through its LogPipeline) and start on the first read of a live resource, not when the
server starts: an assistant that only reads the handoff never connects anywhere. What
they yield is kept small: the last `kept_lines` display lines (already inert: the
pipeline's child made them so), the newest MetricsSnapshot, GPU tick and topology.

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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from cockpit.live.hub import FeedEnded, LiveHub
from cockpit.live.log.log_items import BLOCK, ERROR_LINE, NOTE_LINE, RUN, LogLines, SourceState, SummaryBefore
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.routes import views_of
from cockpit.model.session import Session
from cockpit.parse.gpu.gpu_events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.gpu_sample import GpuSample
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.sources.feeds import LiveSources
from cockpit.sources.live_feed import LiveFeed
from cockpit.sources.log.log_batch import describe_event
from cockpit.sources.session_feeds import sources_for_session
from cockpit.sources.transport.host_events import HostEvent

KEPT_LINES = 2000
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

    def words(self) -> dict[str, object]:
        out: dict[str, object] = {"source": self.description}
        if self.state and self.state != self.description:
            out["state"] = self.state
        if self.connected is not None:
            out["connected"] = self.connected
        if self.stopped:
            out["stopped"] = self.stopped
        if self.last_at is not None:
            out["age_s"] = round(time.time() - self.last_at, 1)
        return out


def _feeds_of(sources: LiveSources, session: Session, on_host_event: Callable[[HostEvent], object]
              ) -> tuple[list[tuple[str, LiveFeed]], dict[str, str]]:
    """(name, feed) for the resources: the session's first log, GPU and topology feeds. The
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
        if kind in ("log", "gpu", "topology") and kind not in out:
            out[kind] = feed
    failed: dict[str, str] = {}
    for key, reason in update.failed.items():
        failed.setdefault(split_key(key)[0], reason)
    return [*out.items(), *sources.items()], failed


GPU_HISTORY = 4096  # samples: ~8 minutes of 8 GPUs at 1 Hz


class LiveState:
    def __init__(self, make_sources: Callable[[Session], LiveSources] = sources_for_session, *,
                 kept_lines: int = KEPT_LINES, first_wait_s: float = FIRST_WAIT_S) -> None:
        self.make_sources = make_sources
        self.first_wait_s = first_wait_s
        self.lines: deque[str] = deque(maxlen=kept_lines)
        self.lines_seen = 0
        self._preview = 0  # lines of a preview at the buffer's end, replaced by the full batch
        self.metrics: MetricsSnapshot | None = None
        self.summary_before: dict | None = None
        self.gpu: GpuSamplesTaken | None = None
        self.gpu_history: deque[GpuSample] = deque(maxlen=GPU_HISTORY)
        """The last samples of every GPU (the diagnosis reads power and links over a stretch)."""
        self.gpu_problem: str | None = None
        self.topology: TopologyMatrix | None = None
        self.topology_problem: str | None = None
        self.hosts: dict[str, str] = {}
        """Host label -> its connection in words (from the SSH pool)."""
        self.feeds: dict[str, FeedState] = {}
        self._sources: LiveSources | None = None
        self._hub = LiveHub()
        self._tasks: list[asyncio.Task[None]] = []
        self._hosts_key: str | None = None
        self._lock = asyncio.Lock()

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
        self.lines.clear()
        self.lines_seen = self._preview = 0
        self.metrics = self.gpu = self.topology = None
        self.gpu_history.clear()
        self.summary_before = None
        self.gpu_problem = self.topology_problem = None
        self.hosts = {}
        self.feeds = {}

    # ----- what the feeds say ------------------------------------------------------------
    async def _run(self, name: str, feed: LiveFeed) -> None:
        """The feed through a live hub (live/hub.py: a log through its LogPipeline), this
        state one of its subscribers, its items routed as the TUI's panes route them."""
        state = self.feeds[name]

        def take(item: object) -> None:
            if not isinstance(item, FeedEnded):
                self._take(name, item)
                state.heard()

        leave = self._hub.subscribe(name, take)
        try:
            await self._hub.run(name, feed)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - said on the resource, not raised into the server
            state.stopped = str(exc) or type(exc).__name__
        finally:
            leave()

    def _take(self, name: str, item: object) -> None:
        """One item of feed `name` (a kind), to the views that take it (live/routes.py)."""
        for view in views_of(name, item):
            if view == "log":
                self._take_log(name, item)
            elif view == "gpu":
                self._take_gpu(name, item)
            elif view == "topology":
                self._take_topology(item)

    def _take_log(self, name: str, item: object) -> None:
        if isinstance(item, LogLines):
            self._take_lines(item)
        elif isinstance(item, MetricsSnapshot):
            self.metrics = item
        elif isinstance(item, SourceState):
            feed = self.feeds[name]
            feed.state = item.text or feed.state
            feed.connected = item.connected if item.connected is not None else feed.connected
        elif isinstance(item, SummaryBefore):
            self.summary_before = item.summary

    def _take_gpu(self, name: str, item: object) -> None:
        if isinstance(item, GpuSamplesTaken):
            self.gpu, self.gpu_problem = item, None
            self.gpu_history.extend(item.samples)
            self.feeds[name].connected = True
        elif isinstance(item, GpuStreamInterrupted):
            self.gpu_problem = f"{item.host}: {item.reason}; restarting in {item.retry_in_s:.0f} s"
            self.feeds[name].connected = False
        elif isinstance(item, GpuSourceUnavailable):
            self.gpu, self.gpu_problem = None, item.message
        elif isinstance(item, TopologyMatrix):  # a GPU feed that reads the topology too
            self.topology, self.topology_problem = item, None
        elif isinstance(item, (list, tuple)):  # a tick of GpuSamples (the demo replay's shape)
            samples = tuple(s for s in item if isinstance(s, GpuSample))
            if samples:
                stamps = [s.timestamp for s in samples if s.timestamp is not None]
                self.gpu = GpuSamplesTaken(samples[0].host, samples, max(stamps) if stamps else time.time())
                self.gpu_history.extend(samples)

    def _take_topology(self, item: object) -> None:
        if isinstance(item, TopologyMatrix):
            self.topology, self.topology_problem = item, None
        elif isinstance(item, GpuSourceUnavailable):
            self.topology_problem = item.message

    def _take_lines(self, item: LogLines) -> None:
        if self._preview and not item.preview and item.lines:
            for _ in range(min(self._preview, len(self.lines))):  # the full batch holds them again
                self.lines.pop()
            self.lines_seen -= self._preview
            self._preview = 0
        added = 0
        for segment in item.segments:
            kind = segment[0]
            if kind == RUN:
                self.lines.extend(segment[1])
                added += len(segment[1])
            elif kind in (ERROR_LINE, NOTE_LINE):
                self.lines.append(segment[1])
                added += kind == ERROR_LINE
            elif kind != BLOCK:  # a block only marks lines already held
                continue
        self.lines_seen += added
        if item.preview:
            self._preview += added

    def _host_event(self, event: HostEvent) -> None:
        self.hosts[event.host] = describe_event(event)
