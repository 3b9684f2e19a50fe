"""Panes fed at a high rate draw at most 30 times a second, and again on resize or theme change."""

from __future__ import annotations

import time


class RedrawOnce:
    """Mix into a widget that defines `_redraw()`; call `_schedule_render()` on every change.

    The redraw is a callback in the pane's own message queue (`call_later`), not the
    screen's after-refresh queue: `call_after_refresh` queues on whichever screen is on
    top, so a redraw asked for while a form was open went to the form, was dropped with
    it when the form closed, and the pane, still waiting for it, never drew again.
    """

    REDRAW_INTERVAL_S = 1 / 30
    """At most this often: a burst of items (a reconnect's backlog) is one drawing."""

    state_text = ""
    """The pane's state line (the source's description, "reconnecting in 8 s", ...)."""
    _render_pending = False
    _drawn_at = 0.0

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._schedule_render())  # type: ignore[attr-defined]
        self._schedule_render()

    def on_resize(self) -> None:
        # Also how a pane hidden on another tab (size 0, not drawn) is drawn when shown.
        self._schedule_render()

    def set_state(self, text: str) -> None:
        self.state_text = text
        self._schedule_render()

    def _schedule_render(self) -> None:
        if self._render_pending or not self.is_mounted:  # type: ignore[attr-defined]
            return
        self._render_pending = True
        wait = self._drawn_at + self.REDRAW_INTERVAL_S - time.monotonic()
        if wait > 0:
            self.set_timer(wait, self._redraw_if_shown)  # type: ignore[attr-defined]
        else:
            self.call_later(self._redraw_if_shown)  # type: ignore[attr-defined]

    def _redraw_if_shown(self) -> None:
        # Hidden (another tab, a narrow layout) or not laid out yet: nothing to measure the
        # columns against; the resize that shows the pane draws it.
        if not self.size.width:  # type: ignore[attr-defined]
            self._render_pending = False
            return
        self._drawn_at = time.monotonic()
        self._redraw()

    def _redraw(self) -> None:
        raise NotImplementedError
