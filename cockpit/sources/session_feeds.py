"""The live feeds a session asks for: its hosts' logs, GPUs and topology.

One SshPool serves every feed, so each host has one SSH connection whatever reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cockpit.model.session import Host, Session
from cockpit.sources.feeds import LiveSources

if TYPE_CHECKING:
    from cockpit.sources.ssh_pool import SshPool
    from cockpit.sources.ssh_target import SshTarget


def sources_for_session(session: Session) -> LiveSources:
    """Feeds for the first host with a log and the first host with GPUs (none: empty)."""
    log_host = next((h for h in session.hosts if h.log_path or h.log_command), None)
    gpu_host = next((h for h in session.hosts if h.gpu_source.value != "none"), None)
    if log_host is None and gpu_host is None:
        return LiveSources()
    pool: SshPool | None = None
    if any(h.ssh for h in (log_host, gpu_host) if h is not None):
        from cockpit.sources.ssh_pool import SshPool

        pool = SshPool()
    sources = LiveSources(host_events=pool)
    if log_host is not None:
        from cockpit.sources.log_feed import LogFeed

        sources.log = LogFeed.for_host(log_host, pool=pool, lines=session.ui.log_buffer_lines)
    if gpu_host is not None:
        from cockpit.sources import gpu_feed

        target = _target(gpu_host)
        if gpu_host.gpu_source.value == "dcgm":  # dcgm-exporter's /metrics; no topology from it
            from cockpit.sources.metrics_scrape import dcgm_feed_for_host

            sources.gpu = dcgm_feed_for_host(gpu_host, pool, target)
        elif gpu_host.gpu_source.value == "nvidia-smi" and target is not None and pool is not None:
            sources.gpu = gpu_feed.gpu_feed_for_host(gpu_host, pool, target)
            sources.topology = gpu_feed.RemoteTopologyFeed(pool, target, gpu_host.name)
        else:  # nvml, or nvidia-smi named for a host without ssh: the GPUs of this machine
            sources.gpu = gpu_feed.NvmlFeed(gpu_feed.interval_of(gpu_host))
            sources.topology = gpu_feed.NvmlTopologyFeed()
    return sources


def _target(host: Host) -> SshTarget | None:
    if not host.ssh:
        return None
    from cockpit.sources.ssh_target import SshTarget

    jump = SshTarget.parse(host.jump) if host.jump else None
    return SshTarget.parse(host.ssh, jump=jump)
