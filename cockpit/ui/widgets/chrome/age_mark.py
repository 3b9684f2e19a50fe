"""A live pane's data age in its border subtitle; the pane gets `-stale-data` when stale
(each pane's .tcss gives that the warning style)."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from cockpit.live.data_age import DataAge

STALE_CLASS = "-stale-data"


def show_age(pane: Widget, age: DataAge, *, before: str = "") -> None:
    """Set the subtitle to `before · <age>`; called on new data and by the app's 1 Hz tick,
    so it only touches the border when the words change."""
    text = " · ".join(part for part in (before, age.text()) if part)
    if getattr(pane, "_age_subtitle", None) != text:
        pane._age_subtitle = text  # type: ignore[attr-defined]
        pane.border_subtitle = Content(text)  # Content: never read as markup
    pane.set_class(age.stale(), STALE_CLASS)
