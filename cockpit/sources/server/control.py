"""Start, stop, restart and find the SGLang server a launch profile runs, on its host.

A server is started DETACHED, so that it outlives cockpit and a dropped SSH link: in its own
session and process group (`setsid`), stdin from /dev/null, stdout and stderr appended to a
log file, its group id in a PID file. Per session and host there is one run folder
(`Host.run_dir`, else `~/.cockpit/runs`, then the session file's stem) holding
`<host>.pid`, `<host>.info` (fingerprint, profile, log path) and `<host>.exit` (the exit
status once the command ended by itself), and the per-run logs unless the host names its
own `log_path`.

Everything on the host is done by one small POSIX sh script fed to `sh -s` on stdin, through
the host's SSH connection (the shared SshPool) or, for a host without `ssh`, on this machine:
the same script either way. Profile fields never become shell syntax: the command is split
with `shlex.split` and every argv item, path and env value is quoted with `shlex.quote`.

Secrets: the env goes to the host inside that script, on the channel's stdin, as
`export NAME='value'` lines; the command line of every process is `sh -s` (nothing for `ps`
to show) and nothing is written to a file. Only the server's own environment holds the
values, and /proc/<pid>/environ is readable by its owner alone. (An env file made with
umask 077 would also work, but it exists on disk for a moment and must be removed on every
path; stdin needs no clean-up.)

Beside it: where and what (server_places: the run place, the launch plan), the scripts
(server_scripts), what they answer (server_results).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from cockpit.sources.server.places import (
    LaunchPlan,
    RunPlace,
)
from cockpit.sources.server.results import (
    AlreadyRunning,
    GpuCheck,
    LogChunk,
    ServerControlError,
    ServerStatus,
    StartResult,
    StopResult,
    parse_gpu,
    parse_status,
)
from cockpit.sources.server.scripts import read_script, start_script, status_script, stop_script

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_pool import Pool

__all__ = ["ServerControl"]


class ServerControl:
    """Runs the scripts on each place, through `pool` for hosts with `ssh`.

    Every method is a coroutine (the pool is asyncio); none needs Textual.
    """

    def __init__(self, pool: Pool | None = None, *, timeout_s: float = 30.0) -> None:
        self.pool = pool
        self.timeout_s = timeout_s

    async def _sh(self, place: RunPlace, script: str, what: str, timeout_s: float | None = None) -> tuple[int, bytes]:
        """(exit status, stdout) of `script` run by `sh -s` on the place; stderr joins stdout."""
        timeout = timeout_s or self.timeout_s
        if place.target is None:
            proc = await asyncio.create_subprocess_exec(
                "sh", "-s", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT)
            try:
                out, _ = await asyncio.wait_for(proc.communicate(script.encode()), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                raise ServerControlError(f"{place.host}: no answer from {what} within {timeout:g} s") from None
            return proc.returncode or 0, out
        if self.pool is None:
            raise ServerControlError(f"{place.host}: needs an SSH connection and none was given")
        return await self._ssh(place, script, what, timeout)

    async def _ssh(self, place: RunPlace, script: str, what: str, timeout: float) -> tuple[int, bytes]:
        import asyncssh

        from cockpit.sources.transport.remote_run import stop_remote
        from cockpit.sources.transport.ssh_pool import SshError

        assert self.pool is not None and place.target is not None
        try:
            conn = await asyncio.wait_for(self.pool.connection(place.target), timeout)
        except SshError as exc:
            raise ServerControlError(str(exc)) from None
        except TimeoutError:
            raise ServerControlError(f"{place.host}: no SSH connection within {timeout:g} s") from None
        try:
            # bytes (encoding=None): log chunks are cut at byte offsets
            proc = await conn.create_process("sh -s", input=script.encode(), encoding=None,
                                             stderr=asyncssh.STDOUT)
        except (OSError, asyncssh.Error) as exc:
            self.pool.invalidate(place.target, conn, "channel failed")
            raise ServerControlError(f"{place.host}: cannot run {what}: {exc}") from None
        try:
            result = await asyncio.wait_for(proc.wait(check=False), timeout)
        except TimeoutError:
            await stop_remote(proc)
            raise ServerControlError(f"{place.host}: no answer from {what} within {timeout:g} s") from None
        except (OSError, asyncssh.Error) as exc:
            raise ServerControlError(f"{place.host}: {what} failed: {exc}") from None
        out = result.stdout or b""
        return result.exit_status or 0, out if isinstance(out, bytes) else str(out).encode()

    async def status(self, place: RunPlace) -> ServerStatus:
        """The session's server on the place: running or not, what it was started from."""
        rc, out = await self._sh(place, status_script(place), "the status check")
        return parse_status(place.host, out.decode("utf-8", "replace"))

    async def gpu_check(self, place: RunPlace) -> GpuCheck:
        script = ('if command -v nvidia-smi >/dev/null 2>&1; then out=$(nvidia-smi --query-compute-apps='
                  'pid,process_name,used_memory --format=csv,noheader,nounits 2>&1); echo "gpucheck $?"; '
                  "printf '%s\\n' \"$out\" | sed '/^$/d; s/^/gpu /'; else echo 'gpucheck none'; fi\n")
        _, out = await self._sh(place, script, "nvidia-smi")
        return parse_gpu(out.decode("utf-8", "replace").splitlines())

    async def start(self, plan: LaunchPlan, *, session_label: str = "SESSION") -> StartResult:
        """Start the plan's command detached. AlreadyRunning when the session's server runs
        there; ServerControlError when it could not start. Confirmation is the caller's."""
        rc, raw = await self._sh(plan.place, start_script(plan), "the server start")
        lines = raw.decode("utf-8", "replace").splitlines()
        if rc == 3:
            raise AlreadyRunning(parse_status(plan.place.host, "\n".join(lines)), session_label)
        errors = [ln[6:] for ln in lines if ln.startswith("error ")]
        started = next((ln for ln in lines if ln.startswith("started ")), None)
        if rc != 0 or started is None:
            why = errors[0] if errors else (lines[-1] if lines else f"exit status {rc}")
            raise ServerControlError(f"{plan.place.host}: cannot start {plan.profile_id}: {why}")
        offset = next((int(ln.split()[1]) for ln in lines if ln.startswith("offset ") and ln.split()[1].isdigit()), 0)
        pid = int(started.split()[1])
        status = ServerStatus(host=plan.place.host, running=True, pid=pid, fingerprint=plan.fingerprint,
                              profile_id=plan.profile_id, log_path=plan.log_path)
        return StartResult(status=status, log_path=plan.log_path, log_offset=offset, gpu=parse_gpu(lines))

    async def stop(self, place: RunPlace, *, grace_s: float = 10.0) -> StopResult:
        """SIGTERM to the server's process group, SIGKILL after `grace_s`, then check that
        no process of the group is left (`left` names any that are)."""
        rc, raw = await self._sh(place, stop_script(place, grace_s), "the server stop",
                                 timeout_s=self.timeout_s + grace_s + 5)
        lines = raw.decode("utf-8", "replace").splitlines()
        pid = next((int(ln.split()[1]) for ln in lines if ln.startswith("pid ")), None)
        signals = tuple(ln.split()[1] for ln in lines if ln.startswith("signal "))
        left_line = next((ln for ln in lines if ln.startswith("left")), None)
        left = tuple(int(x) for x in left_line.split()[1:] if x.isdigit()) if left_line else ()
        if rc == 7 and not left:
            left = (pid or 0,)
        if rc not in (0, 7):
            raise ServerControlError(f"{place.host}: the stop failed: {lines[-1] if lines else rc}")
        return StopResult(host=place.host, pid=pid, signals=signals, left=left)

    async def restart(self, plan: LaunchPlan, *, grace_s: float = 10.0, session_label: str = "SESSION") -> StartResult:
        stopped = await self.stop(plan.place, grace_s=grace_s)
        if not stopped.clean:
            raise ServerControlError(f"{plan.place.host}: processes {list(stopped.left)} of the old server are left")
        return await self.start(plan, session_label=session_label)

    async def read_log(self, place: RunPlace, log_path: str, offset: int, *, max_bytes: int = 1 << 20) -> LogChunk:
        """Log bytes from `offset` (at most `max_bytes`) and whether the server still runs."""
        _, raw = await self._sh(place, read_script(place, log_path, offset, max_bytes), "the log read")
        head, _, data = raw.partition(b"\n")
        fields = head.decode("ascii", "replace").split()
        if len(fields) < 5 or fields[0] != "head":
            raise ServerControlError(f"{place.host}: unexpected answer reading {log_path}: {head[:200]!r}")
        running, off, n, truncated = fields[1] == "1", int(fields[2]), int(fields[3]), fields[4] == "1"
        exit_code = int(fields[5]) if len(fields) > 5 and fields[5].lstrip("-").isdigit() else None
        data = data[:n]
        return LogChunk(data=data, offset=off + len(data), running=running, exit_code=exit_code, truncated=truncated)
