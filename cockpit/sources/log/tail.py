"""ResumableTail: follow a log like `tail -F`, locally or over SSH, without losing or repeating a line.

Three sources, one event stream (see tail_events):
  * a local file: asyncio polling of os.stat/fstat (inode and size), no extra dependency
    (10 times a second; twice a second once the file has been quiet for 5 s);
  * a file on a host: a remote `tail -F -c +OFFSET` on a pooled SSH connection; after a
    dropped link it resumes at the byte reached when the path is still the same file (inode),
    else reads what was left of the old file if it is still in the directory (rotated by
    rename), then the new file from its start;
  * a command on a host (`docker logs -f x`, `journalctl -fu x`): restarted after a drop or an
    exit, each restart marked with a TailGap (a command has no offset to resume from).

Bytes are yielded in whole lines: a partial last line is held until its newline arrives.
The sources are in tail_sources, the followers of a file or a command on a host in
tail_remote (a part a tail of a host owns), the byte buffers in tail_buffers.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypedDict, Unpack

from cockpit.sources.log.tail_buffers import LastLines, LineJoiner, lookback
from cockpit.sources.log.tail_events import LogBytes, TailEvent, TailNotice, TailRotated, TailTruncated
from cockpit.sources.log.tail_remote import RemoteFollowers
from cockpit.sources.log.tail_sources import LocalFile, RemoteCommand, RemoteFile, Source
from cockpit.sources.transport.ssh_pool import Backoff, Pool, SshTarget, split_remote_path

__all__ = ["ResumableTail"]

CHUNK = 1 << 18  # read size; large reads are what makes a 200 MB catch-up fast
QUIET_AFTER_S = 5.0
"""A local file with no new bytes for this long is polled every `quiet_poll_s`, not 10 times a second."""


class TailOptions(TypedDict, total=False):
    """ResumableTail's options, as its constructors pass them on."""

    lines: int
    from_start: bool
    chunk_size: int
    max_line_bytes: int
    poll_interval_s: float
    quiet_poll_s: float
    quiet_after_s: float
    restart_backoff: Backoff


class ResumableTail:
    """An async iterator of TailEvent for one source. Use as `async with` (or call aclose)
    so that cancelling closes the SSH channel and the remote tail exits with it.

        async with ResumableTail.ssh_file(pool, SshTarget.parse("gpu1"), "/var/log/sglang.log") as t:
            async for ev in t: ...

    lines: start with the last N lines (0: only new ones); from_start: the whole file.
    """

    def __init__(
        self,
        source: Source,
        *,
        pool: Pool | None = None,
        lines: int = 10,
        from_start: bool = False,
        chunk_size: int = CHUNK,
        max_line_bytes: int = 1 << 20,
        poll_interval_s: float = 0.1,
        quiet_poll_s: float = 0.5,
        quiet_after_s: float = QUIET_AFTER_S,
        restart_backoff: Backoff = Backoff(base_s=1.0, cap_s=30.0),
    ) -> None:
        if isinstance(source, (RemoteFile, RemoteCommand)) and pool is None:
            raise ValueError("an SSH source needs an SshPool")
        self.source, self.pool = source, pool
        self.lines, self.from_start = max(0, lines), from_start
        self.chunk_size, self.poll_interval_s = chunk_size, poll_interval_s
        self.quiet_poll_s, self.quiet_after_s = max(poll_interval_s, quiet_poll_s), quiet_after_s
        self.restart_backoff = restart_backoff
        self._lines = LineJoiner(max_line_bytes)
        self._remote = None if pool is None else RemoteFollowers(
            pool, lines=self.lines, from_start=from_start, chunk_size=chunk_size, restart_backoff=restart_backoff,
            data=self._data, flush=self._flush)
        """The followers of a file or a command on a host (tail_remote.py), with a pool."""
        self._gen: AsyncGenerator[TailEvent, None] | None = None
        self.offset = 0  # bytes of the local file consumed (partial line included)
        self.inode: int | None = None

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def local(cls, path: str | os.PathLike[str], **kw: Unpack[TailOptions]) -> ResumableTail:
        return cls(LocalFile(os.fspath(path)), **kw)

    @classmethod
    def ssh_file(cls, pool: Pool, target: SshTarget, path: str, **kw: Unpack[TailOptions]) -> ResumableTail:
        return cls(RemoteFile(target, path), pool=pool, **kw)

    @classmethod
    def ssh_command(cls, pool: Pool, target: SshTarget, command: str, **kw: Unpack[TailOptions]) -> ResumableTail:
        return cls(RemoteCommand(target, command), pool=pool, **kw)

    @staticmethod
    def parse_source(spec: str, *, command: str | None = None, **target_fields: Any) -> Source:
        """A CLI TARGET: a local path, `[user@]host:path`, or `host` (with a command)."""
        if command is not None:
            return RemoteCommand(SshTarget.parse(spec, **target_fields), command)
        remote = split_remote_path(spec)
        if remote is None:
            return LocalFile(spec)
        return RemoteFile(SshTarget.parse(remote[0], **target_fields), remote[1])

    @property
    def description(self) -> str:
        s = self.source
        if isinstance(s, LocalFile):
            return s.path
        if isinstance(s, RemoteFile):
            return f"{s.target.label}:{s.path}"
        return f"{s.target.label}: {s.command}"

    # -- iteration ---------------------------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[TailEvent]:
        if self._gen is None:
            s = self.source
            if isinstance(s, LocalFile):
                self._gen = self._follow_local(s)
            else:
                assert self._remote is not None  # (the constructor refuses an SSH source without a pool)
                self._gen = (self._remote.follow_file(s) if isinstance(s, RemoteFile)
                             else self._remote.follow_command(s))
        return self._gen

    async def aclose(self) -> None:
        """Stop a tail that is not being iterated right now. To stop one that a task is
        iterating, cancel that task: the cancellation closes the channel on its way out."""
        if self._gen is not None and not getattr(self._gen, "ag_running", False):
            await self._gen.aclose()  # runs the finally blocks: channels closed

    async def __aenter__(self) -> ResumableTail:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _data(self, data: bytes) -> LogBytes | None:
        out = self._lines.feed(data)
        return LogBytes(out) if out else None

    def _flush(self) -> LogBytes | None:
        out = self._lines.flush()
        return LogBytes(out) if out else None

    # -- a local file ------------------------------------------------------------------------
    async def _follow_local(self, src: LocalFile) -> AsyncGenerator[TailEvent, None]:
        path, fd, said_missing = src.path, None, False
        try:
            while fd is None:
                try:
                    fd = os.open(path, os.O_RDONLY)
                except FileNotFoundError:
                    if not said_missing:
                        said_missing = True
                        yield TailNotice(f"{path}: no such file yet; waiting for it", waiting=True)
                    await asyncio.sleep(self.poll_interval_s)
            st = os.fstat(fd)
            backlog = None
            if not self.from_start and not said_missing:
                start = max(0, st.st_size - lookback(self.lines))
                backlog = LastLines(self.lines, st.st_size - start, start > 0)
                os.lseek(fd, start, os.SEEK_SET)
                self.offset = start
            self.inode = st.st_ino
            gone, last_data = False, time.monotonic()
            while True:
                data = os.read(fd, self.chunk_size)
                if data:
                    last_data = time.monotonic()
                    self.offset += len(data)
                    if backlog is not None:
                        data = backlog.feed(data)
                        backlog = None if backlog.done else backlog
                    if (ev := self._data(data)) is not None:
                        yield ev
                    await asyncio.sleep(0)  # a long catch-up must not starve the loop
                    continue
                if backlog is not None:  # shorter than it was: fall through with what there is
                    if (ev := self._data(backlog.finish())) is not None:
                        yield ev
                    backlog = None
                # at the end of the file: did the path move on, or the file shrink?
                try:
                    now = os.stat(path)
                except FileNotFoundError:
                    if not gone:
                        gone = True
                        yield TailNotice(f"{path} has become inaccessible; waiting for it", waiting=True)
                    await asyncio.sleep(self.poll_interval_s)
                    continue
                cur = os.fstat(fd)
                if (now.st_ino, now.st_dev) != (cur.st_ino, cur.st_dev):
                    data = _read_rest(fd, self.chunk_size)  # the last words of the old file
                    if data and (ev := self._data(data)) is not None:
                        yield ev
                    if (ev := self._flush()) is not None:
                        yield ev
                    try:
                        new = os.open(path, os.O_RDONLY)
                    except FileNotFoundError:
                        await asyncio.sleep(self.poll_interval_s)
                        continue
                    os.close(fd)
                    fd, gone, self.offset, self.inode = new, False, 0, os.fstat(new).st_ino
                    yield TailRotated(path, "a new file has the name; following it")
                elif cur.st_size < self.offset:
                    os.lseek(fd, 0, os.SEEK_SET)
                    self.offset = 0
                    if (ev := self._flush()) is not None:
                        yield ev
                    yield TailTruncated(path, "file truncated")
                else:  # a log quiet for a while is polled less often (a quiet cockpit's CPU)
                    quiet = time.monotonic() - last_data > self.quiet_after_s
                    await asyncio.sleep(self.quiet_poll_s if quiet else self.poll_interval_s)
        finally:
            if fd is not None:
                os.close(fd)

def _read_rest(fd: int, chunk: int) -> bytes:
    parts = []
    while data := os.read(fd, chunk):
        parts.append(data)
    return b"".join(parts)
