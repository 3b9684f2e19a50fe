"""A one-line tab bar (number keys switch, a click on a label too); short labels when the
terminal is narrow.

Each label carries its tab id as style meta (`{"tab": id}`); the screen's click handler
reads it (the same for the main tab's pane switcher, `{"pane": name}`)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.style import Style
from textual.widgets import Static

from cockpit.ui.actions import TABS


def clickable(parts: list[tuple[str | tuple[str, str], str | None]], key: str) -> Content:
    """Parts, each with the id a click on it reports as meta `key` (None: not clickable)."""
    content = Content.assemble(*(part for part, _ in parts))
    pos = 0
    for part, ident in parts:
        length = len(part if isinstance(part, str) else part[0])
        if ident is not None:
            content = content.stylize(Style.from_meta({key: ident}), pos, pos + length)
        pos += length
    return content


class TabBar(Static):
    active: reactive[str] = reactive("main")

    def _parts(self, compact: bool) -> list[tuple[str | tuple[str, str], str | None]]:
        # Compact: short labels, one space between tabs, so all ten fit in 80 columns.
        pad = "" if compact else " "
        parts: list[tuple[str | tuple[str, str], str | None]] = []
        for tab, label, short, key in TABS:
            name = short if compact else label
            if tab == self.active:
                parts += [((f"{pad}{key} {name}{pad}", "bold reverse $primary"), tab), (" ", None)]
            else:
                parts += [((f"{pad}{key}", "$foreground-muted"), tab), ((f" {name}{pad}", ""), tab), (" ", None)]
        return parts

    def render(self) -> Content:
        full = clickable(self._parts(compact=False), "tab")
        if full.cell_length <= self.size.width:
            return full
        return clickable(self._parts(compact=True), "tab")

    def on_resize(self) -> None:
        self.refresh()
