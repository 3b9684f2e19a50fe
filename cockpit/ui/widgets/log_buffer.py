"""The log pane's bounded ring of lines and the filtered view over it (no Textual).

Lines are stored sanitized (`cockpit.parse.sanitize`), tabs expanded, with a few flags;
parsed event objects are not kept, so 50k lines cost a few MB whatever the feed sends.
Every line has a sequence number that never changes; the filtered view is the ascending
list of the sequence numbers that pass (None when no filter is on: every line passes).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

from cockpit.live.server_runs import FATAL_LABELS
from cockpit.parse.log_events import (
    BenchResult, DecodeBatch, ErrorBlock, ErrorLine, LogEvent, PrefillBatch,
)
from cockpit.parse.sanitize import sanitize

ERROR = 1
WARN = 2
BATCH = 4
NOTE = 8
_ERROR_LABELS = FATAL_LABELS | {"traceback"}


class LogLine:
    """One stored line: display text (already inert), flags, error labels."""

    __slots__ = ("text", "flags", "label")

    def __init__(self, text: str, flags: int = 0, label: str = "") -> None:
        self.text = text
        self.flags = flags
        self.label = label

    def __repr__(self) -> str:
        return f"LogLine({self.text!r}, {self.flags}, {self.label!r})"


def safe_text(line: str) -> str:
    """Inert display text: control, escape and bidi characters made visible; tabs expanded."""
    text = sanitize(line)
    return text.expandtabs(4) if "\t" in text else text


def compile_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """A user's pattern: a regex, or the literal text when it is not a valid one.
    Smart case: case-insensitive unless the pattern has an upper-case letter."""
    if not pattern:
        return None
    flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
    try:
        return re.compile(pattern, flags)
    except re.error:
        return re.compile(re.escape(pattern), flags)


def _labels_flag(labels: Iterable[str]) -> int:
    return ERROR if _ERROR_LABELS.intersection(labels) else WARN


class LogBuffer:
    """At most `max_lines` lines, the newest kept; a filtered view in rows."""

    def __init__(self, max_lines: int = 50_000) -> None:
        self.max_lines = max(1, max_lines)
        self.lines: list[LogLine] = []
        self.first = 0  # sequence number of lines[0]
        self.visible: list[int] | None = None
        self.filter: re.Pattern[str] | None = None
        self.errors_only = False
        self.hide_batches = False
        self.width = 0  # widest line seen (cells, roughly): the view's virtual width
        self.total = 0  # lines ever added

    # ----- adding ------------------------------------------------------------------------
    def add_events(self, events: Iterable[LogEvent]) -> int:
        """Append the line events; a traceback block marks its lines as errors. Returns
        how many rows of the current view were dropped from the top (the ring's oldest)."""
        lines = self.lines
        start = self.first + len(lines)
        revisit: int | None = None
        width = self.width
        for ev in events:
            if isinstance(ev, ErrorBlock):
                revisit = self._mark_block(ev, revisit)
                continue
            if isinstance(ev, BenchResult):
                continue  # its lines came as line events already
            text = safe_text(ev.line)
            if isinstance(ev, (DecodeBatch, PrefillBatch)):
                line = LogLine(text, BATCH)
            elif isinstance(ev, ErrorLine) and ev.labels:
                label = " ".join(ev.labels)
                prev = lines[-1] if lines else None
                if prev is not None and prev.flags & (ERROR | WARN) and label in ("traceback", prev.label):
                    label = ""  # a frame of the block above: one badge per block is enough
                line = LogLine(text, _labels_flag(ev.labels), label)
            else:
                line = LogLine(text)
            lines.append(line)
            if len(text) > width:
                width = len(text) + len(line.label) + 1
        self.width = min(width, 4000)
        self.total += self.first + len(lines) - start
        if self.visible is not None:
            if revisit is not None and revisit < start:
                start = revisit
                del self.visible[bisect_left(self.visible, start):]
            self._extend_visible(start)
        return self._trim()

    def add_note(self, text: str) -> int:
        """A line of the pane's own (rotation, reconnect): shown muted, never filtered out."""
        self.lines.append(LogLine(safe_text(text), NOTE))
        self.total += 1
        if self.visible is not None:
            self.visible.append(self.first + len(self.lines) - 1)
        return self._trim()

    def _mark_block(self, block: ErrorBlock, revisit: int | None) -> int | None:
        n = min(len(block.lines), len(self.lines))
        labels = list(block.labels)
        flag = _labels_flag(labels) if labels else ERROR
        label = " ".join(labels) or "traceback"
        first_marked = None
        for i in range(len(self.lines) - n, len(self.lines)):
            line = self.lines[i]
            if not line.flags & (ERROR | NOTE):
                line.flags |= flag
                if i == len(self.lines) - n:
                    line.label = line.label or label  # the badge on the block's first line
                if first_marked is None:
                    first_marked = self.first + i
        if first_marked is None:
            return revisit
        return first_marked if revisit is None else min(revisit, first_marked)

    def _trim(self) -> int:
        excess = len(self.lines) - self.max_lines
        if excess <= 0:
            return 0
        del self.lines[:excess]
        self.first += excess
        if self.visible is None:
            return excess
        cut = bisect_left(self.visible, self.first)
        del self.visible[:cut]
        return cut

    # ----- the view ----------------------------------------------------------------------
    @property
    def filtered(self) -> bool:
        return self.filter is not None or self.errors_only or self.hide_batches

    def set_filter(self, pattern: str | None, errors_only: bool, hide_batches: bool) -> None:
        self.filter = compile_pattern(pattern)
        self.errors_only, self.hide_batches = errors_only, hide_batches
        self.visible = [] if self.filtered else None
        if self.visible is not None:
            self._extend_visible(self.first)

    def _passes(self, line: LogLine) -> bool:
        if line.flags & NOTE:
            return True
        if self.errors_only and not line.flags & (ERROR | WARN):
            return False
        if self.hide_batches and line.flags & BATCH:
            return False
        return self.filter is None or self.filter.search(line.text) is not None

    def _extend_visible(self, start_seq: int) -> None:
        assert self.visible is not None
        first, passes = self.first, self._passes
        lines = self.lines
        self.visible.extend(seq for seq in range(max(start_seq, first), first + len(lines))
                            if passes(lines[seq - first]))

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def rows(self) -> int:
        return len(self.lines) if self.visible is None else len(self.visible)

    def seq_at(self, row: int) -> int:
        return self.first + row if self.visible is None else self.visible[row]

    def line_at(self, row: int) -> LogLine:
        return self.lines[self.seq_at(row) - self.first]

    def row_of(self, seq: int) -> int | None:
        """The row showing line `seq`, or the row of the next line shown after it."""
        if self.visible is None:
            row = seq - self.first
            return row if 0 <= row < len(self.lines) else None
        row = bisect_left(self.visible, seq)
        return row if row < len(self.visible) else None

    def find(self, pattern: re.Pattern[str], start_row: int, step: int) -> int | None:
        """The first row after `start_row` (step +1) or before it (step -1) whose text
        matches; wraps around once. None when no row matches."""
        n = self.rows
        if n == 0:
            return None
        for k in range(1, n + 1):
            row = (start_row + step * k) % n
            if pattern.search(self.line_at(row).text) is not None:
                return row
        return None

    def tail_texts(self, n: int) -> list[str]:
        """The texts of the last `n` rows of the view (for tests and captures)."""
        rows = self.rows
        return [self.line_at(r).text for r in range(max(0, rows - n), rows)]
