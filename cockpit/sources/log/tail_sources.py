"""What a ResumableTail follows (tail.py): a local file, a file on a host, or a command on
a host. Plain frozen dataclasses, so feeds and the CLI name a source without the follower.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["LocalFile", "RemoteCommand", "RemoteFile", "Source"]


@dataclass(frozen=True, slots=True)
class LocalFile:
    path: str


@dataclass(frozen=True, slots=True)
class RemoteFile:
    target: SshTarget
    path: str


@dataclass(frozen=True, slots=True)
class RemoteCommand:
    target: SshTarget
    command: str


Source = LocalFile | RemoteFile | RemoteCommand
