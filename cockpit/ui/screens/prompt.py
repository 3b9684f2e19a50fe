"""A one-line question: returns the text, or None when cancelled."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe


class PromptScreen(ModalScreen[str | None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("form")

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, classes="form-title", markup=False)
            yield Input(safe(self.value), compact=True, id="answer")  # a saved search: from the file
            yield Static("enter: ok · esc: cancel", classes="form-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_submit(self) -> None:
        self.dismiss(self.query_one(Input).value)

    def action_cancel(self) -> None:
        self.dismiss(None)
