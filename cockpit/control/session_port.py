"""One way to record: a `SessionPort` is where a change to the session goes and is saved.

Two implementations, one per kind of writer:
* the file transaction (control/transaction.py `SessionFile`): `cockpit sweep` / `run` /
  `tune`, a search's trials, the MCP tools; every change one locked transaction;
* the open session (`ControllerPort` here, over the TUI's SessionController): undo and
  journal, each change saved at once through the controller (merged under the lock), never
  through the UI.

`PortSink` is a sweep point's record (live/experiment/sweep_sink.PointSink) over either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from cockpit.control.session_controller import SessionController
from cockpit.live.experiment.sweep_sink import recorded_in
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError

__all__ = ["ControllerPort", "PortSink", "SessionPort"]

_T = TypeVar("_T")


class SessionPort(Protocol):
    @property
    def session(self) -> Session:
        """The session as this port holds it now."""
        ...

    @property
    def saved(self) -> bool:
        """Every change applied through this port is on disk."""
        ...

    async def apply(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        """One change, saved; `actor`: who acted (None: the port's own). Raises OSError /
        EditError / ValueError when not saved."""
        ...


class ControllerPort:
    """An open session (the TUI's SessionController): undo, journal, merge on save. Each
    change is saved at once by the controller, waiting up to `busy_wait_s` while another
    writer holds the lock (OSError after)."""

    def __init__(self, controller: SessionController, *, busy_wait_s: float = 15.0) -> None:
        self.controller = controller
        self.busy_wait_s = busy_wait_s

    @property
    def session(self) -> Session:
        return self.controller.session

    @property
    def saved(self) -> bool:
        return self.controller.unsaved_edits == 0

    async def apply(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        result: _T = self.controller.apply(change, actor=actor)
        await self.flush()
        return result

    async def flush(self) -> None:
        """Save now; waits while another writer holds the lock. OSError when it cannot."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.busy_wait_s
        while True:
            outcome = self.controller.save()
            if outcome.saved:
                return
            if outcome.status != "busy" or loop.time() > deadline:
                raise OSError(f"{self.controller.path}: not saved ({outcome.status}: {outcome.message})")
            await asyncio.sleep(0.3)


class PortSink:
    """A sweep's PointSink over a SessionPort: a point recorded once (a key already recorded
    returns that id, checked again in the change itself, so a resumed run never doubles it)."""

    def __init__(self, port: SessionPort) -> None:
        self.port = port

    def recorded(self, key: str) -> str | None:
        try:
            return recorded_in(self.port.session, key)
        except (SessionFileError, OSError):
            return None  # the record that follows says why it cannot be written

    async def record(self, key: str, fields: dict[str, Any]) -> str:
        def change(editor: SessionEditor) -> str:
            return recorded_in(editor.session, key) or editor.add_benchmark(**fields)

        ident = await self.port.apply(change)
        return self.recorded(key) or ident  # a merge on save may have renumbered it
