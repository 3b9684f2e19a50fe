"""Asked before cockpit runs a command a person has not seen: a launch profile's first
start (or its first after the command, env or host changed) and a sweep's first run; and
(ConfirmStopScreen) before a key stops a running server, which takes minutes to load again.
Shows exactly what will run (secrets already masked by the caller); untrusted text, never markup."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cockpit.ui.keys.actions import bindings_for, specs_for
from cockpit.ui.safe_text import safe


class ConfirmRunScreen(ModalScreen[bool]):
    """Dismisses with True (run it) or False."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    SCOPE = "confirm"
    BINDINGS = bindings_for(SCOPE)

    def __init__(self, title: str, what: str) -> None:
        super().__init__()
        self.title_text = title
        self.what = what

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{spec.key_display or spec.keys.split(',')[0]}: {spec.verb.lower()}"
                          for spec in specs_for(self.SCOPE))
        with Vertical(id="dialog"):
            yield Static(safe(self.title_text), classes="form-title", markup=False)
            with VerticalScroll(id="what"):
                yield Static(safe(self.what, multiline=True), markup=False)
            yield Static(keys, classes="form-hint", markup=False)

    def action_choose(self, run: bool) -> None:
        self.dismiss(run)


class ConfirmStopScreen(ConfirmRunScreen):
    """Asked before a key stops a running server (stop, or a restart): says what is lost.
    Dismisses with True (stop it) or False (it keeps running)."""

    SCOPE = "stop"
    BINDINGS = bindings_for(SCOPE)
