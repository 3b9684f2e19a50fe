"""A one-line tab bar (number keys switch) ending in the `?` hint; short labels when the
terminal is narrow, and below 80 columns the other tabs by their keys alone, so every tab
and the hint stay reachable at 60 columns."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from cockpit.ui.actions import TABS


class TabBar(Static):
    active: reactive[str] = reactive("main")

    def _parts(self, level: int) -> list[str | tuple[str, str]]:
        # 0: full labels; 1: short labels, one space between tabs (all ten fit in 80
        # columns); 2: the active tab's short label, the others by their key.
        pad = "" if level else " "
        parts: list[str | tuple[str, str]] = []
        for tab, label, short, key in TABS:
            name = label if level == 0 else short
            if tab == self.active:
                parts += [(f"{pad}{key} {name}{pad}", "bold reverse $primary"), " "]
            elif level == 2:
                parts += [(f"{key} ", "")]
            else:
                parts += [(f"{pad}{key}", "$foreground-muted"), (f" {name}{pad} ", "")]
        return parts

    def render(self) -> Content:
        width = self.size.width
        for level, hint in ((0, "? keys"), (1, "? keys"), (1, "?"), (2, "? keys")):
            bar = Content.assemble(*self._parts(level)).rstrip()
            gap = width - bar.cell_length - len(hint)
            if gap >= 1 or level == 2:
                return Content.assemble(bar, " " * max(1, gap), (hint, "$foreground-muted"))
        raise AssertionError("unreachable")

    def on_resize(self) -> None:
        self.refresh()
