"""Input files a command reads whole (`cockpit metrics FILE`, `cockpit bench import`):
read with the cap a URL's body has (http_get.MAX_BODY_BYTES), so a 1 GB file (or an
endless pipe) is refused at once with one line instead of filling memory for minutes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cockpit.sources.transport.http_get import MAX_BODY_BYTES

MB = 1024 * 1024


class InputTooLarge(ValueError):
    """`FILE: over N MB ...`: one line for the command to print."""


def read_input(name: str, max_bytes: int = MAX_BODY_BYTES) -> bytes:
    """The bytes of file `name` (`-`: standard input), at most `max_bytes` of them.
    Raises OSError (cannot read) or InputTooLarge (more than `max_bytes`)."""
    if name == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
    else:
        with Path(name).open("rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > max_bytes:  # a regular file says its size: refused unread
                raise _too_large(name, max_bytes)
            data = handle.read(max_bytes + 1)  # a device or FIFO may hold more than it says
    if len(data) > max_bytes:
        raise _too_large(name, max_bytes)
    return data


def _too_large(name: str, max_bytes: int) -> InputTooLarge:
    size = f"{max_bytes / MB:g} MB" if max_bytes >= MB else f"{max_bytes:,} bytes"
    return InputTooLarge(f"{name}: over {size}, the most cockpit reads of an input file (as of a URL's answer)")
