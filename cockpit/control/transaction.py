"""One session transaction for every short-lived writer: `cockpit add` and the other
headless commands, the assistant's MCP tools, a sweep's per-point records.

`edit(path, change, actor)` takes the lock beside the file, reads it (with the signature
of that read), runs `change(editor)` through a `SessionEditor` that journals as `actor`,
checks the new texts against their bounds and writes atomically. Another writer's save is
never lost: it landed before the lock was taken (and is read) or waits for it. A writer
that ignores the lock (a text editor saving by hand) is caught by the signature: the read
is taken again and the change re-applied on top.

A long-lived writer (the TUI) keeps its session open and merges on save instead
(session_controller.py).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.lock import session_lock
from cockpit.store.signature import DiskSignature, disk_signature
from cockpit.store.toml_store import check_new_texts, load_session, load_session_with_signature, save_session_with_signature

__all__ = ["ASSISTANT", "SWEEP", "Edited", "SessionFileWriter", "edit", "edit_session"]

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
                 timeout: float | None = None) -> Edited[_T]:
    """Lock, read, `change(editor)` as `actor`, write. Whatever `change` raises (EditError,
    ValueError) propagates with the file as it was; so do SessionFileError (the file does
    not load), ValueError (a text over its bound), OSError and, with `timeout`,
    SessionBusyError (store/lock.py)."""
    path = Path(path)
    with session_lock(path, timeout=timeout):
        for _ in range(_ATTEMPTS):
            read, sig = load_session_with_signature(path)
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


class SessionFileWriter:
    """A short-lived writer's view of a session file: every read loads it afresh (saves
    replace the file atomically, so a read needs no lock), every `apply` is one
    transaction. Has the `session` / `apply` of a SessionController, so a sweep's records
    (live/experiment/sweep_sink.ControllerSink, `save=False`) land one transaction per point."""

    def __init__(self, path: Path | str, actor: str) -> None:
        self.path = Path(path)
        self.actor = actor

    @property
    def session(self) -> Session:
        return load_session(self.path)

    def apply(self, change: Callable[[SessionEditor], _T]) -> _T:
        return edit(self.path, change, self.actor)
