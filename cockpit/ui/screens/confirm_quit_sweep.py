"""Asked when quitting while a sweep runs: what is lost (the point in flight), and how the
rest runs later. The confirm dialog's look and keys (y quits, n / escape stays)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from cockpit.ui.safe_text import safe
from cockpit.ui.screens.confirm_run import ConfirmRunScreen


class ConfirmQuitSweepScreen(ConfirmRunScreen):
    """Dismisses with True (quit, the point in flight is lost) or False (stay)."""

    def __init__(self, what: str) -> None:
        super().__init__("Quit while a sweep runs?", what)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(safe(self.title_text), classes="form-title", markup=False)
            with VerticalScroll(id="what"):
                yield Static(safe(self.what, multiline=True), markup=False)
            yield Static("y: quit, the point in flight is lost · n: stay", classes="form-hint", markup=False)
