"""Byte buffers of a tail: whole lines only, the last N lines, and tagged notice lines.

Pure and synchronous (no I/O), so each is tested on its own and the followers in log_tail
stay about reading and reconnecting.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LastLines", "LineJoiner", "TagSplitter", "lookback"]


class LineJoiner:
    """Holds the unfinished last line until its newline; cuts a line that outgrows `max_line`."""

    __slots__ = ("max_line", "pending")

    def __init__(self, max_line: int) -> None:
        self.pending = b""
        self.max_line = max_line

    def feed(self, data: bytes) -> bytes:
        if self.pending:
            data, self.pending = self.pending + data, b""
        cut = data.rfind(b"\n") + 1
        if cut < len(data):
            self.pending, data = data[cut:], data[:cut]
            if len(self.pending) > self.max_line:  # bounded memory beats one intact giant line
                data, self.pending = data + self.pending + b"\n", b""
        return data

    def flush(self) -> bytes:
        """The unfinished line, ended, when its file goes away (rotated or truncated)."""
        rest, self.pending = self.pending, b""
        return rest + b"\n" if rest else b""


def lookback(lines: int) -> int:
    """How far before the end to start reading for the last N lines (SGLang lines are short)."""
    return min(8 << 20, max(64 << 10, lines * 4096))


class LastLines:
    """Start "at the last N lines": read from a little before the end, keep only the last N.

    The first `size` bytes read are the backlog; when the read began mid-file, the first
    (partial) line is dropped. Then only the last `n` complete lines of it are let through.
    """

    def __init__(self, n: int, size: int, mid_line: bool) -> None:
        self.n, self.left, self.drop_first = n, size, mid_line
        self.buf = bytearray()

    @property
    def done(self) -> bool:
        return self.left <= 0 and not self.drop_first

    def feed(self, data: bytes) -> bytes:
        if self.left > 0:
            take, data = data[: self.left], data[self.left:]
            self.buf += take
            self.left -= len(take)
            if self.left > 0:
                return b""
            return self._release() + data
        return self._drop(data)

    def finish(self) -> bytes:
        """The file changed before the backlog was read whole: release what there is."""
        self.left = 0
        return self._release()

    def _drop(self, data: bytes) -> bytes:
        if self.drop_first:  # the first line began before the start point: not a whole line
            nl = data.find(b"\n")
            if nl < 0:
                return b""
            self.drop_first, data = False, data[nl + 1:]
        return data

    def _release(self) -> bytes:
        buf, self.buf = self._drop(bytes(self.buf)), bytearray()
        end = buf.rfind(b"\n") + 1
        complete, partial = buf[:end], buf[end:]
        start = len(complete) - 1
        for _ in range(self.n):
            start = complete.rfind(b"\n", 0, start)
            if start < 0:
                break
        first = start + 1 if self.n else len(complete)
        return complete[first:] + partial


class TagSplitter:
    """Splits a remote stream into data and the lines that start with our random tag.

    The remote tail's own notices (rotation, truncation) and our headers share stdout with
    the data, so their order relative to the bytes is exact. The tag is random per tail, so
    no log line can forge one; it may appear mid-line (after a partial line), which is fine.
    """

    def __init__(self, tag: str) -> None:
        self.tag = (tag + ": ").encode()
        self.buf = b""

    def feed(self, data: bytes) -> list[tuple[bool, Any]]:
        buf = self.buf + data if self.buf else data
        out: list[tuple[bool, Any]] = []
        pos, tag = 0, self.tag
        while True:
            i = buf.find(tag, pos)
            if i < 0:
                break
            j = buf.find(b"\n", i)
            if i > pos:
                out.append((False, buf[pos:i]))
            if j < 0:  # the marker line is not complete yet
                self.buf = buf[i:]
                return out
            out.append((True, buf[i + len(tag):j].decode("utf-8", "replace")))
            pos = j + 1
        rest = buf[pos:]
        keep = 0  # the end of the chunk may be the start of a tag
        for k in range(min(len(tag) - 1, len(rest)), 0, -1):
            if rest.endswith(tag[:k]):
                keep = k
                break
        if len(rest) > keep:
            out.append((False, rest[: len(rest) - keep]))
        self.buf = rest[len(rest) - keep:] if keep else b""
        return out
