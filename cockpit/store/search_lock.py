"""One runner per session and search: a lock file beside the session
(`.camp.toml.search-q1.lock`) held with flock for as long as a search runs, holding the
holder's pid, host and start time.

Two runners of one search would both launch every trial, stop each other's servers and
write each other's outcomes; a second one is told who runs it instead. flock ends with its
holder, so a runner killed with -9 leaves a lock the next one simply takes over (said).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["Holder", "SearchBusy", "SearchRunLock", "search_lock_path", "take_search_lock"]


@dataclass(frozen=True, slots=True)
class Holder:
    pid: int
    host: str
    since: str

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host} since {self.since}"


class SearchBusy(Exception):
    """Another runner holds the search's lock; str() says who."""

    def __init__(self, search_id: str, holder: Holder | None) -> None:
        who = holder.describe() if holder is not None else "another cockpit (its lock file says nothing)"
        super().__init__(f"search {search_id} is being run by {who}")
        self.holder = holder


def search_lock_path(session_path: Path | str, search_id: str) -> Path:
    real = Path(os.path.realpath(session_path))
    return real.with_name(f".{real.name}.search-{search_id}.lock")


def _read(fd: int) -> Holder | None:
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        data = json.loads(os.read(fd, 4096) or b"null")
        return Holder(int(data["pid"]), str(data["host"]), str(data["since"])) if isinstance(data, dict) else None
    except (ValueError, KeyError, TypeError):
        return None


class SearchRunLock:
    """Held until `release` (or the process ends). `took_over`: a gone holder's lock, taken."""

    def __init__(self, fd: int, path: Path, holder: Holder, took_over: Holder | None) -> None:
        self._fd: int | None = fd
        self.path = path
        self.holder = holder
        self.took_over = took_over

    def note(self) -> str | None:
        if self.took_over is None:
            return None
        return f"took over the search's lock from {self.took_over.describe()}, which no longer runs it"

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # empty: nobody runs it (the file stays: removing it races a taker)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def take_search_lock(session_path: Path | str, search_id: str) -> SearchRunLock:
    """The search's lock, or SearchBusy naming who holds it. OSError when the lock file
    cannot be made (a link, no permission): nothing runs."""
    path = search_lock_path(session_path, search_id)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read(fd)
        os.close(fd)
        raise SearchBusy(search_id, holder) from None
    except BaseException:
        os.close(fd)
        raise
    previous = _read(fd)  # a holder whose flock ended: gone (killed, or its host rebooted)
    me = Holder(os.getpid(), socket.gethostname(), datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps({"pid": me.pid, "host": me.host, "since": me.since}).encode(), 0)
    os.fsync(fd)
    return SearchRunLock(fd, path, me, previous)
