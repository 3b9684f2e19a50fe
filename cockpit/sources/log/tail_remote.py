"""The followers of a log on a host: a part ResumableTail (tail.py) owns for an SSH source:

  * a file: a remote `tail -F -c +OFFSET` on a pooled SSH connection; after a dropped link
    it resumes at the byte reached when the path is still the same file (inode), else reads
    what was left of the old file if it is still in the directory (rotated by rename), then
    the new file from its start;
  * a command (`docker logs -f x`, `journalctl -fu x`): restarted after a drop or an exit,
    each restart marked with a TailGap (a command has no offset to resume from).

Each runs a small bash script on the host (below); closing the channel ends it there.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import shlex
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING

from cockpit.sources.log.tail_buffers import LastLines, TagSplitter, lookback
from cockpit.sources.log.tail_events import LogBytes, TailEvent, TailGap, TailNotice, TailRotated, TailTruncated
from cockpit.sources.log.tail_sources import RemoteCommand, RemoteFile
from cockpit.sources.transport.ssh_pool import Backoff, HostUnavailable, Pool, SshTarget

if TYPE_CHECKING:  # asyncssh is imported when a remote tail starts
    import asyncssh

__all__ = ["RemoteFollowers"]


# The remote side of a file tail (bash: `exec -a` puts the tag on tail's notices).
# $1 file, $2 tag, $3 inode we had (or "any"), $4 offset reached, $5 resume|start|last, $6 backlog.
_FILE_SCRIPT = r"""
f=$1 tag=$2 want=$3 off=$4 mode=$5 back=$6 ino= size=0 start=1
st=$(stat -L -c '%i %s' -- "$f" 2>/dev/null) && { ino=${st% *}; size=${st#* }; }
if [ "$mode" = resume ]; then
  if [ -n "$ino" ] && { [ "$ino" = "$want" ] || [ "$want" = any ]; }; then
    [ "$size" -ge "$off" ] && start=$((off + 1))
  elif [ "$want" != any ]; then
    old=$(find "$(dirname -- "$f")" -maxdepth 1 -inum "$want" -print -quit 2>/dev/null)
    if [ -n "$old" ]; then
      printf '%s: @old\n' "$tag"; tail -c "+$((off + 1))" -- "$old"; printf '%s: @oldend\n' "$tag"
    fi
  fi
elif [ "$mode" = last ] && [ "$size" -gt "$back" ]; then
  start=$((size - back + 1))
fi
printf '%s: @open %s %s %s\n' "$tag" "${ino:-none}" "$size" "$start"
exec -a "$tag" tail -F -c "+$start" -- "$f" 2>&1
"""

# The remote side of a command tail. The command runs in its own process group; a watcher
# waits for stdin to close (the channel closed: cancelled, or the link died) and kills that
# group, so no `docker logs -f` or `journalctl -f` outlives its channel on a quiet log.
# The command writes to fd 4 (the channel); the script's own stdout is /dev/null because
# bash prints job notices ("[1]+ Done ...") there under `set -m`.
_CMD_SCRIPT = r"""
set -m
exec 3<&0 4>&1 >/dev/null 2>&1
( exec 3<&- 4>&-; eval "$1" ) </dev/null >&4 2>&1 &
p=$!
( exec 4>&-; cat <&3; kill -TERM -- -"$p" ) &
w=$!
exec 3<&- 4>&-
wait "$p"; rc=$?
kill -TERM -- -"$w"
exit "$rc"
"""

_OPEN = re.compile(r"@open (\d+|none) (\d+) (\d+)")
_REPLACED = ("has been replaced", "has appeared")

class RemoteFollowers:
    """The followers of a file or a command on a host, for one ResumableTail: built with its
    pool, its options and its line joiner's two ends (`data`, `flush`: whole lines of what
    came, the unfinished one ended), so their bytes come out as the local follower's do."""

    def __init__(self, pool: Pool, *, lines: int, from_start: bool, chunk_size: int, restart_backoff: Backoff,
                 data: Callable[[bytes], LogBytes | None], flush: Callable[[], LogBytes | None]) -> None:
        self._pool = pool
        self.lines, self.from_start = lines, from_start
        self.chunk_size, self.restart_backoff = chunk_size, restart_backoff
        self._data, self._flush = data, flush
        self._host_events: deque[TailEvent] = deque()
        self.offset = 0  # bytes of the remote file consumed (partial line included)
        self.inode: int | None = None

    # -- a file on a host --------------------------------------------------------------------
    def _listen(self, target: SshTarget) -> Callable[[], None]:
        labels: set[str] = set()
        t: SshTarget | None = target
        while t is not None:
            labels.add(t.label)
            t = t.jump
        return self._pool.add_listener(lambda ev: self._host_events.append(ev) if ev.host in labels else None)

    async def _connect(self, target: SshTarget) -> asyncssh.SSHClientConnection | None:
        """The pooled connection; None after a transient failure (the pool did the waiting)."""
        try:
            return await self._pool.connection(target)
        except HostUnavailable:
            return None

    async def follow_file(self, src: RemoteFile) -> AsyncGenerator[TailEvent, None]:
        import asyncssh

        target, path = src.target, src.path
        tag = "cockpit-tail-" + secrets.token_hex(12)
        mode = "start" if self.from_start else "last"
        backlog: LastLines | None = None
        unlisten = self._listen(target)
        generation = 0  # bumped at each new file, so a late inode answer for an old one is ignored
        stat_task: asyncio.Future[None] | None = None
        exits = 0
        try:
            while True:
                conn = await self._connect(target)
                while self._host_events:
                    yield self._host_events.popleft()
                if conn is None:
                    continue
                want = "any" if self.inode is None else str(self.inode)
                args = [path, tag, want, str(self.offset), mode, str(lookback(self.lines))]
                cmd = "exec bash -c " + " ".join(shlex.quote(a) for a in [_FILE_SCRIPT, "cockpit-tail", *args])
                markers, proc = TagSplitter(tag), None
                try:
                    proc = await conn.create_process(cmd, encoding=None, stderr=asyncssh.STDOUT)
                    while True:
                        chunk = await proc.stdout.read(self.chunk_size)
                        if not chunk:
                            break
                        for is_marker, item in markers.feed(chunk):
                            if not is_marker:
                                self.offset += len(item)
                                if backlog is not None:
                                    item = backlog.feed(item)
                                    backlog = None if backlog.done else backlog
                                if (ev := self._data(item)) is not None:
                                    yield ev
                                continue
                            exits = 0
                            if backlog is not None and not item.startswith("@open"):
                                if (ev := self._data(backlog.finish())) is not None:
                                    yield ev  # the file changed before its backlog was whole
                                backlog = None
                            for marker_ev in self._remote_marker(item, path, mode):
                                yield marker_ev
                            if item.startswith("@open "):
                                m = _OPEN.fullmatch(item)
                                if m and mode == "last":
                                    size, start = int(m.group(2)), int(m.group(3)) - 1
                                    backlog = LastLines(self.lines, size - start, start > 0)
                                mode = "resume"
                            elif self.inode is None and any(k in item for k in _REPLACED):
                                backlog, generation = None, generation + 1
                                stat_task = asyncio.ensure_future(
                                    # the generation when the answer comes (read late on purpose)
                                    self._stat_inode(conn, path, generation, lambda: generation))  # noqa: B023
                    await proc.wait_closed()
                    if conn.is_closed():
                        raise asyncssh.ConnectionLost("connection lost")
                    exits += 1
                    delay = self.restart_backoff.delay(exits - 1)
                    tail_text = (markers.buf or b"").decode("utf-8", "replace").strip()
                    yield TailNotice(f"remote tail of {path} exited (status {proc.exit_status}"
                                     f"{': ' + tail_text if tail_text else ''}); restarting in {delay:.1f} s")
                    await asyncio.sleep(delay)
                except (OSError, asyncssh.Error) as exc:
                    self._pool.invalidate(target, conn, reason=f"{type(exc).__name__}: {exc}")
                finally:
                    if proc is not None:
                        proc.close()  # the remote tail sees its stdout close and exits
                while self._host_events:
                    yield self._host_events.popleft()
        finally:
            unlisten()
            if stat_task is not None:
                stat_task.cancel()

    def _remote_marker(self, text: str, path: str, mode: str) -> list[TailEvent]:
        """Apply one tagged line: our @headers, or a notice of the remote tail."""
        out: list[TailEvent] = []
        m = _OPEN.fullmatch(text)
        if m:
            ino = None if m.group(1) == "none" else int(m.group(1))
            start = int(m.group(3)) - 1
            if mode == "resume" and ino is None:
                if (ev := self._flush()) is not None:
                    out.append(ev)
                out.append(TailNotice(f"{path}: no such file now; waiting for it", waiting=True))
            elif mode == "resume" and not ((self.inode is None or ino == self.inode) and start == self.offset):
                if (ev := self._flush()) is not None:
                    out.append(ev)
                out.append(TailRotated(path, "replaced while disconnected") if ino != self.inode and self.inode
                           else TailTruncated(path, "truncated while disconnected"))
            elif ino is None:
                out.append(TailNotice(f"{path}: no such file yet; waiting for it", waiting=True))
            self.inode, self.offset = ino, start
        elif text == "@old":
            pass  # the rest of the old file (found by inode) follows, counted as usual
        elif text == "@oldend":
            if (ev := self._flush()) is not None:
                out.append(ev)
        elif text.endswith("file truncated"):
            self.offset = 0
            if (ev := self._flush()) is not None:
                out.append(ev)
            out.append(TailTruncated(path, "file truncated"))
        elif any(k in text for k in _REPLACED):
            self.offset, self.inode = 0, None
            if (ev := self._flush()) is not None:
                out.append(ev)
            out.append(TailRotated(path, text.split(" ", 1)[-1].replace(";  ", "; ")))
        else:  # "has become inaccessible", "cannot open ...", inotify fallbacks
            out.append(TailNotice(f"tail: {text}"))
        return out

    async def _stat_inode(self, conn: asyncssh.SSHClientConnection, path: str, generation: int,
                          current: Callable[[], int]) -> None:
        """After a rotation, learn the new file's inode (for a later resume)."""
        try:
            res = await conn.run(f"exec stat -L -c %i -- {shlex.quote(path)}", timeout=10)
            text = str(res.stdout or "").strip()
            if res.exit_status == 0 and text.isdigit() and current() == generation and self.inode is None:
                self.inode = int(text)
        except Exception:  # noqa: BLE001 - best effort: without it a resume trusts the path
            pass

    # -- a command on a host -----------------------------------------------------------------
    async def follow_command(self, src: RemoteCommand) -> AsyncGenerator[TailEvent, None]:
        import asyncssh

        target = src.target
        unlisten = self._listen(target)
        ended_at: float | None = None  # when the last stream ended (None: never started)
        reason = ""
        exits = 0
        cmd = "exec bash -c " + " ".join(shlex.quote(a) for a in [_CMD_SCRIPT, "cockpit-cmd", src.command])
        try:
            while True:
                conn = await self._connect(target)
                while self._host_events:
                    yield self._host_events.popleft()
                if conn is None:
                    continue
                proc = None
                try:
                    proc = await conn.create_process(cmd, encoding=None, stderr=asyncssh.STDOUT)
                    if ended_at is not None:
                        yield TailGap(reason, time.monotonic() - ended_at)
                    started = time.monotonic()
                    while True:
                        chunk = await proc.stdout.read(self.chunk_size)
                        if not chunk:
                            break
                        if (ev := self._data(chunk)) is not None:
                            yield ev
                    await proc.wait_closed()
                    if conn.is_closed():
                        raise asyncssh.ConnectionLost("connection lost")
                    if (ev := self._flush()) is not None:
                        yield ev
                    ended_at = time.monotonic()
                    exits = 0 if ended_at - started > 60 else exits + 1
                    delay = self.restart_backoff.delay(exits - 1) if exits else 0.0
                    reason = f"command exited with status {proc.exit_status}"
                    yield TailNotice(f"{src.command!r} on {target.label}: {reason}; restarting in {delay:.1f} s")
                    await asyncio.sleep(delay)
                except (OSError, asyncssh.Error) as exc:
                    if proc is not None:  # a stream that had started ended here
                        ended_at = time.monotonic()
                    if (ev := self._flush()) is not None:
                        yield ev
                    reason = "connection lost; command restarted"
                    self._pool.invalidate(target, conn, reason=f"{type(exc).__name__}: {exc}")
                finally:
                    if proc is not None:
                        proc.close()  # stdin closes: the remote watcher kills the command's group
                while self._host_events:
                    yield self._host_events.popleft()
        finally:
            unlisten()
