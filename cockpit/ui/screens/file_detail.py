"""A patched file's record in full: what changed (path, host, lines, change, state).

Opened with Enter on the Files tab; `e` edits it (the screen asks for the form), esc closes.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from cockpit.model.session import FileChange, Session
from cockpit.ui.keys.actions import bindings_for, specs_for
from cockpit.ui.safe_text import safe

_STATE_ROLE = {"applied": "$success", "reverted": "$foreground-muted", "harmless": "$primary",
               "problematic": "$error"}


def file_detail(session: Session, item: FileChange) -> Content:
    parts: list[str | tuple[str, str]] = [(safe(item.path), "bold"), "\n"]
    for label, value in (("host", item.host), ("lines", item.lines)):
        parts += ["\n", (f"{label:<7}", "bold"), safe(value) or ("—", "$foreground-muted")]
    parts += ["\n", (f"{'state':<7}", "bold"), (item.state.value, f"bold {_STATE_ROLE[item.state.value]}")]
    parts += ["\n\n", ("What changed", "bold underline"), "\n",
              safe(item.change, multiline=True) or ("not recorded: e adds it", "$foreground-muted")]
    cited = [d for d in session.discoveries if item.id in d.files]
    if cited:
        parts += ["\n\n", ("Discoveries citing it", "bold underline")]
        for disc in cited:
            parts += ["\n", (f"{disc.id} ", "$foreground-muted"), safe(disc.claim)]
    return Content.assemble(*parts)


class FileDetailScreen(ModalScreen[str | None]):
    """Dismisses with "edit" when `e` is pressed, else None."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("detail")

    def __init__(self, session: Session, item: FileChange) -> None:
        super().__init__()
        self.session = session
        self.item = item

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{spec.key_display or spec.keys.split(',')[0]}: {spec.verb.lower()}"
                          for spec in specs_for("detail"))
        with Vertical(id="dialog"):
            yield Static(f"Patched file {self.item.id}", classes="form-title", markup=False)
            with VerticalScroll():
                yield Static(file_detail(self.session, self.item), id="file-detail")
            yield Static(keys, classes="form-hint", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_edit(self) -> None:
        self.dismiss("edit")
