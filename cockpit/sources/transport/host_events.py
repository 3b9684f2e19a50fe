"""What happened to an SSH host's connection, as small events.

Kept apart from `ssh_pool` so that `live/` and the UI can import the event types without
pulling in asyncssh (about 0.2 s of imports).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostConnecting:
    """A connection attempt to `host` (the target's label) has started."""

    host: str
    attempt: int = 1  # 1 for the first try after a success, then 2, 3, ... while it keeps failing


@dataclass(frozen=True, slots=True)
class HostConnected:
    host: str
    elapsed_s: float = 0.0  # connect + authentication time


@dataclass(frozen=True, slots=True)
class HostDisconnected:
    """The link is down (or could not be made); `retry_in_s` is the back-off before the next try.

    `retry_in_s` is None when nothing will retry by itself: the pool was closed, or the failure
    needs a person (host key not trusted, authentication refused); `reason` then says what to do.
    """

    host: str
    reason: str
    retry_in_s: float | None = None


HostEvent = HostConnecting | HostConnected | HostDisconnected
