"""Lists whose selection and scroll offset are saved in the session's `ui` table.

`state_key` names the entry in `ui.selection` / `ui.scroll` (`tasks.doing`, `benchmarks`).
A scroll offset restored while the list is hidden (another tab) waits until it is shown
and laid out, otherwise the offset would be clamped to zero.

They also hold the one rule of every list (the registry's `list` scope): j / k, g / G,
Enter opens; a single click selects and a double click opens (a click that opened a form
at once made every look at an item an edit).
"""

from __future__ import annotations

from textual import events
from textual.coordinate import Coordinate
from textual.widget import Widget
from textual.widgets import DataTable, OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked


class Restorable(FocusMarked):
    state_key: str = ""
    _pending_scroll: int | None = None

    def selected_id(self) -> str | None:
        raise NotImplementedError

    def select_id(self, ident: str) -> bool:
        raise NotImplementedError

    def restore_scroll(self, offset: int) -> None:
        self._pending_scroll = offset
        self._apply_pending_scroll()

    def scroll_offset_to_save(self) -> int:
        """The offset the view keeps: where the list is, or, while it has stayed hidden
        since a restore, the saved one still waiting to apply."""
        if self._pending_scroll is not None:
            return self._pending_scroll
        widget = self
        assert isinstance(widget, Widget)  # a mixin of the lists below
        return int(round(widget.scroll_y))

    def _apply_pending_scroll(self) -> None:
        widget = self
        assert isinstance(widget, Widget)  # a mixin of the lists below
        if self._pending_scroll is None or not widget.size.height:
            return
        offset, self._pending_scroll = self._pending_scroll, None
        widget.call_after_refresh(lambda: widget.scroll_to(y=offset, animate=False, immediate=True))

    def on_show(self) -> None:
        self._apply_pending_scroll()

    def on_resize(self) -> None:
        self._apply_pending_scroll()


class RestorableOptionList(Restorable, OptionList):
    """An OptionList whose options carry item ids."""

    BINDINGS = bindings_for("list")
    _resized_to: tuple[object, ...] | None = None

    def _on_resize(self, event: events.Resize | None = None) -> None:
        # A layout sends a Resize to every widget it shows again (a tab switched back to) at
        # the size it had, and OptionList's handler drops every drawn line on each: the main
        # tab's four columns were all drawn anew on every return to it (issue 39). At the same
        # size the lines stand; Restorable's handler (skipped with OptionList's) still runs.
        if event is None:  # (Textual always passes it)
            return
        sizes = (event.size, event.virtual_size, event.container_size)
        if sizes == self._resized_to:
            event.prevent_default()
            self.on_resize()
        self._resized_to = sizes

    def action_list_step(self, step: int) -> None:
        self.action_cursor_down() if step > 0 else self.action_cursor_up()

    def action_list_end(self, step: int) -> None:
        self.action_last() if step > 0 else self.action_first()

    def action_list_open(self) -> None:
        self.action_select()

    async def _on_click(self, event: events.Click) -> None:
        # Replaces OptionList's (which selects, i.e. opens, on every click).
        event.prevent_default()
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or self._options[clicked].disabled:
            return
        self.highlighted = clicked
        if event.chain >= 2:
            self.action_select()

    def selected_id(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None

    def select_id(self, ident: str) -> bool:
        try:
            self.highlighted = self.get_option_index(ident)
        except OptionDoesNotExist:
            return False
        return True

    def replace_options(self, options: list[Option]) -> None:
        """Swap the options, keeping the highlighted id (or position) where it can."""
        current = self.options
        if len(current) == len(options) and all(a is b for a, b in zip(current, options)):
            return  # the same Option objects: nothing to lay out again
        previous_id = self.selected_id()
        previous_index = self.highlighted
        previous_scroll = self.scroll_y
        self.set_options(options)  # resets highlight and scroll
        self.scroll_to(y=previous_scroll, animate=False, immediate=True)
        if previous_id is not None and self.select_id(previous_id):
            return
        if options:
            self.highlighted = min(previous_index or 0, len(options) - 1)


class RestorableTable(Restorable, DataTable[object]):
    """A row-cursor DataTable whose rows are keyed by item id."""

    BINDINGS = bindings_for("list")

    def action_list_step(self, step: int) -> None:
        self.action_cursor_down() if step > 0 else self.action_cursor_up()

    def action_list_end(self, step: int) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1 if step > 0 else 0, animate=False)

    def action_list_open(self) -> None:
        self.action_select_cursor()

    async def _on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        row, column = meta.get("row"), meta.get("column")
        if row is None or column is None or row < 0 or column < 0:
            return  # a header or label click: DataTable's own (sort by header, ...)
        # Replaces DataTable's (which selects, i.e. opens, on a click on the cursor row).
        event.prevent_default()
        event.stop()
        self.move_cursor(row=row, column=column, animate=False)
        if event.chain >= 2:
            self.action_select_cursor()

    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
        except Exception:  # noqa: BLE001 - an empty or shrinking table has no cursor row
            return None

    def select_id(self, ident: str) -> bool:
        try:
            index = self.get_row_index(ident)
        except Exception:  # noqa: BLE001 - RowDoesNotExist
            return False
        self.move_cursor(row=index, animate=False)
        return True
