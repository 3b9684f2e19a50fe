"""Make log text safe to draw on a terminal.

Log lines come from remote machines and other people's programs; a raw ESC or a bidi
override in them could move the cursor, recolour the screen or reorder what is shown.
`sanitize` turns every such character into a visible placeholder instead.
"""

from __future__ import annotations

import mmap
import re

# C0 controls (except TAB) and DEL map to the Unicode "control pictures" block, so the
# reader still sees *which* control byte was there (␛ for ESC, ␀ for NUL, ␍ for CR).
_TABLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c != 0x09}
_TABLE[0x7F] = "\u2421"  # ␡
# C1 controls (U+0080..U+009F) have no pictures; show them as escapes.
_TABLE.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
# Bidi embeddings/overrides/isolates and the directional marks: "Trojan Source" reordering.
for _c in (0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)):
    _TABLE[_c] = f"<U+{_c:04X}>"

_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# SGR colour codes and other CSI sequences: dropped whole, they carry no text.
_ANSI_CSI = re.compile(r"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]")
_ANSI_CSI_BYTES = re.compile(rb"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]")


def sanitize(text: str) -> str:
    """Return `text` with every terminal control character made visible and inert."""
    if _UNSAFE.search(text) is None:  # the common case: nothing to do, no copy
        return text
    return text.translate(_TABLE)


def strip_ansi(text: str) -> str:
    """Remove CSI escape sequences (colours); other controls are left for `sanitize`."""
    return _ANSI_CSI.sub("", text) if "\x1b" in text else text


def strip_ansi_bytes(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
    """`data` without CSI escape sequences: a copy where it has an ESC, else `data` itself."""
    return _ANSI_CSI_BYTES.sub(b"", data) if data.find(b"\x1b") >= 0 else data
