"""Undo / redo of session edits, by snapshots of the whole session.

A session is a few hundred kB at most, so a snapshot per edit is simple and exact; the
history is bounded so memory stays flat over days.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from cockpit.model.session import Session


@dataclass(frozen=True, slots=True)
class Step:
    label: str
    before: Session
    after: Session


class History:
    def __init__(self, limit: int = 200) -> None:
        self._undo: deque[Step] = deque(maxlen=limit)
        self._redo: list[Step] = []

    def record(self, label: str, before: Session, after: Session) -> None:
        """A new edit keeps the undone steps: a stray `u` in a burst of keys, then any edit,
        must not lose a person's text for good (issue 39). Redoing one after later edits
        applies only its own change onto the session as it is then (EditorCore._step_onto_now)."""
        self._undo.append(Step(label, before, after))

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> Step | None:
        if not self._undo:
            return None
        step = self._undo.pop()
        self._redo.append(step)
        return step

    def redo(self) -> Step | None:
        if not self._redo:
            return None
        step = self._redo.pop()
        self._undo.append(step)
        return step

    def rewrite(self, change: Callable[[Session], Session]) -> None:
        """Pass every snapshot through `change` (ids renumbered by a merge)."""
        self._undo = deque((Step(s.label, change(s.before), change(s.after)) for s in self._undo),
                           maxlen=self._undo.maxlen)
        self._redo = [Step(s.label, change(s.before), change(s.after)) for s in self._redo]

    def __len__(self) -> int:
        return len(self._undo)
