"""The launch watcher on the live hub: a started server followed to ready or crashed from
the log the hub already carries.

    watch = LaunchWatch(hub, "log@gpu1")     # before the start: subscribed, settled
    await watch.settle()
    started = await control.start(plan)
    outcome = await watch.follow(control, plan, started, timeout_s=1800, on_phase=...)

Two ways in, one hub:
* **the panes' tail**: where the host's log pane tails the very file the server writes
  (its `log_path`), the watcher subscribes to `log@host` and reads the lines that pane's
  pipeline sent; no second tail. Whether the process is still there is asked of
  ServerControl's status (the tail cannot say).
* **its own read**: anywhere else (`cockpit run`, a search's trial, a host whose log is a
  per-run file) the hub runs one `LaunchLogReads` for the launch: the log read by offset
  from where the start left it, and whether the server still runs, through ServerControl.
  It is a hub feed too (`launch:...`), so the hub counts it.

Either way the lines go through one LaunchFollower (live/experiment/launch_lifecycle.py).
`follow_launch` is the watcher with a hub of its own, for a caller with ServerControl only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from cockpit.control.live_hub import FeedEnded, HubItem, LiveHub
from cockpit.live.experiment.launch_lifecycle import LaunchFollower, LaunchOutcome
from cockpit.live.log.items import ERROR_LINE, RUN, LogLines
from cockpit.sources.server.results import LogChunk

__all__ = ["LaunchLogReads", "LaunchWatch", "TAIL_SETTLE_S", "follow_launch", "launch_key", "texts_of"]

TAIL_SETTLE_S = 0.3
"""Before a start on a tailed log: what the panes' tail read of the file before it (a local
tail polls every 0.1 s, a batch waits 0.08 s) has reached us, and is not this run's."""


def launch_key(plan: Any, started: Any) -> str:
    """The hub key of a launch's own read (one per start: a later start never joins it)."""
    return f"launch:{plan.place.host}:{started.log_path}#{started.log_offset}"


def texts_of(item: LogLines) -> list[str]:
    """The log lines of a LogLines, in order (its notes are the pane's own, left out)."""
    out: list[str] = []
    for seg in item.segments:
        if seg[0] == RUN:
            out.extend(seg[1])
        elif seg[0] == ERROR_LINE:
            out.append(seg[1])
    return out


class LaunchLogReads:
    """The launched log read from the start's offset through ServerControl (`read_log`:
    the bytes and whether the server still runs), every `poll_s`; a failed read is told to
    `on_note` and tried again. A hub feed: it yields the LogChunks."""

    def __init__(self, control: Any, plan: Any, started: Any, *, poll_s: float,
                 on_note: Callable[[str], object] | None) -> None:
        self.control, self.plan, self.started = control, plan, started
        self.poll_s, self.on_note = poll_s, on_note
        self.description = f"the launched log {started.log_path} on {plan.place.host}"

    async def stream(self) -> AsyncIterator[LogChunk]:
        offset = self.started.log_offset
        while True:
            try:
                chunk = await self.control.read_log(self.plan.place, self.started.log_path, offset)
            except Exception as exc:  # noqa: BLE001 -- ServerControlError, a lost link: retried
                if self.on_note:
                    self.on_note(str(exc))
            else:
                offset = chunk.offset
                yield chunk
                if len(chunk.data) >= (1 << 20):
                    continue  # a backlog: read on without waiting
            await asyncio.sleep(self.poll_s)


class LaunchWatch:
    def __init__(self, hub: LiveHub, log_key: str | None = None) -> None:
        """`log_key`: the hub key of the panes' tail of the file the server writes (None:
        none); taken only while the hub runs it. Subscribed at once, before the start."""
        self.hub = hub
        self.key = log_key if log_key is not None and hub.running(log_key) else None
        self._items: asyncio.Queue[HubItem | FeedEnded] = asyncio.Queue()
        self._leave: Callable[[], None] | None = None
        if self.key is not None:
            self._leave = hub.subscribe(self.key, self._items.put_nowait)

    @property
    def on_tail(self) -> bool:
        """Following the panes' tail (else the launch's own read)."""
        return self.key is not None

    async def settle(self) -> None:
        """Call just before the start: lines the tail read before it are dropped."""
        if self.key is None:
            return
        await asyncio.sleep(TAIL_SETTLE_S)
        await self.hub.caught_up(self.key)
        while not self._items.empty():
            self._items.get_nowait()

    def close(self) -> None:
        if self._leave is not None:
            self._leave()
            self._leave = None

    async def follow(self, control: Any, plan: Any, started: Any, *, timeout_s: float, poll_s: float = 0.5,
                     on_phase: Callable[[str, float], object] | None = None,
                     on_note: Callable[[str], object] | None = None, settle_s: float = 5.0) -> LaunchOutcome:
        """Read the launched log until the server is ready, crashed or `timeout_s` passed.

        `on_phase(phase, elapsed_s)` hears each phase entered; `on_note(text)` a read that
        failed (it keeps trying until the deadline). After a crash line it waits up to
        `settle_s` for the process to end, to report its exit status. Leaves the hub after."""
        follower = LaunchFollower(plan, started_at=started.started_at)
        try:
            if self.key is None:
                key = launch_key(plan, started)
                self._leave = self.hub.subscribe(key, self._items.put_nowait)
                self.hub.open(key, lambda: LaunchLogReads(control, plan, started, poll_s=poll_s, on_note=on_note))
                return await self._follow_reads(follower, timeout_s, on_phase, settle_s)
            return await self._follow_tail(follower, control, plan, timeout_s, poll_s, on_phase, on_note, settle_s)
        finally:
            self.close()

    async def _next(self, wait_s: float) -> HubItem | FeedEnded | None:
        try:
            return await asyncio.wait_for(self._items.get(), max(wait_s, 0.0))
        except TimeoutError:
            return None

    def _fed(self, follower: LaunchFollower, data: bytes | str,
             on_phase: Callable[[str, float], object] | None) -> None:
        for phase in follower.feed(data):
            if on_phase:
                on_phase(phase, follower.clock() - follower.started_at)

    async def _follow_reads(self, follower: LaunchFollower, timeout_s: float,
                            on_phase: Callable[[str, float], object] | None, settle_s: float) -> LaunchOutcome:
        deadline = follower.started_at + timeout_s
        crash_seen_at: float | None = None
        while True:
            chunk = await self._next(deadline - follower.clock() + 0.05)
            if isinstance(chunk, LogChunk):
                self._fed(follower, chunk.data, on_phase)
                out = follower.outcome
                if out is not None and out.kind == "ready":
                    return out
                if not chunk.running and not chunk.data:
                    return follower.ended(chunk.exit_code)
                if out is not None and out.kind == "crashed":
                    crash_seen_at = crash_seen_at or follower.clock()
                    if follower.clock() - crash_seen_at >= settle_s:
                        return out
            if follower.clock() >= deadline:
                return follower.outcome if follower.outcome is not None else follower.timed_out()

    async def _follow_tail(self, follower: LaunchFollower, control: Any, plan: Any, timeout_s: float,
                           poll_s: float, on_phase: Callable[[str, float], object] | None,
                           on_note: Callable[[str], object] | None, settle_s: float) -> LaunchOutcome:
        assert self.key is not None
        deadline = follower.started_at + timeout_s
        crash_seen_at: float | None = None
        asked_at = follower.clock()
        while True:
            item = await self._next(min(poll_s, deadline - follower.clock() + 0.05))
            if isinstance(item, LogLines) and not item.preview and (texts := texts_of(item)):
                self._fed(follower, "\n".join(texts) + "\n", on_phase)
            out = follower.outcome
            if out is not None and out.kind == "ready":
                return out
            if out is not None and out.kind == "crashed":
                crash_seen_at = crash_seen_at or follower.clock()
                if follower.clock() - crash_seen_at >= settle_s:
                    return out
            if follower.clock() - asked_at >= poll_s:
                asked_at = follower.clock()
                gone = await self._gone(control, plan, on_note)
                if gone is not None:  # its last lines first: the tail may not have sent them yet
                    return await self._last_lines(follower, on_phase, gone)
            if follower.clock() >= deadline:
                return follower.outcome if follower.outcome is not None else follower.timed_out()

    async def _gone(self, control: Any, plan: Any, on_note: Callable[[str], object] | None) -> Any:
        """The server's status once its process is gone (None: it runs, or could not be asked)."""
        try:
            status = await control.status(plan.place)
        except Exception as exc:  # noqa: BLE001 -- a lost link: asked again until the deadline
            if on_note:
                on_note(str(exc))
            return None
        return None if status.running else status

    async def _last_lines(self, follower: LaunchFollower, on_phase: Callable[[str, float], object] | None,
                          status: Any) -> LaunchOutcome:
        assert self.key is not None
        await asyncio.sleep(TAIL_SETTLE_S)
        with contextlib.suppress(Exception):
            await self.hub.caught_up(self.key)
        while not self._items.empty():
            item = self._items.get_nowait()
            if isinstance(item, LogLines) and not item.preview and (texts := texts_of(item)):
                self._fed(follower, "\n".join(texts) + "\n", on_phase)
        out = follower.outcome
        if out is not None and out.kind == "ready":
            return out
        return follower.ended(status.exit_code)


async def follow_launch(control: Any, plan: Any, started: Any, *, timeout_s: float, poll_s: float = 0.5,
                        on_phase: Callable[[str, float], object] | None = None,
                        on_note: Callable[[str], object] | None = None, settle_s: float = 5.0) -> LaunchOutcome:
    """`LaunchWatch.follow` on a hub of its own (its own read of the log, by offset)."""
    hub = LiveHub()
    try:
        return await LaunchWatch(hub).follow(control, plan, started, timeout_s=timeout_s, poll_s=poll_s,
                                             on_phase=on_phase, on_note=on_note, settle_s=settle_s)
    finally:
        await hub.close()
