"""SessionController: one owner for an open session: edits, undo, saving, other writers.

The TUI owns one and renders what it says; nothing here imports Textual, so the same
rules hold for any long-lived writer (an assistant bridge, a sweep runner):
* edits go through the `SessionEditor` (undo history, journal);
* `save` takes the lock beside the file, re-reads it and merges three ways by record id
  with what another writer saved since (model/edit/merge.py), then writes atomically;
* `take_outside` merges an outside change into the open session (unsaved edits stay);
* listeners are told after every change of the session, so a view re-renders from one
  place instead of every caller remembering to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import MergeResult, merge_sessions
from cockpit.model.session import Session, UiState
from cockpit.store.errors import SessionFileError
from cockpit.store.lock import SessionBusyError, session_lock
from cockpit.store.signature import DiskSignature, disk_signature
from cockpit.store.toml_store import (
    check_new_texts,
    load_session,
    load_session_with_signature,
    save_session_with_signature,
)

__all__ = ["LOCK_RETRY_S", "LOCK_WAIT_S", "DiskSignature", "SaveOutcome", "SessionController", "disk_signature"]

# How long a save waits for another writer's lock (a UI's event loop must not hang behind a
# slow `cockpit add`), and when the caller should try again.
LOCK_WAIT_S = 0.5
LOCK_RETRY_S = 0.3

_T = TypeVar("_T")

@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """What a save did. `status`: saved; busy (try again in LOCK_RETRY_S); broken (the file
    on disk does not load, nothing written); failed (an OSError, in `message`)."""

    status: Literal["saved", "busy", "broken", "failed"]
    message: str = ""
    merge: MergeResult | None = None
    overwrote_broken: bool = False

    @property
    def saved(self) -> bool:
        return self.status == "saved"


class SessionController:
    def __init__(self, session: Session, path: Path | str, *, disk_sig: DiskSignature | None = None,
                 lock_wait_s: float = LOCK_WAIT_S) -> None:
        """`session` as read from `path` with `disk_sig`, the signature of that same read
        (`load_session_with_signature`, or `SessionController.open`). Without one the file is
        taken as changed: the first look and the first save read it and merge, so an add
        made since the read is never written over."""
        self.editor = SessionEditor(session)
        self.path = Path(path)
        self.lock_wait_s = lock_wait_s
        self.base = session
        """The session as this controller last read or wrote the file: the merge's ancestor."""
        self.disk_sig = disk_sig
        """The signature of the read or write `base` came from (None: not known)."""
        self.broken_sig: DiskSignature | None = None
        """Set while the file on disk does not load: autosave waits for one that does."""
        self.saved_revision = 0
        self.autosave = session.ui.autosave
        self.merge_note = ""
        """What the last merge took in (for a header), until the next edit."""
        self._listeners: list[Callable[[], None]] = []
        self._save_listeners: list[Callable[[], None]] = []

    @classmethod
    def open(cls, path: Path | str, *, lock_wait_s: float = LOCK_WAIT_S) -> SessionController:
        """Load PATH and own it, the signature taken from the same read."""
        session, sig = load_session_with_signature(path)
        return cls(session, path, disk_sig=sig, lock_wait_s=lock_wait_s)

    # ----- state ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        return self.editor.session

    @property
    def unsaved_edits(self) -> int:
        return abs(self.editor.revision - self.saved_revision)

    @property
    def disk_broken(self) -> bool:
        return self.broken_sig is not None

    @property
    def autosave_due(self) -> bool:
        """An autosave would write now: on, edits pending, and a file that loads."""
        return self.autosave and self.unsaved_edits > 0 and self.broken_sig is None

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """`listener()` runs after every change of the session (edit, undo, merge).
        Returns what removes it (a screen that comes and goes listens while it is up)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def add_save_listener(self, listener: Callable[[], None]) -> None:
        """`listener()` runs after every write of the file, whoever asked for it (the TUI's
        autosave, or a sweep's record saved at once through ControllerPort): a header that
        counts unsaved edits is told they are saved."""
        self._save_listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):  # a listener may remove itself
            listener()

    # ----- edits --------------------------------------------------------------------------
    def apply(self, edit: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        """Run one SessionEditor call (journaled as `actor`; None: the editor's own);
        EditError / ValidationError (ValueError) propagate with the session unchanged."""
        before = self.editor.actor
        self.editor.actor = actor or before
        try:
            result = edit(self.editor)
        finally:
            self.editor.actor = before
        self.merge_note = ""
        self._changed()
        return result

    def undo(self) -> str | None:
        label = self.editor.undo()
        if label:
            self._changed()
        return label

    def redo(self) -> str | None:
        label = self.editor.redo()
        if label:
            self._changed()
        return label

    # ----- saving ---------------------------------------------------------------------------
    def save(self, ui: UiState | None = None, *, over_broken: bool = False) -> SaveOutcome:
        """Write the session (with `ui` as its view) merged with whatever another writer
        saved since. A file that does not load is written over only with `over_broken`
        (an explicit save); the store keeps it as NAME.bak."""
        ours = self.session if ui is None else self.session.model_copy(update={"ui": ui})
        merged: MergeResult | None = None
        overwrote = False
        try:
            check_new_texts(self.base, self.session)  # this writer's own edits, before any merge
        except ValueError as exc:
            return SaveOutcome("failed", f"{self.path}: {exc}")
        try:
            with session_lock(self.path, timeout=self.lock_wait_s):
                if disk_signature(self.path) not in (self.disk_sig, None):
                    try:
                        theirs, _ = load_session_with_signature(self.path)
                    except SessionFileError as exc:
                        # Said before anything is written over it: a save over a file whose
                        # problem nobody has seen yet (this very text) only reports it.
                        sig = disk_signature(self.path)
                        if not over_broken or sig != self.broken_sig:
                            self.broken_sig = sig
                            return SaveOutcome("broken", exc.render())
                        overwrote = True
                    else:
                        if theirs != self.base:  # else the same text under a signature not known yet
                            merged = merge_sessions(self.base, ours, theirs)
                            ours = merged.session
                # The signature of this write, not a stat after the lock is let go: a save
                # landing in between would be taken as ours and never merged.
                written = save_session_with_signature(ours, self.path)
        except SessionBusyError as exc:
            return SaveOutcome("busy", str(exc))
        except OSError as exc:
            return SaveOutcome("failed", str(exc) if exc.filename else f"{self.path}: {exc.strerror or exc}")
        self.base = ours
        self.disk_sig = written
        self.broken_sig = None
        if merged is not None and merged.session is not self.editor.session:
            self.editor.adopt(merged.session, merged.renumbered)
            self.merge_note = merged.summary()
            self._changed()
        self.saved_revision = self.editor.revision
        for listener in list(self._save_listeners):
            listener()
        return SaveOutcome("saved", merge=merged, overwrote_broken=overwrote)

    # ----- other writers --------------------------------------------------------------------
    def outside_change(self) -> DiskSignature | None:
        """The file's signature when it changed since this controller last saw it."""
        sig = disk_signature(self.path)
        if sig is None or sig == self.disk_sig or sig == self.broken_sig:
            return None
        return sig

    def read_disk(self) -> Session:
        """The file as it is now (slow for a big file: callers may run it in a thread)."""
        return load_session(self.path)

    def read_disk_signed(self) -> tuple[Session, DiskSignature]:
        """The file as it is now with the signature of that read (for `take_outside`)."""
        return load_session_with_signature(self.path)

    def mark_broken(self, sig: DiskSignature) -> None:
        self.broken_sig = sig

    def take_outside(self, theirs: Session, sig: DiskSignature, base: Session) -> MergeResult | None:
        """Merge what another writer saved (`theirs`, read at `sig` while the ancestor was
        `base`) into the open session; local unsaved edits stay unsaved. None when it is
        out of date (a save merged it meanwhile, or the file changed again)."""
        if self.base is not base or disk_signature(self.path) != sig:
            return None
        if theirs == base:  # the text this controller has, under a signature it did not know
            self.disk_sig = sig
            self.broken_sig = None
            return None
        pending = self.unsaved_edits
        result = merge_sessions(base, self.session, theirs)
        self.editor.replace(result.session, "changes from another writer", result.renumbered)
        self.saved_revision = self.editor.revision - pending
        self.base = theirs
        self.disk_sig = sig
        self.broken_sig = None
        self.merge_note = result.summary()
        self._changed()
        return result
