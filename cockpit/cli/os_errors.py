"""An OSError as a command says it: one line `path: reason` on stderr (made inert for the
terminal: a path is text from whoever named the file), exit status 1."""

from __future__ import annotations

import os
import sys

from cockpit.ground.sanitize import sanitize


def os_error_line(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """`path: reason`. PATH is the file the user named (the error may name a temp or lock file
    beside it, or none: a write() that hit a full disk); without it, the one the error names."""
    name = path if path is not None else exc.filename
    reason = exc.strerror or str(exc) or type(exc).__name__
    # a file name may hold escapes (OSC 0 sets the title, OSC 52 the clipboard): made inert
    return sanitize(f"{os.fsdecode(name)}: {reason}" if name is not None else reason)


def report_os_error(exc: OSError, path: str | os.PathLike[str] | None = None) -> int:
    print(os_error_line(exc, path), file=sys.stderr)
    return 1
