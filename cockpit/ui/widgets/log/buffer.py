"""The log pane's bounded ring of lines and the filtered view over it (no Textual).

Lines come as display segments (cockpit.live.log.items: made inert by the log pipeline)
and are stored with a few flags,
in parallel lists (texts, flags; labels of the few error lines in a dict by sequence
number): no object per line, and a batch is appended with two `extend`s. Parsed event
objects are not kept, so 50k lines cost a few MB whatever the feed sends.
Every line has a sequence number that never changes; the filtered view is the ascending
list of the sequence numbers that pass (None when no filter is on: every line passes).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from cockpit.live.log.items import (
    BATCH,
    BLOCK,
    ERROR,
    ERROR_LINE,
    NOTE,
    NOTE_LINE,
    POLL,
    RUN,
    WARN,
    Segment,
    labels_flag,
    safe_text,
    segments_of,
)
from cockpit.parse.log.events import LogEvent
from cockpit.parse.user_pattern import Matcher, compile_user_pattern

__all__ = ["BATCH", "ERROR", "NOTE", "WARN", "LogBuffer", "LogLine", "Matcher", "compile_pattern", "pattern_note",
           "pattern_refusal", "safe_text"]


class LogLine:
    """One stored line as read back (`line_at`): display text (already inert), flags,
    error labels."""

    __slots__ = ("text", "flags", "label")

    def __init__(self, text: str, flags: int = 0, label: str = "") -> None:
        self.text = text
        self.flags = flags
        self.label = label

    def __repr__(self) -> str:
        return f"LogLine({self.text!r}, {self.flags}, {self.label!r})"


def compile_pattern(pattern: str | None) -> Matcher | None:
    """A user's pattern: a regex, or the literal text when it is not a valid one; matched
    in linear time (cockpit.parse.user_pattern).
    Smart case: case-insensitive unless the pattern has an upper-case letter."""
    return compile_user_pattern(pattern).matcher if pattern else None


def pattern_note(pattern: str | None) -> str | None:
    """Why `pattern` is not matched as the regex it reads as, or None (compiled once, cached)."""
    return compile_user_pattern(pattern).note if pattern else None


def pattern_refusal(pattern: str | None) -> str | None:
    """Why a typed `pattern` is not taken (a regex the linear-time engine refuses), or None."""
    compiled = compile_user_pattern(pattern) if pattern else None
    return compiled.note if compiled is not None and compiled.refused else None


class LogBuffer:
    """At most `max_lines` lines, the newest kept; a filtered view in rows."""

    def __init__(self, max_lines: int = 50_000) -> None:
        self.max_lines = max(1, max_lines)
        self.texts: list[str] = []
        self.flags: list[int] = []
        self.labels: dict[int, str] = {}  # sequence number -> badge (error lines only)
        self.first = 0  # sequence number of texts[0]
        self.visible: list[int] | None = None
        self.filter: Matcher | None = None
        self.errors_only = False
        self.hide_batches = False
        self.hide_polls = True
        self.polls = 0  # poll access lines ever added: none, and the view stays unfiltered (the fast path)
        self.width = 0  # widest line seen (cells, roughly): the view's virtual width
        self.total = 0  # lines ever added
        self.generation = 0  # bumped when the view's rows change other than at its ends
        self._matches: tuple[Matcher | None, int, list[int], int] = (None, -1, [], 0)

    # ----- adding ------------------------------------------------------------------------
    def add_events(self, events: Iterable[LogEvent]) -> int:
        """Parsed events (tests, benchmarks): `add_segments` of their display segments."""
        return self.add_segments(segments_of(events)[0])

    def add_segments(self, segments: Iterable[Segment]) -> int:
        """Append display segments (cockpit.live.log.items: runs of inert lines, labelled
        error lines, traceback marks over the lines before, notes). Returns how many rows
        of the current view were dropped from the top (the ring's oldest)."""
        lines = self.texts
        start = self.first + len(lines)
        revisit: int | None = None
        for seg in segments:
            kind = seg[0]
            if kind == RUN:
                self._append_run(seg[1], seg[2])
            elif kind == ERROR_LINE:
                self._append_error_line(seg[1], seg[2])
            elif kind == BLOCK:
                revisit = self._mark_block(seg[1], seg[2], revisit)
            elif kind == NOTE_LINE:
                self.texts.append(seg[1])
                self.flags.append(NOTE)
        self.total += self.first + len(lines) - start
        if self.visible is None and self.hiding_polls:  # the first poll line: the view is filtered from now
            self.visible = []
            self.generation += 1
            self._extend_visible(self.first)
        elif self.visible is not None:
            if revisit is not None and revisit < start:
                start = revisit
                del self.visible[bisect_left(self.visible, start):]
                self.generation += 1
            self._extend_visible(start)
        return self._trim()

    def _append_run(self, texts: list[str], flags: list[int]) -> None:
        self.polls += flags.count(POLL)
        self.texts.extend(texts)
        self.flags.extend(flags)
        longest = max(map(len, texts))
        if longest > self.width:
            self.width = min(longest + 1, 4000)

    def _append_error_line(self, text: str, labels: tuple[str, ...]) -> None:
        label = " ".join(labels)
        if self.texts and self.flags[-1] & (ERROR | WARN) \
                and label in ("traceback", self.labels.get(self.first + len(self.texts) - 1, "")):
            label = ""  # a frame of the block above: one badge per block is enough
        if label:
            self.labels[self.first + len(self.texts)] = label
        self.texts.append(text)
        self.flags.append(labels_flag(labels))
        if len(text) > self.width:
            self.width = min(len(text) + len(label) + 1, 4000)

    def _mark_block(self, lines: int, labels: tuple[str, ...], revisit: int | None) -> int | None:
        size = len(self.texts)
        n = min(lines, size)
        flag = labels_flag(labels) if labels else ERROR
        label = " ".join(labels) or "traceback"
        first_marked = None
        flags = self.flags
        for i in range(size - n, size):
            if not flags[i] & (ERROR | NOTE):
                flags[i] |= flag
                if i == size - n:  # the badge on the block's first line
                    self.labels.setdefault(self.first + i, label)
                if first_marked is None:
                    first_marked = self.first + i
        if first_marked is None:
            return revisit
        return first_marked if revisit is None else min(revisit, first_marked)

    def discard_all(self) -> int:
        """Forget every line (sequence numbers go on from where they were); returns how
        many rows of the view went."""
        rows = self.rows
        self.first += len(self.texts)
        self.total -= len(self.texts)
        self.texts, self.flags, self.labels = [], [], {}
        if self.visible is not None:
            self.visible = []
        self.generation += 1
        return rows

    def _trim(self) -> int:
        excess = len(self.texts) - self.max_lines
        if excess <= 0:
            return 0
        del self.texts[:excess]
        del self.flags[:excess]
        self.first += excess
        if self.labels and min(self.labels) < self.first:
            first = self.first
            self.labels = {seq: label for seq, label in self.labels.items() if seq >= first}
        if self.visible is None:
            return excess
        cut = bisect_left(self.visible, self.first)
        del self.visible[:cut]
        return cut

    # ----- the view ----------------------------------------------------------------------
    @property
    def filtered(self) -> bool:
        return self.filter is not None or self.errors_only or self.hide_batches or self.hiding_polls

    @property
    def hiding_polls(self) -> bool:
        return self.hide_polls and self.polls > 0

    def set_filter(self, pattern: str | None, errors_only: bool, hide_batches: bool, hide_polls: bool = True) -> None:
        self.filter = compile_pattern(pattern)
        self.errors_only, self.hide_batches, self.hide_polls = errors_only, hide_batches, hide_polls
        self.visible = [] if self.filtered else None
        self.generation += 1
        if self.visible is not None:
            self._extend_visible(self.first)

    def _extend_visible(self, start_seq: int) -> None:
        assert self.visible is not None
        first, texts, flags = self.first, self.texts, self.flags
        lo = max(start_seq, first) - first
        need = ERROR | WARN if self.errors_only else 0  # notes always pass
        hide = (BATCH if self.hide_batches else 0) | (POLL if self.hide_polls else 0)
        pattern = self.filter
        keep = [i for i in range(lo, len(texts))
                if (f := flags[i]) & NOTE or ((not need or f & need) and not f & hide
                                              and (pattern is None or pattern.search(texts[i]) is not None))]
        self.visible.extend(i + first for i in keep)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def rows(self) -> int:
        return len(self.texts) if self.visible is None else len(self.visible)

    def seq_at(self, row: int) -> int:
        return self.first + row if self.visible is None else self.visible[row]

    def line_at(self, row: int) -> LogLine:
        seq = self.seq_at(row)
        i = seq - self.first
        return LogLine(self.texts[i], self.flags[i], self.labels.get(seq, "") if self.labels else "")

    def text_at(self, row: int) -> str:
        return self.texts[self.seq_at(row) - self.first]

    def row_of(self, seq: int) -> int | None:
        """The row showing line `seq`, or the row of the next line shown after it."""
        if self.visible is None:
            row = seq - self.first
            return row if 0 <= row < len(self.texts) else None
        row = bisect_left(self.visible, seq)
        return row if row < len(self.visible) else None

    def find(self, pattern: Matcher, start_row: int, step: int) -> int | None:
        """The first row after `start_row` (step +1) or before it (step -1) whose text
        matches; wraps around once. None when no row matches."""
        n = self.rows
        if n == 0:
            return None
        for k in range(1, n + 1):
            row = (start_row + step * k) % n
            if pattern.search(self.text_at(row)) is not None:
                return row
        return None

    def matches(self, pattern: Matcher) -> list[int]:
        """The sequence numbers of the rows shown whose text matches, ascending. Kept
        between calls: only rows added since the last call are searched (the search's
        "3 of 41" is recounted while lines pour in)."""
        known, generation, seqs, upto = self._matches
        if known is not pattern or generation != self.generation:
            seqs, upto = [], self.first
        elif seqs and seqs[0] < self.first:
            del seqs[:bisect_left(seqs, self.first)]
        first, texts, search = self.first, self.texts, pattern.search
        lo = max(upto, first) - first
        if self.visible is None:
            seqs.extend(i + first for i in range(lo, len(texts)) if search(texts[i]) is not None)
        else:
            visible = self.visible
            seqs.extend(seq for seq in visible[bisect_left(visible, lo + first):]
                        if search(texts[seq - first]) is not None)
        self._matches = (pattern, self.generation, seqs, first + len(texts))
        return seqs

    def match_index(self, pattern: Matcher, row: int) -> int | None:
        """Row `row`'s place (1-based) among the matches, or None when it is not one."""
        seqs = self.matches(pattern)
        seq = self.seq_at(row)
        i = bisect_left(seqs, seq)
        return i + 1 if i < len(seqs) and seqs[i] == seq else None

    def tail_texts(self, n: int) -> list[str]:
        """The texts of the last `n` rows of the view (for tests and captures)."""
        rows = self.rows
        return [self.text_at(r) for r in range(max(0, rows - n), rows)]
