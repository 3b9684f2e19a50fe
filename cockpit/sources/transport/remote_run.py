"""One command on a host with a deadline, and stopping what a command started there.

Closing the channel is not enough: sshd closes the command's pipes, and a process that
hangs (a stuck `nvidia-smi`, a `sleep`) never writes again, so it never gets SIGPIPE and
runs on. OpenSSH's sshd (7.9 and later) answers a channel `signal` request with
`killpg()` on the command's process group (each session command runs in its own), so
one request stops the command and everything it forked.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncssh

__all__ = ["RemoteCommandError", "RemoteTimeout", "run_remote", "stop_remote", "stop_remote_now"]


class RemoteCommandError(Exception):
    """The command could not be started or did not finish on the host (one readable line)."""


class RemoteTimeout(RemoteCommandError, TimeoutError):
    """No answer within the deadline; the command was killed on the host."""


def stop_remote_now(proc: asyncssh.SSHClientProcess[bytes] | asyncssh.SSHClientProcess[str]) -> bool:
    """SIGKILL the command's process group on the host and close the channel, without
    waiting (for `finally` blocks that cannot await): the signal request is queued before
    the close and the connection sends both. False when the channel was already closed."""
    try:
        proc.send_signal("KILL")
        sent = True
    except Exception:  # the channel is already closed: nothing is left to stop
        sent = False
    try:
        proc.close()
    except Exception:
        pass
    return sent


async def stop_remote(proc: asyncssh.SSHClientProcess[bytes] | asyncssh.SSHClientProcess[str], *, wait_s: float = 2.0) -> None:
    """The same, then wait (up to `wait_s`) for the host to report the end, so that when
    this returns the processes are gone, not just asked to go."""
    if stop_remote_now(proc):
        try:
            await asyncio.wait_for(proc.wait_closed(), wait_s)
        except Exception:
            pass


async def run_remote(conn: asyncssh.SSHClientConnection, command: str, timeout_s: float, *, host: str,
                     what: str) -> tuple[int | None, str, str]:
    """(exit status, stdout, stderr) of `command`; RemoteTimeout after `timeout_s` with the
    command killed on the host; RemoteCommandError when no channel could be opened."""
    import asyncssh

    try:
        proc = await conn.create_process(command, encoding="utf-8", errors="replace")
    except (OSError, asyncssh.Error) as exc:
        reason = getattr(exc, "reason", "") or str(exc) or type(exc).__name__
        raise RemoteCommandError(f"{host}: cannot run {what}: {reason}") from None
    try:
        result = await asyncio.wait_for(proc.wait(check=False), timeout_s)
    except TimeoutError:
        await stop_remote(proc)
        raise RemoteTimeout(f"{host}: no answer from {what} within {timeout_s:g} s") from None
    except BaseException:  # cancelled (Ctrl-C) or the link failed: leave nothing behind
        stop_remote_now(proc)
        raise
    return result.exit_status, str(result.stdout or ""), str(result.stderr or "")
