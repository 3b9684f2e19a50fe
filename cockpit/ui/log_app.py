"""`cockpit log TARGET`: the log pane alone, full screen, on any log a tail can follow.

The same pane as the cockpit's main screen (follow, search, filter, toggles, metrics and
the whole file's summary), without a session: for a quick look at a log, or a log
the session does not name. Starts lean: no session model is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer

from cockpit.ui import gc_settle
from cockpit.ui.actions import ActionSpec, specs_for
from cockpit.ui.commands import CockpitCommands
from cockpit.ui.safe_text import safe
from cockpit.ui.themes import DEFAULT_THEME, load_themes, role_defaults, shipped_theme_dir, user_theme_dir
from cockpit.ui.widgets.log_pane import LogPane


class LogCommands(CockpitCommands):
    """The log pane's actions in the palette."""

    def _specs(self) -> list[ActionSpec]:
        return specs_for("log")

    def _runner(self, spec: ActionSpec):  # noqa: ANN202
        pane = self.app.query_one(LogPane)
        return partial(pane.run_action, spec.action)


class LogApp(App[None]):
    """One LogPane fed by one LogFeed-like live feed (`description`, async `stream()`)."""

    TITLE = "cockpit log"
    COMMANDS = App.COMMANDS | {LogCommands}
    BINDINGS = [Binding("q", "quit", "Quit")]
    CSS = "LogPane { height: 1fr; }"

    def __init__(self, feed: Any = None, *, max_lines: int = 50_000, theme: str | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        """`clock`: seconds, for the age of the last line (tests freeze it)."""
        super().__init__()
        self.clock = clock
        themes, self.theme_problems = load_themes([shipped_theme_dir(), user_theme_dir()])
        for item in themes:
            self.register_theme(item)
        self.theme = theme if theme in self.available_themes else DEFAULT_THEME
        self.feed = feed
        self.max_lines = max_lines

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return role_defaults(self.current_theme.to_color_system().generate())

    def notify(self, message: str, *, title: str = "", markup: bool = False, **options: Any) -> None:
        """Toasts quote log and host text: sanitized, never markup (as in CockpitApp)."""
        super().notify(safe(message, multiline=True), title=safe(title), markup=False, **options)

    def compose(self) -> ComposeResult:
        yield LogPane(id="log", max_lines=self.max_lines, clock=self.clock)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        pane = self.query_one(LogPane)
        pane.focus()
        for problem in self.theme_problems:
            self.notify(f"Theme file skipped: {problem}", severity="error", timeout=10)
        self.set_interval(1.0, pane.show_age)  # "last line 2 min ago" keeps counting
        if self.feed is not None:
            pane.set_state(self.feed.description)
            self.run_worker(self._pump(self.feed), exclusive=True, exit_on_error=False)
        self.call_after_refresh(gc_settle.settle)

    def on_unmount(self) -> None:
        gc_settle.release()

    async def _pump(self, feed: Any) -> None:
        from cockpit.live.log_pipeline import pipeline_for

        pane = self.query_one(LogPane)
        try:
            async for item in pipeline_for(feed).stream():
                pane.feed(item)
        except Exception as exc:  # noqa: BLE001 - shown, not raised: the pane stays usable
            pane.set_state(f"stopped: {exc}")
            self.notify(str(exc), title="log source", severity="error", markup=False)
        pane.source_stopped()  # no line will come: the last one's age is marked stale
