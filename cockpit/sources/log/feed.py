"""LogFeed: a followed SGLang log as a live feed of batches (no Textual).

Wraps a ResumableTail (a local file, `[user@]host:path` over an SshPool, or a command on a
host; or a command on this machine) and yields `LogBatch` items: the whole lines that arrived
in the last `max_delay_s` (or `max_lines` lines, whichever comes first), plus what happened
to the source in words (rotated, truncated, reconnecting). A burst of 20k lines/s therefore
becomes ~12 items per second, never one item per line. The lines are parsed once, by the
feed's one consumer (control/log_pipeline.py), in a child process; only a big first read's
preview is parsed here.

    feed = LogFeed.local("/var/log/sglang.log")          # or LogFeed.for_host(host)
    async for item in LogPipeline(feed).stream(): view.feed(item)

What it yields is in log_batch; the tails it opens for a host in log_openers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from cockpit.model.session import Host
from cockpit.parse.log.sglang_log import LogParser
from cockpit.sources.log.batch import LogBatch, describe_event
from cockpit.sources.log.openers import RemoteTail, local_command
from cockpit.sources.log.tail_events import LogBytes, TailEvent, TailNotice, TailRotated, TailTruncated
from cockpit.sources.log.tail_sources import RemoteCommand, RemoteFile
from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected, HostEvent

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_pool import Pool
    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["LogFeed"]

class _End:
    """The tail ended (the queue's last item)."""


_END = _End()


@dataclass(frozen=True, slots=True)
class _Prefix:
    """The first data of a local tail began `start` bytes into `path`: scan what is before."""

    path: str
    start: int


@dataclass(frozen=True, slots=True)
class _Summary:
    summary: dict[str, Any]


_SCAN = """
import json, mmap, sys
from cockpit.parse.log.summary_scan import summarize_bytes
with open(sys.argv[1], "rb") as f, mmap.mmap(f.fileno(), int(sys.argv[2]), access=mmap.ACCESS_READ) as m:
    print(json.dumps(summarize_bytes(m)))
"""


async def _scan_prefix(path: str, end: int) -> dict[str, Any] | None:
    """The summary of path[:end], computed in a child process (the scan holds its GIL for
    long C-speed passes, which would stall the UI if it ran in a thread here)."""
    import json

    from cockpit.sources.transport.child_process import run_python

    out = await run_python("-c", _SCAN, path, str(end))
    if out is None:
        return None
    try:
        found: dict[str, Any] = json.loads(out)
        return found
    except ValueError:
        return None


class FeedOptions(TypedDict, total=False):
    """LogFeed's own options, as its constructors pass them on."""

    max_delay_s: float
    max_lines: int
    queue_chunks: int
    scan_prefix: bool
    preview_bytes: int


_Queued = TailEvent | _Prefix | _Summary | BaseException | _End
"""What the reader hands the batcher: the tail's events, a prefix to scan and its summary, a failure, the end."""


class LogFeed:
    """A LiveFeed (`description`, async `stream()`) of LogBatch items.

    `opener` makes the async iterator of tail events (and receives a callback for host
    events); the constructors below build it. `max_delay_s` bounds how long a line waits
    to be sent; `max_lines` bounds a batch's size.
    """

    def __init__(
        self,
        opener: Callable[[Callable[[HostEvent], None]], AsyncIterable[TailEvent]],
        description: str,
        *,
        max_delay_s: float = 0.08,
        max_lines: int = 5000,
        queue_chunks: int = 64,
        scan_prefix: bool = False,
        preview_bytes: int = 64 << 10,
    ) -> None:
        self._opener = opener
        self.description = description
        self.max_delay_s = max_delay_s
        self.max_lines = max_lines
        self.queue_chunks = queue_chunks
        self.scan_prefix = scan_prefix
        self.preview_bytes = preview_bytes

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def local(cls, path: str, *, lines: int = 50_000, from_start: bool = False, **kw: Unpack[FeedOptions]) -> LogFeed:
        from cockpit.sources.log.tail import ResumableTail

        def opener(_on_host: Callable[[HostEvent], None]) -> AsyncIterable[TailEvent]:
            return ResumableTail.local(path, lines=lines, from_start=from_start)

        kw.setdefault("scan_prefix", not from_start)
        return cls(opener, f"tail {path}", **kw)

    @classmethod
    def ssh(cls, source: RemoteFile | RemoteCommand, *, pool: Pool | None = None, lines: int = 50_000, from_start: bool = False,
            **kw: Unpack[FeedOptions]) -> LogFeed:
        """A RemoteFile or RemoteCommand (cockpit.sources.log.tail_sources); with no `pool`, the feed
        opens its own SshPool for the length of `stream()`."""
        def opener(on_host: Callable[[HostEvent], None]) -> AsyncIterable[TailEvent]:
            return RemoteTail(source, pool, on_host, lines=lines, from_start=from_start)

        what = (f"{source.target.label}: {source.command}" if isinstance(source, RemoteCommand)
                else f"{source.target.label}:{source.path}")
        return cls(opener, f"tail {what}", **kw)

    @classmethod
    def command(cls, command: str, **kw: Unpack[FeedOptions]) -> LogFeed:
        """A command on this machine (`docker logs -f sglang`), restarted when it exits."""

        def opener(_on_host: Callable[[HostEvent], None]) -> AsyncIterable[TailEvent]:
            return local_command(command)

        return cls(opener, f"run {command}", **kw)

    @classmethod
    def for_host(cls, host: Host, *, pool: Pool | None = None, lines: int = 50_000, target: SshTarget | None = None,
                 **kw: Unpack[FeedOptions]) -> LogFeed:
        """The feed for a session Host: `log_command` (on `host.ssh`, else here), else
        `log_path` (on `host.ssh`; a bare path is local, `[user@]host:path` is remote).
        `target`: the host's SshTarget as the caller built it (with its --ssh-config and
        known_hosts); None: parsed from `host.ssh` alone.
        An unconfirmed `log_command` raises LogCommandNotConfirmed (a ValueError)."""
        from cockpit.sources.log.tail import ResumableTail
        from cockpit.sources.log.tail_sources import LocalFile
        from cockpit.sources.transport.ssh_pool import SshTarget

        if not host.ssh:
            target = None
        elif target is None:
            jump = SshTarget.parse(host.jump) if host.jump else None
            target = SshTarget.parse(host.ssh, jump=jump)
        if host.log_command:
            from cockpit.sources.server.confirm_key import require_log_confirmed

            require_log_confirmed(host)  # a shell command from the session: only once a person confirmed it
            if target is None:
                return cls.command(host.log_command, **kw)
            return cls.ssh(RemoteCommand(target, host.log_command), pool=pool, lines=lines, **kw)
        if not host.log_path:
            raise ValueError(f"host {host.name!r} has neither log_path nor log_command")
        if target is not None:
            return cls.ssh(RemoteFile(target, host.log_path), pool=pool, lines=lines, **kw)
        source = ResumableTail.parse_source(host.log_path)
        if isinstance(source, LocalFile):
            return cls.local(source.path, lines=lines, **kw)
        assert isinstance(source, RemoteFile)
        return cls.ssh(source, pool=pool, lines=lines, **kw)

    # -- the stream ------------------------------------------------------------------------
    async def stream(self) -> AsyncIterator[LogBatch]:
        """Batches until the tail ends (a local file tail never does: cancel the worker).
        They carry the bytes (`data`), parsed once by the one consumer of a feed
        (cockpit.control.log_pipeline); a preview carries its events, parsed here."""
        queue: asyncio.Queue[_Queued] = asyncio.Queue(self.queue_chunks)
        host_events: list[HostEvent] = []
        reader = asyncio.create_task(self._read(queue, host_events.append))
        chunks: list[bytes] = []
        ended = False
        notes: list[str] = []

        def batch() -> LogBatch:
            return LogBatch([], notes, state, connected=connected, data=b"".join(chunks), ended=ended,
                            waiting=waiting)

        state: str | None = None
        connected: bool | None = None  # sent with `state`: both say what the host did
        waiting: bool | None = None  # sent with `state`: the file is missing, or back
        missing = False  # a waiting notice came and no data since
        n_lines = 0
        deadline: float | None = None
        scans: list[asyncio.Task[None]] = []
        first_data = True
        try:
            while True:
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    item = await asyncio.wait_for(queue.get(), timeout)
                except TimeoutError:
                    item = None
                if isinstance(item, _End):
                    if chunks or notes:
                        yield batch()
                    return
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, _Prefix):
                    scans.append(asyncio.create_task(self._scan(item, queue)))
                    continue
                if isinstance(item, _Summary):
                    if chunks or notes:  # the summary is of text before all lines: order is free
                        yield batch()
                        chunks, ended, notes, state, connected, n_lines, deadline = [], False, [], None, None, 0, None
                        waiting = None
                    yield LogBatch([], [], None, item.summary)
                    continue
                if host_events:  # from the pool's listener, in the order they happened
                    for ev in host_events:
                        notes.append(describe_event(ev))
                        state = self._state_after(ev)
                        if isinstance(ev, (HostConnected, HostDisconnected)):
                            connected = isinstance(ev, HostConnected)
                    host_events.clear()
                    deadline = deadline or time.monotonic() + self.max_delay_s
                if missing and isinstance(item, (LogBytes, TailRotated, TailTruncated)):
                    missing, waiting, state = False, False, self.description  # the file is back
                if isinstance(item, LogBytes):
                    data = item.data
                    if first_data and self.preview_bytes and len(data) > 4 * self.preview_bytes:
                        # A big first read (the last 50k lines) takes a few hundred ms to
                        # parse: its last lines go first, parsed on their own.
                        cut = data.rfind(b"\n", 0, len(data) - self.preview_bytes) + 1
                        if cut:
                            # (notes wait for the full batch: the preview is thrown away)
                            yield LogBatch(LogParser().feed(data[cut:]), [], state, preview=True,
                                           connected=connected, waiting=waiting)
                            state = connected = waiting = None
                    first_data = False
                    chunks.append(data)
                    n_lines += data.count(b"\n")
                    deadline = deadline or time.monotonic() + self.max_delay_s
                elif item is not None and not isinstance(item, (HostConnecting, HostConnected, HostDisconnected)):
                    # (a remote tail's host events came through the pool's listener above)
                    if chunks:  # a note belongs between the lines before it and after it
                        yield batch()
                        chunks, ended, notes, state, connected, n_lines = [], False, [], None, None, 0
                        waiting = None
                    notes.append(describe_event(item))
                    if isinstance(item, TailNotice) and item.waiting:
                        missing, waiting, state = True, True, describe_event(item)
                    if isinstance(item, (TailRotated, TailTruncated)):
                        ended = True  # an unfinished traceback ends with its file
                    deadline = deadline or time.monotonic() + self.max_delay_s
                if (chunks or notes) and (n_lines >= self.max_lines or item is None
                                          or (deadline is not None and time.monotonic() >= deadline)):
                    yield batch()
                    chunks, ended, notes, state, connected, n_lines, deadline = [], False, [], None, None, 0, None
                    waiting = None
        finally:
            for task in [reader, *scans]:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    @staticmethod
    async def _scan(prefix: _Prefix, queue: asyncio.Queue[_Queued]) -> None:
        summary = await _scan_prefix(prefix.path, prefix.start)
        if summary is not None:
            await queue.put(_Summary(summary))

    def _state_after(self, ev: HostEvent) -> str:
        if isinstance(ev, HostConnected):
            return self.description
        return describe_event(ev)

    async def _read(self, queue: asyncio.Queue[_Queued], on_host: Callable[[HostEvent], None]) -> None:
        try:
            tail = self._opener(on_host)
            first = self.scan_prefix
            try:
                async for ev in tail:
                    if first and isinstance(ev, LogBytes):
                        first = False
                        prefix = _prefix_of(tail, ev)
                        if prefix is not None:
                            await queue.put(prefix)
                    elif first and not isinstance(ev, LogBytes):
                        first = False  # a notice first (no such file yet...): read from its start
                    await queue.put(ev)  # a full queue holds the reader back: backpressure
            finally:
                aclose = getattr(tail, "aclose", None)
                if aclose is not None:
                    with contextlib.suppress(Exception):
                        await aclose()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            await queue.put(exc)
            return
        await queue.put(_END)


def _prefix_of(tail: object, ev: LogBytes) -> _Prefix | None:
    """Where in its file the first data of a local ResumableTail began: what it consumed,
    less the unfinished line it holds, less the data. None when that cannot be told."""
    offset = getattr(tail, "offset", None)
    joiner = getattr(tail, "_lines", None)
    path = getattr(getattr(tail, "source", None), "path", None)
    if not isinstance(offset, int) or joiner is None or not isinstance(path, str):
        return None
    start = offset - len(getattr(joiner, "pending", b"")) - len(ev.data)
    return _Prefix(path, start) if start > 0 else None

