"""Remote GPUs over SSH: ONE long-lived `nvidia-smi --query-gpu=... -lms N` per host.

The channel's lines go through `QueryStreamParser` (the same parser the demo replays
recorded CSV through) and come out as per-tick `GpuSamplesTaken` events. When the link
drops or goes silent the stream says so (`GpuStreamInterrupted`, with the back-off),
asks the pool for a fresh connection and starts again. A field an old driver does not
know is swapped for its alternative name (or dropped) and the process restarted. A
host without nvidia-smi or without a working driver ends the stream with one
`GpuSourceUnavailable`.

The connection comes from anything with `await pool.connection(target)` (and,
optionally, `pool.invalidate(target)`): `cockpit.sources.transport.ssh_pool.SshPool` in the app.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from cockpit.parse.gpu.events import (
    GpuEvent,
    GpuSamplesTaken,
    GpuSourceUnavailable,
    GpuStreamInterrupted,
)
from cockpit.parse.gpu.nvsmi_query import (
    FIELD_ALTERNATIVES,
    QUERY_FIELDS,
    QueryStreamParser,
    parse_query_csv,
    query_command,
)
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix, parse_topology
from cockpit.parse.gpu.sample import GpuSample
from cockpit.sources.transport.remote_run import RemoteCommandError, run_remote, stop_remote_now
from cockpit.sources.transport.ssh_pool import HostUnavailable, SshError
from cockpit.sources.transport.ssh_target import SshTarget

if TYPE_CHECKING:
    import asyncssh

BACKOFF_S: tuple[float, ...] = (1, 2, 4, 8, 16, 30)
_INVALID_FIELD = re.compile(r'Field "([^"]+)" is not a valid field to query')
_NO_DRIVER = re.compile(
    r"couldn't communicate with the NVIDIA driver|No devices were found|NVML library not found|Driver/library version mismatch",
    re.IGNORECASE,
)


class ConnectionSource(Protocol):
    """What the stream needs from the SSH pool."""

    async def connection(self, target: SshTarget) -> asyncssh.SSHClientConnection: ...


def target_label(target: object) -> str:
    """A short name for the host: the target's `label`, else its `host`, else str()."""
    label = getattr(target, "label", None)
    if callable(label):
        label = label()
    return str(label or getattr(target, "host", None) or target)


def stream_command(interval_ms: int, fields: Sequence[str] = QUERY_FIELDS) -> str:
    """The remote command: line-buffered where `stdbuf` exists, POSIX sh whatever the login shell."""
    q = query_command(interval_ms, fields)
    return f"sh -c 'if command -v stdbuf >/dev/null 2>&1; then exec stdbuf -oL {q}; else exec {q}; fi'"


def swap_rejected_field(fields: Sequence[str], error_text: str) -> tuple[str, ...] | None:
    """The field list with the field nvidia-smi rejected swapped or dropped; None if none was."""
    m = _INVALID_FIELD.search(error_text)
    if m is None or m.group(1) not in fields:
        return None
    bad = m.group(1)
    alt = FIELD_ALTERNATIVES.get(bad)
    out = [alt if f == bad and alt and alt not in fields else f for f in fields]
    return tuple(f for f in out if f != bad)


def _invalidate(pool: object, target: SshTarget, conn: asyncssh.SSHClientConnection | None, reason: str,
                proc: asyncssh.SSHClientProcess[str] | None = None) -> None:
    """Tell the pool the connection failed (SshPool.invalidate(target, conn, reason)).

    `proc` is stopped first: the request that kills it on the host needs the connection."""
    if proc is not None:
        _close_process(proc)
    invalidate = getattr(pool, "invalidate", None)
    if invalidate is not None:
        try:
            invalidate(target, conn, reason)
        except Exception:
            pass


class NvsmiStream:
    """`async for event in NvsmiStream(pool, target):` GpuSamplesTaken per tick,
    GpuStreamInterrupted while reconnecting, GpuSourceUnavailable (last) if hopeless."""

    def __init__(
        self,
        pool: ConnectionSource,
        target: SshTarget,
        *,
        host: str | None = None,
        interval_ms: int = 1000,
        fields: Sequence[str] = QUERY_FIELDS,
        backoff_s: Sequence[float] = BACKOFF_S,
        stall_timeout_s: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.pool = pool
        self.target = target
        self.host = host or target_label(target)
        self.interval_ms = interval_ms
        self.fields: tuple[str, ...] = tuple(fields)
        self.backoff_s = tuple(backoff_s) or (1.0,)
        self.stall_timeout_s = stall_timeout_s or max(10.0, 5 * interval_ms / 1000)
        """No line for this long: the link is considered dead and the stream restarts."""
        self._clock = clock
        self._closed = False
        self.restarts = 0

    def __aiter__(self) -> AsyncIterator[GpuEvent]:
        return self.events()

    def close(self) -> None:
        """Stop after the current read (the running `events()` generator ends)."""
        self._closed = True

    async def events(self) -> AsyncIterator[GpuEvent]:
        failures = 0
        stalls = 0
        field_swaps = 0
        while not self._closed:
            reason: str
            delay: float | None = None
            proc = conn = None
            try:
                try:
                    conn = await self.pool.connection(self.target)
                except RuntimeError:  # the pool was closed: the app is shutting down
                    return
                proc = await conn.create_process(
                    stream_command(self.interval_ms, self.fields), encoding="utf-8", errors="replace"
                )
                parser = QueryStreamParser(self.fields, host=self.host, clock=self._clock)
                while not self._closed:
                    line = await asyncio.wait_for(proc.stdout.readline(), self.stall_timeout_s)
                    if not line:
                        break
                    batch = parser.feed_line(line)
                    if batch:
                        failures = stalls = 0
                        yield GpuSamplesTaken(self.host, batch, self._clock())
                if self._closed:
                    return
                for batch in parser.flush():
                    yield GpuSamplesTaken(self.host, batch, self._clock())
                err = await _drain(proc.stderr)
                status = await _exit_status(proc)
                text = "\n".join([*parser.errors, err])
                swapped = swap_rejected_field(self.fields, text)
                if swapped is not None and field_swaps < len(QUERY_FIELDS):
                    self.fields, field_swaps = swapped, field_swaps + 1
                    continue  # at once: the link is fine, the field list was not
                unavailable = _unavailable(self.host, status, text)
                if unavailable is not None:
                    yield unavailable
                    return
                if status is None:  # channel closed without an exit status: the link went
                    reason = "the SSH channel closed"
                    _invalidate(self.pool, self.target, conn, reason, proc)
                else:
                    last = (text.strip().splitlines() or ["no output"])[-1]
                    reason = f"nvidia-smi exited (status {status}): {last[:160]}"
            except TimeoutError:
                stalls += 1
                reason = f"no data for {self.stall_timeout_s:g} s"
                if stalls > 1:  # once may be nvidia-smi stuck; twice, suspect the link
                    _invalidate(self.pool, self.target, conn, reason, proc)
            except HostUnavailable as exc:  # the pool owns the host's back-off and waits itself
                reason, delay = exc.reason, exc.retry_in_s
            except SshError as exc:  # host key or authentication refused: needs a person
                yield GpuSourceUnavailable(str(exc), host=self.host)
                return
            except Exception as exc:  # the link: asyncssh.Error, OSError, ConnectionLost...
                reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
                _invalidate(self.pool, self.target, conn, reason, proc)
            finally:
                if proc is not None:
                    _close_process(proc)
            if self._closed:
                return
            self.restarts += 1
            if delay is not None:
                yield GpuStreamInterrupted(self.host, reason, delay)
                continue
            delay = float(self.backoff_s[min(failures, len(self.backoff_s) - 1)])
            failures += 1
            yield GpuStreamInterrupted(self.host, reason, delay)
            await asyncio.sleep(delay)


def _unavailable(host: str, status: int | None, text: str) -> GpuSourceUnavailable | None:
    """A final answer from the host: no nvidia-smi, or no working driver."""
    if status == 127 or "nvidia-smi: not found" in text or "command not found" in text:
        return GpuSourceUnavailable(f"{host}: nvidia-smi is not installed (or not on PATH).", host=host)
    m = _NO_DRIVER.search(text)
    if m is not None:
        return GpuSourceUnavailable(f"{host}: nvidia-smi cannot read the GPUs ({m.group(0)}).", host=host)
    return None


async def _drain(reader: asyncssh.SSHReader[str], timeout: float = 2.0) -> str:
    try:
        return str(await asyncio.wait_for(reader.read(), timeout) or "")
    except Exception:
        return ""


async def _exit_status(proc: asyncssh.SSHClientProcess[str], timeout: float = 2.0) -> int | None:
    try:
        await asyncio.wait_for(proc.wait_closed(), timeout)
    except Exception:
        pass
    return getattr(proc, "exit_status", None)


def _close_process(proc: asyncssh.SSHClientProcess[str]) -> None:
    # A writing nvidia-smi dies of SIGPIPE once the channel closes; a stuck one (the stall
    # case) never writes again, so its process group is killed on the host first.
    stop_remote_now(proc)


# --- one-shot commands over the same connection --------------------------------------------


async def _run(pool: ConnectionSource, target: SshTarget, command: str, timeout_s: float,
               what: str) -> tuple[int | None, str, str]:
    """Run once; no answer in time: the command is killed on the host, GpuSourceUnavailable."""
    host = target_label(target)
    conn = await pool.connection(target)
    try:
        return await run_remote(conn, command, timeout_s, host=host, what=what)
    except RemoteCommandError as exc:
        raise GpuSourceUnavailable(str(exc), host=host) from None


async def fetch_topology_text(pool: ConnectionSource, target: SshTarget, *, timeout_s: float = 30.0) -> str:
    """`nvidia-smi topo -m` run once on the host; its stdout (ANSI escapes included)."""
    host = target_label(target)
    status, out, err = await _run(pool, target, "nvidia-smi topo -m", timeout_s, "nvidia-smi topo -m")
    if status != 0:
        why = (err.strip() or out.strip() or f"exit status {status}").splitlines()[-1]
        raise GpuSourceUnavailable(f"{host}: nvidia-smi topo -m failed: {why}", host=host)
    return out


async def fetch_topology(pool: ConnectionSource, target: SshTarget, *, timeout_s: float = 30.0) -> TopologyMatrix:
    return parse_topology(await fetch_topology_text(pool, target, timeout_s=timeout_s))


async def fetch_samples(
    pool: ConnectionSource, target: SshTarget, *, fields: Sequence[str] = QUERY_FIELDS, timeout_s: float = 30.0
) -> tuple[GpuSample, ...]:
    """One sample per GPU (a single `nvidia-smi --query-gpu` run, no loop)."""
    host = target_label(target)
    fields = tuple(fields)
    for _ in range(len(QUERY_FIELDS)):
        status, out, err = await _run(pool, target, query_command(None, fields), timeout_s, "nvidia-smi")
        swapped = swap_rejected_field(fields, out + err)
        if swapped is None:
            break
        fields = swapped
    if status != 0:
        why = (err.strip() or out.strip() or f"exit status {status}").splitlines()[-1]
        raise GpuSourceUnavailable(f"{host}: nvidia-smi failed: {why}", host=host)
    now = time.time()  # the reader's clock, as in the stream (remote clocks differ)
    return tuple(replace(s, timestamp=now) for s in parse_query_csv(out, fields, host=host))


# --- local text streams (recordings, the demo, benchmarks) ----------------------------------


async def parse_lines(
    lines: AsyncIterable[str],
    *,
    host: str | None = None,
    fields: Sequence[str] = QUERY_FIELDS,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[GpuSamplesTaken]:
    """Lines of a `--query-gpu` stream from anywhere -> per-tick GpuSamplesTaken."""
    parser = QueryStreamParser(fields, host=host, clock=clock)
    async for line in lines:
        batch = parser.feed_line(line)
        if batch:
            yield GpuSamplesTaken(host, batch, clock())
    for batch in parser.flush():
        yield GpuSamplesTaken(host, batch, clock())


async def replay_lines(
    lines: Iterable[str], *, interval_s: float = 1.0, repeat: bool = False
) -> AsyncIterator[str]:
    """Recorded CSV lines paced like `-lms`: a tick's lines at once, then `interval_s`.

    A tick ends where a GPU index repeats (the index is the first all-digit cell among
    the first two, so recordings with or without a leading `timestamp` both work).
    """
    recorded = [ln for ln in lines if ln.strip()]
    if not recorded:
        return
    ticks: list[list[str]] = []
    seen: set[str] = set()
    for ln in recorded:
        key = _index_cell(ln)
        if key in seen or not ticks:
            ticks.append([])
            seen = set()
        ticks[-1].append(ln)
        seen.add(key)
    while True:
        for tick in ticks:
            for ln in tick:
                yield ln
            await asyncio.sleep(interval_s)
        if not repeat:
            return


def _index_cell(line: str) -> str:
    cells = line.split(",")
    for c in cells[:2]:
        if c.strip().isdigit():
            return c.strip()
    return line
