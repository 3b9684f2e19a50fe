"""A one-line tab bar (number keys switch, a click on a label too) ending in the `?` hint;
short labels when the terminal is narrow, then the last tabs by their keys alone (as few as
needed to fit), so every tab and the hint stay reachable at 60 columns.

Each label carries its tab id as style meta (`{"tab": id}`); the screen's click handler
reads it (the same for the main tab's pane switcher, `{"pane": name}`)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.style import Style
from textual.widgets import Static

from cockpit.ui.keys.actions import TABS

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

    def _shown(self) -> list[str]:
        return [tab for tab, *_ in TABS if tab not in self.hidden or tab == self.active]

    def _parts(self, level: int, bare: frozenset[str] = frozenset()) -> list[Part]:
        # 0: full labels; 1: short labels, one space between tabs (all ten fit in 80
        # columns), the tabs in `bare` by their key alone (the active one keeps its label).
        pad = "" if level else " "
        parts: list[Part] = []
        shown = self._shown()
        for tab, label, short, key in TABS:
            if tab not in shown:
                continue
            name = label if level == 0 else short
            if tab == self.active:
                parts += [((f"{pad}{key} {name}{pad}", "bold reverse $primary"), tab), (" ", None)]
            elif tab in bare:
                parts += [((f"{key}", ""), tab), (" ", None)]
            else:
                parts += [((f"{pad}{key}", "$foreground-muted"), tab), ((f" {name}{pad}", ""), tab), (" ", None)]
        return parts

    def render(self) -> Content:
        width = self.size.width
        others = [tab for tab in self._shown() if tab != self.active]
        # the labels go from the end of the bar first: the first tabs are the ones used most
        tries = [(0, frozenset[str](), "? keys"), (1, frozenset[str](), "? keys"), (1, frozenset[str](), "?")]
        tries += [(1, frozenset(others[len(others) - n:]), "?") for n in range(1, len(others) + 1)]
        for level, bare, hint in tries:
            bar = clickable(self._parts(level, bare), "tab").rstrip()
            gap = width - bar.cell_length - len(hint)
            if gap >= 1:
                return Content.assemble(bar, " " * gap, (hint, "$foreground-muted"))
        return Content.assemble(bar, " ", (hint, "$foreground-muted"))

    def on_resize(self) -> None:
        self.refresh()
