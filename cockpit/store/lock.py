"""An advisory lock beside the session file, held around read-modify-write.

`cockpit add` from a shell and the open TUI both take it, so neither writes over the
other's change in the instant between reading and replacing the file. The TUI waits a
bounded time (its event loop must not hang behind a slow writer) and retries later.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SessionBusyError(TimeoutError):
    """Another writer held the session lock for longer than this caller would wait."""

    def __init__(self, path: Path, waited_s: float) -> None:
        super().__init__(f"{path}: another writer holds the session lock (waited {waited_s:.1f} s)")
        self.path = path


def lock_path(path: Path) -> Path:
    # Beside the real file: a writer that opened it through a symlink takes the same lock.
    real = Path(os.path.realpath(path))
    return real.with_name(f".{real.name}.lock")


@contextmanager
def session_lock(path: Path | str, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock; `timeout` None waits as long as it takes, else SessionBusyError."""
    path = Path(path)
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise SessionBusyError(path, timeout) from None
                    time.sleep(0.01)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
