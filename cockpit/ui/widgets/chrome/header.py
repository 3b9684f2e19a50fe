"""The top line: session title, each host's connection state, unsaved marker, clock."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from cockpit.ui.safe_text import plain, safe

# Host state words -> the role they are drawn in.
_STATE_STYLE = {
    "connected": "$success",
    "connecting": "$warning",
    "reconnecting": "$warning",
    "failed": "$error",
    "disconnected": "$error",
    # a host on this machine: its log feed's state
    "tailing": "$success",
    "no": "$warning",  # no log file yet
    "stopped": "$error",
}
UP_STATES = ("connected", "tailing")
"""Said by the green dot alone on a narrow screen."""


TERSE_BELOW = 100
TITLE_MIN = 14  # "cockpit " and a few letters of the title, with its padding
CLOCK_WIDTH = 9  # "Sun 09:30"


class CockpitHeader(Horizontal):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._widths: dict[str, int] = {}
        """What each part of the line needs, in cells (set as each is shown)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="header-title")
        yield Static("", id="header-path", markup=False)
        yield Static("", id="header-alert", markup=False)
        yield Static("", id="header-findings", markup=False)
        yield Static("", id="header-hosts")
        yield Static("", id="header-dirty", markup=False)
        yield Static("", id="header-clock")

    def show_title(self, title: str, path: str, note: str | None = None) -> None:
        # A note such as DEMO goes first, so it survives when the title is cut short.
        parts: list[str | tuple[str, str]] = [(f" {note} ", "bold reverse $warning"), " "] if note else []
        self.query_one("#header-title", Static).update(
            Content.assemble(*parts, ("cockpit ", "bold $primary"), (safe(title), "bold")))
        self.query_one("#header-path", Static).update(plain(path))
        self._widths["path"] = len(path) + 2  # its padding
        self._fit()

    _states: dict[str, str] = {}

    def show_hosts(self, states: dict[str, str]) -> None:
        self._states = dict(states)
        # Narrow, "connected" is said by the green dot alone: every host and what is wrong
        # with one still fit in 80 columns.
        terse = 0 < self.size.width < TERSE_BELOW
        parts: list[str | tuple[str, str]] = []
        # A host with no live source yet is just its name behind a muted dot.
        for name, state in states.items():
            word = state.split()[0] if state else ""
            parts += [("● ", _STATE_STYLE.get(word, "$foreground-muted")), safe(name)]
            if state and not (terse and state in UP_STATES):
                parts.append((f" {safe(state)}", "$foreground-muted"))  # may quote an SSH error
            parts.append("  ")
        content = Content.assemble(*parts).rstrip()
        self.query_one("#header-hosts", Static).update(content)
        self._widths["hosts"] = content.cell_length + 1
        self._fit()

    def on_resize(self) -> None:
        self.show_hosts(self._states)
        self.show_alert(*self._alert)

    def _fit(self) -> None:
        """Share the line: the clock, the saved state and the path keep their width; the
        hosts and an alert get what the title (at least TITLE_MIN) leaves, the alert up to half
        of it when both do not fit; the title the rest."""
        width = self.size.width
        if not width or not self.is_mounted:
            return
        w = self._widths
        path = w.get("path", 0) if self.query_one("#header-path").styles.display != "none" else 0
        room = max(0, width - TITLE_MIN - path - w.get("dirty", 0) - w.get("findings", 0) - CLOCK_WIDTH)
        hosts, alert = w.get("hosts", 0), w.get("alert", 0)
        if hosts + alert > room:
            alert = min(alert, max(room // 2, room - hosts))
            hosts = room - alert
        self.query_one("#header-hosts").styles.max_width = max(0, hosts)
        self.query_one("#header-alert").styles.max_width = max(0, alert)

    _alert: tuple[str, str] = ("", "")

    def show_alert(self, text: str, terse: str = "") -> None:
        """The newest unseen alert (crash, errors, host down, stale feed); "" hides it.
        `terse`: the same in a few words, shown when the header is narrow."""
        self._alert = (text, terse)
        if terse and 0 < self.size.width < TERSE_BELOW:
            text = terse
        widget = self.query_one("#header-alert", Static)
        widget.update(plain(text))  # may quote a log line
        widget.display = bool(text)
        self._widths["alert"] = len(text) + 3 if text else 0  # padding and margin
        self._fit()

    def show_findings(self, count: int) -> None:
        """Open diagnosis findings (D shows them); nothing when there are none."""
        widget = self.query_one("#header-findings", Static)
        text = f"◆ {count} finding{'s' if count != 1 else ''}" if count else ""
        widget.update(text)
        widget.display = bool(text)
        self._widths["findings"] = len(text) + 2 if text else 0
        self._fit()

    def show_dirty(self, unsaved: int, autosave: bool, disk_broken: bool = False, merge_note: str = "") -> None:
        widget = self.query_one("#header-dirty", Static)
        widget.set_class(unsaved > 0 or disk_broken, "-dirty")
        auto = "" if autosave else " (autosave off)"
        text = f"● unsaved {unsaved}{auto}" if unsaved else f"saved{auto}"
        if merge_note:
            text += f" · {merge_note}"
        text += " · file on disk does not load" if disk_broken else ""
        widget.update(text)
        self._widths["dirty"] = len(text) + 3  # its padding
        self._fit()

    def show_clock(self, when: datetime) -> None:
        # Minutes are enough for a campaign of days, and a repaint a minute instead of a
        # second keeps the idle cockpit's CPU down. Same width each time: no layout pass.
        text = when.strftime("%a %H:%M")
        if text != getattr(self, "_clock_text", None):
            self._clock_text = text
            self.query_one("#header-clock", Static).update(text, layout=False)
