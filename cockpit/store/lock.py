"""An advisory lock beside the session file, held around read-modify-write.

`cockpit add` from a shell and the open TUI both take it, so neither writes over the
other's change in the instant between reading and replacing the file.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextmanager
def session_lock(path: Path | str) -> Iterator[None]:
    path = Path(path)
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
