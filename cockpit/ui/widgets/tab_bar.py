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
        for tab, label, short, key in TABS:
            name = short if self.narrow else label
            if tab == self.active:
                parts.append((f" {key} {name} ", "bold reverse $primary"))
            else:
                parts += [(f" {key}", "$foreground-muted"), (f" {name} ", "")]
        return Content.assemble(*parts)
