"""Alerts: what needs a person's eyes while they look at another tab (plain Python, no Textual).

Four causes raise one: the server crashed (a run of the followed log went to `error`), an
error burst (`BURST_COUNT` error lines within `BURST_WINDOW_S`), a host dropped (it was
connected, now it is not), a GPU feed gone stale (its samples stopped). An alert stays
until seen; `take()` hands the oldest unseen one to the key that jumps to its cause (the
tab and pane named in it) and marks it seen. The app feeds the book; the header renders it.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from cockpit.live.log.items import BLOCK, ERROR_LINE, LogLines

BURST_COUNT = 5
"""This many error lines ..."""
BURST_WINDOW_S = 60.0
"""... within this many seconds are a burst."""
BACKLOG_S = 3.0
"""Error lines in a log's first seconds are its backlog (read on open), not news."""
DROPPED_WORDS = ("reconnecting", "disconnected", "failed")
# An SGLang line's prefix: `[2026-12-02 06:55:17 TP0] ` (timestamp, then rank tags).
_LOG_PREFIX = re.compile(r"^\[\d{4}-\d\d-\d\d[ T][\d:.]+[^\]]*\]\s*")


@dataclass(frozen=True, slots=True)
class Alert:
    key: str
    """Identity: the same cause never raises twice while unseen (`crash:3`, `host:lxc`)."""
    kind: str
    """crash | errors | host | stale"""
    text: str
    tab: str
    """The tab that shows the cause."""
    pane: str | None = None
    """The main tab's pane (log, gpu), when the cause is there."""
    short: str = ""
    """A few words for a narrow header ("server crashed", "lxc dropped")."""


def error_lines(item: LogLines) -> int:
    """Errors in a `LogLines`: each labelled error line, and a traceback as one (its lines
    came as error lines just before its block)."""
    count = pending = 0
    for seg in item.segments:
        if seg[0] == ERROR_LINE:
            count += 1
            pending += 1
        elif seg[0] == BLOCK:
            count -= min(seg[1], pending) - 1
            pending = 0
    return count


@dataclass
class AlertBook:
    clock: Callable[[], float] = field(default=time.time, repr=False)
    burst_count: int = BURST_COUNT
    burst_window_s: float = BURST_WINDOW_S
    unseen: list[Alert] = field(default_factory=list)
    _crashed_runs: set[int] = field(default_factory=set)
    _errors: deque[float] = field(default_factory=deque)
    _log_since: float | None = None
    _host_up: dict[str, bool] = field(default_factory=dict)
    _stale: dict[str, bool] = field(default_factory=dict)

    # ----- what the app tells it ----------------------------------------------------------
    def observe_run(self, run_index: int | None, run_state: str | None, last_error: str | None,
                    label: str | None = None) -> Alert | None:
        """A MetricsSnapshot's current run: `error` is a crash (once per run). It speaks in the
        error label first (`cuda_oom`), then the error line without its log prefix."""
        if run_index is None or run_state != "error" or run_index in self._crashed_runs:
            return None
        self._crashed_runs.add(run_index)
        line = _LOG_PREFIX.sub("", last_error.strip())[:120] if last_error else ""
        why = ": " + " · ".join(part for part in (label, line) if part) if label or line else ""
        return self._raise(Alert(f"crash:{run_index}", "crash", f"server crashed (run {run_index}){why}",
                                 "main", "log", f"server crashed: {label}" if label else "server crashed"))

    def observe_error_lines(self, count: int) -> Alert | None:
        """`count` error lines just arrived in the followed log."""
        now = self.clock()
        if self._log_since is None:
            self._log_since = now
        if count <= 0 or now - self._log_since < BACKLOG_S:
            return None
        self._errors.extend([now] * count)
        while self._errors and now - self._errors[0] > self.burst_window_s:
            self._errors.popleft()
        if len(self._errors) < self.burst_count:
            return None
        n = len(self._errors)
        self._errors.clear()  # the next burst counts afresh
        return self._raise(Alert("errors", "errors", f"{n} error lines in the log within "
                                 f"{self.burst_window_s:.0f} s", "main", "log", f"{n} errors"))

    def observe_host(self, host: str, state: str) -> Alert | None:
        """A host's state words ("connected", "reconnecting in 8 s"): up -> down is a drop."""
        word = state.split()[0] if state else ""
        was_up = self._host_up.get(host, False)
        if word == "connected":
            self._host_up[host] = True
            return None
        if word in DROPPED_WORDS:
            self._host_up[host] = False
            if was_up:
                return self._raise(Alert(f"host:{host}", "host", f"host {host} dropped: {state}", "main", "log",
                                         f"{host} dropped"))
        return None

    def reconnect_asked(self, host: str) -> None:
        """A person asked `host` to reconnect: the drop that follows is theirs, not an alert."""
        self._host_up[host] = False

    def observe_failure(self, feed: str, reason: str) -> Alert | None:
        """A feed that stopped on an error a person must read whole (a host key refused):
        `!` shows its text wrapped, with the fix (ui/screens/failure_text.py)."""
        if not reason.startswith("source failed"):
            return None
        where = feed.partition("@")[2] or feed
        return self._raise(Alert(f"failed:{feed}", "failed", reason, "main", "log", f"{where} failed"))

    def observe_stale(self, feed: str, stale: bool, what: str = "") -> Alert | None:
        """A sampled feed's staleness, checked each second: fresh -> stale raises."""
        was = self._stale.get(feed, False)
        self._stale[feed] = stale
        if stale and not was:
            label = {"gpu": "GPU feed"}.get(feed, f"{feed} feed")
            return self._raise(Alert(f"stale:{feed}", "stale", f"{label} stale{f': {what}' if what else ''}",
                                     "main", feed, f"{label} stale"))
        return None

    # ----- what the header and the key do with it ------------------------------------------
    def _raise(self, alert: Alert) -> Alert | None:
        if any(a.key == alert.key for a in self.unseen):
            return None
        self.unseen.append(alert)
        return alert

    def take(self) -> Alert | None:
        """The oldest unseen alert, now seen (the key jumps to its cause)."""
        return self.unseen.pop(0) if self.unseen else None

    def headline(self, *, terse: bool = False) -> str:
        """One line for the header: the newest alert, and how many more wait; `terse`: its
        few words, for a narrow header."""
        if not self.unseen:
            return ""
        newest = self.unseen[-1]
        more = f" (+{len(self.unseen) - 1})" if len(self.unseen) > 1 else ""
        if terse:
            return f"⚠ {newest.short or newest.kind}{more} · !"
        return f"⚠ {newest.text}{more} · ! shows"
