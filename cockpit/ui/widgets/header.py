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
}


class CockpitHeader(Horizontal):
    def compose(self) -> ComposeResult:
        yield Static("", id="header-title")
        yield Static("", id="header-path", markup=False)
        yield Static("", id="header-alert", markup=False)
        yield Static("", id="header-hosts")
        yield Static("", id="header-dirty", markup=False)
        yield Static("", id="header-clock")

    def show_title(self, title: str, path: str, note: str | None = None) -> None:
        # A note such as DEMO goes first, so it survives when the title is cut short.
        parts: list[str | tuple[str, str]] = [(f" {note} ", "bold reverse $warning"), " "] if note else []
        self.query_one("#header-title", Static).update(
            Content.assemble(*parts, ("cockpit ", "bold $primary"), (safe(title), "bold")))
        self.query_one("#header-path", Static).update(plain(path))

    def show_hosts(self, states: dict[str, str]) -> None:
        parts: list[str | tuple[str, str]] = []
        # A host with no live source yet is just its name behind a muted dot.
        for name, state in states.items():
            word = state.split()[0] if state else ""
            parts += [("● ", _STATE_STYLE.get(word, "$foreground-muted")), safe(name)]
            if state:
                parts.append((f" {safe(state)}", "$foreground-muted"))  # may quote an SSH error
            parts.append("  ")
        self.query_one("#header-hosts", Static).update(Content.assemble(*parts))

    def show_alert(self, text: str) -> None:
        """The newest unseen alert (crash, errors, host down, stale feed); "" hides it."""
        widget = self.query_one("#header-alert", Static)
        widget.update(plain(text))  # may quote a log line
        widget.display = bool(text)

    def show_dirty(self, unsaved: int, autosave: bool, disk_broken: bool = False, merge_note: str = "") -> None:
        widget = self.query_one("#header-dirty", Static)
        widget.set_class(unsaved > 0 or disk_broken, "-dirty")
        auto = "" if autosave else " (autosave off)"
        text = f"● unsaved {unsaved}{auto}" if unsaved else f"saved{auto}"
        if merge_note:
            text += f" · {merge_note}"
        widget.update(text + (" · file on disk does not load" if disk_broken else ""))

    def show_clock(self, when: datetime) -> None:
        # Minutes are enough for a campaign of days, and a repaint a minute instead of a
        # second keeps the idle cockpit's CPU down. Same width each time: no layout pass.
        text = when.strftime("%a %H:%M")
        if text != getattr(self, "_clock_text", None):
            self._clock_text = text
            self.query_one("#header-clock", Static).update(text, layout=False)
