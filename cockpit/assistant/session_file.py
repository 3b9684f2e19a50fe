"""The session file as the assistant sees it: every read loads it afresh; every write is
one locked read-modify-write through `SessionEditor`, journaled "via assistant".

One call = one save, so the open TUI (which polls the file and merges an outside change
into its undo history) shows each tool call as one step it can undo.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from cockpit.model.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.lock import session_lock
from cockpit.store.toml_store import check_new_texts, load_session, save_session

_T = TypeVar("_T")

VIA = " (via assistant)"


class SessionFile:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def read(self) -> Session:
        # Saves replace the file atomically: a read needs no lock.
        return load_session(self.path)

    def edit(self, change: Callable[[SessionEditor], _T]) -> _T:
        """Lock, load, `change(editor)`, save. An EditError (or any error) leaves the file
        as it was: nothing is written unless the edit applied whole."""
        with session_lock(self.path):
            read = load_session(self.path)
            editor = SessionEditor(read)
            before = len(editor.session.journal)
            result = change(editor)
            journal = editor.session.journal
            for index in range(before, len(journal)):
                # The journal says who made the change (the TUI's timeline shows it).
                journal[index] = journal[index].model_copy(update={"text": journal[index].text + VIA})
            check_new_texts(read, editor.session)  # a 2 MB title is refused, not saved
            save_session(editor.session, self.path)
        return result
