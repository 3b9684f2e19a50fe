"""'Where you left off': the last action, what to do next and the fallback, shown on open."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from cockpit.model.session import LastAction
from cockpit.ui.safe_text import safe


def when_text(last: LastAction) -> str:
    return last.when.strftime("%Y-%m-%d %H:%M %Z") if last.when else "earlier"


class LeftOffBanner(Static):
    def show(self, last: LastAction | None) -> None:
        if last is None:
            self.display = False
            return
        parts: list[str | tuple[str, str]] = [
            ("Where you left off ", "bold $accent"), (f"({when_text(last)}) ", "$foreground-muted"),
            safe(last.text),
        ]
        if last.next_step:
            parts += [("  next: ", "bold $accent"), safe(last.next_step)]
        if last.fallback:
            parts += [("  fallback: ", "bold $accent"), safe(last.fallback)]
        parts.append(("  [x hides]", "$foreground-muted"))
        self.update(Content.assemble(*parts))
