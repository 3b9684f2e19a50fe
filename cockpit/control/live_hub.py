"""LiveHub: one feed and one pipeline per (kind, host), fanned out to every subscriber.

    source (sources/) -> pipeline (a log's LogPipeline) -> hub -> the live state's folds
                                                             (live/state.py), panes, alerts,
                                                             the sweep's watch, MCP

A feed is keyed as the session hosts' feeds are (`kind@host`, sources/host_feeds_plan.py;
a fixed feed by its kind alone). Whoever owns a feed runs it once with `run(key, feed)`
(the TUI as a worker, so quitting or a host edit cancels it); every item it yields goes to
each subscriber of that key, in order, on the event loop. A sweep started beside the panes
subscribes to the host's `gpu@host` and `log@host` instead of opening its own: the host is
tailed and sampled once, its log parsed once. Where nobody runs the key (`cockpit sweep`,
a host whose pane has no feed), `open(key, make_feed)` runs one for as long as someone
subscribes to it.

No Textual, no I/O of its own (the feeds are sources'); `opened` counts the feeds each key
has run and `subscribed` the subscriptions each has had, so a test or a benchmark can see
that nothing was opened twice and who listened.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from cockpit.control.log_pipeline import pipeline_for
from cockpit.live.items import LiveItem, live_item
from cockpit.sources.live_feed import LiveFeed
from cockpit.sources.server.results import LogChunk

__all__ = ["FeedEnded", "HubItem", "Listener", "LiveHub", "Router"]

@dataclass(frozen=True, slots=True)
class FeedEnded:
    """The key's feed ended (`error`: what it raised; None: it finished). Subscribers only:
    the feed's owner sees the end itself."""

    error: BaseException | None = None


HubItem = LiveItem | LogChunk
"""What a feed the hub runs yields: a live item (live/items.py), or a launch's own read of its
log (control/launch_watch.py), which goes to its watcher only: no view takes it."""
Listener = Callable[[HubItem | FeedEnded], None]
"""`listener(item)`: one item of the key's feed (a LogLines, a GpuSamplesTaken, ...), or its end."""
Router = Callable[[str, LiveItem], object]
"""`router(key, item)`: every live item of every key (the live state's fold, the TUI's panes)."""


class LiveHub:
    def __init__(self) -> None:
        self._subscribers: dict[str, list[Listener]] = {}
        self._every: list[Router] = []
        self._running: dict[str, LiveFeed] = {}
        """key -> the feed running for it now (its description is what a pane shows)."""
        self._pipelines: dict[str, LiveFeed] = {}
        self._own: dict[str, asyncio.Task[None]] = {}
        """Keys the hub itself runs (`open`), stopped when their last subscriber leaves."""
        self.opened: Counter[str] = Counter()
        """key -> how many feeds were run for it (a restart after a host edit counts too)."""
        self.subscribed: Counter[str] = Counter()
        """key -> how many subscriptions it has had (a sweep's watch, a launch's, ...)."""

    # ----- subscribing ------------------------------------------------------------------------
    def subscribe(self, key: str, listener: Listener) -> Callable[[], None]:
        """`listener(item)` for each item of `key`'s feed from now on; returns what ends it."""
        self._subscribers.setdefault(key, []).append(listener)
        self.subscribed[key] += 1

        def leave() -> None:
            listeners = self._subscribers.get(key, [])
            if listener in listeners:
                listeners.remove(listener)
            if not listeners and key in self._own:
                self._own.pop(key).cancel()

        return leave

    def subscribe_all(self, listener: Router) -> None:
        """`listener(key, item)` for every live item of every key (the TUI's router to its
        panes, the live state's fold); a launch's read is its watcher's alone."""
        self._every.append(listener)

    def running(self, key: str) -> bool:
        return key in self._running

    def description(self, key: str) -> str | None:
        feed = self._running.get(key)
        return None if feed is None else str(getattr(feed, "description", key))

    async def caught_up(self, key: str, timeout_s: float = 3.0) -> None:
        """Wait (at most `timeout_s`) until what `key`'s log pipeline has read is parsed and
        handed to the subscribers: a sweep point's last batch lines count, however busy the
        machine (the fold is a niced child process)."""
        pipeline = self._pipelines.get(key)
        if pipeline is None or not hasattr(pipeline, "idle"):
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not pipeline.idle and loop.time() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.02)  # what it handed over goes out on this loop: let it

    # ----- running feeds ----------------------------------------------------------------------
    async def run(self, key: str, feed: LiveFeed) -> None:
        """Run `feed` (a LogFeed through its LogPipeline) as `key` until it ends or is
        cancelled, handing each item to the key's subscribers. Errors end it and propagate;
        an item that is no live item (live/items.py) nor a launch's read is one."""
        self.opened[key] += 1
        self._running[key] = feed
        pipeline = self._pipelines[key] = pipeline_for(feed)
        try:
            async for item in pipeline.stream():
                self.publish(key, item if isinstance(item, LogChunk) else live_item(item, f"feed {key}"))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._ended(key, FeedEnded(exc))
            raise
        else:
            self._ended(key, FeedEnded())
        finally:
            if self._running.get(key) is feed:
                del self._running[key]
                del self._pipelines[key]

    def _ended(self, key: str, ended: FeedEnded) -> None:
        for listener in list(self._subscribers.get(key, ())):
            listener(ended)

    def publish(self, key: str, item: HubItem) -> None:
        if not isinstance(item, LogChunk):
            for router in self._every:
                router(key, item)
        for listener in list(self._subscribers.get(key, ())):
            listener(item)

    def open(self, key: str, make_feed: Callable[[], LiveFeed | None]) -> bool:
        """Run `key` here unless it runs already (the panes' feed): `make_feed()` builds it
        only then. False when the feed could not be built (`make_feed` gave None)."""
        if key in self._running or key in self._own:
            return True
        feed = make_feed()
        if feed is None:
            return False
        task = asyncio.get_running_loop().create_task(self._run_own(key, feed), name=f"cockpit-hub-{key}")
        self._own[key] = task
        return True

    async def _run_own(self, key: str, feed: LiveFeed) -> None:
        try:
            await self.run(key, feed)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 -- a subscriber sees the feed stop saying nothing more
            return
        finally:
            if self._own.get(key) is asyncio.current_task():
                del self._own[key]

    async def close(self) -> None:
        """Stop the feeds the hub runs itself (the owners of the others stop theirs)."""
        tasks = list(self._own.values())
        self._own.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
