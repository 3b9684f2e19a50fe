"""One toast per event: what the app's `notify` decides before a toast is shown.

A failed sweep used to stack six toasts over the form the person was typing in. Now the
same words while their toast is up are not shown again, toasts raised within BURST_S of
the last one join it (one toast, its lines in order, the worst severity), and while a
dialog waits for the person (a form, a confirm, the quit question, a prompt) they wait and
come as one when it closes: a toast over a "Start this server?" hid its buttons' words.
Views that only show (`?`, `!`, a record read-only) let toasts through."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from textual.app import App
from textual.notifications import SeverityLevel

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
    from cockpit.ui.screens.forms.form_base import FormScreen
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
