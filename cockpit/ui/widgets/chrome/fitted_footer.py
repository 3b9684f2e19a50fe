"""The footer that shows only the keys that fit whole, the pane's own first.

Textual's Footer lays every binding in one row and lets the row's end fall off the screen,
so at 80 columns words ran into each other (`S Rest▏^p paletted`, issue 39). This one
measures each key and keeps, in order, those that fit in full; `? Keys` (which lists every
key) is kept whenever anything was left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.events import Resize
from textual.screen import Screen
from textual.widget import Widget
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


@dataclass(frozen=True)
class KeySpec:
    """What one footer key shows (a FooterKey's constructor arguments)."""

    key: str
    key_display: str
    description: str
    action: str
    disabled: bool
    tooltip: str


class FittedFooter(Footer):
    """A compact Footer cut by whole keys, never mid-word.

    When the bindings change (every tab switch and focus move) the keys shown are updated in
    place, at once: Textual's Footer recomposes after the next refresh, mounting new keys and
    laying the screen out again on its own (once per focus change: two or three more layouts
    of the whole screen per tab switch, issue 39's key after `0`). An unchanged set of keys
    touches nothing."""

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._composed_width = 0
        self._shown: tuple[tuple[KeySpec, ...], KeySpec | None] = ((), None)
        self._keys: list[FooterKey] = []
        """The keys in the footer, in order; those past the shown ones are hidden, for reuse."""
        self._palette: FooterKey | None = None

    def _wanted(self) -> tuple[tuple[KeySpec, ...], KeySpec | None]:
        """The keys that fit whole at the footer's width, in order, and the palette's key."""
        active = self.screen.active_bindings
        seen: set[str] = set()
        keys: list[KeySpec] = []
        palette: KeySpec | None = None
        for _node, binding, enabled, tooltip in active.values():
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
                    palette = KeySpec(binding.key, self.app.get_key_display(binding), binding.description,
                                      binding.action, not enabled, binding.tooltip or binding.description)
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append(KeySpec(binding.key, self.app.get_key_display(binding), binding.description,
                                binding.action, not enabled, tooltip))
        width = self.size.width or self.app.size.width
        self._composed_width = width
        room = width - (PALETTE_W if palette is not None else 0)
        items = [(str(i), key_width(k.key_display, k.description)) for i, k in enumerate(keys)]
        keep = next((str(i) for i, k in enumerate(keys) if k.key == KEYS_KEY), None)
        shown = set(fitting(items, room, keep))
        return tuple(k for i, k in enumerate(keys) if str(i) in shown), palette

    def _make(self, spec: KeySpec, classes: str = "") -> FooterKey:
        return FooterKey(spec.key, spec.key_display, spec.description, spec.action, disabled=spec.disabled,
                         tooltip=spec.tooltip, classes=classes).data_bind(compact=Footer.compact)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = keys, palette = self._wanted()
        self._keys = [self._make(spec) for spec in keys]
        self._palette = self._make(palette, "-command-palette") if palette is not None else None
        yield from self._keys
        if self._palette is not None:
            yield self._palette

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        self._update()

    def _update(self) -> None:
        """Show the keys the bindings ask for now, reusing the key widgets there are."""
        wanted = self._wanted()
        if wanted == self._shown:
            return
        keys, palette = wanted
        if not self.children or (palette is None) != (self._palette is None):
            self._shown = ((), None)
            self.call_after_refresh(self.recompose)  # the first keys (compose makes them)
            return
        self._shown = wanted
        if palette is not None and self._palette is not None:
            _set_key(self._palette, palette)
        for widget, spec in zip(self._keys, keys):
            _set_key(widget, spec)
            widget.display = True
        for widget in self._keys[len(keys):]:
            widget.display = False
        # The screen hears of the new widths now, so it lays them out with whatever else the
        # key changed (a tab switch): left to each key's idle, it came a frame later and the
        # screen was laid out and drawn a second time (20-40 ms).
        touched: list[Widget] = [*self._keys, self]
        if self._palette is not None:
            touched.append(self._palette)
        for node in touched:
            node._check_refresh()
        more = [self._make(spec) for spec in keys[len(self._keys):]]
        if more:
            self._keys += more
            self.mount(*more, before=self._palette)

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._composed_width and self._bindings_ready:
            self.call_after_refresh(self._update)


def _set_key(widget: FooterKey, spec: KeySpec) -> None:
    """`widget` shows `spec` (FooterKey reads these attributes when it renders)."""
    if (widget.key, widget.key_display, widget.description, widget.action, widget._disabled) == (
            spec.key, spec.key_display, spec.description, spec.action, spec.disabled):
        if (widget.tooltip or "") != spec.tooltip:
            widget.tooltip = spec.tooltip or None
        return
    widget.key, widget.key_display, widget.description, widget.action = (
        spec.key, spec.key_display, spec.description, spec.action)
    widget._disabled = spec.disabled
    widget.set_class(spec.disabled, "-disabled")
    widget.tooltip = spec.tooltip or None
    widget.refresh(layout=True)
