"""`cockpit log TARGET`: the log pane alone, full screen, on any log a tail can follow.

The same pane as the cockpit's main screen (follow, search, filter, toggles, metrics and
the whole file's summary), without a session: for a quick look at a log, or a log
the session does not name. Starts lean: no session model is imported.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.app import ComposeResult

from cockpit.live.items import live_item
from cockpit.ui.app_base import CockpitAppBase
from cockpit.ui.keys.actions import ActionSpec, bindings_for, specs_for
from cockpit.ui.keys.commands import CockpitCommands
from cockpit.ui.theme.themes import shipped_theme_dir, user_theme_dir
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter
from cockpit.ui.widgets.log.pane import LogPane

if TYPE_CHECKING:
    from cockpit.control.live_access import LiveFeed


class LogCommands(CockpitCommands):
    """The log pane's actions in the palette."""

    def _specs(self) -> list[ActionSpec]:
        return specs_for("log") + specs_for("logapp")

    def _runner(self, spec: ActionSpec) -> Callable[[], Awaitable[object]] | None:
        if spec.scope == "logapp":
            return partial(self.app.run_action, spec.action)
        pane = self.app.query_one(LogPane)
        return partial(pane.run_action, spec.action)


class LogApp(CockpitAppBase):
    """One LogPane fed by one LogFeed-like live feed (`description`, async `stream()`)."""

    TITLE = "cockpit log"
    COMMANDS = CockpitAppBase.COMMANDS | {LogCommands}
    BINDINGS = bindings_for("logapp")
    CSS = "LogPane { height: 1fr; }"

    def __init__(self, feed: LiveFeed | None = None, *, max_lines: int = 50_000, theme: str | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        """`clock`: seconds, for the age of the last line (tests freeze it)."""
        super().__init__(theme=theme, theme_dirs=[shipped_theme_dir(), user_theme_dir()])
        self.clock = clock
        self.feed = feed
        self.max_lines = max_lines

    def compose(self) -> ComposeResult:
        yield LogPane(id="log", max_lines=self.max_lines, clock=self.clock)
        yield FittedFooter()

    def on_mount(self) -> None:
        pane = self.query_one(LogPane)
        pane.focus()
        self.report_theme_problems()
        self.set_interval(1.0, pane.show_age)  # "last line 2 min ago" keeps counting
        if self.feed is not None:
            pane.set_state(self.feed.description)
            self.run_worker(self._pump(self.feed), exclusive=True, exit_on_error=False)
        self.settle_after_first_frame()

    def action_help(self) -> None:
        from cockpit.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(dict(self.screen.active_bindings), self.bound_key_displays(),
                                        scopes=("log", "logapp")))

    def on_log_pane_bench_result_seen(self, _message: LogPane.BenchResultSeen) -> None:
        self.notify("cockpit log has no session to record the result in: open the session "
                    "(cockpit SESSION.toml) and press r on the block there, or paste it into "
                    "the benchmark form (4, then a)", severity="warning", timeout=8)

    async def _pump(self, feed: LiveFeed) -> None:
        from cockpit.control.log_pipeline import pipeline_for

        pane = self.query_one(LogPane)
        try:
            async for item in pipeline_for(feed).stream():
                pane.feed(live_item(item, feed.description))
        except Exception as exc:  # noqa: BLE001 - shown, not raised: the pane stays usable
            pane.set_state(f"stopped: {exc}")
            self.notify(str(exc), title="log source", severity="error", markup=False)
        pane.source_stopped()  # no line will come: the last one's age is marked stale
