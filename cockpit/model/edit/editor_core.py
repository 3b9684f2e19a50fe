"""The editor's core: `apply` (every edit's one way in: copied, checked, journaled, recorded
for undo), undo/redo, a session taken from disk, and the lookups the edits share.

SessionEditor (edits.py) owns one EditorCore and hands it to the parts it owns: BoardEdits
(board_edits.py), SetupEdits (setup_edits.py); the other records' edits are its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from cockpit.model.edit.history import History
from cockpit.model.enums import TaskStatus
from cockpit.model.ids import PREFIX, next_id
from cockpit.model.integrity import check_integrity
from cockpit.model.session import JournalEvent, Session, Task, now

_T = TypeVar("_T")

# Lists of records an edit may change. Records are copied one level (an edit assigns a
# record's fields, never mutates a list inside one in place), which costs ~15 ms for 5,000
# tasks where a deep copy cost ~260 ms.
_RECORD_LISTS = ("instructions", "discoveries", "tasks", "files", "packages", "launch", "benchmarks", "hosts",
                 "sweeps", "prometheus", "searches", "findings")


def _working_copy(session: Session) -> Session:
    """A copy an edit may change freely without touching `session` (the undo snapshot)."""
    update: dict[str, Any] = {name: [item.model_copy() for item in getattr(session, name)] for name in _RECORD_LISTS}
    update["goal"] = session.goal.model_copy(update={"targets": [t.model_copy() for t in session.goal.targets]})
    update["journal"] = list(session.journal)
    update["ui"] = session.ui.model_copy(deep=True)
    if session.last_action is not None:
        update["last_action"] = session.last_action.model_copy()
    return session.model_copy(update=update)


class EditError(ValueError):
    """An edit that cannot apply (unknown id, invalid value); the session is unchanged."""


PERSON = "person"
"""The actor of the person's own hand (the TUI, a `cockpit` command typed at a shell):
their journal lines carry no "(via ...)", a note stays their words as typed."""


def journal_text(label: str, actor: str) -> str:
    """A journal line as it says who acted: the person's own as is, any other writer's
    (the assistant, a sweep) with " (via ACTOR)"."""
    return label if actor == PERSON else f"{label} (via {actor})"


class EditorCore:
    """The session as edited, and the one way in (`apply`, undo/redo, a session from disk);
    every group of edits holds the same core, so an edit means the same thing in each."""

    def __init__(self, session: Session, history_limit: int = 200, *, actor: str = PERSON) -> None:
        """`actor`: who makes the edits ("person", "assistant", "sweep"), written into
        every journal event this editor makes."""
        self.session = session
        self.actor = actor
        self.history = History(history_limit)
        self.revision = 0
        """Bumped on every change (edit, undo, redo): the UI and autosave watch it."""

    # ----- the one way in -------------------------------------------------------
    def apply(self, label: str | Callable[[], str], change: Callable[[Session], _T], *, kind: str = "edit",
              ref: str | None = None) -> _T:
        """`label`: the journal's text, or a function that says it once `change` has run
        (an edit that tells from -> to learns the "from" inside `change`)."""
        before = self.session
        after = _working_copy(before)
        try:
            result = change(after)
            check_integrity(after)
        except (KeyError, IndexError) as exc:
            raise EditError(str(exc)) from exc
        except PydanticCustomError as exc:  # an integrity rule (a link or host that does not exist)
            raise EditError(str(exc)) from exc
        except ValidationError as exc:  # a value the model refuses: say which field and why
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            raise EditError(f"{where}: {first['msg']}" if where else first["msg"]) from exc
        if callable(label):
            label = label()
        after.journal.append(JournalEvent(when=now(), kind=kind, text=journal_text(label, self.actor), ref=ref))
        self.session = after
        self.history.record(label, before, after)
        self.revision += 1
        return result

    def undo(self) -> str | None:
        step = self.history.undo()
        if step is None:
            return None
        self.session = self._step_onto_now(step.after, step.before)
        self.revision += 1
        return step.label

    def redo(self) -> str | None:
        step = self.history.redo()
        if step is None:
            return None
        self.session = self._step_onto_now(step.before, step.after)
        self.revision += 1
        return step.label

    def _step_onto_now(self, origin: Session, target: Session) -> Session:
        """`origin` -> `target` applied to the session as it is now: the snapshot itself when
        nothing was merged in since, else only that step's change (another writer's records
        merged in after it stay)."""
        if self.session is origin:
            return target
        from cockpit.model.edit.merge import merge_sessions

        return merge_sessions(origin, target, self.session).session

    def replace(self, session: Session, label: str = "reload from disk",
                renumbered: dict[str, str] | None = None) -> None:
        """Take a session read from disk (an outside change), keeping undo possible."""
        if renumbered:
            from cockpit.model.edit.merge import rename_ids

            self.history.rewrite(lambda snap: rename_ids(snap, renumbered))
            before = rename_ids(self.session, renumbered)
        else:
            before = self.session
        self.history.record(label, before, session)
        self.session = session
        self.revision += 1

    def adopt(self, session: Session, renumbered: dict[str, str] | None = None) -> None:
        """Take the merged state a save wrote: no undo step, no new revision (it is saved).

        Undo applies a step's change onto this state; ids a merge renumbered are renamed
        in the history too, so undoing an add still finds the record.
        """
        if renumbered:
            from cockpit.model.edit.merge import rename_ids

            self.history.rewrite(lambda snap: rename_ids(snap, renumbered))
        self.session = session

    def task_now(self, ident: str) -> Task:
        """A task as the session is now, for an edit that reads before it applies: an unknown
        id is an EditError there too, as inside `apply`."""
        try:
            return find(self.session.tasks, ident)
        except KeyError as exc:
            raise EditError(str(exc)) from exc


# ----- lookups the edit groups share ---------------------------------------------------
def find(items: list[_T], ident: str) -> _T:
    """The record with id `ident` (KeyError, which `apply` turns into an EditError)."""
    for item in items:
        if getattr(item, "id", None) == ident:
            return item
    raise KeyError(f"no item with id '{ident}'")


def column(session: Session, status: TaskStatus) -> list[Task]:
    """The board's column `status`, top to bottom."""
    return sorted((t for t in session.tasks if t.status is status), key=lambda t: (t.order, t.id))


def renumber(session: Session, status: TaskStatus) -> None:
    for index, task in enumerate(column(session, status)):
        task.order = index


def new_id(session: Session, collection: str) -> str:
    """The next free id of COLLECTION in SESSION (`t11` after `t10`)."""
    return next_id(PREFIX[collection], (item.id for item in getattr(session, collection)))
