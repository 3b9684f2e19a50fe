"""A host's failure text whole (`!` on its alert): wrapped, with the fingerprint the server
offers and the command that fixes it, which `y` copies (sanitized, as the Launch command)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cockpit.ground.sanitize import sanitize
from cockpit.model.launch.host_fix import fix_command, offered_fingerprint
from cockpit.ui.keys.actions import bindings_for


class FailureTextScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("failure")

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = sanitize(title)
        self.text = sanitize(text, multiline=True)  # untrusted: the server's and the network's words
        self.fix = fix_command(self.text)
        self.fingerprint = offered_fingerprint(self.text)

    def compose(self) -> ComposeResult:
        with Vertical(id="failure-dialog"):
            yield Static(self.title_text, classes="form-title", markup=False)
            hint = "y: copy the fix · esc: close" if self.fix else "esc: close"
            yield Static(hint, classes="form-hint", markup=False)
            with VerticalScroll(id="failure-body"):
                yield Static(self.text, id="failure-text", markup=False)
                if self.fingerprint:
                    yield Static(f"Fingerprint offered: {self.fingerprint}", id="failure-fingerprint", markup=False)
                if self.fix:
                    yield Static("Fix (check the fingerprint first):", classes="failure-heading", markup=False)
                    yield Static(self.fix, id="failure-fix", markup=False)

    def action_copy_fix(self) -> None:
        if self.fix:
            self.app.copy_to_clipboard(self.fix)
            self.notify("Copied the fix (OSC 52; under tmux: set -s set-clipboard on)", timeout=4)

    def action_close(self) -> None:
        self.dismiss(None)
