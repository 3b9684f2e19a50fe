"""The focus marker: the pane that has the keys says so in its title, in any theme and in a
plain terminal capture (a colour alone is lost in `tmux capture-pane`; issue 39: keys typed
after `/` on the board ran as board commands because nothing showed where they went).

A pane with the `FocusMarked` mixin shows `▶ ` before its border title while it or a
widget inside it has the focus (and has the `-focused` class, which the stylesheets draw as
a heavy border). Its own code keeps setting `border_title` as before: the marker is added
when the title is drawn and read back without it.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widget import Widget

MARK = "▶ "
"""Before the focused pane's title: readable in a plain capture, the same in every theme."""
UNTITLED = "keys here"
"""The title a focused pane without one shows after the marker."""

_TEXTUAL_TITLE: Any = Widget.__dict__["border_title"]  # Textual's descriptor: parses and stores


def marked(widget: Widget, title: object, on: bool) -> object:
    """`title` as drawn: with the marker while the pane has the focus (a str title read as
    Textual reads it, markup and all)."""
    if not on:
        return title
    if title is None or str(title) == "":
        return MARK + UNTITLED
    if isinstance(title, Content):
        return Content(MARK) + title
    return Content(MARK) + widget.render_str(str(title))


class _MarkedTitle:
    """`border_title` of a FocusMarked pane: set as usual, drawn with the marker when focused."""

    def __set__(self, obj: Widget, title: object) -> None:
        obj.__dict__["_title_base"] = title
        _TEXTUAL_TITLE.__set__(obj, marked(obj, title, obj.has_class("-focused")))

    def __get__(self, obj: Widget | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        base = obj.__dict__.get("_title_base")
        if base is None:
            return None
        return _TEXTUAL_TITLE.__get__(obj, objtype) if not obj.has_class("-focused") else (
            base.markup if isinstance(base, Content) else str(base))


class FocusMarked:
    """Mixin for a focusable pane: `-focused` and the title marker follow the focus."""

    border_title = _MarkedTitle()

    def _sync_focus_mark(self) -> None:
        widget = self
        assert isinstance(widget, Widget)  # a mixin of widgets
        try:
            focused = widget.screen.focused
        except Exception:  # noqa: BLE001  # not on a screen (yet): nothing is focused here
            focused = None
        on = focused is not None and (focused is widget or widget in focused.ancestors)
        if on == widget.has_class("-focused"):
            return
        base = widget.__dict__.get("_title_base")
        widget.set_class(on, "-focused")
        _TEXTUAL_TITLE.__set__(widget, marked(widget, base, on) if (base is not None or on) else None)

    def on_focus(self) -> None:
        self._sync_focus_mark()

    def on_blur(self) -> None:
        self._sync_focus_mark()

    def on_descendant_focus(self) -> None:
        self._sync_focus_mark()

    def on_descendant_blur(self) -> None:
        self._sync_focus_mark()
