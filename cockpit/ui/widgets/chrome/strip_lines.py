"""Lines of styled text drawn through Textual's line API.

A `Static` re-renders all of its content through Textual's content pipeline on every
update; the GPU table changes once a second, and that pipeline was most of the idle
cockpit's paint time. `StripLines` keeps one Rich `Text` per line, repaints only the lines
whose text or styles changed, and turns a line into segments only when Textual draws it.
Lines longer than the widget are cropped (no wrapping): a table row stays one row.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from cockpit.ui.safe_text import inert_renderable


class StripLines(Widget):
    DEFAULT_CSS = "StripLines { height: auto; }"

    def __init__(self, *, classes: str | None = None, id: str | None = None) -> None:
        super().__init__(classes=classes, id=id)
        self._text = Text()
        self._lines: list[Text] = []
        self._base: Style | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None  # CSS or theme changed: the widget's own colours with it

    @property
    def content(self) -> Text:
        """What the widget shows (after the sanitizer), as one Text."""
        return self._text

    def show(self, text: Text | str) -> None:
        """Show `text` (host output is made inert here); a no-op when nothing changed."""
        shown = inert_renderable(Text(text) if isinstance(text, str) else text)
        lines = list(shown.split("\n", allow_blank=True)) if shown.plain else []
        old, self._text, self._lines = self._lines, shown, lines
        if len(lines) != len(old):
            self.refresh(layout=True)
            return
        width = self.size.width
        changed = [Region(0, y, width, 1) for y, (new, was) in enumerate(zip(lines, old))
                   if new != was]  # Text: the same characters and the same styled spans
        if changed:
            self.refresh(*changed)

    def render(self) -> Text:
        """The whole text (what `Static.render` gives): drawing goes through `render_line`."""
        return self._text

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max((line.cell_len for line in self._lines), default=0)

    def render_line(self, y: int) -> Strip:
        if self._base is None:  # computing it walks the ancestors' styles: once, not per line
            self._base = self.rich_style
        base = self._base
        if y >= len(self._lines):
            return Strip.blank(self.size.width, base)
        line = self._lines[y]
        segments = Segment.apply_style(line.render(self.app.console), base)
        return Strip(segments, line.cell_len).crop_extend(0, self.size.width, base)
