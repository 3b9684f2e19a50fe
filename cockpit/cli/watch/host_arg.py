"""A HOST argument that is no host: a file given where a host is expected (`cockpit gpus
x.csv`), or a name that does not resolve. Both are a person's typo, so the command says so
in one line instead of looking the name up and retrying for ever."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_pool import Pool
    from cockpit.sources.transport.ssh_target import SshTarget

# Suffixes no host name ends in: what a saved nvidia-smi output, a log or a session is called.
FILE_SUFFIXES = (".csv", ".txt", ".log", ".json", ".toml", ".tsv", ".out")


def looks_like_file(spec: str) -> bool:
    """A path where a HOST is expected: it has a `/` (no host name does), starts like a path,
    ends in a file's suffix, or names an existing file with a suffix. A bare word that is also
    a file here (`box`) stays a host: it may be an ssh_config alias."""
    if spec.startswith("ssh://"):
        return False
    path = Path(spec)
    return ("/" in spec or spec.startswith((".", "~")) or spec.lower().endswith(FILE_SUFFIXES)
            or (bool(path.suffix) and path.is_file()))


def file_word(spec: str) -> str:
    """How the one line names it: a file that is there, or one that only looks like a file."""
    return "is a file" if Path(spec).exists() else "looks like a file, not a host"


def resolve_failed(exc: BaseException) -> bool:
    """A connect that failed because the host name does not resolve (no retry fixes a typo)."""
    import socket

    from cockpit.sources.transport.ssh_pool import HostUnavailable

    return isinstance(exc, HostUnavailable) and isinstance(exc.__cause__, socket.gaierror)


async def first_connect(pool: Pool, target: SshTarget) -> None:
    """Connect once before a command that retries: a name that does not resolve is raised
    (HostUnavailable); any other failure is left to the command's own retries."""
    from cockpit.sources.transport.ssh_pool import HostUnavailable

    try:
        await pool.connection(target)
    except HostUnavailable as exc:
        if resolve_failed(exc):
            raise
