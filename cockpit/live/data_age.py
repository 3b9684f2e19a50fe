"""How old a live pane's data is, in words, and whether it is stale (plain Python, no Textual).

Each live pane keeps one `DataAge`: `seen()` when its data arrives, `text()` for its
border ("updated 3 s ago", "stale · 25 s"). Stale means either no data for longer than
`stale_after_s` (a GPU source sampling every second that went quiet), or the source itself
said it lost its connection (`lost`): a quiet log is not stale, a log whose host dropped is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

STALE_INTERVALS = 5
"""A sampled source is stale after this many of its intervals without data..."""
STALE_MIN_S = 5.0
"""...and never sooner than this."""
JUST_NOW_S = 3.0
"""Younger data reads "just now": a 1 s source would otherwise flicker between 0 and 2 s."""


def stale_after(interval_s: float | None) -> float:
    """How long a source sampling every `interval_s` may be quiet before its data is stale."""
    return max(STALE_MIN_S, STALE_INTERVALS * (interval_s or 0.0))


def age_words(seconds: float) -> str:
    """`7 s`, `25 s`, `2 min`, `1 h 5 min`, `3 d 4 h` (rounded down; from 10 s on, seconds in
    steps of 5: the border, and the pane under it, is redrawn only when the words change)."""
    s = max(0, int(seconds))
    if s < 10:
        return f"{s} s"
    if s < 60:
        return f"{s - s % 5} s"
    minutes = s // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


@dataclass
class DataAge:
    what: str = "updated"
    """The verb of the text: "updated 3 s ago", "last line 2 min ago", "read 5 min ago"."""
    stale_after_s: float | None = None
    """No data for longer than this is stale; None: age alone never makes it stale."""
    clock: Callable[[], float] = field(default=time.time, repr=False)
    """Seconds; the app passes its own clock (tests freeze or advance it)."""
    last_at: float | None = None
    lost: bool = False
    """The source says it has no connection (reconnecting, stopped)."""

    def seen(self) -> None:
        """Data arrived now."""
        self.last_at = self.clock()

    def age_s(self) -> float | None:
        return None if self.last_at is None else max(0.0, self.clock() - self.last_at)

    def stale(self) -> bool:
        if self.lost:
            return True
        age = self.age_s()
        return age is not None and self.stale_after_s is not None and age > self.stale_after_s

    def text(self) -> str:
        """The age in words; "" before any data (the pane says it is waiting)."""
        age = self.age_s()
        if age is None:
            return "stale · no data" if self.lost else ""
        if self.stale():
            return f"stale · {age_words(age)}"
        if age < JUST_NOW_S:
            return f"{self.what} just now"
        return f"{self.what} {age_words(age)} ago"
