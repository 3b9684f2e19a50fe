"""What a cockpit App is, over Textual's: the themes with their roles, toasts that quote
data (one per event: ui/toasts.py's ToastDesk, which the app owns), the terminal's hangup,
the keymap's key names, and the collector settling once the app is built.

`CockpitApp` (the whole cockpit) and `LogApp` (`cockpit log`) are both cockpit Apps, so a
theme, a toast or a GC rule is decided once. It holds Textual's overrides (they must be the
App's own methods); the toasts' rules are the desk's.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from textual.app import App, SystemCommand
from textual.driver import Driver
from textual.screen import Screen

from cockpit.ui import gc_settle
from cockpit.ui.keys.actions import ACTIONS
from cockpit.ui.keys.commands import textual_commands
from cockpit.ui.safe_text import safe
from cockpit.ui.theme.themes import DEFAULT_THEME, ThemeProblem, load_themes, role_defaults
from cockpit.ui.toasts import ToastDesk, ToastOptions
from cockpit.ui.widgets.log.pane import LogPane

if TYPE_CHECKING:
    from textual.notifications import Notification

TOAST_REDRAW_S = 0.1
"""After a toast goes, when the screen is drawn whole (its cells repainted for sure)."""

class CockpitAppBase(App[None]):
    def __init__(self, *, theme: str | None = None, theme_dirs: list[Path] | None = None) -> None:
        """`theme`: the one to start with (falls back to the default, then Textual's);
        `theme_dirs`: where theme files are read (None: shipped, then the user's)."""
        super().__init__()
        self.toasts = ToastDesk(self, self._show_toast)
        themes, self.theme_problems = load_themes(theme_dirs)
        for item in themes:
            self.register_theme(item)
        self.theme_names = [t.name for t in themes]
        wanted = theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else self._fallback_theme()
        self._theme_missing = wanted if wanted not in self.available_themes else None

    def _fallback_theme(self) -> str:
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"

    def get_driver_class(self) -> type[Driver]:
        # A closed terminal ends the app (see terminal_driver) instead of hanging it.
        chosen = super().get_driver_class()
        if chosen.__module__ == "textual.drivers.linux_driver" and chosen.__name__ == "LinuxDriver":
            from cockpit.ui.terminal_driver import TerminalDriver

            return TerminalDriver
        return chosen

    def terminal_hung_up(self) -> None:
        """The terminal is gone (every write fails): end as SIGHUP does, with no question."""
        self.exit()

    def last_resort_cleanup(self) -> None:
        """What must go even when the exit hangs after a hangup (the demo's temporary folder)."""

    keymap: dict[str, str] = {}
    """Binding id -> keys, the person's overrides (CockpitApp reads keymap.toml)."""

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        return textual_commands(super().get_system_commands(screen))

    def bound_key_displays(self) -> dict[str, str]:
        """Binding id -> the key shown for it, after any keymap override."""
        out = {}
        for spec in ACTIONS:
            binding = spec.binding()
            if spec.id in self.keymap:
                binding = binding.with_key(self.keymap[spec.id])
            out[spec.id] = ", ".join(self.get_key_display(binding.with_key(key, binding.key_display if i == 0 else None))
                                     for i, key in enumerate(binding.key.split(",")))
        return out

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Roles a theme leaves out (Textual's built-in ones) map onto its base colours.
        return role_defaults(self.current_theme.to_color_system().generate())

    def notify(self, message: str, *, title: str = "", markup: bool = False, **options: Unpack[ToastOptions]) -> None:
        """Every toast (widgets' `notify` lands here too) quotes data: sanitized, never markup
        (`[/bogus]` in a value would raise MarkupError, `[a-z]` would be eaten).

        One toast per event (ui/toasts.py's ToastDesk): the same words while shown are not
        stacked again, a burst is one toast, and none covers a dialog waiting for the person
        (held until it closes)."""
        self.toasts.notify(safe(message, multiline=True), safe(title), options)

    def _show_toast(self, text: str, head: str, options: ToastOptions) -> None:
        """A toast up, as Textual shows it (the desk has decided it is shown)."""
        super().notify(text, title=head, markup=False, **options)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        self.toasts.dialog_opens(screen)  # a dialog takes the toasts down until it closes
        return super().push_screen(screen, *args, **kwargs)

    def _unnotify(self, notification: Notification, refresh: bool = True) -> None:
        """A toast gone (its timeout, esc, a dialog): the screen is drawn whole a moment later.
        Textual's repaint of the cells a toast covered sometimes never reached the terminal: a
        startup toast stood until the next key, and a toast left its `▌` bar behind (issue 39,
        seen in tmux at 80x24 and 200x50; headless captures never showed it)."""
        super()._unnotify(notification, refresh=refresh)
        self.set_timer(TOAST_REDRAW_S, self._redraw_after_toast)

    def _redraw_after_toast(self) -> None:
        if self.screen_stack:
            self.screen.refresh()

    def report_theme_problems(self) -> None:
        problems: list[ThemeProblem] = self.theme_problems
        for problem in problems:
            self.notify(f"Theme file skipped: {problem}", severity="error", timeout=10)
        if self._theme_missing:
            self.notify(f"Theme '{self._theme_missing}' not found; using {self.theme}", severity="warning")

    def on_log_pane_prompt_requested(self, message: LogPane.PromptRequested) -> None:
        """A log pane's search or filter question, in the one-line dialog."""
        from cockpit.ui.screens.prompt import PromptScreen

        self.push_screen(PromptScreen(message.question, message.value), message.then)

    def on_load(self) -> None:
        """The app starts running: no collections while it is built (settled after the first frame)."""
        gc_settle.hold()

    def settle_after_first_frame(self) -> None:
        """The app is built: its objects leave the collector's walks (given back on exit)."""
        self.call_after_refresh(gc_settle.settle)

    def on_unmount(self) -> None:
        gc_settle.release()
