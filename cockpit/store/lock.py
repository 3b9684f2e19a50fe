"""An advisory lock beside the session file, held around read-modify-write.

`cockpit add` from a shell and the open TUI both take it, so neither writes over the
other's change in the instant between reading and replacing the file. The TUI waits a
bounded time (its event loop must not hang behind a slow writer) and retries later.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cockpit.store.atomic_write import owner_name, refuse_dangling, resolve_link_chain


class SessionBusyError(TimeoutError):
    """Another writer held the session lock for longer than this caller would wait."""

    def __init__(self, path: Path, waited_s: float) -> None:
        super().__init__(f"{path}: another writer holds the session lock (waited {waited_s:.1f} s)")
        self.path = path


class LockBlockedError(PermissionError):
    """The lock beside the session cannot be taken, and why (not a bare "Permission denied")."""

    def __init__(self, path: Path, lock: Path, why: str) -> None:
        super().__init__(errno.EACCES, f"cannot take the session lock {lock}: {why}", str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def lock_path(path: Path) -> Path:
    # Beside the real file: a writer that opened it through a symlink takes the same lock.
    # Only through links this user (or root) made, as for the save itself.
    real, via_link = resolve_link_chain(path)
    if via_link and not os.path.lexists(real):
        refuse_dangling(path, real)  # a link to nothing gets no lock file at its end
    return real.with_name(f".{real.name}.lock")


def _open_lock(path: Path) -> int:
    lock = lock_path(path)
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise _blocked(path, lock, exc) from exc


def _blocked(path: Path, lock: Path, exc: OSError) -> OSError:
    try:
        st: os.stat_result | None = os.lstat(lock)
    except OSError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        return LockBlockedError(path, lock, f"it is a symlink (owned by {owner_name(st.st_uid)}), never followed; "
                                            f"remove it to let cockpit save")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return LockBlockedError(path, lock, "it is not a regular file; remove it to let cockpit save")
    if exc.errno in (errno.EACCES, errno.EPERM):
        if st is not None:
            return LockBlockedError(path, lock, f"it belongs to {owner_name(st.st_uid)} (mode "
                                                f"{stat.S_IMODE(st.st_mode):04o}) and this user cannot open it")
        return LockBlockedError(path, lock, f"this user cannot create files in {lock.parent}")
    if exc.errno == errno.EROFS:
        return LockBlockedError(path, lock, f"{lock.parent} is on a read-only filesystem")
    return exc


@contextmanager
def session_lock(path: Path | str, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock; `timeout` None waits as long as it takes, else SessionBusyError.
    LockBlockedError (a PermissionError) says what keeps the lock from being taken."""
    path = Path(path)
    fd = _open_lock(path)
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
