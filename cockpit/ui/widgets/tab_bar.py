"""A one-line tab bar (number keys switch); short labels when the terminal is narrow."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from cockpit.ui.actions import TABS


class TabBar(Static):
    active: reactive[str] = reactive("main")
    hidden: reactive[frozenset[str]] = reactive(frozenset())
    """Tabs left out of the bar (their key still shows them): Fleet without [[prometheus]]."""

    def _parts(self, compact: bool) -> list[str | tuple[str, str]]:
        # Compact: short labels, one space between tabs, so all ten fit in 80 columns.
        pad = "" if compact else " "
        parts: list[str | tuple[str, str]] = []
        for tab, label, short, key in TABS:
            if tab in self.hidden and tab != self.active:
                continue
            name = short if compact else label
            if tab == self.active:
                parts += [(f"{pad}{key} {name}{pad}", "bold reverse $primary"), " "]
            else:
                parts += [(f"{pad}{key}", "$foreground-muted"), (f" {name}{pad} ", "")]
        return parts

    def render(self) -> Content:
        full = Content.assemble(*self._parts(compact=False))
        if full.cell_length <= self.size.width:
            return full
        return Content.assemble(*self._parts(compact=True))

    def on_resize(self) -> None:
        self.refresh()
