"""What a LogFeed (feed.py) yields: `LogBatch`, the bytes (or a preview's parsed events)
of what arrived, with what happened to the source in words (`describe_event`: rotated, truncated,
reconnecting), sanitized. Plain data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cockpit.ground.sanitize import sanitize
from cockpit.parse.log.events import LogEvent
from cockpit.sources.log.tail_events import TailEvent, TailGap, TailNotice, TailRotated, TailTruncated
from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected

__all__ = ["LogBatch", "describe_event"]


@dataclass(frozen=True, slots=True)
class LogBatch:
    """What arrived since the previous batch, in order."""

    events: list[LogEvent] = field(default_factory=list)
    """A preview's parsed events (one per physical line, plus block events); the other
    batches carry their lines as `data`, parsed by the pipeline's fold."""
    notes: list[str] = field(default_factory=list)
    """Source happenings in words, sanitized ("rotated: following the new file"); they
    happened before this batch's events."""
    state: str | None = None
    """The source's state after this batch ("tailing gpu1:/x.log", "gpu1: reconnecting in 8 s"),
    or None when unchanged."""
    summary: dict[str, Any] | None = None
    """The `parse-log` summary (cockpit.parse.log.summary.Summary) of the file's text *before* the
    first line this feed sent: a local file opened at its last lines has its beginning
    scanned at C speed, in another process, instead of parsed line by line. Sent once,
    in an otherwise empty batch, when the scan is done; add it to what the events fold to."""
    preview: bool = False
    """The last lines of a big first read, parsed alone so they are on screen at once;
    the next batch with events holds them again, parsed with everything before them:
    show these, then put that batch in their place (and fold only that one)."""
    connected: bool | None = None
    """After this batch the source is connected (True) or has lost its host (False: lines
    stop because of that, not because the log is quiet); None when unchanged."""
    data: bytes = b""
    """The bytes that came, whole lines, not parsed (a preview's are its `events`)."""
    ended: bool = False
    """The file was rotated or truncated before `data` (after the notes): an unfinished
    traceback ends there."""
    waiting: bool | None = None
    """After this batch the source waits for its missing file (True) or reads it again
    (False; `state` is then the description again); None when unchanged."""


def describe_event(ev: TailEvent) -> str:
    """One sanitized line for a tail or host event."""
    if isinstance(ev, HostConnecting):
        text = f"connecting to {ev.host}" + (f" (attempt {ev.attempt})" if ev.attempt > 1 else "")
    elif isinstance(ev, HostConnected):
        text = f"connected to {ev.host} ({ev.elapsed_s * 1000:.0f} ms)"
    elif isinstance(ev, HostDisconnected):
        again = f"; reconnecting in {ev.retry_in_s:.0f} s" if ev.retry_in_s is not None else ""
        text = f"{ev.host}: {ev.reason}{again}"
    elif isinstance(ev, TailRotated):
        text = f"rotated: {ev.detail or 'following the new file'}"
    elif isinstance(ev, TailTruncated):
        text = f"truncated: {ev.detail or 'reading from the start'}"
    elif isinstance(ev, TailGap):
        text = f"gap of {ev.lost_s:.1f} s: {ev.reason}"
    elif isinstance(ev, TailNotice):
        text = ev.message
    else:
        text = repr(ev)
    return sanitize(text)
