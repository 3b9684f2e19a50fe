"""A one-line tab bar (number keys switch, a click on a label too) ending in the `?` hint;
short labels when the terminal is narrow, and below 80 columns the other tabs by their keys
alone, so every tab and the hint stay reachable at 60 columns.

Each label carries its tab id as style meta (`{"tab": id}`); the screen's click handler
reads it (the same for the main tab's pane switcher, `{"pane": name}`)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.style import Style
from textual.widgets import Static

from cockpit.ui.actions import TABS

Part = tuple[str | tuple[str, str], str | None]


def clickable(parts: list[Part], key: str) -> Content:
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
    hidden: reactive[frozenset[str]] = reactive(frozenset())
    """Tabs left out of the bar (their key still shows them): Fleet without [[prometheus]]."""

    def _parts(self, level: int) -> list[Part]:
        # 0: full labels; 1: short labels, one space between tabs (all ten fit in 80
        # columns); 2: the active tab's short label, the others by their key.
        pad = "" if level else " "
        parts: list[Part] = []
        for tab, label, short, key in TABS:
            if tab in self.hidden and tab != self.active:
                continue
            name = label if level == 0 else short
            if tab == self.active:
                parts += [((f"{pad}{key} {name}{pad}", "bold reverse $primary"), tab), (" ", None)]
            elif level == 2:
                parts += [((f"{key}", ""), tab), (" ", None)]
            else:
                parts += [((f"{pad}{key}", "$foreground-muted"), tab), ((f" {name}{pad}", ""), tab), (" ", None)]
        return parts

    def render(self) -> Content:
        width = self.size.width
        for level, hint in ((0, "? keys"), (1, "? keys"), (1, "?"), (2, "? keys")):
            bar = clickable(self._parts(level), "tab").rstrip()
            gap = width - bar.cell_length - len(hint)
            if gap >= 1 or level == 2:
                return Content.assemble(bar, " " * max(1, gap), (hint, "$foreground-muted"))
        raise AssertionError("unreachable")

    def on_resize(self) -> None:
        self.refresh()
