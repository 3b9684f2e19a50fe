"""A live pane's data age in its border subtitle; the pane gets `-stale-data` when stale
(each pane's .tcss gives that the warning style)."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget

from cockpit.live.data_age import DataAge

STALE_CLASS = "-stale-data"


def show_age(pane: Widget, age: DataAge, *, before: str = "") -> None:
    """Set the subtitle to `before · <age>`; called on new data and by the app's 1 Hz tick,
    so it only touches the border when the words change."""
    text = " · ".join(part for part in (before, age.text()) if part)
    if getattr(pane, "_age_subtitle", None) != text:
        pane._age_subtitle = text  # type: ignore[attr-defined]
        set_subtitle(pane, Content(text))  # Content: never read as markup
    pane.set_class(age.stale(), STALE_CLASS)


def set_subtitle(pane: Widget, subtitle: Content) -> None:
    """Set the border subtitle, repainting only the bottom border line.

    Textual's `border_subtitle` setter repaints the whole pane; the age ticks once a second,
    and repainting a 17-line log pane for it was a third of the idle cockpit's paint time.
    Where the pane has no bottom border to draw on (or is not laid out yet), the setter runs.
    """
    height, width = pane.outer_size.height, pane.outer_size.width
    if not pane.is_mounted or height < 2 or width < 1 or not pane.styles.border_bottom[0] \
            or pane.styles.border_bottom[0] in ("none", "hidden"):
        pane.border_subtitle = subtitle
        return
    # what the setter stores: the content's first line, tabs expanded
    pane._border_subtitle = pane.render_str(subtitle).expand_tabs(4).split()[0]
    offset = pane.content_offset  # refresh() regions are relative to the content area
    pane.refresh(Region(-offset.x, height - 1 - offset.y, width, 1))
