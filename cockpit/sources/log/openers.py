"""The tails a LogFeed (feed.py) opens besides a local file: `RemoteTail`, a
ResumableTail over an SshPool (the feed's own pool when it is given none), and
`local_command`, a command on this machine restarted when it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Unpack

from cockpit.sources.log.tail_events import LogBytes, TailEvent, TailGap
from cockpit.sources.transport.host_events import HostEvent

if TYPE_CHECKING:
    from cockpit.sources.log.tail import TailOptions
    from cockpit.sources.log.tail_sources import RemoteCommand, RemoteFile
    from cockpit.sources.transport.ssh_pool import Pool
    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["RemoteTail", "local_command"]


class RemoteTail:
    """A ResumableTail over an SshPool; opens (and closes) its own pool when given none."""

    def __init__(self, source: RemoteFile | RemoteCommand, pool: Pool | None, on_host: Callable[[HostEvent], None],
                 **kw: Unpack[TailOptions]) -> None:
        self.source, self.pool, self.on_host, self.kw = source, pool, on_host, kw

    async def __aiter__(self) -> AsyncIterator[TailEvent]:
        from cockpit.sources.log.tail import ResumableTail
        from cockpit.sources.transport.ssh_pool import SshPool

        if self.pool is not None:  # a shared pool: only this target's events (and its jumps')
            labels = set()
            target: SshTarget | None = self.source.target
            while target is not None:
                labels.add(target.label)
                target = target.jump
            unsubscribe = self.pool.add_listener(lambda ev: self.on_host(ev) if ev.host in labels else None)
            try:
                async with ResumableTail(self.source, pool=self.pool, **self.kw) as tail:
                    async for ev in tail:
                        yield ev
            finally:
                unsubscribe()
            return
        async with SshPool(self.on_host) as pool, ResumableTail(self.source, pool=pool, **self.kw) as tail:
            async for ev in tail:
                yield ev


async def local_command(command: str, restart_s: float = 2.0) -> AsyncIterator[TailEvent]:
    """Lines of a local shell command, whole lines only; restarted (with a TailGap) on exit."""
    while True:
        proc = await asyncio.create_subprocess_shell(
            command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        assert proc.stdout is not None
        carry = b""
        try:
            while chunk := await proc.stdout.read(1 << 16):
                data = carry + chunk
                cut = data.rfind(b"\n") + 1
                carry = data[cut:]
                if cut:
                    yield LogBytes(data[:cut])
            if carry:
                yield LogBytes(carry + b"\n")
            rc = await proc.wait()
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the shell and what it started
                with contextlib.suppress(Exception):
                    await proc.wait()
        stopped = time.monotonic()
        await asyncio.sleep(restart_s)
        yield TailGap(f"command exited ({rc}); restarted", time.monotonic() - stopped)
