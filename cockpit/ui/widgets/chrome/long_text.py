"""A Static for a long text (the handoff: ~600 lines), wrapped once per width and drawn a
line at a time.

Textual's Static wraps its whole text to measure it, wraps it again to draw it, and draws
every line, on each refresh: every layout of the screen and every focus move that repaints
it. For a 600-line handoff that was 50-60 ms a time, more than once per visit of its tab
(issue 39: the key after `0`). This one wraps once per width (the height is the number of
wrapped lines; the text may come wrapped already, from another thread) and draws only the
lines the screen asks for, each once until the text, the width or the style changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import VisualType
from textual.widgets import Static

Wrapped = tuple[tuple[object, ...], list[Any]]
"""(the width and text rules, Textual's formatted lines of the text wrapped with them)."""


class LongText(Static):
    """A Static whose wrapped lines and drawn lines are kept until `update`."""

    def __init__(self, content: VisualType = "", *, classes: str | None = None) -> None:
        super().__init__(content, classes=classes)
        self._wrapped: Wrapped | None = None
        self._drawn: tuple[tuple[int, Style], dict[int, Strip]] | None = None

    def update(self, content: VisualType = "", *, layout: bool = True, wrapped: Wrapped | None = None) -> None:
        """Show `content`; `wrapped`: it wrapped already (by `wrapper`, in another thread)."""
        super().update(content, layout=layout)
        self._wrapped, self._drawn = wrapped, None

    def _key(self, width: int) -> tuple[object, ...]:
        rules = self.styles
        return width, rules.text_align, rules.text_overflow, rules.text_wrap, rules.line_pad

    def wrapper(self, width: int) -> Callable[[Content], Wrapped]:
        """A function that wraps a text at `width` as this widget does, callable from any
        thread (wrapping reads only the immutable Content; styles are looked up when drawn)."""
        key, get_style, rules = self._key(width), self._get_style, self.styles
        align, overflow, text_wrap, line_pad = rules.text_align, rules.text_overflow, rules.text_wrap, rules.line_pad

        def wrap(content: Content) -> Wrapped:
            return key, content._wrap_and_format(width, align=align, overflow=overflow,
                                                 no_wrap=text_wrap == "nowrap", line_pad=line_pad,
                                                 tab_size=8, get_style=get_style)
        return wrap

    def _lines(self, width: int) -> list[Any] | None:
        """The text wrapped at `width` as Static draws it (Content's own wrapping), or None
        for a visual that is not Content."""
        visual = self._render()
        if not isinstance(visual, Content):
            return None
        if self._wrapped is None or self._wrapped[0] != self._key(width):
            self._wrapped = self.wrapper(width)(visual)
        return self._wrapped[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        lines = self._lines(width) if width else None
        return len(lines) if lines is not None else super().get_content_height(container, viewport, width)

    def render_line(self, y: int) -> Strip:
        width, style = self.size.width, self.visual_style
        lines = self._lines(width) if width and self.text_selection is None else None
        if lines is None:  # a selection being drawn, or not Content: as Static draws it
            return super().render_line(y)
        if self._drawn is None or self._drawn[0] != (width, style):
            self._drawn = ((width, style), {})
        drawn = self._drawn[1]
        if y not in drawn:
            drawn[y] = Strip(*lines[y].to_strip(style)) if y < len(lines) else Strip.blank(width, style.rich_style)
        return drawn[y]
