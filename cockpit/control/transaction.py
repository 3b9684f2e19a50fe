"""One session transaction for every short-lived writer: `cockpit add` and the other
headless commands, the assistant's MCP tools, a sweep's per-point records.

`edit(path, change, actor)` takes the lock beside the file, reads it (with the signature
of that read), runs `change(editor)` through a `SessionEditor` that journals as `actor`,
checks the new texts against their bounds and writes atomically. Another writer's save is
never lost: it landed before the lock was taken (and is read) or waits for it. A writer
that ignores the lock (a text editor saving by hand) is caught by the signature: the read
is taken again and the change re-applied on top.

`SessionFile` is that transaction as a SessionPort (control/session_port.py): it keeps
the session of its last read or write with the file's signature then, so a read or a
transaction parses the file only when another writer changed it since.

A long-lived writer (the TUI) keeps its session open and merges on save instead
(session_controller.py).
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.lock import session_lock
from cockpit.store.signature import DiskSignature, disk_signature
from cockpit.store.toml_store import check_new_texts, load_session_with_signature, save_session_with_signature

__all__ = ["ASSISTANT", "SWEEP", "Edited", "SessionFile", "edit", "edit_session"]

ASSISTANT = "assistant"
SWEEP = "sweep"

_T = TypeVar("_T")

# A hand edit landing between the read and the write re-runs the change; past this many
# the file is changing faster than a change can be applied.
_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Edited(Generic[_T]):
    """What one transaction did: `change`'s result, the session written and its signature."""

    result: _T
    session: Session
    signature: DiskSignature


def edit_session(path: Path | str, change: Callable[[SessionEditor], _T], actor: str, *,
                 timeout: float | None = None, known: tuple[Session, DiskSignature] | None = None) -> Edited[_T]:
    """Lock, read, `change(editor)` as `actor`, write. Whatever `change` raises (EditError,
    ValueError) propagates with the file as it was; so do SessionFileError (the file does
    not load), ValueError (a text over its bound), OSError and, with `timeout`,
    SessionBusyError (store/lock.py). `known`: a session read or written earlier with its
    signature, taken instead of a parse when the file under the lock still has it (edits
    change a copy: SessionEditor never changes the session it starts from)."""
    path = Path(path)
    with session_lock(path, timeout=timeout):
        for _ in range(_ATTEMPTS):
            if known is not None and disk_signature(path) == known[1]:
                read, sig = known
            else:
                read, sig = load_session_with_signature(path)
            known = None
            editor = SessionEditor(read, actor=actor)
            result = change(editor)
            check_new_texts(read, editor.session)  # a 2 MB title is refused, not saved
            if disk_signature(path) != sig:  # written without the lock since the read: take it in
                continue
            written = save_session_with_signature(editor.session, path)
            return Edited(result, editor.session, written)
    raise OSError(errno.EBUSY, f"changed {_ATTEMPTS} times by a writer that ignores the session lock while "
                               "this change applied; not saved, try again", str(path))


def edit(path: Path | str, change: Callable[[SessionEditor], _T], actor: str, *,
         timeout: float | None = None) -> _T:
    """The one locked read-modify-write of a session file; returns `change`'s result."""
    return edit_session(path, change, actor, timeout=timeout).result


class SessionFile:
    """A session file as a SessionPort (control/session_port.py): every `apply` one locked
    transaction, merged with whatever the TUI or `cockpit add` saved; `session` the file as
    it is now. Both parse the file only when its signature changed since this port last read
    or wrote it: a search's trial reads it many times and parses it about once.
    `actor`: who acts by default; `busy_wait_s`: how long `apply` waits for another writer's
    lock before it gives up (OSError)."""

    def __init__(self, path: Path | str, *, actor: str = SWEEP, busy_wait_s: float = 15.0) -> None:
        self.path = Path(path)
        self.actor = actor
        self.busy_wait_s = busy_wait_s
        self._known: tuple[Session, DiskSignature] | None = None

    @property
    def session(self) -> Session:
        """The session as the file holds it now (SessionFileError, OSError when it does not load)."""
        known = self._known
        if known is not None and disk_signature(self.path) == known[1]:
            return known[0]
        self._known = load_session_with_signature(self.path)
        return self._known[0]

    @property
    def saved(self) -> bool:
        """Always: a change is on disk when `apply` returns."""
        return True

    def transact(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None,
                 timeout: float | None = None) -> _T:
        """One transaction, here and now (a caller off the event loop: the MCP tools)."""
        done = edit_session(self.path, change, actor or self.actor, timeout=timeout, known=self._known)
        self._known = (done.session, done.signature)
        return done.result

    async def apply(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        """One transaction as this port's actor (or `actor`: the person who confirmed), off the
        event loop (the lock may be held a while). OSError (SessionBusyError, a file that does
        not load, no room) when not saved; EditError / ValueError from `change`."""
        try:
            return await asyncio.to_thread(self.transact, change, actor=actor, timeout=self.busy_wait_s)
        except SessionFileError as exc:
            raise OSError(exc.render()) from exc
