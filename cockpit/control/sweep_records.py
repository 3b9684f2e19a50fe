"""A sweep's records written by a short-lived writer (`cockpit sweep`): one session
transaction per point, journaled "via sweep", so a point measured is on disk (merged with
the TUI's and `cockpit add`'s records) before the next one starts.

The TUI's sweep records through its own SessionController instead (experiment_types.py
ControllerRecorder): the open session is the one it shows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from cockpit.control import transaction
from cockpit.control.transaction import SWEEP
from cockpit.live.experiment.sweep_sink import recorded_in
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.signature import disk_signature
from cockpit.store.toml_store import load_session_with_signature

__all__ = ["TransactionSink"]

_T = TypeVar("_T")


class TransactionSink:
    """A PointSink (control/sweep_runner.py) over the session file itself. `busy_wait_s`: how
    long one record waits for another writer's lock before the point is "not recorded"."""

    def __init__(self, path: Path | str, *, actor: str = SWEEP, busy_wait_s: float = 15.0) -> None:
        self.path = Path(path)
        self.actor = actor
        self.busy_wait_s = busy_wait_s
        self._cached: tuple[Any, Session] | None = None

    @property
    def session(self) -> Session:
        """The session as the file holds it now (read-only: parsed again only when the file's
        signature changed since this sink last read or wrote it, so a search's loop reading it
        a few times a trial does not parse it each time)."""
        now = disk_signature(self.path)
        if now is not None and self._cached is not None and self._cached[0] == now:
            return self._cached[1]
        session, sig = load_session_with_signature(self.path)
        self._cached = (sig, session)
        return session

    def recorded(self, key: str) -> str | None:
        try:
            return recorded_in(self.session, key)
        except (SessionFileError, OSError):
            return None  # the record that follows says why it cannot be written

    async def apply(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        """One transaction as this sink's actor (or `actor`: the person who confirmed the
        sweep), off the event loop (the lock may be held a while). OSError
        (SessionBusyError, a file that does not load, no room) when not saved."""
        try:
            done = await asyncio.to_thread(transaction.edit_session, self.path, change, actor or self.actor,
                                           timeout=self.busy_wait_s)
        except SessionFileError as exc:
            raise OSError(exc.render()) from exc
        self._cached = (done.signature, done.session)
        return done.result

    async def record(self, key: str, fields: dict[str, Any]) -> str:
        def change(editor: SessionEditor) -> str:
            # checked under the lock: a point recorded meanwhile (a resumed run) is not doubled
            return recorded_in(editor.session, key) or editor.add_benchmark(**fields)

        return str(await self.apply(change))
