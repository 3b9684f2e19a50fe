"""SSH targets and the connection pool: one asyncssh connection per host, shared by its sources.

The log tail and the GPU sampler of a host ask `await pool.connection(target)` and, after a
failure on that connection, `pool.invalidate(target, conn)`. The pool owns the back-off of each
host, so two sources of one host never hammer it twice, and it reports the host's state as
`HostConnecting` / `HostConnected` / `HostDisconnected` events to its listeners.

Host keys are always verified against known_hosts: asyncssh turns verification off for
`known_hosts=None` or an ssh_config `UserKnownHostsFile none`; the pool never passes the
former and overrides the latter. An unknown or changed key raises `HostKeyRejected`, whose
message says how to accept the key after checking it.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected, HostEvent
from cockpit.sources.transport.host_keys import KnownHostsError, key_howto, load_known_hosts
from cockpit.sources.transport.ssh_target import SshTarget, split_remote_path, with_config

if TYPE_CHECKING:  # asyncssh is imported lazily: ~0.2 s that local-only commands need not pay
    import asyncssh

__all__ = [
    "AuthRejected", "Backoff", "Pool", "ClientFilesUnusable", "HostConnected", "HostConnecting", "HostDisconnected", "HostEvent",
    "HostKeyRejected", "HostUnavailable", "KnownHostsUnusable", "SshError", "SshPool", "SshTarget", "split_remote_path",
    "with_config",
]

# AES-GCM first: with AES-NI it moves about twice the bytes/s of asyncssh's default first
# choice (chacha20-poly1305, measured on loopback: ~200 vs ~105 MB/s), which is what a
# catch-up on a big log needs. Same strength; the others stay as fallbacks. An ssh_config
# `Ciphers` line wins over this.
PREFERRED_CIPHERS = (
    "aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
    "aes128-ctr", "aes192-ctr", "aes256-ctr",
)


class SshError(Exception):
    """Base of the pool's errors; `target` is the SshTarget concerned."""

    def __init__(self, target: SshTarget, message: str) -> None:
        super().__init__(message)
        self.target = target


class HostUnavailable(SshError):
    """A transient failure (refused, timed out, link lost): the pool retries after `retry_in_s`."""

    def __init__(self, target: SshTarget, reason: str, retry_in_s: float) -> None:
        super().__init__(target, f"{target.label}: {reason} (retry in {retry_in_s:.1f} s)")
        self.reason, self.retry_in_s = reason, retry_in_s


class HostKeyRejected(SshError):
    """The host's key is unknown or differs from known_hosts. Needs a person, not a retry."""


class KnownHostsUnusable(HostKeyRejected):
    """known_hosts does not parse, so no host key can be checked: refused until it is fixed."""


class ClientFilesUnusable(SshError):
    """An ssh_config or key file named for the host cannot be read or parsed. Needs a person."""


class AuthRejected(SshError):
    """The server refused every key offered (agent and key files). Needs a person."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential back-off with jitter: base * factor**n, capped, times 1-jitter..1.

    The jitter spreads the reconnects of many hosts after a shared network blip.
    """

    base_s: float = 0.5
    cap_s: float = 30.0
    factor: float = 2.0
    jitter: float = 0.5

    def delay(self, failures: int, rng: Callable[[], float] = random.random) -> float:
        raw = min(self.cap_s, self.base_s * self.factor ** max(0, failures))
        return raw * (1.0 - self.jitter * rng())


@dataclass
class _HostState:
    conn: asyncssh.SSHClientConnection | None = None
    task: asyncio.Task[asyncssh.SSHClientConnection] | None = None  # the connect in flight, shared by concurrent callers
    failures: int = 0  # consecutive failures; reset once a connection stayed up `stable_after_s`
    next_attempt: float = 0.0  # loop time before which no new attempt starts
    connected_at: float = 0.0
    closing: set[int] = field(default_factory=set)  # ids of connections closed on purpose
    wake: asyncio.Event | None = None  # set by reconnect_now: a back-off wait ends at once


class Pool(Protocol):
    """What a feed, a bench host or a server control asks of the SSH pool (SshPool; a test's stand-in)."""

    async def connection(self, target: SshTarget) -> asyncssh.SSHClientConnection: ...

    def invalidate(self, target: SshTarget, conn: asyncssh.SSHClientConnection | None = None,
                   reason: str = "connection failed") -> None: ...

    def add_listener(self, callback: Callable[[HostEvent], object]) -> Callable[[], None]: ...

    async def close(self) -> None: ...


class SshPool:
    """One connection per SshTarget (equal targets share it), reconnecting with back-off.

    `on_event` (and listeners added with `add_listener`) receive HostEvent objects; they are
    called synchronously from the event loop, so keep them short (or `queue.put_nowait`).
    """

    def __init__(
        self,
        on_event: Callable[[HostEvent], object] | None = None,
        *,
        backoff: Backoff = Backoff(),
        connect_timeout_s: float = 15.0,
        keepalive_interval_s: float = 15.0,  # a dead link without RST is noticed in ~45 s
        keepalive_count_max: int = 3,
        stable_after_s: float = 10.0,
        agent_path: Any = (),  # () = asyncssh's default (SSH_AUTH_SOCK); None = no agent
    ) -> None:
        self._listeners: list[Callable[[HostEvent], object]] = [on_event] if on_event else []
        self._hosts: dict[SshTarget, _HostState] = {}
        self.backoff = backoff
        self.connect_timeout_s = connect_timeout_s
        self.keepalive_interval_s = keepalive_interval_s
        self.keepalive_count_max = keepalive_count_max
        self.stable_after_s = stable_after_s
        self.agent_path = agent_path
        self._closed = False

    # -- events ------------------------------------------------------------------------------
    def add_listener(self, callback: Callable[[HostEvent], object]) -> Callable[[], None]:
        """Subscribe to host events; returns the function that unsubscribes."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def events(self) -> asyncio.Queue[HostEvent]:
        """A new queue that receives every host event from now on."""
        q: asyncio.Queue[HostEvent] = asyncio.Queue()
        self.add_listener(q.put_nowait)
        return q

    def _emit(self, event: HostEvent) -> None:
        for cb in list(self._listeners):
            cb(event)

    # -- the pool ----------------------------------------------------------------------------
    def retry_in(self, target: SshTarget) -> float:
        """Seconds before the next connection attempt to `target` may start (0 if now)."""
        h = self._hosts.get(target)
        return max(0.0, h.next_attempt - asyncio.get_running_loop().time()) if h else 0.0

    def is_connected(self, target: SshTarget) -> bool:
        h = self._hosts.get(target)
        return bool(h and h.conn is not None)

    async def connection(self, target: SshTarget) -> asyncssh.SSHClientConnection:
        """The live connection to `target`, connecting (after the back-off delay) if needed.

        Raises HostUnavailable (transient: call again, the pool waits as needed),
        HostKeyRejected or AuthRejected (need a person; retrying gives the same answer).
        """
        if self._closed:
            raise RuntimeError("SshPool is closed")
        h = self._hosts.setdefault(target, _HostState())
        if h.conn is not None:
            return h.conn
        if h.task is None or h.task.done():
            h.task = asyncio.get_running_loop().create_task(self._connect(target, h))
            h.task.add_done_callback(_consume_exception)
        # shield: one caller being cancelled must not cancel the connect the others wait on
        return await asyncio.shield(h.task)

    def invalidate(self, target: SshTarget, conn: asyncssh.SSHClientConnection | None = None,
                   reason: str = "connection failed") -> None:
        """Drop the host's connection after a failure on it; the next `connection()` reconnects.

        Pass the `conn` that failed: if the pool already holds a newer one, it is kept.
        """
        h = self._hosts.get(target)
        if h is None or h.conn is None or (conn is not None and conn is not h.conn):
            return
        old = h.conn
        self._lost(target, h, old, reason)
        h.closing.add(id(old))
        old.close()

    def reconnect_now(self, target: SshTarget) -> None:
        """A person asked to connect again (a host key was accepted, the server is back):
        forget the back-off and the failures, and drop a live connection so that the next
        `connection()` makes a new one now. A connect waiting out its back-off starts at once."""
        h = self._hosts.get(target)
        if h is None:
            return
        if h.conn is not None:
            self.invalidate(target, h.conn, reason="reconnect asked")
        h.failures, h.next_attempt = 0, 0.0
        if h.wake is not None:
            h.wake.set()

    async def close(self) -> None:
        """Close every connection (channels included); no events promise a retry afterwards."""
        self._closed = True
        conns = []
        for target, h in self._hosts.items():
            if h.task and not h.task.done():
                h.task.cancel()
            if h.conn is not None:
                conns.append(h.conn)
                h.closing.add(id(h.conn))
                h.conn = None
                self._emit(HostDisconnected(target.label, "closed", None))
        for c in conns:
            c.close()
        for c in conns:
            try:
                await asyncio.wait_for(c.wait_closed(), 5)
            except (TimeoutError, OSError):
                pass

    async def __aenter__(self) -> SshPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- internals ---------------------------------------------------------------------------
    def _lost(self, target: SshTarget, h: _HostState, conn: asyncssh.SSHClientConnection | None, reason: str) -> None:
        if h.conn is not conn:
            return
        loop = asyncio.get_running_loop()
        h.conn = None
        if loop.time() - h.connected_at >= self.stable_after_s:
            h.failures = 0
        delay = self.backoff.delay(h.failures)
        h.failures += 1
        h.next_attempt = loop.time() + delay
        self._emit(HostDisconnected(target.label, reason, None if self._closed else delay))

    async def _connect(self, target: SshTarget, h: _HostState) -> asyncssh.SSHClientConnection:
        import asyncssh

        loop = asyncio.get_running_loop()
        wait = h.next_attempt - loop.time()
        if wait > 0:
            h.wake = asyncio.Event()
            try:
                await asyncio.wait_for(h.wake.wait(), wait)
            except TimeoutError:
                pass
        self._emit(HostConnecting(target.label, attempt=h.failures + 1))
        started = loop.time()
        try:
            conn = await self._open(target, h)
        except asyncio.CancelledError:
            raise
        except SshError as exc:
            delay = self._failed(h)
            if not isinstance(exc, HostUnavailable):  # fatal (a key, a refusal): no retry
                self._emit(HostDisconnected(target.label, str(exc).removeprefix(f"{target.label}: "), None))
                raise
            reason = f"via {exc.target.label}: {exc.reason}"
            self._emit(HostDisconnected(target.label, reason, delay))
            raise HostUnavailable(target, reason, delay) from exc
        except (TimeoutError, OSError, asyncssh.Error, ValueError) as exc:
            delay = self._failed(h)
            reason = _describe(exc)
            self._emit(HostDisconnected(target.label, reason, delay))
            raise HostUnavailable(target, reason, delay) from exc
        if self._closed:
            conn.close()
            raise RuntimeError("SshPool is closed")
        h.conn, h.connected_at = conn, loop.time()
        self._emit(HostConnected(target.label, elapsed_s=loop.time() - started))
        return conn

    def _failed(self, h: _HostState) -> float:
        delay = self.backoff.delay(h.failures)
        h.failures += 1
        h.next_attempt = asyncio.get_running_loop().time() + delay
        return delay

    async def _open(self, target: SshTarget, h: _HostState) -> asyncssh.SSHClientConnection:
        import asyncssh

        kw = target.connect_kwargs()
        try:
            # config (): ~/.ssh/config, as connect() reads it when no config is named; the
            # options' own default is no file, which lost an alias's UserKnownHostsFile.
            opts = await asyncssh.SSHClientConnectionOptions.construct(**{"config": (), **kw})
        except (OSError, ValueError, asyncssh.Error) as exc:  # the same answer on every retry
            raise ClientFilesUnusable(target, f"{target.label}: not connecting: {_describe(exc)}") from None
        try:
            known_hosts, files = load_known_hosts(target, opts.known_hosts)
        except KnownHostsError as exc:
            raise KnownHostsUnusable(
                target, f"{target.label}: not connecting: {exc} (host keys are checked against this file: "
                "fix it, then connect again)") from None
        tunnel: Any = ()
        jump = target.jump or _config_jump(target, opts.tunnel)
        if jump is not None:  # through the pool: shared, verified, and its state reported too
            tunnel = await self.connection(jump)
        pool = self
        holder: dict[str, asyncssh.SSHClientConnection] = {}

        class _Watch(asyncssh.SSHClient):  # tells the pool when this connection goes away
            def connection_lost(self, exc: Exception | None) -> None:
                conn = holder.get("conn")
                if conn is None or id(conn) in h.closing:
                    h.closing.discard(id(conn))
                    return
                pool._lost(target, h, conn, _describe(exc) if exc else "connection closed by the server")

        kw.update(
            known_hosts=known_hosts, tunnel=tunnel, client_factory=_Watch,
            connect_timeout=self.connect_timeout_s, keepalive_interval=self.keepalive_interval_s,
            keepalive_count_max=self.keepalive_count_max,
        )
        if self.agent_path != ():
            kw["agent_path"] = self.agent_path
        if not opts.config.get("Ciphers"):
            kw["encryption_algs"] = list(PREFERRED_CIPHERS)
        try:
            conn = await asyncssh.connect(**kw)
        except asyncssh.HostKeyNotVerifiable as exc:
            raise HostKeyRejected(target, await key_howto(opts, known_hosts, files, tunnel)) from exc
        except asyncssh.PermissionDenied as exc:
            raise AuthRejected(
                target,
                f"{target.label}: the server refused the keys offered for user {opts.username!r} "
                "(agent and key files). Check `ssh -v` to that host, the User, and IdentityFile.",
            ) from exc
        holder["conn"] = conn
        return conn


def _consume_exception(task: asyncio.Task[object]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: no "never retrieved" warning when every caller gave up


def _describe(exc: BaseException | None) -> str:
    if exc is None:
        return "connection closed"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is sshd running? right port?)"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve host name ({exc.strerror})"
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, OSError) else f"{text} ({type(exc).__name__})"


def _config_jump(target: SshTarget, tunnel: Any) -> SshTarget | None:
    """The config's `ProxyJump a,b` as a chain of SshTargets (same config and known_hosts)."""
    if not isinstance(tunnel, str) or not tunnel or tunnel.lower() == "none":
        return None
    jump = None
    for hop in tunnel.split(","):
        jump = SshTarget.parse(hop, jump=jump, config=target.config, known_hosts=target.known_hosts)
    return jump
