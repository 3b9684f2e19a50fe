"""Where a sweep's bench client runs: this machine (a subprocess) or a host over its SSH
connection (a channel of the shared pool). Both run an argv, stream its output, read a
file back and kill a leftover; a dropped SSH link is `LinkLost`, never a hang.

Cancelling `run` kills the client: its process group here, and over SSH a channel signal
(sshd answers with killpg on the command's group, see sources/transport/remote_run.py).
"""

from __future__ import annotations

import asyncio
import codecs
import os
import shlex
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cockpit.sources.transport.remote_run import RemoteCommandError, run_remote, stop_remote

if TYPE_CHECKING:  # asyncssh is imported when a remote point runs
    import asyncssh

    from cockpit.sources.transport.ssh_pool import Pool
    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["BenchHost", "LinkLost", "LocalBenchHost", "OutputSink", "SshBenchHost"]

OutputSink = Callable[[str, str], None]
"""`(stream, text)`: stream is "stdout" or "stderr"; text is a decoded chunk, any length."""


class LinkLost(Exception):
    """The link to the host went away (and did not come back in time)."""


class BenchHost(Protocol):
    label: str

    async def run(self, argv: list[str], *, folder: str, pidfile: str, on_output: OutputSink) -> int | None:
        """Run argv in `folder` (created), its PID in `pidfile`; the exit status (128+N for a
        signal). Raises LinkLost when the link drops; cancelled: the process is killed."""
        ...

    async def read_text(self, path: str) -> str | None:
        """The file's text, None when it does not exist. Raises LinkLost."""
        ...

    async def kill_leftover(self, pidfile: str, marker: str) -> None:
        """Kill the process of `pidfile` if its command line still names `marker` (a client
        left running when the link dropped; PID reuse leaves others alone)."""
        ...


async def _pump(stream: asyncssh.SSHReader[bytes] | asyncio.StreamReader | None, name: str,
                on_output: OutputSink) -> None:
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while True:
        data = await stream.read(65536)
        if not data:
            break
        if isinstance(data, str):  # a channel opened with an encoding
            on_output(name, data)
        else:
            on_output(name, decoder.decode(data))
    tail = decoder.decode(b"", final=True)
    if tail:
        on_output(name, tail)


class LocalBenchHost:
    """This machine: the client as a subprocess in its own process group."""

    label = "this machine"

    async def run(self, argv: list[str], *, folder: str, pidfile: str, on_output: OutputSink) -> int | None:
        os.makedirs(folder, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True)
        Path(pidfile).write_text(f"{proc.pid}\n")
        try:
            await asyncio.gather(_pump(proc.stdout, "stdout", on_output), _pump(proc.stderr, "stderr", on_output))
            status = await proc.wait()
        except BaseException:  # cancelled: nothing of the client is left behind
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await proc.wait()
            raise
        finally:  # the client ended: its PID file goes (issue 39: 97 of them left after 12 sweeps)
            Path(pidfile).unlink(missing_ok=True)
        return 128 - status if status < 0 else status

    async def read_text(self, path: str) -> str | None:
        try:
            return Path(path).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None

    async def kill_leftover(self, pidfile: str, marker: str) -> None:
        return None  # a local client dies with its run (killed on cancel), never orphaned by a link


# The remote wrapper: a constant script; folder, pidfile and the argv are its positional
# parameters, so nothing of theirs is ever read as shell syntax.
_RUN_SCRIPT = 'mkdir -p -- "$1" && echo $$ > "$2" && shift 2 && exec "$@"'
_KILL_SCRIPT = ('pid=$(cat -- "$1" 2>/dev/null) || exit 0; '
                'if grep -qaF -- "$2" "/proc/$pid/cmdline" 2>/dev/null; then kill -KILL "$pid"; fi; rm -f -- "$1"')


class SshBenchHost:
    """A host over the SSH pool; waits up to `reconnect_s` for a dropped link to come back."""

    def __init__(self, pool: Pool, target: SshTarget, label: str | None = None, *, reconnect_s: float = 60.0) -> None:
        self.pool = pool
        self.target = target
        self.label: str = label or str(getattr(target, "label", target))
        self.reconnect_s = reconnect_s

    async def _connection(self) -> asyncssh.SSHClientConnection:
        from cockpit.sources.transport.ssh_pool import HostUnavailable, SshError

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.reconnect_s
        while True:
            try:
                return await self.pool.connection(self.target)
            except HostUnavailable as exc:
                if loop.time() + exc.retry_in_s > deadline:
                    raise LinkLost(str(exc)) from None
            except SshError as exc:  # a host key or a refusal: needs a person, the point cannot run
                raise LinkLost(str(exc)) from None

    def _lost(self, conn: asyncssh.SSHClientConnection | None, exc: BaseException | str) -> LinkLost:
        reason = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
        self.pool.invalidate(self.target, conn, reason)
        return LinkLost(f"{self.label}: {reason}")

    async def run(self, argv: list[str], *, folder: str, pidfile: str, on_output: OutputSink) -> int | None:
        import asyncssh

        conn = await self._connection()
        command = shlex.join(["sh", "-c", _RUN_SCRIPT, "sh", folder, pidfile, *argv])
        try:
            proc = await conn.create_process(command, encoding=None)
        except (OSError, asyncssh.Error) as exc:
            raise self._lost(conn, exc) from None
        try:
            await asyncio.gather(_pump(proc.stdout, "stdout", on_output), _pump(proc.stderr, "stderr", on_output))
            result = await proc.wait(check=False)
        except (OSError, asyncssh.Error) as exc:
            raise self._lost(conn, exc) from None
        except BaseException:  # cancelled: the client's process group is killed on the host
            await stop_remote(proc)
            raise
        if result.exit_status is None and not result.exit_signal:
            raise self._lost(conn, "the link dropped during the run")
        await self._remove(pidfile)  # the client ended: its PID file goes (issue 39)
        if result.exit_signal:
            name = result.exit_signal[0]
            number = getattr(signal, f"SIG{name}", None)
            return 128 + int(number) if number is not None else 255
        status: int | None = result.exit_status
        return status

    async def _remove(self, path: str) -> None:
        """Remove a run-time file of an ended process; a link lost now leaves it to
        `kill_leftover`, which removes it too."""
        try:
            await self._run(shlex.join(["rm", "-f", "--", path]), "remove the PID file")
        except LinkLost:
            pass

    async def _run(self, command: str, what: str) -> tuple[int | None, str]:
        import asyncssh

        conn = await self._connection()
        try:
            status, out, _ = await run_remote(conn, command, 30.0, host=self.label, what=what)
        except RemoteCommandError as exc:
            raise self._lost(conn, exc) from None
        except (OSError, asyncssh.Error) as exc:
            raise self._lost(conn, exc) from None
        if status is None:
            raise self._lost(conn, f"no answer from {what}")
        return status, out

    async def read_text(self, path: str) -> str | None:
        # `cat` answers 1 for a missing file; the test tells it from an unreadable one
        status, out = await self._run(shlex.join(["sh", "-c", 'test -e "$1" || exit 3; cat -- "$1"', "sh", path]),
                                      "cat")
        return out if status == 0 else None

    async def kill_leftover(self, pidfile: str, marker: str) -> None:
        await self._run(shlex.join(["sh", "-c", _KILL_SCRIPT, "sh", pidfile, marker]), "kill")
