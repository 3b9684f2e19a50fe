"""The log pane's line view: a virtual ScrollView that draws only the rows on screen.

It renders a LogBuffer's filtered rows (`render_line`, like toolong's LogLines): one Strip
per visible row, built from Segments of already-sanitized text, never from markup, so a
line holding `[bold]` or an escape sequence shows literally. Error lines carry their label
as a badge; search matches and the current match are highlighted. Colours come from the
component classes, which the .tcss maps to theme variables ($log-error, $log-warn, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cockpit.ui.widgets.log_buffer import BATCH, ERROR, NOTE, WARN, LogBuffer


class LogLinesView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "log-view--error", "log-view--warn", "log-view--batch", "log-view--note",
        "log-view--label-error", "log-view--label-warn", "log-view--match", "log-view--current",
    }

    def __init__(self, buffer: LogBuffer, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.buffer = buffer
        self.search: re.Pattern[str] | None = None
        self.current_row: int | None = None  # the search match the cursor is on
        self.on_scrolled_back: Callable[[], None] | None = None
        self.on_scrolled_end: Callable[[], None] | None = None
        self._styles: dict[str, Style] | None = None
        self._end_pending = False
        self.follow = True

    # ----- state from the pane ------------------------------------------------------------
    def sync(self, follow: bool) -> None:
        """The buffer changed: new size, and the end in view when following."""
        self.follow = follow
        self._resize_virtual(Size(self.buffer.width, self.buffer.rows))
        if follow:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            if not self._end_pending:  # again once the layout settled (a scrollbar may appear)
                self._end_pending = True
                self.call_after_refresh(self._to_end)
        self.refresh()

    def _resize_virtual(self, size: Size) -> None:
        """A new virtual size without a layout pass when the scrollbars stay as they are.
        `virtual_size` is a layout reactive: set plainly, every new line would re-lay and
        re-render the whole screen (tens of ms a frame at 20k lines/s); only this view's
        region needs drawing."""
        if size == self.virtual_size:
            return
        if not self.is_mounted or not self.size:
            self.virtual_size = size
            return
        bars = (self.show_vertical_scrollbar, self.show_horizontal_scrollbar)
        self.set_reactive(LogLinesView.virtual_size, size)
        self._scroll_update(size)  # scrollbars shown or not, their sizes, scroll clamped
        if (self.show_vertical_scrollbar, self.show_horizontal_scrollbar) != bars:
            self.refresh(layout=True)  # a scrollbar came or went: the region changes

    def _to_end(self) -> None:
        self._end_pending = False
        if self.follow:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)

    def shift(self, rows: int) -> None:
        """Rows dropped from the top (the ring's oldest): keep the same lines in view."""
        if rows:
            if self.current_row is not None:
                self.current_row = self.current_row - rows if self.current_row >= rows else None
            self.scroll_to(y=max(0, self.scroll_y - rows), animate=False, immediate=True, force=True)

    def show_row(self, row: int) -> None:
        """Put `row` in view (a third from the top, like less) and mark it current."""
        self.current_row = row
        target = max(0, row - self.scrollable_content_region.height // 3)
        self.scroll_to(y=target, animate=False, immediate=True, force=True)
        self.refresh()

    def on_mount(self) -> None:
        self._styles = None

    def notify_style_update(self) -> None:
        self._styles = None  # theme changed: look the component styles up again
        super().notify_style_update()

    # ----- scrolling back pauses follow (End follows again) -----------------------------
    def _back(self) -> None:
        if self.on_scrolled_back is not None:
            self.on_scrolled_back()

    def action_scroll_up(self) -> None:
        self._back()
        super().action_scroll_up()

    def action_page_up(self) -> None:
        self._back()
        super().action_page_up()

    def action_scroll_home(self) -> None:
        self._back()
        super().action_scroll_home()

    def action_scroll_end(self) -> None:
        super().action_scroll_end()
        if self.on_scrolled_end is not None:
            self.on_scrolled_end()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._back()
        super()._on_mouse_scroll_up(event)

    # ----- drawing --------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        if self._styles is None:
            self._styles = {cls: self.get_component_rich_style(cls) for cls in self.COMPONENT_CLASSES}
        return self._styles[name]

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every row of this frame shares, looked up once (each is a walk of styles).
        self._frame = (self.scroll_offset, self.scrollable_content_region.width, self.rich_style)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    _frame: tuple | None = None

    def render_line(self, y: int) -> Strip:
        frame = self._frame
        if frame is None:
            frame = (self.scroll_offset, self.scrollable_content_region.width, self.rich_style)
        (scroll_x, scroll_y), width, base = frame
        row = scroll_y + y
        buffer = self.buffer
        if row >= buffer.rows:
            return Strip.blank(width, base)
        line = buffer.line_at(row)
        flags = line.flags
        if flags & ERROR:
            style = base + self._style("log-view--error")
        elif flags & WARN:
            style = base + self._style("log-view--warn")
        elif flags & NOTE:
            style = base + self._style("log-view--note")
        elif flags & BATCH:
            style = base + self._style("log-view--batch")
        else:
            style = base
        text = line.text
        if not line.label and self.search is None and row != self.current_row and text.isascii():
            # the common row: one cell a character, so crop and pad by slicing
            piece = text[scroll_x:scroll_x + width]
            if len(piece) == width:
                return Strip([Segment(piece, style)], width)
            return Strip([Segment(piece, style), Segment(" " * (width - len(piece)), base)], width)
        segments: list[Segment] = []
        if line.label:
            badge = self._style("log-view--label-error" if flags & ERROR else "log-view--label-warn")
            segments.append(Segment(f" {line.label} ", base + badge))
            segments.append(Segment(" ", style))
        if self.search is not None and (matches := list(self.search.finditer(text))):
            match_style = style + self._style("log-view--match")
            pos = 0
            for m in matches:
                if m.start() == m.end():
                    continue
                if m.start() > pos:
                    segments.append(Segment(text[pos:m.start()], style))
                segments.append(Segment(text[m.start():m.end()], match_style))
                pos = m.end()
            if pos < len(text):
                segments.append(Segment(text[pos:], style))
        else:
            segments.append(Segment(text, style))
        strip = Strip(segments)
        if row == self.current_row:
            strip = strip.apply_style(self._style("log-view--current"))
        return strip.crop_extend(scroll_x, scroll_x + width, style if row == self.current_row else base)
