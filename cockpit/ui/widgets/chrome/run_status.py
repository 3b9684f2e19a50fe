"""One line above the footer while a server of the session runs or a sweep is under way:
what runs where, its phase, and the sweep's point. Hidden when there is nothing to say."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from cockpit.ui.safe_text import safe


class RunStatus(Static):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id, classes="-empty")

    def show(self, text: str) -> None:
        self.update(safe(text))
        self.set_class(not text, "-empty")
