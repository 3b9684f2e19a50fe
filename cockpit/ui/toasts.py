"""One toast per event: what the app's `notify` decides before a toast is shown.

A failed sweep used to stack six toasts over the form the person was typing in. Now the
same words while their toast is up are not shown again, toasts raised within BURST_S of
the last one join it (one toast, its lines in order, the worst severity), and while a
dialog waits for the person (a form, a confirm, the quit question, a prompt) they wait and
come as one when it closes: a toast over a "Start this server?" hid its buttons' words.
Views that only show (`?`, `!`, a record read-only) let toasts through."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from textual.app import App
from textual.notifications import Notification, SeverityLevel
from textual.timer import Timer

BURST_S = 1.5
TOAST_MAX_S = 5.0
"""The longest a toast stays (issue 39: 40 s and more over the work); `esc` takes all down."""
_RANK = {"information": 0, "warning": 1, "error": 2}


class ToastOptions(TypedDict, total=False):
    """`notify`'s keywords past the words and the title (Textual's `App.notify`)."""

    severity: SeverityLevel
    timeout: float | None


Toast = tuple[str, str, ToastOptions]
"""(text, title, options): a toast held or joined, shown later."""


def capped(options: ToastOptions) -> ToastOptions:
    """`options` with the timeout at most TOAST_MAX_S (what needs longer goes to a screen)."""
    timeout = options.get("timeout")
    return {**options, "timeout": TOAST_MAX_S if timeout is None else min(float(timeout), TOAST_MAX_S)}


def is_dialog(screen: object) -> bool:
    """A screen the person must answer: a form, a confirm, the quit question, a prompt."""
    from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen
    from cockpit.ui.screens.confirm_run import ConfirmRunScreen
    from cockpit.ui.screens.forms.base import FormScreen
    from cockpit.ui.screens.prompt import PromptScreen

    return isinstance(screen, (FormScreen, ConfirmRunScreen, ConfirmQuitScreen, PromptScreen))


def asking_the_person(app: App[Any]) -> bool:
    """The top screen is a dialog the person must answer (toasts wait until it closes)."""
    return bool(app.screen_stack) and is_dialog(app.screen_stack[-1])


def _worse(a: SeverityLevel, b: SeverityLevel) -> SeverityLevel:  # noqa: D103
    return a if _RANK.get(a, 0) >= _RANK.get(b, 0) else b


@dataclass
class ToastLog:
    """What was shown lately: words still up (not shown again) and the burst being joined."""

    shown_until: dict[str, float] = field(default_factory=dict)
    burst_until: float = 0.0
    first_text: str = ""
    first_options: ToastOptions = field(default_factory=lambda: ToastOptions())
    pending: list[Toast] = field(default_factory=list)

    def seen(self, text: str, now: float) -> bool:
        self.shown_until = {t: until for t, until in self.shown_until.items() if until > now}
        return text in self.shown_until

    def in_burst(self, now: float) -> bool:
        return now < self.burst_until

    def note(self, text: str, now: float, options: ToastOptions) -> None:
        self.shown_until[text] = now + float(options.get("timeout") or 5)

    def start(self, text: str, now: float, options: ToastOptions) -> None:
        self.note(text, now, options)
        self.burst_until = now + BURST_S
        self.first_text, self.first_options = text, options


def _timeout_of(options: ToastOptions) -> float:
    timeout = options.get("timeout", 5)
    return 5 if timeout is None else timeout  # None never comes: `capped` set it


def held_as_one(held: list[Toast]) -> Toast:
    """Toasts held while a dialog was open, as one (repeats once)."""
    lines = list(dict.fromkeys(text for text, _, _ in held))
    severity: SeverityLevel = "information"
    for _, _, options in held:
        severity = _worse(options.get("severity", "information"), severity)
    timeout = max(_timeout_of(options) for _, _, options in held)
    return "\n".join(lines), held[-1][1], {"severity": severity, "timeout": timeout}


class ToastDesk:
    """The toasts of one app, one per event: the app's `notify`, a dialog opening and a toast
    going hand their part here (ui/app_base.py). `show` puts a toast up (Textual's own notify)."""

    def __init__(self, app: App[None], show: Callable[[str, str, ToastOptions], None]) -> None:
        self.app = app
        self._show = show
        self.log = ToastLog()
        self._held: list[Toast] = []  # raised while a dialog waits: shown as one when it closes
        self._taken_down: list[Toast] = []  # up when a dialog opened: back as they were
        self._held_timer: Timer | None = None

    def notify(self, text: str, head: str, options: ToastOptions) -> None:
        """A toast asked for (its words sanitized already)."""
        options = capped(options)
        if asking_the_person(self.app):
            self._held = [*self._held, (text, head, options)]
            self._release_later()
            return
        self._show_toast(text, head, options)

    def dialog_opens(self, screen: object) -> None:
        """A dialog opening over toasts still up takes them down; each comes back as it was
        when it closes (a "Started l1" toast sat over the sweep's confirm)."""
        shown = list(self.app._notifications)  # Textual's toasts up now (its own private list)
        if is_dialog(screen) and shown:  # taken down from the screen beneath first
            self._hold(shown)

    def _hold(self, shown: list[Notification]) -> None:
        for notification in shown:
            self.log.shown_until.pop(notification.message, None)  # shown again on release, not taken for a repeat
            left = notification.time_left  # back alone, for the time it had left: joined with
            if left >= 1:                  # others, or whole again, toasts snowballed dialog by dialog
                self._taken_down = [*self._taken_down, (notification.message, notification.title,
                                                        {"severity": notification.severity, "timeout": left})]
        self.app.clear_notifications()
        self._release_later()

    def _release_later(self) -> None:
        if self._held_timer is None:
            self._held_timer = self.app.set_interval(0.2, self._release_held)

    def _show_toast(self, text: str, head: str, options: ToastOptions) -> None:
        log = self.log
        now = time.time()
        if log.seen(text, now):
            return  # the same event again: one toast
        if log.in_burst(now):  # joins the toast shown just before, shown as one when the burst ends
            if not log.pending:
                self.app.set_timer(BURST_S, self._end_burst)
            log.pending.append((text, head, options))
            log.note(text, now, options)
            return
        log.start(text, now, options)
        self._show(text, head, options)

    def _end_burst(self) -> None:
        log = self.log
        pending, log.pending = log.pending, []
        if not pending:
            return
        for shown in [n for n in self.app._notifications if n.message == log.first_text]:
            self.app._unnotify(shown)  # the burst's first toast, replaced by all of it
        text, head, options = held_as_one([(log.first_text, "", log.first_options), *pending])
        log.first_text, log.first_options = text, options
        self._show(text, head, options)

    def _release_held(self) -> None:
        if asking_the_person(self.app):
            return
        if self._held_timer is not None:
            self._held_timer.stop()
            self._held_timer = None
        back, self._taken_down = self._taken_down, []
        for text, head, options in back:
            self._show(text, head, options)
        held, self._held = self._held, []
        if held:
            self._show_toast(*held_as_one(held))
