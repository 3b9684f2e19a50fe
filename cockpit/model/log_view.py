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
    wrap: bool = False
    """Long lines wrap onto the next rows instead of running off the right edge."""
