"""Run the version probe (cockpit/parse/version_probe.py) here or on a host over SSH."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from cockpit.parse.version_probe import ProbeError, ProbeResult, parse_probe_output, probe_command
from cockpit.sources.transport.remote_run import RemoteCommandError, RemoteTimeout, run_remote

if TYPE_CHECKING:
    from cockpit.sources.gpu.nvsmi_stream import ConnectionSource
    from cockpit.sources.transport.ssh_target import SshTarget


async def probe_versions(names: list[str], python: str, *, pool: ConnectionSource | None = None,
                         target: SshTarget | None = None,
                         timeout_s: float = 60.0) -> ProbeResult:
    """Versions of `names` as `python` on the host sees them (target None: this machine).
    Raises ProbeError (or the pool's SshError) with a readable reason."""
    command = probe_command(python, names)
    try:
        if target is None:
            proc = await asyncio.create_subprocess_shell(
                command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            try:
                raw_out, raw_err = await asyncio.wait_for(proc.communicate(), timeout_s)
            except TimeoutError:
                proc.kill()
                raise
            return parse_probe_output(raw_out.decode("utf-8", "replace"), raw_err.decode("utf-8", "replace"),
                                      proc.returncode)
        if pool is None:
            raise ProbeError(f"no SSH pool to reach {target.label}")
        conn = await pool.connection(target)
        try:  # on timeout the probe is killed on the host, not left running
            status, out, err = await run_remote(conn, command, timeout_s, host=target.label, what=python)
        except RemoteTimeout:
            raise
        except RemoteCommandError as exc:
            raise ProbeError(str(exc).partition(": ")[2] or str(exc)) from None
        return parse_probe_output(out, err, status)
    except TimeoutError:
        raise ProbeError(f"no answer in {timeout_s:g} s") from None
