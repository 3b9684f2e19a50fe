"""The live feeds a session asks for: every host's log, GPUs, topology and `/metrics`.

The feeds follow the session: `LiveSources.hosts` is a HostFeeds (sources/host_feeds.py)
that the app re-plans at every change of the session, so a host added or edited (in the
app or in the file) is connected without a restart. One SshPool serves every feed, so
each host has one SSH connection whatever reads it.
"""

from __future__ import annotations

from cockpit.model.session import Session
from cockpit.sources.feeds import LiveSources
from cockpit.sources.host_feeds import HostFeeds


def sources_for_session(session: Session, *, ssh_config: tuple[str, ...] | None = None,
                        known_hosts: str | None = None) -> LiveSources:
    """Sources whose feeds the app takes from the session's hosts (none yet: started on mount)."""
    hosts = HostFeeds(lines=session.ui.log_buffer_lines, ssh_config=ssh_config, known_hosts=known_hosts)
    return LiveSources(hosts=hosts, host_events=hosts)
