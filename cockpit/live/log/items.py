"""What a LogPipeline hands the log view, one type per kind of news (no Textual).

`LogLines` are display rows, already parsed, classified and made inert (by the pipeline's
child, off the UI's GIL): a list of segments, each appended by the view's LogBuffer as is.
`MetricsSnapshot` (live/log/metrics_snapshot.py) is the fold's news; `SourceState` what the
source did; `SummaryBefore` the whole-file figures of text before the first line sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cockpit.ground.sanitize import UNSAFE, sanitize
from cockpit.parse.log.error_labels import FATAL_LABELS
from cockpit.parse.log.events import (
    BenchResult,
    DecodeBatch,
    ErrorBlock,
    ErrorLine,
    HttpRequest,
    LogEvent,
    PrefillBatch,
)

# A stored line's flags.
ERROR = 1
WARN = 2
BATCH = 4
NOTE = 8
POLL = 16
"""An access line of a poll (`GET /metrics`, `/health`): cockpit's own metrics feed, a sweep's
reads, Prometheus, a health check. Hidden by default (`ui.log.show_polls`): at one a second
they bury the server's own lines."""
_POLL_REQUEST = re.compile(r'"(?:GET|HEAD) /(?:metrics|health|health_generate)[/? "]')
_ERROR_LABELS = FATAL_LABELS | {"traceback"}

# Segment kinds: (RUN, texts, flags) lines stored as they are; (ERROR_LINE, text, labels)
# one labelled error line; (BLOCK, n, labels) the last n stored lines are a traceback;
# (NOTE_LINE, text) a line of the pane's own (rotated, reconnecting).
RUN, ERROR_LINE, BLOCK, NOTE_LINE = 0, 1, 2, 3
Segment = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class LogLines:
    segments: list[Segment] = field(default_factory=list)
    lines: int = 0
    """Log lines among the segments (notes not counted)."""
    preview: bool = False
    """The last lines of a big first read, shown at once; the next LogLines with lines
    holds them again with everything before them and takes their place."""
    peaks: tuple[int | None, int | None] = (None, None)
    """The highest running and queued requests among these lines' batch lines (None: no
    batch said it): what a sweep point's log peaks fold, with no second parse."""


@dataclass(frozen=True, slots=True)
class SourceState:
    text: str | None = None
    """The source in words ("tail gpu1:/var/log/sglang.log", "gpu1: reconnecting in 8 s")."""
    connected: bool | None = None
    """Connected (True) or lost its host (False); None when unchanged."""
    waiting: bool | None = None
    """Waits for its missing log file (True) or reads it again (False); None when unchanged."""


@dataclass(frozen=True, slots=True)
class SummaryBefore:
    """The `parse-log` summary of the file's text before the first line sent."""

    summary: dict[str, object]


def labels_flag(labels: Iterable[str]) -> int:
    return ERROR if _ERROR_LABELS.intersection(labels) else WARN


_SKIP, _BLOCK, _ERROR, _HTTP = -1, -2, -3, -4
_KINDS: dict[type, int] = {}


def _kind_of(cls: type) -> int:
    if issubclass(cls, ErrorBlock):
        kind = _BLOCK
    elif issubclass(cls, BenchResult):
        kind = _SKIP
    elif issubclass(cls, ErrorLine):
        kind = _ERROR
    elif issubclass(cls, (DecodeBatch, PrefillBatch)):
        kind = BATCH
    elif issubclass(cls, HttpRequest):
        kind = _HTTP
    else:
        kind = 0
    _KINDS[cls] = kind
    return kind


def safe_text(line: str) -> str:
    """Inert display text: control, escape and bidi characters made visible; tabs expanded."""
    text = sanitize(line)
    return text.expandtabs(4) if "\t" in text else text


def _safe_run(texts: list[str]) -> list[str]:
    joined = " ".join(texts)
    if not joined.isprintable():  # no control, format (bidi) or odd space character
        if UNSAFE.search(joined) is not None:
            texts = [sanitize(t) for t in texts]  # rare: something to make inert
            joined = "".join(texts)
        if "\t" in joined:
            texts = [t.expandtabs(4) if "\t" in t else t for t in texts]
    return texts


def segments_of(events: Iterable[LogEvent], notes: Iterable[str] = ()) -> tuple[list[Segment], int]:
    """Notes first, then the events as display segments; and how many log lines.

    Plain and batch lines are gathered into one run, made inert with one regex search over
    the run's joined text (per line only when it finds something); error lines and blocks
    (rare) close the run."""
    out, n, _peaks = _rows(events, notes, False)
    return out, n


def _rows(events: Iterable[LogEvent], notes: Iterable[str], peaks: bool
          ) -> tuple[list[Segment], int, tuple[int | None, int | None]]:
    """`segments_of`'s one pass; with `peaks`, the batch lines' highest running and queued
    requests taken on the way (a sweep point's log peaks, live/experiment/sweep_watch.py)."""
    out: list[Segment] = [(NOTE_LINE, safe_text(f"── {note} ──")) for note in notes]
    kinds = _KINDS
    texts: list[str] = []
    flags: list[int] = []
    n = 0
    running = queued = None
    for ev in events:
        kind = kinds.get(type(ev))
        if kind is None:
            kind = _kind_of(type(ev))
        if kind == _HTTP:
            kind = POLL if _POLL_REQUEST.search(ev.line) is not None else 0
        if kind >= 0:
            texts.append(ev.line)
            flags.append(kind)
            if kind == BATCH and peaks:
                r, q = ev.running_req, ev.queue_req  # type: ignore[attr-defined]
                if r is not None and (running is None or r > running):
                    running = r
                if q is not None and (queued is None or q > queued):
                    queued = q
            continue
        if kind == _SKIP:
            continue  # its lines came as line events already
        if kind == _ERROR and not ev.labels:  # type: ignore[attr-defined]
            texts.append(ev.line)
            flags.append(0)
            continue
        if texts:
            out.append((RUN, _safe_run(texts), flags))
            n += len(texts)
            texts, flags = [], []
        if kind == _BLOCK:
            out.append((BLOCK, len(ev.lines), tuple(ev.labels)))  # type: ignore[attr-defined]
        else:
            out.append((ERROR_LINE, safe_text(ev.line), tuple(ev.labels)))  # type: ignore[attr-defined]
            n += 1
    if texts:
        out.append((RUN, _safe_run(texts), flags))
        n += len(texts)
    return out, n, (running, queued)


def lines_of(events: Iterable[LogEvent], notes: Iterable[str] = (), *, preview: bool = False) -> LogLines:
    segments, n, peaks = _rows(events, notes, not preview)
    return LogLines(segments, n, preview, peaks)


def max_peak(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)
