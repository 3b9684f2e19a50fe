"""Modal forms: one row per field, validation messages under the field that failed.

A subclass yields its rows from `compose_fields()` (each from `row(name, label, widget)`)
and turns the widgets' values into a result in `collect()`, raising `FormInvalid` with a
message per field name when something is wrong; the form stays open and says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Focus
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, TextArea
from textual.widgets.input import Selection as LineSelection
from textual.widgets.text_area import Selection as AreaSelection

from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import plain, safe

R = TypeVar("R")


class FormBody(VerticalScroll, can_focus=False):
    """Scrolls when the form is taller than the terminal; focus goes to the fields, not here."""


class FormLine(Input):
    """A one-line field whose value is selected whenever focus arrives, so typing replaces it.

    The selection runs from the end back to the start: the cursor (its end) sits at 0, so a
    long value still shows from its start. Textual selects with the cursor at the end."""

    def _on_focus(self, event: Focus) -> None:
        if not event.from_app_focus:  # coming back to the terminal keeps a half-made edit
            self.call_next(self._select_from_start)

    def _select_from_start(self) -> None:
        self.selection = LineSelection(len(self.value), 0)
        self.scroll_to(x=0, animate=False, immediate=True)


class FormArea(TextArea):
    """A multi-line field, selected whole on focus as `FormLine` is, its first line in view."""

    def _on_focus(self, event: Focus) -> None:
        if not event.from_app_focus:
            self.call_next(self._select_from_start)

    def _select_from_start(self) -> None:
        last = self.document.line_count - 1
        self.selection = AreaSelection((last, len(self.document[last])), (0, 0))
        self.scroll_home(animate=False, immediate=True)


def line_input(value: object = "", placeholder: str = "") -> Input:
    """A compact one-line field holding VALUE (sanitized: it may come from the file)."""
    return FormLine(safe("" if value is None else value), placeholder=placeholder, compact=True)


def area_input(value: str | None, placeholder: str = "") -> TextArea:
    """A compact multi-line field, soft-wrapped, without line numbers."""
    return FormArea(safe(value, multiline=True), soft_wrap=True, show_line_numbers=False, compact=True,
                    placeholder=placeholder)


def choice_input(options: Iterable[str], value: str) -> Select[str]:
    """A compact select of OPTIONS (no blank), VALUE chosen."""
    return Select([(o, o) for o in options], allow_blank=False, compact=True, value=value)


class FormInvalid(Exception):
    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


class FormScreen(ModalScreen[R | None], Generic[R]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    # Tab as a priority binding: the app moves focus as it reads the key. Bubbled up from
    # the field, it moved focus only after the field's queue got to it, so the keys of a fast
    # burst (a typist over SSH, a paste) that came after it landed in the field being left.
    BINDINGS = [*bindings_for("form"),
                Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
                Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True)]
    title_text = "Edit"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, classes="form-title", markup=False)
            with FormBody(classes="form-body"):
                yield from self.compose_fields()
            yield Static("ctrl+s: save · enter (in a line): save · tab: next field · esc: cancel",
                         classes="form-hint")

    def compose_fields(self) -> Iterable[Widget]:
        raise NotImplementedError

    def on_mount(self) -> None:
        # Show each line from its start: a long claim otherwise opens scrolled to its end.
        # (A focused field is selected from its start by FormLine as focus arrives.)
        for line in self.query(Input):
            if not line.has_focus:
                line.cursor_position = 0

    def row(self, name: str, label: str, widget: Widget) -> Iterator[Widget]:
        widget.id = f"field-{name}"
        with Horizontal(classes="form-row"):
            yield Label(label, classes="form-label")
            yield widget
        yield Static("", id=f"error-{name}", classes="field-error", markup=False)

    def collect(self) -> R:
        raise NotImplementedError

    def field(self, name: str) -> Widget:
        return self.query_one(f"#field-{name}")

    def text(self, name: str) -> str:
        widget = self.field(name)
        value = widget.value if isinstance(widget, Input) else widget.text  # type: ignore[attr-defined]
        return value.strip()

    def show_errors(self, errors: dict[str, str]) -> None:
        for error in self.query(".field-error").results(Static):
            name = (error.id or "").removeprefix("error-")
            message = errors.get(name, "")
            error.update(plain(message))  # may quote what was typed or pasted
            error.set_class(bool(message), "-shown")
            self.field(name).set_class(bool(message), "-invalid")
        if errors:
            first = next(iter(errors))
            self.field(first).focus()

    def action_submit(self) -> None:
        try:
            result = self.collect()
        except FormInvalid as exc:
            self.show_errors(exc.errors)
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()


def split_ids(text: str) -> list[str]:
    return [part for part in (p.strip() for p in text.replace(",", " ").split()) if part]


def check_ids(text: str, known: Iterable[str], what: str) -> list[str]:
    """Parse a list of ids, raising ValueError naming the unknown ones."""
    ids = split_ids(text)
    known_set = set(known)
    unknown = [i for i in ids if i not in known_set]
    if unknown:
        hint = ", ".join(sorted(known_set)) or "none yet"
        raise ValueError(f"unknown {what} id {', '.join(unknown)} (known: {hint})")
    return list(dict.fromkeys(ids))


def parse_number(text: str, *, integer: bool = False, minimum: float = 0) -> float | int | None:
    if not text:
        return None
    try:
        value: float | int = int(text) if integer else float(text)
    except ValueError:
        raise ValueError("a whole number, please" if integer else "a number, please") from None
    if not math.isfinite(value):  # float() takes inf and nan, and 1e999 is inf
        raise ValueError("a finite number, please")
    if value < minimum:
        raise ValueError(f"must be at least {minimum:g}")
    return value
