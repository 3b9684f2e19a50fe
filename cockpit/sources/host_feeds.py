"""HostFeeds: the live feeds of a session's hosts, kept in step with the session (no Textual).

`update(hosts)` plans the feeds (sources/host_feeds_plan.py), diffs against the last plan
and builds only the feeds to start; the app stops and starts what it is told. One SshPool
serves every feed, so a host has one SSH connection whatever reads it (log, nvidia-smi,
topology, /metrics). `reconnect(host)` drops the host's back-off and rebuilds its feeds.
Listeners added with `add_listener` get the pool's Host* events (the header's states).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cockpit.model.session import Host
from cockpit.sources.host_feeds_plan import Plan, PlanChange, diff_plans, feeds_of_host, is_local_gpu, plan_feeds
from cockpit.sources.transport.host_events import HostEvent

if TYPE_CHECKING:
    from cockpit.sources.live_feed import LiveFeed
    from cockpit.sources.transport.ssh_pool import SshPool
    from cockpit.sources.transport.ssh_target import SshTarget


@dataclass
class FeedUpdate:
    """What the app does after a change: stop `change.stop`, then start `feeds` (by key)."""

    change: PlanChange
    feeds: dict[str, LiveFeed] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    """Keys whose feed could not be built (a malformed `ssh`), with why: shown in the pane."""


class HostFeeds:
    def __init__(self, *, lines: int = 50_000, ssh_config: tuple[str, ...] | None = None,
                 known_hosts: str | None = None, pool: SshPool | None = None) -> None:
        """`ssh_config` / `known_hosts`: as the CLI's --ssh-config / --known-hosts (tests
        point them at the loopback sshd's files); `pool`: an existing pool to share."""
        self.lines = lines
        self.ssh_config = ssh_config
        self.known_hosts = known_hosts
        self.plan: Plan = {}
        self.hosts: dict[str, Host] = {}
        self._pool = pool
        self._listeners: list[Callable[[HostEvent], object]] = []

    # -- host events (the header) ------------------------------------------------------------
    def add_listener(self, callback: Callable[[HostEvent], object]) -> None:
        self._listeners.append(callback)
        if self._pool is not None:
            self._pool.add_listener(callback)

    @property
    def pool(self) -> SshPool:
        """Made on first use: a session of local hosts never imports asyncssh."""
        if self._pool is None:
            from cockpit.sources.transport.ssh_pool import SshPool

            self._pool = SshPool()
            for callback in self._listeners:
                self._pool.add_listener(callback)
        return self._pool

    def target(self, host: Host) -> SshTarget | None:
        if not host.ssh:
            return None
        from cockpit.sources.transport.ssh_target import SshTarget, with_config

        jump = SshTarget.parse(host.jump) if host.jump else None
        return with_config(SshTarget.parse(host.ssh, jump=jump), self.ssh_config, self.known_hosts)

    def hosts_for_label(self, label: str) -> list[str]:
        """The session hosts whose SSH target is `label` (a pool event's host): all of them
        when two host entries reach one machine."""
        out = []
        for name, host in self.hosts.items():
            try:
                target = self.target(host)
            except ValueError:
                continue
            t = target
            while t is not None:  # a jump host's events concern the hosts behind it too
                if t.label == label:
                    out.append(name)
                    break
                t = t.jump
        return out

    # -- the plan ------------------------------------------------------------------------------
    def update(self, hosts: Sequence[Host]) -> FeedUpdate:
        """Re-plan for `hosts` (the session's, in order); the feeds to start are built."""
        new = plan_feeds(hosts)
        change = diff_plans(self.plan, new, self.hosts, [h.name for h in hosts])
        self.plan = new
        self.hosts = {h.name: h for h in hosts}
        update = FeedUpdate(change)
        for spec in change.start:
            self._build(spec.key, spec.kind, self.hosts[spec.host], update)
        return update

    def reconnect(self, name: str) -> FeedUpdate:
        """Connect `name` again now (no back-off) and rebuild all of its feeds."""
        specs = feeds_of_host(self.plan, name)
        host = self.hosts.get(name)
        update = FeedUpdate(PlanChange(stop=tuple(s.key for s in specs), start=specs))
        if host is None:
            return update
        try:
            target = self.target(host)
        except ValueError:
            target = None
        if target is not None and self._pool is not None:
            t: SshTarget | None = target
            while t is not None:  # the jump hosts too: one of them may be what failed
                self._pool.reconnect_now(t)
                t = t.jump
        for spec in specs:
            self._build(spec.key, spec.kind, host, update)
        return update

    def _build(self, key: str, kind: str, host: Host, update: FeedUpdate) -> None:
        try:
            feed = self.build(kind, host)
        except ValueError as exc:  # a malformed ssh or log path: said in the pane, not raised
            update.failed[key] = f"{host.name}: {exc}"
            return
        if feed is not None:
            update.feeds[key] = feed

    def build(self, kind: str, host: Host) -> LiveFeed | None:
        """The feed of one kind for one session host."""
        target = self.target(host)
        if kind == "log":
            from cockpit.sources.log.feed import LogFeed
            from cockpit.sources.log.tail import ResumableTail
            from cockpit.sources.log.tail_sources import RemoteFile

            if target is not None:
                return _log_feed_to(target, host, self.pool, self.lines)
            remote = bool(host.log_path and not host.log_command
                          and isinstance(ResumableTail.parse_source(host.log_path), RemoteFile))
            return LogFeed.for_host(host, pool=self.pool if remote else None, lines=self.lines)
        if kind == "metrics":
            from cockpit.sources.metrics.scrape import metrics_feed_for_host

            return metrics_feed_for_host(host, self.pool if target is not None else None, target)
        from cockpit.sources.gpu import feed as gpu_feed

        source = str(getattr(host.gpu_source, "value", host.gpu_source))
        if kind == "gpu":
            if source == "dcgm":
                from cockpit.sources.metrics.scrape import dcgm_feed_for_host

                return dcgm_feed_for_host(host, self.pool if target is not None else None, target)
            if is_local_gpu(host) or target is None:
                return gpu_feed.NvmlFeed(gpu_feed.interval_of(host))
            return gpu_feed.gpu_feed_for_host(host, self.pool, target)
        if kind == "topology":
            if is_local_gpu(host) or target is None:
                return gpu_feed.NvmlTopologyFeed()
            return gpu_feed.RemoteTopologyFeed(self.pool, target, host.name)
        raise ValueError(f"no feed of kind {kind!r}")

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()


def _log_feed_to(target: SshTarget, host: Host, pool: SshPool, lines: int) -> LiveFeed:
    """A host's log on its `ssh` target (the CLI's ssh_config / known_hosts applied)."""
    from cockpit.sources.log.feed import LogFeed
    from cockpit.sources.log.tail_sources import RemoteCommand, RemoteFile

    if host.log_command:
        from cockpit.sources.server.confirm_key import require_log_confirmed

        require_log_confirmed(host)  # a shell command from the session: only once a person confirmed it
        return LogFeed.ssh(RemoteCommand(target, host.log_command), pool=pool, lines=lines)
    if host.log_path is None:  # the plan gives a log feed only to a host with one of the two
        raise ValueError(f"{host.name}: no log_path or log_command")
    return LogFeed.ssh(RemoteFile(target, host.log_path), pool=pool, lines=lines)
