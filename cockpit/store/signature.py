"""What says that a session file changed: its mtime, size and inode, taken together.

A writer compares the file's signature now with the one of the text it merged against.
That one must come from the same read (fstat of the handle read) or the same write (fstat
of the file written), never from a later stat: a save landing in between would carry the
later signature while the text is older, and the next save would write over it unmerged.
The inode is in it because every save replaces the file: two saves within one mtime tick
with the same size still differ there.
"""

from __future__ import annotations

import os
from pathlib import Path

DiskSignature = tuple[int, int, int]


def signature_of(st: os.stat_result) -> DiskSignature:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def disk_signature(path: Path | str) -> DiskSignature | None:
    """The file's signature now (None: it is not there or cannot be seen)."""
    try:
        return signature_of(os.stat(path))
    except OSError:
        return None
