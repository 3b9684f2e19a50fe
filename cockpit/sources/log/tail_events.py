"""What a ResumableTail yields: log bytes in whole lines, and what happened to the file or link.

Parsing is the consumer's job (cockpit.parse.log.sglang_log.LogParser.feed takes the bytes):
a tail only promises that each LogBytes ends at a line end, so a parser never sees half a
line, and that the bytes, concatenated, are the log with nothing lost and nothing repeated.
The host connection events come from `host_events` and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected

__all__ = [
    "HostConnected", "HostConnecting", "HostDisconnected", "LogBytes", "TailEvent", "TailGap",
    "TailNotice", "TailRotated", "TailTruncated",
]


@dataclass(frozen=True, slots=True)
class LogBytes:
    """One or more complete lines, each ending in b"\\n".

    The only exception: a line longer than the tail's `max_line_bytes` is cut there (a newline
    is added at the cut) so that memory stays bounded whatever the log does.
    """

    data: bytes


@dataclass(frozen=True, slots=True)
class TailRotated:
    """The path now names another file (rename + create, or delete + create); following it
    from its first byte. An unfinished last line of the old file was flushed with a newline."""

    path: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class TailTruncated:
    """The file shrank (copytruncate, `: > file`); reading again from its first byte."""

    path: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class TailGap:
    """A followed command was restarted: what it printed in between may be missing
    (or, for commands that replay history, printed again)."""

    reason: str
    lost_s: float  # seconds between the end of the old stream and the start of the new one


@dataclass(frozen=True, slots=True)
class TailNotice:
    """Something the user should know that changes no bytes: the file is missing or became
    inaccessible, the remote tail exited and is restarted, ..."""

    message: str
    waiting: bool = False
    """The file is missing (not yet, or no more): nothing comes until it is there again.
    The next data (or a rotation) says it is back."""


TailEvent = LogBytes | TailRotated | TailTruncated | TailGap | TailNotice | HostConnecting | HostConnected | HostDisconnected
