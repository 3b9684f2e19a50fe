"""The log pane's line view: a virtual ScrollView that draws only the rows on screen.

It renders a LogBuffer's filtered rows (`render_line`, like toolong's LogLines): one Strip
per visible row, built from Segments of already-sanitized text, never from markup, so a
line holding `[bold]` or an escape sequence shows literally. Error lines carry their label
as a badge; search matches and the current match are highlighted. Colours come from the
component classes, which the .tcss maps to theme variables ($log-error, $log-warn, ...).

With `wrap` on, a long line takes as many screen rows as it needs. The scroll offset still
counts log rows (the top row on screen); only the screenful at the offset is wrapped, so a
50k-line ring costs nothing more than a screen's worth of lines a frame. Left and right
move by half a screen, not a column.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cockpit.ui.widgets.log.buffer import BATCH, ERROR, NOTE, WARN, LogBuffer, Matcher

# Highlights drawn in one line: a search for `.` over a 100,000-character line would build
# 100,000 matches and segments for every row drawn, each frame (seconds); past this many the
# rest of the line is drawn plain. The search itself (n, N, the count) still finds every line.
MAX_HIGHLIGHTS = 300


Frame = tuple[Offset, int, Style]
"""What every row of a frame shares: the scroll offset, the content width, the base style."""


class LogLinesView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "log-view--error", "log-view--warn", "log-view--batch", "log-view--note",
        "log-view--label-error", "log-view--label-warn", "log-view--match", "log-view--current",
    }

    def __init__(self, buffer: LogBuffer, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.buffer = buffer
        self.search: Matcher | None = None
        self.current_row: int | None = None  # the search match the cursor is on
        self.on_scrolled_back: Callable[[], None] | None = None
        self.on_scrolled_end: Callable[[], None] | None = None
        self._styles: dict[str, Style] | None = None
        self._end_pending = False
        self.follow = True
        self.wrap = False
        self._wrapped: list[Strip] = []  # the screen's rows of this frame, when wrapping
        self._shown_rows = 0  # log rows (whole or in part) on screen at the last wrapped frame

    # ----- state from the pane ------------------------------------------------------------
    def sync(self, follow: bool) -> None:
        """The buffer changed: new size, and the end in view when following."""
        self.follow = follow
        self._resize_virtual(self._virtual())
        if follow:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            if not self._end_pending:  # again once the layout settled (a scrollbar may appear)
                self._end_pending = True
                self.call_after_refresh(self._to_end)
        self.refresh()

    def set_wrap(self, wrap: bool) -> None:
        if wrap != self.wrap:
            self.wrap = wrap
            if wrap:
                self.scroll_to(x=0, animate=False, immediate=True, force=True)
            self.sync(self.follow)

    def _virtual(self) -> Size:
        rows = self.buffer.rows
        if not self.wrap:
            return Size(self.buffer.width, rows)
        # One virtual row per log row, plus what the last screenful's wrapping needs: the
        # largest offset then puts the last line on the bottom row.
        region = self.scrollable_content_region
        width, height = max(1, region.width), max(1, region.height)
        return Size(width, self._top_for(rows, height, width) + height)

    def _height_of(self, row: int, width: int) -> int:
        """Screen rows a log row takes when wrapped at `width`."""
        line = self.buffer.line_at(row)
        cells = len(line.text) if line.text.isascii() else cell_len(line.text)
        if line.label:
            cells += len(line.label) + 3
        return max(1, -(-cells // width))

    def _top_for(self, end: int, height: int, width: int) -> int:
        """The first of the rows before `end` that fill `height` screen rows when wrapped
        (at least one row)."""
        used, top = 0, end
        while top > 0:
            need = self._height_of(top - 1, width)
            if used + need > height and top < end:
                break
            used += need
            top -= 1
        return top

    def on_resize(self) -> None:
        if self.wrap:
            self.sync(self.follow)

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

    def bottom_row(self) -> int:
        """The last log row on screen (wrapped rows counted as they were last drawn)."""
        shown = self._shown_rows if self.wrap else self.scrollable_content_region.height
        return max(0, min(self.buffer.rows - 1, int(self.scroll_y) + max(1, shown) - 1))

    def show_row(self, row: int) -> None:
        """Put `row` in view (a third from the top, like less) and mark it current."""
        self.current_row = row
        region = self.scrollable_content_region
        if self.wrap:
            target = self._top_for(row, region.height // 3, max(1, region.width)) if region.height >= 3 else row
        else:
            target = max(0, row - region.height // 3)
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
        if self.wrap:  # a page of wrapped rows, not `height` log rows
            region = self.scrollable_content_region
            top = self._top_for(int(self.scroll_y), region.height, max(1, region.width))
            self.scroll_to(y=top, animate=False, immediate=True)
            return
        super().action_page_up()

    def action_page_down(self) -> None:
        if self.wrap:
            step = max(1, self._shown_rows - 1)
            self.scroll_to(y=self.scroll_y + step, animate=False, immediate=True)
            return
        super().action_page_down()

    def action_scroll_left(self) -> None:
        self._jump_x(-1)

    def action_scroll_right(self) -> None:
        self._jump_x(+1)

    def _jump_x(self, step: int) -> None:
        """Half a screen sideways: a long line is read in two or three presses."""
        half = max(1, self.scrollable_content_region.width // 2)
        self.scroll_to(x=max(0, self.scroll_x + step * half), animate=False, immediate=True)

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

    def _row_style(self, flags: int, base: Style) -> Style:
        if flags & ERROR:
            return base + self._style("log-view--error")
        if flags & WARN:
            return base + self._style("log-view--warn")
        if flags & NOTE:
            return base + self._style("log-view--note")
        if flags & BATCH:
            return base + self._style("log-view--batch")
        return base

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every row of this frame shares, looked up once (each is a walk of styles).
        self._frame = (self.scroll_offset, self.scrollable_content_region.width, self.rich_style)
        if self.wrap:
            self._wrapped = self._wrap_screen(self._frame)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None
            self._wrapped = []

    def _wrap_screen(self, frame: Frame) -> list[Strip]:
        """The screen's rows, from the top log row down, each line cut at the width. At
        the end the last line sits on the bottom row (the top one may show only its end)."""
        (_x, top), width, base = frame
        width = max(1, width)
        height = self.scrollable_content_region.height
        rows = self.buffer.rows
        if top >= self.max_scroll_y and rows:
            out: list[Strip] = []
            row = rows
            while len(out) < height and row > 0:
                row -= 1
                out[:0] = self._wrap_row(row, width, base)
            self._shown_rows = rows - row
            return out[-height:]
        out = []
        row = top
        while len(out) < height and row < rows:
            out += self._wrap_row(row, width, base)
            row += 1
        self._shown_rows = row - top
        return out[:height]

    def _wrap_row(self, row: int, width: int, base: Style) -> list[Strip]:
        strip, fill = self._line_strip(row, base)
        cells = strip.cell_length
        if cells <= width:
            return [strip.extend_cell_length(width, fill)]
        cuts = [*range(width, cells, width), cells]  # divide() wants the end as the last cut
        return [piece.extend_cell_length(width, fill) for piece in strip.divide(cuts)]

    _frame: Frame | None = None

    def render_line(self, y: int) -> Strip:
        frame = self._frame
        if frame is None:
            frame = (self.scroll_offset, self.scrollable_content_region.width, self.rich_style)
        (scroll_x, scroll_y), width, base = frame
        if self.wrap:
            wrapped = self._wrapped or self._wrap_screen(frame)  # (a lone line's refresh)
            return wrapped[y] if y < len(wrapped) else Strip.blank(width, base)
        row = scroll_y + y
        buffer = self.buffer
        if row >= buffer.rows:
            return Strip.blank(width, base)
        line = buffer.line_at(row)
        style = self._row_style(line.flags, base)
        text = line.text
        if not line.label and self.search is None and row != self.current_row and text.isascii():
            # the common row: one cell a character, so crop and pad by slicing
            piece = text[scroll_x:scroll_x + width]
            if len(piece) == width:
                return Strip([Segment(piece, style)], width)
            return Strip([Segment(piece, style), Segment(" " * (width - len(piece)), base)], width)
        strip, fill = self._line_strip(row, base)
        return strip.crop_extend(scroll_x, scroll_x + width, fill)

    def _line_strip(self, row: int, base: Style) -> tuple[Strip, Style]:
        """Row `row` whole (badge, matches and the current mark applied), and the style
        that pads it to the width."""
        line = self.buffer.line_at(row)
        flags = line.flags
        style = self._row_style(flags, base)
        text = line.text
        segments: list[Segment] = []
        if line.label:
            badge = self._style("log-view--label-error" if flags & ERROR else "log-view--label-warn")
            segments.append(Segment(f" {line.label} ", base + badge))
            segments.append(Segment(" ", style))
        if self.search is not None and (matches := list(itertools.islice(self.search.finditer(text),
                                                                         MAX_HIGHLIGHTS))):
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
            return strip.apply_style(self._style("log-view--current")), style
        return strip, base
