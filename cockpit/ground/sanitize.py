"""Make untrusted text safe to draw on a terminal: the one boundary for it.

Session fields, host output and log lines come from files, remote machines and other
people's programs; a raw ESC, a C1 control, a bidi override or a zero-width character
in them could set the window title (OSC 0/2), write the clipboard (OSC 52), blank the
screen (CSI 2J), reach tmux itself (DCS passthrough) or hide and reorder what is shown.
`sanitize` turns every such character into a visible placeholder instead: an escape
sequence is shown whole (`ESC ] 0 ; x BEL` as `␛]0;x␇`) and does nothing.

What counts as unsafe: Unicode categories Cc (C0, DEL, C1), Cf (bidi embeddings,
overrides, isolates and marks, zero-width space/joiners, word joiner, BOM, invisible
operators, tag characters, ...), Zl/Zp (line and paragraph separators) and Cs (lone
surrogates, which cannot even be encoded). All of these are non-printable for
`str.isprintable`, which is the fast path: clean text is returned as is, uncopied.
"""

from __future__ import annotations

import mmap
import re

# Every Cc, Cf, Zl, Zp and Cs code point (Unicode 14, Python 3.11), plus the Egyptian
# format controls Unicode 15 adds (13439-1343F) so a newer table changes nothing here.
# A unit test checks this against the running Python's `unicodedata`. TAB (09) is kept.
_RANGES = (
    (0x00, 0x08), (0x0A, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xD800, 0xDFFF),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)


def _placeholder(code: int) -> str:
    if code < 0x20:  # C0: the Unicode "control pictures", so the reader still sees *which*
        return chr(0x2400 + code)  # control byte it was (␛ ESC, ␀ NUL, ␍ CR, ␇ BEL)
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:  # C1 (e.g. the 8-bit CSI U+009B) has no pictures
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"  # bidi, zero-width, separators, tags, surrogates


_TABLE = {code: _placeholder(code) for lo, hi in _RANGES for code in range(lo, hi + 1)}
_TABLE_MULTILINE = {**_TABLE}
del _TABLE_MULTILINE[0x0A]


def _char_class(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    return re.compile("[" + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges) + "]")


class _Finder:
    """`search(text)` for the set: one class for the BMP, which `re` compiles to a bitmap
    (as fast as the old C0/C1/bidi class; a class with astral ranges is 5x slower), and
    the few astral ranges looked for only in text that is not ASCII."""

    __slots__ = ("_bmp", "_astral")

    def __init__(self, ranges: tuple[tuple[int, int], ...]) -> None:
        self._bmp = _char_class(tuple(r for r in ranges if r[1] <= 0xFFFF))
        self._astral = _char_class(tuple(r for r in ranges if r[1] > 0xFFFF))

    def search(self, text: str) -> re.Match[str] | None:
        found = self._bmp.search(text)
        if found is None and not text.isascii():
            found = self._astral.search(text)
        return found


# `UNSAFE.search(text) is None`: nothing in TEXT that `sanitize` would replace (a quick check
# before a per-line or per-chunk copy; public for the log and tail paths that batch it).
UNSAFE = _Finder(_RANGES)
# The same but LF (text that is split into lines later, e.g. `cockpit tail`'s chunks).
UNSAFE_MULTILINE = _Finder(tuple((lo + (lo == 0x0A), hi) for lo, hi in _RANGES))
# For JSON written with ensure_ascii=False: C0 controls are escaped by json itself (a raw
# LF there is indentation), the rest of the set is not.
_UNSAFE_IN_JSON = _char_class(tuple((lo, hi) for lo, hi in _RANGES if lo >= 0x7F))

# SGR colour codes and other CSI sequences: dropped whole by `strip_ansi`, they carry no text.
_ANSI_CSI = re.compile(r"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]")
_ANSI_CSI_BYTES = re.compile(rb"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]")


def sanitize(text: str, *, multiline: bool = False) -> str:
    """Return `text` with every terminal control, escape, bidi and invisible format
    character made visible and inert. TAB is kept; LF too when `multiline` (CR LF then
    counts as one line break)."""
    if text.isprintable():  # the common case: nothing to do, no copy (C speed)
        return text
    if multiline:
        if UNSAFE_MULTILINE.search(text) is None:  # LFs, TABs, odd spaces (NBSP): harmless
            return text
        return (text.replace("\r\n", "\n") if "\r\n" in text else text).translate(_TABLE_MULTILINE)
    if UNSAFE.search(text) is None:
        return text
    return text.translate(_TABLE)


def json_inert(dumped: str) -> str:
    """`json.dumps(..., ensure_ascii=False)` output with every character `sanitize` would
    replace written as a `\\uXXXX` escape instead: the same JSON value, inert on a terminal."""
    if dumped.isascii() and "\x7f" not in dumped:
        return dumped
    return _UNSAFE_IN_JSON.sub(_json_escape, dumped)


def _json_escape(match: re.Match[str]) -> str:
    raw = match.group().encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{int.from_bytes(raw[i:i + 2], 'big'):04x}" for i in range(0, len(raw), 2))


def strip_ansi(text: str) -> str:
    """Remove CSI escape sequences (colours); other controls are left for `sanitize`."""
    return _ANSI_CSI.sub("", text) if "\x1b" in text else text


def strip_ansi_bytes(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
    """`data` without CSI escape sequences: a copy where it has an ESC, else `data` itself."""
    return _ANSI_CSI_BYTES.sub(b"", data) if data.find(b"\x1b") >= 0 else data
