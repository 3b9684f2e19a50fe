"""Focus a widget now, not after the keys already queued.

Textual's `Widget.focus()` defers the change (`call_later`), so a key typed right after the
one that moved focus ("2" then "e", as fast as a person types or a paste sends) still
reaches the widget being left. A tab switch and a pane switch focus through this instead.
"""

from __future__ import annotations

from textual.widget import NoScreen, Widget


def focus_now(widget: Widget) -> None:
    try:
        widget.screen.set_focus(widget)
    except NoScreen:  # not mounted (yet): the deferred way, as Textual does
        widget.focus()
