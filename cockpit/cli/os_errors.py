"""An OSError as a command says it: one line `path: reason` on stderr, exit status 1."""

from __future__ import annotations

import os
import sys


def os_error_line(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """`path: reason`. PATH is the file the user named (the error may name a temp or lock file
    beside it, or none: a write() that hit a full disk); without it, the one the error names."""
    name = path if path is not None else exc.filename
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{os.fsdecode(name)}: {reason}" if name is not None else reason


def report_os_error(exc: OSError, path: str | os.PathLike[str] | None = None) -> int:
    print(os_error_line(exc, path), file=sys.stderr)
    return 1
