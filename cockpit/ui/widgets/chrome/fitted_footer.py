"""The footer that shows only the keys that fit whole, the pane's own first.

Textual's Footer lays every binding in one row and lets the row's end fall off the screen,
so at 80 columns words ran into each other (`S Rest▏^p paletted`, issue 39). This one
measures each key and keeps, in order, those that fit in full; `? Keys` (which lists every
key) is kept whenever anything was left out.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported by textual.widgets (8.2); the Footer composes these

KEYS_KEY = "question_mark"  # `?` lists every key, so it stays when others must go
PALETTE_W = 12  # "▏^p palette" with its padding, docked at the right end


def key_width(key_display: str, description: str) -> int:
    """Cells one compact key takes: key, a space, its words, and the gap after it."""
    return len(key_display) + (1 + len(description) if description else 0) + 1


def fitting(items: list[tuple[str, int]], width: int, keep: str | None) -> list[str]:
    """The names of `items` (name, cells) that fit in `width`, in order; `keep` is always
    kept (it tells where the rest are) when anything had to go."""
    if sum(cells for _name, cells in items) <= width:
        return [name for name, _cells in items]
    kept_cells = next((cells for name, cells in items if name == keep), 0)
    room, shown = width - kept_cells, []
    for name, cells in items:
        if name == keep:
            continue
        if cells <= room:
            shown.append(name)
            room -= cells
    if keep is not None and kept_cells:
        shown.append(keep)
    return shown


class FittedFooter(Footer):
    """A compact Footer cut by whole keys, never mid-word."""

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._composed_width = 0

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        seen: set[str] = set()
        keys: list[FooterKey] = []
        palette: FooterKey | None = None
        for _node, binding, enabled, tooltip in active.values():
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
                    palette = FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                                        binding.action, classes="-command-palette", disabled=not enabled,
                                        tooltip=binding.tooltip or binding.description)
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append(FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                                  binding.action, disabled=not enabled, tooltip=tooltip))
        width = self.size.width or self.app.size.width
        self._composed_width = width
        room = width - (PALETTE_W if palette is not None else 0)
        items = [(str(i), key_width(k.key_display, k.description)) for i, k in enumerate(keys)]
        keep = next((str(i) for i, k in enumerate(keys) if k.key == KEYS_KEY), None)
        shown = set(fitting(items, room, keep))
        for i, key in enumerate(keys):
            if str(i) in shown:
                yield key.data_bind(compact=Footer.compact)
        if palette is not None:
            yield palette

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._composed_width and self._bindings_ready:
            self.call_after_refresh(self.recompose)
