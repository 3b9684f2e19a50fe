"""Asked when quitting with unsaved edits: save, discard, or stay."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from cockpit.ui.keys.actions import bindings_for, specs_for


class ConfirmQuitScreen(ModalScreen[str | None]):
    """Dismisses with "save", "discard" or None (stay)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("quit")

    def __init__(self, unsaved: int) -> None:
        super().__init__()
        self.unsaved = unsaved

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{spec.key_display or spec.keys.split(',')[0]}: {spec.verb.lower()}"
                          for spec in specs_for("quit"))
        with Vertical(id="dialog"):
            yield Static("Unsaved edits", classes="form-title")
            yield Static(f"{self.unsaved} edit(s) since the last save.", markup=False)
            yield Static(keys, classes="form-hint", markup=False)

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)
