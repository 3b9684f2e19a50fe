"""Lists whose selection and scroll offset are saved in the session's `ui` table.

`state_key` names the entry in `ui.selection` / `ui.scroll` (`tasks.doing`, `benchmarks`).
A scroll offset restored while the list is hidden (another tab) waits until it is shown
and laid out, otherwise the offset would be clamped to zero.
"""

from __future__ import annotations

from textual.coordinate import Coordinate
from textual.widget import Widget
from textual.widgets import DataTable, OptionList
from textual.widgets.option_list import OptionDoesNotExist


class Restorable:
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

    def selected_id(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None

    def select_id(self, ident: str) -> bool:
        try:
            self.highlighted = self.get_option_index(ident)
        except OptionDoesNotExist:
            return False
        return True

    def replace_options(self, options: list) -> None:
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


class RestorableTable(Restorable, DataTable):
    """A row-cursor DataTable whose rows are keyed by item id."""

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
