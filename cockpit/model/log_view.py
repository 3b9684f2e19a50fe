"""LogViewState: what the log view shows (the session's `ui.log` table).

A frozen dataclass, not a pydantic model, so the log pane (and `cockpit log`, which has
no session) takes the one definition without importing pydantic; the session model
validates it as a field like its own models (unknown keys refused).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LogViewState:
    __pydantic_config__ = {"extra": "forbid"}  # read by pydantic (a ConfigDict)

    follow: bool = True
    filter: str | None = None
    search: str | None = None
    errors_only: bool = False
    hide_batches: bool = False
    show_polls: bool = False
    """Show the access lines of `GET /metrics` and `/health` polls (hidden by default)."""
    wrap: bool = False
    """Long lines wrap onto the next rows instead of running off the right edge."""
    top_line: str | None = None
    """A paused view's place: the text of the line at its top (its first ANCHOR_CHARS);
    a reopen shows that line at the top again once it has been read (issue 39)."""
    match_line: str | None = None
    """The text of the search's current match (its first ANCHOR_CHARS), put back on reopen."""


ANCHOR_CHARS = 200
"""How much of a line `top_line` / `match_line` keep: log lines carry their time, so a
line's start names it."""
