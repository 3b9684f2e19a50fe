"""The byte-level fast path of the `parse-log` summary: no per-line Python work.

`scan(data, start, end, engine_pass)` returns a mergeable partial summary of
data[start:end] (which must start at a line start and end at a line end). The engine's
pass finds the rare lines (and, for Hyperscan, maxima and sparse line counts); this
module's `SrePass` is the sre engine, log_summary_hs.Pass the Hyperscan one, and
log_summary_scan.summarize_bytes picks between them. Every figure is exact, by this
reasoning (tests compare it with the summary's definition, log_summary.LogSummary, on
corpus, fuzz and edge inputs):

* line counts: one regex pass per kind whose match runs to the end of the line, so a line
  holding two markers counts once, and an invalid `Decode batch …` before a valid one on
  the same line does not hide it (a kind sparse in the buffer, such as a decode-heavy
  log's prefill lines, is counted by the Hyperscan pass instead: log_summary_hs);
* maxima and the last gen throughput: log_summary_values (values greater than the best so
  far, found by one regex and each checked on its line; the last found backwards);
* error labels, readiness, the bench header (and whether v0.1.x `new fill batch.` lines
  exist): every trigger contains a needle (NEEDLES). Needles holding an `l` are found by one
  sre pass whose pattern starts with the literal `l`; the rest each hold a byte that is
  rare in batch, access and startup lines, walked with memchr (bytes.find of one byte).
  Only the lines a needle hits are decoded and checked with the one definition
  (`line_error_labels`), and a needle is dropped from the `l` pass once its label is known.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol, TypeAlias, TypeVar

from cockpit.parse.log.error_labels import line_error_labels
from cockpit.parse.log.sglang_patterns import (
    BENCH_HEADER,
    DECODE_MARKER,
    GEN,
    GEN_LABEL,
    LEGACY_MARKER,
    LEGACY_QUEUE,
    LEGACY_REST,
    LEGACY_RUNNING,
    PREFILL_MARKER,
    QUEUE,
    QUEUE_LABEL,
    READY_TEXT,
    RUNNING,
    RUNNING_LABEL,
)
from cockpit.parse.log.summary_values import (
    Buffer,
    Field,
    Value,
    as_int,
    counts,
    last_value,
    max_value,
    max_values,
)

_N = TypeVar("_N", bound=float)

# a batch line of a kind, counted by a match that runs to its end (the empty group: no copy);
# `.*` (any byte but LF, no DOTALL) is sre's tight ANY loop: ~9 % faster than `[^\n]*`'s set test
_DEC_LINE = re.compile(DECODE_MARKER.pattern + rb".*()")
_PRE_LINE = re.compile(PREFILL_MARKER.pattern + rb".*()")
_ANY_KIND = (DECODE_MARKER, PREFILL_MARKER, LEGACY_MARKER)


class Kind(NamedTuple):
    """A kind of batch line the Hyperscan pass may count: its name, marker pattern, and
    the literal part of the marker (to sample how dense the kind is)."""

    name: str
    marker: bytes
    literal: bytes


KINDS = (Kind("decode", DECODE_MARKER.pattern, b"Decode batch"),
         Kind("prefill", PREFILL_MARKER.pattern, b"Prefill batch"))


GEN_FIELD = Field(GEN_LABEL, GEN, (DECODE_MARKER,), True)
RUNNING_FIELD = Field(RUNNING_LABEL, RUNNING, _ANY_KIND, False)
QUEUE_FIELD = Field(QUEUE_LABEL, QUEUE, _ANY_KIND, False)
FIELDS = (GEN_FIELD, RUNNING_FIELD, QUEUE_FIELD)  # the order of an engine pass's maxima

# Needles: every error trigger, the ready text and the bench header contains one of them.
# (needle, the label it stands for: a line it hits is still checked whole, so any other
# label on that line is kept too; "ready"/"header" are not error labels).
NEEDLES: tuple[tuple[str, str], ...] = (
    ("out of memory", "cuda_oom"),  # CUDA/NPU/Prefill/Decode/alloc_req_slots … out of memory
    ("OutOfMemoryError", "cuda_oom"),
    ("CUDA error", "cuda_error"),  # not "CUDA error: ": its ": " cost ~13 % of the Hyperscan needle scan
    ("NCCL error", "nccl"), ("NCCL communicator was aborted", "nccl"),
    ("illegal memory access", "cuda_error"), ("memory leak detected", "memory_leak"),
    ("Fatal Python error", "fatal_python_error"), ("Child process unexpectedly failed", "child_failed"),
    ("KV cache pool is full. Retract requests", "retract"), ("ncclRemoteError", "nccl"),
    ("Received sigquit from a child", "child_failed"), ("ncclInternalError", "nccl"),
    ("ncclSystemError", "nccl"), ("ncclUnhandledCudaError", "nccl"),
    ("Exception in ModelTpServer", "scheduler_exception"),
    ("Exception in ControllerSingle", "scheduler_exception"),
    ("Scheduler hit an exception", "scheduler_exception"),
    ("Watchdog caught collective operation timeout", "nccl"),
    ("(self.watchdog_timeout=", "watchdog_timeout"), ("Traceback (most recent call last)", "traceback"),
    ('File "', "traceback"), ("Killed", "killed"), (READY_TEXT, "ready"), (BENCH_HEADER, "header"),
    ("new fill batch.", "legacy"),  # v0.1.x batch lines: rare, so read here one by one
)
# Most needles hold an `l`: one sre pass whose pattern starts with the literal `l` (a tight
# C loop to each `l`, then a quick branch on the next byte) finds them all. The others have
# a byte that is rare in batch, access and startup lines ("pivot"): memchr (bytes.find of
# one byte) walks those, and one slice + dict lookup sorts each hit.
L_NEEDLES = tuple((n, label) for n, label in NEEDLES if "l" in n)
_Needle: TypeAlias = "tuple[int, bytes, str]"  # (offset of the pivot in it, needle, label)
_PIVOTS: dict[bytes, tuple[_Needle, ...]] = {}
for _needle, _label in NEEDLES:
    if "l" not in _needle:
        _pivot = next(c for c in "WRAExMLy" if c in _needle)
        _PIVOTS[_pivot.encode()] = _PIVOTS.get(_pivot.encode(), ()) + (
            (_needle.index(_pivot), _needle.encode(), _label),)


def _windows(needles: tuple[_Needle, ...]) -> tuple[int, int, dict[bytes, tuple[_Needle, ...]]]:
    """(bytes before the pivot, bytes from it, window -> needles): a window every needle
    of the group contains around its pivot, so one slice and one dict lookup sort a hit."""
    before = min(off for off, _, _ in needles)
    after = min(len(n) - off for off, n, _ in needles)
    table: dict[bytes, tuple[_Needle, ...]] = {}
    for off, n, label in needles:
        key = n[off - before:off + after]
        table[key] = table.get(key, ()) + ((off, n, label),)
    return before, after, table


_GROUPS = tuple((pivot, *_windows(needles)) for pivot, needles in _PIVOTS.items())
_L_RX: dict[frozenset[str], re.Pattern[bytes] | None] = {}


def _l_regex(done: frozenset[str]) -> re.Pattern[bytes] | None:
    """The `l` pass for the needles whose label is not known yet (None: nothing left)."""
    if done not in _L_RX:
        by_next: dict[str, list[bytes]] = {}
        for needle, label in L_NEEDLES:
            if label in done:
                continue
            k = needle.index("l")
            rest = needle[k + 1:]
            tail = re.escape(rest[1:].encode()) + b"(?<=" + re.escape(needle.encode()) + b")"
            by_next.setdefault(rest[0], []).append(tail)
        _L_RX[done] = re.compile(b"l(?:" + b"|".join(
            re.escape(c.encode()) + b"(?:" + b"|".join(tails) + b")" for c, tails in by_next.items()
        ) + b")") if by_next else None
    return _L_RX[done]


NEEDLE_TEXTS = tuple(n for n, _ in NEEDLES)
LEGACY_LINES = 2000


PartialTuple: TypeAlias = "tuple[int, int, float | None, float | None, int | None, int | None, list[str], bool, int]"


class Partial:
    """The mergeable summary of one slice of the buffer."""

    __slots__ = ("decode", "prefill", "last_gen", "max_gen", "max_running", "max_queue",
                 "errors", "ready", "header_at", "legacy", "legacy_lines", "legacy_running",
                 "legacy_queue", "esc")

    def __init__(self) -> None:
        self.decode = self.prefill = 0
        self.last_gen: float | None = None
        self.max_gen: float | None = None
        self.max_running: int | None = None
        self.max_queue: int | None = None
        self.errors: set[str] = set()
        self.ready = False
        self.header_at = -1  # start of the last line holding the bench header
        # `new fill batch.` lines read one by one by the needle scan, up to LEGACY_LINES of them;
        # past that, `legacy` turns True and one regex pass reads them all (not merged: scan only)
        self.legacy = False
        self.legacy_lines = 0
        self.legacy_running: int | None = None
        self.legacy_queue: int | None = None
        self.esc = False  # an ESC byte was seen (engines whose finds_esc is True): the slice is moot

    def to_tuple(self) -> PartialTuple:
        return (self.decode, self.prefill, self.last_gen, self.max_gen, self.max_running,
                self.max_queue, sorted(self.errors), self.ready, self.header_at)

    @classmethod
    def from_tuple(cls, t: PartialTuple) -> Partial:
        p = cls()
        (p.decode, p.prefill, p.last_gen, p.max_gen, p.max_running, p.max_queue, errors,
         p.ready, p.header_at) = t
        p.errors = set(errors)
        return p

    def merge(self, later: Partial) -> None:
        """Fold in the partial of the slice that follows this one."""
        self.decode += later.decode
        self.prefill += later.prefill
        if later.last_gen is not None:
            self.last_gen = later.last_gen
        self.max_gen = _max(self.max_gen, later.max_gen)
        self.max_running = _max(self.max_running, later.max_running)
        self.max_queue = _max(self.max_queue, later.max_queue)
        self.errors |= later.errors
        self.ready = self.ready or later.ready
        self.header_at = max(self.header_at, later.header_at)


def _max(a: _N | None, b: _N | None) -> _N | None:
    if a is None:
        return b
    return a if b is None or a >= b else b


class EnginePass(Protocol):
    """One engine's pass over a slice of the buffer it was made for."""

    finds_esc: bool  # does `run` set Partial.esc (so a caller need not look for ESC itself)?

    def run(self, data: Buffer, start: int, end: int, out: Partial) -> tuple[list[Value | None] | None, dict[str, int]]:
        """Fill `out`'s error labels, readiness, bench header and legacy lines for
        data[start:end]; return the greatest valid value of each of FIELDS (None: leave
        them to the sre passes) and the line count of each kind it counted (the other
        kinds are counted by the sre passes)."""
        ...


class SrePass:
    """The sre engine: needles by memchr and one `l` regex (`_rare_lines`); maxima and
    line counts are left to the sre passes of `scan`."""

    finds_esc = False

    def run(self, data: Buffer, start: int, end: int, out: Partial) -> tuple[list[Value | None] | None, dict[str, int]]:
        _rare_lines(data, start, end, out)  # also tells whether legacy batch lines exist
        return None, {}


SRE = SrePass()


def scan(data: Buffer, start: int, end: int, engine_pass: EnginePass = SRE) -> Partial:
    """Partial summary of data[start:end] (bytes or mmap, no ESC bytes in it), the rare
    lines found by `engine_pass` (made for this buffer)."""
    out = Partial()
    maxima, lines = engine_pass.run(data, start, end, out)
    out.decode = lines["decode"] if "decode" in lines else len(_DEC_LINE.findall(data, start, end))
    out.prefill = lines["prefill"] if "prefill" in lines else len(_PRE_LINE.findall(data, start, end))
    if out.decode:
        out.max_gen = max_value(data, start, end, GEN_FIELD) if maxima is None else maxima[0]
        out.last_gen = last_value(data, start, end, GEN_FIELD)
    if out.decode or out.prefill or out.legacy_lines or out.legacy:
        running, queue = max_values(data, start, end, (RUNNING_FIELD, QUEUE_FIELD)) if maxima is None else maxima[1:]
        out.max_running, out.max_queue = as_int(running), as_int(queue)
    if out.legacy:  # many legacy lines: one pass instead of the per-line reads
        rests = LEGACY_REST.findall(data, start, end)  # one per line: the rest runs to its end
        out.legacy_lines = len(rests)
        text = b"\n".join(rests)
        out.legacy_running = max(counts(LEGACY_RUNNING.findall(text)), default=None)
        out.legacy_queue = max(counts(LEGACY_QUEUE.findall(text)), default=None)
    out.prefill += out.legacy_lines
    out.max_running = _max(out.max_running, out.legacy_running)
    out.max_queue = _max(out.max_queue, out.legacy_queue)
    return out


# --- error labels, readiness, bench header --------------------------------------------------

def _rare_lines(data: Buffer, start: int, end: int, out: Partial) -> None:
    seen: set[int] = set()
    find = data.find
    for pivot, before, after, table in _GROUPS:
        get = table.get
        pos = find(pivot, start, end)
        while pos >= 0:
            cands = get(data[pos - before:pos + after])
            if cands is not None:
                for off, needle, _ in cands:
                    if pos - off >= start and data[pos - off:pos - off + len(needle)] == needle:
                        check_line(data, start, end, pos, out, seen)
                        break
            pos = find(pivot, pos + 1, end)
    pos = start
    while pos < end:
        done = frozenset(out.errors | ({"ready"} if out.ready else set())
                         | ({"legacy"} if out.legacy else set()))
        rx = _l_regex(done)
        m = rx.search(data, pos, end) if rx is not None else None
        if m is None:
            break
        pos = check_line(data, start, end, m.start(), out, seen)


def check_line(data: Buffer, start: int, end: int, pos: int, out: Partial, seen: set[int]) -> int:
    """Check the line around `pos` exactly, once; returns the offset after it."""
    line_start = data.rfind(b"\n", start, pos) + 1 or start
    line_end = data.find(b"\n", pos, end)
    line_end = end if line_end < 0 else line_end
    if line_start not in seen:
        seen.add(line_start)
        line = data[line_start:line_end].decode("utf-8", "replace")
        out.errors.update(line_error_labels(line))
        if READY_TEXT in line:
            out.ready = True
        if BENCH_HEADER in line:
            out.header_at = max(out.header_at, line_start)
        if not out.legacy:
            m = LEGACY_MARKER.search(data, line_start, line_end)
            if m is not None:
                out.legacy_lines += 1
                rest = data[m.end():line_end]
                out.legacy_running = _max(out.legacy_running, max(map(int, LEGACY_RUNNING.findall(rest)), default=None))
                out.legacy_queue = _max(out.legacy_queue, max(map(int, LEGACY_QUEUE.findall(rest)), default=None))
                out.legacy = out.legacy_lines > LEGACY_LINES
    return line_end + 1
