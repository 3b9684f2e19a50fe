"""Helpers shared by the TUI tests: building the app, waiting, reading the screen."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget

from waits import patience

from cockpit.model.enums import TaskStatus
from cockpit.store.toml_store import load_session
from cockpit.ui.theme.themes import DEFAULT_THEME, load_themes, role_defaults, shipped_theme_dir

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "sessions" / "glm5-nvfp4.toml"
FROZEN = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)


def make_app(path: Path, **kwargs: Any):  # noqa: ANN201
    """The app on `path` with the clock frozen and the file watcher off (tests call check_disk)."""
    from cockpit.ui.app import CockpitApp

    kwargs.setdefault("clock", lambda: FROZEN)
    kwargs.setdefault("watch_interval_s", None)
    return CockpitApp(load_session(path), path, **kwargs)


async def until(predicate: Callable[[], bool], pilot, timeout: float = 5.0) -> None:  # noqa: ANN001
    async def wait() -> None:
        while not predicate():
            await pilot.pause(0.02)

    await asyncio.wait_for(wait(), patience(timeout))


def task(app, ident: str):  # noqa: ANN001, ANN201
    return next((t for t in app.editor.session.tasks if t.id == ident), None)


def status(app, ident: str) -> TaskStatus | None:  # noqa: ANN001
    item = task(app, ident)
    return item.status if item else None


def column_ids(app, status: TaskStatus) -> list[str]:  # noqa: ANN001
    from cockpit.model.edit.edits import SessionEditor

    return [t.id for t in SessionEditor.column(app.editor.session, status)]


def screen_text(app) -> str:  # noqa: ANN001
    """What a person sees, as plain text lines (from the compositor)."""
    import io

    from rich.console import Console

    # The one place tests reach into Textual's privates: the same render export_screenshot uses.
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def palette_shows(app, pilot, text: str) -> None:  # noqa: ANN001
    """Wait until the command palette highlights the command named `text`. Its search runs
    in a worker and fills the list in batches: Enter pressed after a fixed pause picked nothing,
    or a match for fewer letters, on a loaded machine."""
    from textual.command import CommandList, CommandPalette

    def ready() -> bool:
        screen = app.screen
        if not isinstance(screen, CommandPalette):
            return False
        found = screen.query(CommandList)
        listed = found.first() if found else None
        if listed is None or listed.highlighted is None:
            return False
        hit = getattr(listed.get_option_at_index(listed.highlighted), "hit", None)
        return hit is not None and text.lower() in (hit.text or "").lower()

    await until(ready, pilot)


def keys_for(text: str) -> list[str]:
    """Pilot key names for literal text (space and punctuation have names)."""
    names = {" ": "space", ">": "greater_than_sign", "<": "less_than_sign", "=": "equals_sign",
             "-": "minus", ".": "full_stop", "/": "slash", "?": "question_mark", ",": "comma",
             ":": "colon", "_": "underscore"}
    return [names.get(ch, ch) for ch in text]



class OnePaneApp(App[None]):
    """One pane filling the screen, the cockpit themes loaded, the default theme on;
    `items` are fed to it on mount, then `after(pane)` runs."""

    CSS = "Screen { layout: vertical; } Screen > * { height: 1fr; }"
    TITLE = "PaneApp"  # the window title the pane snapshots were taken with

    def __init__(self, pane: Callable[[], Widget], items: Sequence[Any] = (),
                 after: Callable[[Widget], None] | None = None) -> None:
        super().__init__()
        themes, problems = load_themes([shipped_theme_dir()])
        assert not problems
        for theme in themes:
            self.register_theme(theme)
        self.theme = DEFAULT_THEME
        self._pane = pane
        self._items = list(items)
        self._after = after

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return role_defaults(self.current_theme.to_color_system().generate())

    def compose(self) -> ComposeResult:
        yield self._pane()

    def on_mount(self) -> None:
        pane = self.screen.children[0]
        for item in self._items:
            pane.feed(item)  # type: ignore[attr-defined]
        if self._after is not None:
            self._after(pane)


def fill(form, **values: str) -> None:  # noqa: ANN001
    """Set form fields by name: a line's value, a text area's text."""
    from textual.widgets import TextArea

    for name, value in values.items():
        widget = form.query_one(f"#field-{name}")
        if isinstance(widget, TextArea):
            widget.text = value
        else:
            widget.value = value
