"""What the UI may use of sources/, in one place: the UI imports these from here, never
from sources/ (the "ui imports no sources" contract in pyproject.toml).

* the sources object the app is handed at start (`LiveSources`, the `LiveFeed` protocol)
  and the feed keys it is planned by (`kind@host`), with what a re-plan says (`FeedUpdate`); the Fleet tab's `[[prometheus]]`
  sources (`FleetSources`, sources/metrics/fleet_sources.py);
* a connection event (the SSH pool's Host*) in the header's words;
* the package drift check on the app's shared SSH pool (a pool of its own when it has none);
* the person's confirmation of a host's `log_command`, sealed with their key.
"""

from __future__ import annotations

from cockpit.model.package_drift import DriftRow
from cockpit.model.session import Session
from cockpit.sources.feeds import LiveFeed, LiveSources
from cockpit.sources.host_feeds import FeedUpdate
from cockpit.sources.host_feeds_plan import hosts_with, next_in, split_key
from cockpit.sources.metrics.fleet_sources import FleetSources
from cockpit.sources.server.confirm_key import ConfirmKeyError, confirmation, log_command_confirmed
from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected, HostEvent

__all__ = [
    "ConfirmKeyError", "FeedUpdate", "FleetSources", "HostEvent", "LiveFeed", "LiveSources", "check_drift",
    "host_state_text", "hosts_with", "log_command_confirmed", "next_in", "seal_log_command", "split_key",
]


def host_state_text(event: object) -> str | None:
    """What the header says of a host after `event` (None: not a connection event)."""
    if isinstance(event, HostConnected):
        return "connected"
    if isinstance(event, HostConnecting):
        return "connecting"
    if isinstance(event, HostDisconnected):
        retry = event.retry_in_s
        return f"reconnecting in {retry:.0f} s" if retry is not None else "disconnected"
    return None


async def check_drift(session: Session, sources: LiveSources | None) -> tuple[list[DriftRow], list[str]]:
    """The recorded package versions against their hosts, over the app's SSH pool when it
    has one (its connections are reused, and it stays open), else over one made for this."""
    from cockpit.sources.server.drift_check import check_drift as check
    from cockpit.sources.transport.ssh_pool import SshPool

    shared = sources.host_events if sources is not None else None
    pool = shared if isinstance(shared, SshPool) else SshPool()
    try:
        return await check(session, pool=pool)
    finally:
        if pool is not shared:
            await pool.close()


def seal_log_command(stamp: str) -> str:
    """The person's yes to a `log_command` with fingerprint `stamp`, sealed with their key
    (raises ConfirmKeyError when the key cannot be read or made)."""
    return confirmation("log", stamp)
