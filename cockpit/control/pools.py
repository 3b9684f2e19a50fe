"""Which SSH pool the experiment service uses: the one the live feeds hold (one connection
per host) when there is one, so a UI never builds a pool of its own."""

from __future__ import annotations

from cockpit.sources.transport.ssh_pool import SshPool

__all__ = ["shared_pool"]


def shared_pool(candidate: object) -> SshPool | None:
    """`candidate` (a LiveSources' `host_events`) when it is an SshPool, else None (the
    service then opens its own, closed with it)."""
    return candidate if isinstance(candidate, SshPool) else None
