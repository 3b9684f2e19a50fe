"""'Where you left off': the last action, what to do next and the fallback, shown on open,
and the latest automatic step beside them."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from cockpit.model.session import Activity, LastAction
from cockpit.ui.safe_text import safe


def when_text(last: LastAction) -> str:
    return last.when.strftime("%Y-%m-%d %H:%M %Z") if last.when else "earlier"


def activity_when(step: Activity) -> str:
    return step.when.strftime("%H:%M %Z") if step.when else "later"


COMPACT_BELOW = 100
"""Columns below which the banner is one line each for what, next and fallback (each cut
at the edge) instead of a paragraph whose end (the fallback) falls off its last row."""


class LeftOffBanner(Static):
    _last: LastAction | None = None
    _compact: bool | None = None

    def on_resize(self) -> None:
        compact = self.size.width < COMPACT_BELOW
        if compact != self._compact and self._last is not None:
            self.show(self._last)

    def follow(self, last: LastAction | None) -> None:
        """The session changed: show its last action (an automatic step beside it, too)
        unless the person hid the banner."""
        if self.display and last != self._last:
            self.show(last)

    def show(self, last: LastAction | None) -> None:
        self._last = last
        if last is None:
            self.display = False
            return
        self._compact = compact = 0 < self.size.width < COMPACT_BELOW
        self.set_class(compact, "-compact")
        if compact:
            lines: list[str | tuple[str, str]] = [("Left off ", "bold $accent"), safe(last.text),
                                                  ("  x hides", "$foreground-muted")]
            if last.next_step:
                lines += ["\n", ("next ", "bold $accent"), safe(last.next_step)]
            if last.fallback:
                lines += ["\n", ("fallback ", "bold $accent"), safe(last.fallback)]
            if last.activity is not None:
                lines += ["\n", ("since ", "bold $foreground-muted"), safe(last.activity.text)]
            self.update(Content.assemble(*lines))
            return
        parts: list[str | tuple[str, str]] = [
            ("Where you left off ", "bold $accent"), (f"({when_text(last)}) ", "$foreground-muted"),
            safe(last.text),
        ]
        if last.next_step:
            parts += [("  next: ", "bold $accent"), safe(last.next_step)]
        if last.fallback:
            parts += [("  fallback: ", "bold $accent"), safe(last.fallback)]
        if last.activity is not None:  # an automatic step beside the person's words, never over them
            parts += [("  since: ", "bold $foreground-muted"), safe(last.activity.text),
                      (f" ({activity_when(last.activity)})", "$foreground-muted")]
        parts.append(("  [x hides]", "$foreground-muted"))
        self.update(Content.assemble(*parts))
