"""A one-line tab bar (number keys switch); short labels when the terminal is narrow."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from cockpit.ui.actions import TABS


class TabBar(Static):
    active: reactive[str] = reactive("main")
    narrow: reactive[bool] = reactive(False)

    def render(self) -> Content:
        parts: list[str | tuple[str, str]] = []
        # Narrow: one space between tabs so all ten fit in 80 columns.
        pad = "" if self.narrow else " "
        for tab, label, short, key in TABS:
            name = short if self.narrow else label
            if tab == self.active:
                parts += [(f"{pad}{key} {name}{pad}", "bold reverse $primary"), " "]
            else:
                parts += [(f"{pad}{key}", "$foreground-muted"), (f" {name}{pad} ", "")]
        return Content.assemble(*parts)
