"""What every cockpit App shares: the themes with their roles, toasts that quote data,
and the collector settling once the app is built.

`CockpitApp` (the whole cockpit) and `LogApp` (`cockpit log`) both derive from it, so a
theme, a toast or a GC rule is decided once.
"""

from __future__ import annotations

import time
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
from cockpit.ui.widgets.log.log_pane import LogPane

if TYPE_CHECKING:
    from textual.notifications import Notification
    from textual.timer import Timer

    from cockpit.ui.toasts import Toast, ToastOptions

TOAST_REDRAW_S = 0.1
"""After a toast goes, when the screen is drawn whole (its cells repainted for sure)."""

class CockpitAppBase(App[None]):
    def __init__(self, *, theme: str | None = None, theme_dirs: list[Path] | None = None) -> None:
        """`theme`: the one to start with (falls back to the default, then Textual's);
        `theme_dirs`: where theme files are read (None: shipped, then the user's)."""
        super().__init__()
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

    _held_toasts: list[Toast] = []
    _taken_down: list[Toast] = []
    _held_timer: Timer | None = None

    def notify(self, message: str, *, title: str = "", markup: bool = False, **options: Unpack[ToastOptions]) -> None:
        """Every toast (widgets' `notify` lands here too) quotes data: sanitized, never markup
        (`[/bogus]` in a value would raise MarkupError, `[a-z]` would be eaten).

        One toast per event (ui/toasts.py): the same words while shown are not stacked again,
        a burst is one toast, and none covers a dialog waiting for the person (held until it closes)."""
        from cockpit.ui.toasts import asking_the_person, capped

        text, head = safe(message, multiline=True), safe(title)
        options = capped(options)
        if asking_the_person(self):
            self._queue_held(text, head, options)
            return
        self._show_toast(text, head, options)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """A dialog opening over toasts still up takes them down; each comes back as it was
        when it closes (a "Started l1" toast sat over the sweep's confirm)."""
        from cockpit.ui.toasts import is_dialog

        if is_dialog(screen) and len(self._notifications):  # taken down from the screen beneath first
            self._hold(list(self._notifications))
        return super().push_screen(screen, *args, **kwargs)

    def _hold(self, shown: list[Notification]) -> None:
        from cockpit.ui.toasts import ToastLog

        log = getattr(self, "_toast_log", None)
        for notification in shown:
            if isinstance(log, ToastLog):  # shown again on release, not taken for a repeat
                log.shown_until.pop(notification.message, None)
            left = notification.time_left  # back alone, for the time it had left: joined with
            if left >= 1:                  # others, or whole again, toasts snowballed dialog by dialog
                self._taken_down = [*self._taken_down, (notification.message, notification.title,
                                                        {"severity": notification.severity, "timeout": left})]
        self.clear_notifications()
        self._release_later()

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

    def _queue_held(self, text: str, head: str, options: ToastOptions) -> None:
        self._held_toasts = [*self._held_toasts, (text, head, options)]
        self._release_later()

    def _release_later(self) -> None:
        if self._held_timer is None:
            self._held_timer = self.set_interval(0.2, self._release_held_toasts)

    def _show_toast(self, text: str, head: str, options: ToastOptions) -> None:
        from cockpit.ui.toasts import BURST_S, ToastLog

        if not isinstance(getattr(self, "_toast_log", None), ToastLog):
            self._toast_log = ToastLog()
        log: ToastLog = self._toast_log
        now = time.time()
        if log.seen(text, now):
            return  # the same event again: one toast
        if log.in_burst(now):  # joins the toast shown just before, shown as one when the burst ends
            if not log.pending:
                self.set_timer(BURST_S, self._end_toast_burst)
            log.pending.append((text, head, options))
            log.note(text, now, options)
            return
        log.start(text, now, options)
        super().notify(text, title=head, markup=False, **options)

    def _end_toast_burst(self) -> None:
        from cockpit.ui.toasts import held_as_one

        log = self._toast_log
        pending, log.pending = log.pending, []
        if not pending:
            return
        first = [n for n in self._notifications if n.message == log.first_text]
        for shown in first:
            self._unnotify(shown)
        text, head, options = held_as_one([(log.first_text, "", log.first_options), *pending])
        log.first_text, log.first_options = text, options
        super().notify(text, title=head, markup=False, **options)

    def _release_held_toasts(self) -> None:
        from cockpit.ui.toasts import asking_the_person, held_as_one

        if asking_the_person(self):
            return
        if self._held_timer is not None:
            self._held_timer.stop()
            self._held_timer = None
        back, self._taken_down = self._taken_down, []
        for text, head, options in back:
            super().notify(text, title=head, markup=False, **options)
        held, self._held_toasts = self._held_toasts, []
        if held:
            text, head, options = held_as_one(held)
            self._show_toast(text, head, options)

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
