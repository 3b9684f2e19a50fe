"""One SessionEditor call through the open session's controller, as the intent handlers
make it: an edit that cannot apply is said in a toast instead of crashing the screen, and
the controller has the screen re-render (its change listener)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal, Protocol, TypeVar

from textual.notifications import SeverityLevel

from cockpit.control.session_controller import SessionController
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session


class Notify(Protocol):
    """A toast: Textual's `notify` (the screen's, which is the app's)."""

    def __call__(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
                 timeout: float | None = None, markup: bool = True) -> None: ...


class HasId(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=HasId)
_R = TypeVar("_R")


def find(items: Iterable[_Item], ident: str) -> _Item | None:
    return next((item for item in items if item.id == ident), None)


def records_of(session: Session, collection: str) -> list[HasId]:
    """A record collection of the session by its name (files, packages, launch, sweeps)."""
    records: list[HasId] = getattr(session, collection)
    return records


class EditRunner:
    """The session the handlers read and the one way they change it."""

    def __init__(self, controller: SessionController, notify: Notify) -> None:
        self.controller = controller
        self.notify = notify

    @property
    def session(self) -> Session:
        return self.controller.session

    def apply(self, edit: Callable[[SessionEditor], _R], *, done: str | None = None) -> _R | Literal[False]:
        """One SessionEditor call through the controller; an edit that cannot apply is
        reported, not raised. Returns the call's result, or False when it did not apply."""
        try:
            result = self.controller.apply(edit)
        except ValueError as exc:  # EditError and pydantic's ValidationError
            self.notify(str(exc).splitlines()[0], severity="warning", timeout=4)
            return False
        if done:
            self.notify(done, timeout=3)
        return result
