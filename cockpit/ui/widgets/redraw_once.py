"""Panes fed at a high rate draw at most once a frame, and again on resize or theme change."""

from __future__ import annotations


class RedrawOnce:
    """Mix into a widget that defines `_redraw()`; call `_schedule_render()` on every change."""

    state_text = ""
    """The pane's state line (the source's description, "reconnecting in 8 s", ...)."""
    _render_pending = False

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._schedule_render())  # type: ignore[attr-defined]
        self._schedule_render()

    def on_resize(self) -> None:
        self._schedule_render()

    def set_state(self, text: str) -> None:
        self.state_text = text
        self._schedule_render()

    def _schedule_render(self) -> None:
        if self._render_pending or not self.is_mounted:  # type: ignore[attr-defined]
            return
        self._render_pending = True
        self.call_after_refresh(self._redraw)  # type: ignore[attr-defined]

    def _redraw(self) -> None:
        raise NotImplementedError
