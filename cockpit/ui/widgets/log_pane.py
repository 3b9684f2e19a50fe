"""The server-log pane: its place in the layout, its view state and its feed hook.

The live tail (SSH, rotation, parsing, sparklines) belongs to the log pane's own module
work; this widget fixes the public surface the rest of the UI relies on:

* `feed(item)`: an item from the injected `sources.log` feed: a str or a list of str lines;
* `set_state(text)`: the source's state in words ("tailing gpu1:/var/log/sglang.log",
  "reconnecting in 8 s"); before any source it reads "no source configured";
* `view_state` / `apply_view_state(state)`: follow, filter, search, errors-only, as
  saved in the session's `ui.log` table.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Log, Static

from cockpit.model.session import LogViewState
from cockpit.ui.actions import bindings_for
from cockpit.ui.messages import LogViewChanged
from cockpit.ui.screens.prompt import PromptScreen

NO_SOURCE = "no source configured"


class LogPane(Vertical, can_focus=True):
    BINDINGS = bindings_for("log")
    DEFAULT_CSS = """
    LogPane { border: round $panel-lighten-2; border-title-color: $foreground-muted; }
    LogPane:focus-within, LogPane:focus { border: round $primary; }
    LogPane > .log-state { color: $foreground-muted; height: auto; }
    LogPane > .log-view { color: $foreground-muted; height: 1; }
    LogPane > Log { height: 1fr; background: transparent; }
    """

    def __init__(self, *, max_lines: int = 50_000, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Server log"
        self._state = LogViewState()
        self._max_lines = max_lines
        self.state_text = NO_SOURCE

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="log-state")
        yield Static(self._describe_view(), classes="log-view")
        yield Log(max_lines=self._max_lines, auto_scroll=True)

    # ----- hooks for the live side ----------------------------------------------------
    def feed(self, item: Any) -> None:
        lines = [item] if isinstance(item, str) else list(item)
        log = self.query_one(Log)
        log.auto_scroll = self._state.follow
        log.write_lines(str(line) for line in lines)

    def set_state(self, text: str) -> None:
        self.state_text = text
        if self.is_mounted:
            self.query_one(".log-state", Static).update(text)

    # ----- view state (saved in ui.log) ------------------------------------------------
    @property
    def view_state(self) -> LogViewState:
        return self._state.model_copy()

    def apply_view_state(self, state: LogViewState) -> None:
        self._state = state.model_copy()
        if self.is_mounted:
            self.query_one(".log-view", Static).update(self._describe_view())
            self.query_one(Log).auto_scroll = state.follow

    def _changed(self, **changes: Any) -> None:
        self.apply_view_state(self._state.model_copy(update=changes))
        self.post_message(LogViewChanged(self.view_state))

    def _describe_view(self) -> str:
        s = self._state
        parts = ["follow" if s.follow else "paused"]
        if s.filter:
            parts.append(f"filter: {s.filter}")
        if s.search:
            parts.append(f"search: {s.search}")
        if s.errors_only:
            parts.append("errors only")
        return " · ".join(parts)

    # ----- actions (keys from the registry's `log` scope) ----------------------------------
    def action_toggle_follow(self) -> None:
        self._changed(follow=not self._state.follow)

    def action_toggle_errors(self) -> None:
        self._changed(errors_only=not self._state.errors_only)

    def action_search(self) -> None:
        self.app.push_screen(PromptScreen("Search the log", self._state.search or ""),
                             lambda text: self._changed(search=text or None) if text is not None else None)

    def action_filter(self) -> None:
        self.app.push_screen(PromptScreen("Show only lines matching", self._state.filter or ""),
                             lambda text: self._changed(filter=text or None) if text is not None else None)
