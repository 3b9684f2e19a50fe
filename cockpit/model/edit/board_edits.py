"""The task board's and the discoveries' edits: add, edit, move and reorder tasks, links,
reviews; discoveries and their status. A part SessionEditor owns."""

from __future__ import annotations

from cockpit.model.edit.editor_core import EditError, EditorCore, column, find, new_id, renumber
from cockpit.model.edit.journal_text import change as said_change
from cockpit.model.edit.journal_text import changes as said_changes
from cockpit.model.edit.journal_text import shown
from cockpit.model.enums import TASK_COLUMNS, DiscoveryStatus, TaskStatus
from cockpit.model.session import Discovery, Session, Task, now


class BoardEdits:
    """SessionEditor's edits of the board, through the editor's one core."""

    def __init__(self, core: EditorCore) -> None:
        self._core = core

    # ----- tasks -------------------------------------------------------------------
    def add_task(self, title: str, status: TaskStatus = TaskStatus.TODO, notes: str | None = None,
                 discoveries: list[str] | None = None) -> str:
        def change(s: Session) -> str:
            ident = new_id(s, "tasks")
            order = len(column(s, status))
            stamp = now()
            s.tasks.append(Task(id=ident, title=title, status=status, order=order, notes=notes or None,
                                discoveries=discoveries or [], created=stamp, updated=stamp))
            return ident
        return self._core.apply(f"task added: {title}", change, kind="task.added")

    def edit_task(self, ident: str, **fields: object) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            task = find(s.tasks, ident)
            old = task.model_copy()
            for key, value in fields.items():
                setattr(task, key, value)
            task.updated = now()
            said.append(said_changes(old, task, fields))
        self._core.apply(lambda: f"task {ident} edited: {said[0]}", change, kind="task.edited", ref=ident)

    def delete_task(self, ident: str) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            task = find(s.tasks, ident)
            said.append(shown(task.title))
            s.tasks.remove(task)
            for disc in s.discoveries:
                if ident in disc.tasks:
                    disc.tasks = [t for t in disc.tasks if t != ident]
            renumber(s, task.status)
        self._core.apply(lambda: f"task {ident} deleted: {said[0]}", change, kind="task.deleted", ref=ident)

    def move_task(self, ident: str, step: int) -> TaskStatus:
        """Move a task `step` columns right (+1) or left (-1); it lands at the column's end."""
        said: list[str] = []

        def change(s: Session) -> TaskStatus:
            task = find(s.tasks, ident)
            index = TASK_COLUMNS.index(task.status) + step
            if not 0 <= index < len(TASK_COLUMNS):
                raise EditError(f"{ident} is already in the {'last' if step > 0 else 'first'} column")
            old = task.status
            task.status = TASK_COLUMNS[index]
            task.order = len(column(s, task.status))
            task.updated = now()
            renumber(s, old)
            renumber(s, task.status)
            said.append(f"{old.value} -> {task.status.value}")
            return task.status
        return self._core.apply(lambda: f"task {ident} moved {said[0]}", change, kind="task.moved", ref=ident)

    def reorder_task(self, ident: str, step: int) -> None:
        """Move a task up (-1) or down (+1) within its column."""
        said: list[str] = []

        def change(s: Session) -> None:
            task = find(s.tasks, ident)
            col = column(s, task.status)
            pos = col.index(task)
            dest = pos + step
            if not 0 <= dest < len(col):
                raise EditError(f"{ident} is already at the {'bottom' if step > 0 else 'top'}")
            col[pos], col[dest] = col[dest], col[pos]
            for index, item in enumerate(col):
                item.order = index
            said.append(f"in {task.status.value}: position {pos + 1} -> {dest + 1}")
        self._core.apply(lambda: f"task {ident} reordered {said[0]}", change, kind="task.reordered", ref=ident)

    def set_task_links(self, task_id: str, chosen: list[str]) -> None:
        """One undoable edit: the task rests on exactly `chosen`, kept in step on both sides."""
        said: list[str] = []

        def change(s: Session) -> None:
            task = find(s.tasks, task_id)
            for ident in chosen:
                find(s.discoveries, ident)
            said.append(said_change("discoveries", task.discoveries, chosen))
            task.discoveries = list(chosen)
            for disc in s.discoveries:
                if disc.id in chosen and task_id not in disc.tasks:
                    disc.tasks = [*disc.tasks, task_id]
                elif disc.id not in chosen and task_id in disc.tasks:
                    disc.tasks = [t for t in disc.tasks if t != task_id]
        self._core.apply(lambda: f"task {task_id} linked: {said[0]}", change, kind="task.linked", ref=task_id)

    def link_task(self, task_id: str, discovery_id: str) -> None:
        """Link (or unlink, if already linked) one discovery: `set_task_links` toggled."""
        current = self._core.task_now(task_id).discoveries
        chosen = [d for d in current if d != discovery_id] if discovery_id in current else [*current, discovery_id]
        self.set_task_links(task_id, chosen)

    def acknowledge_review(self, ident: str) -> None:
        def change(s: Session) -> None:
            find(s.tasks, ident).review = False
        self._core.apply(f"task {ident} review flag cleared", change, kind="task.reviewed", ref=ident)

    # ----- discoveries ---------------------------------------------------------------
    def add_discovery(self, claim: str, evidence: str | None = None,
                      status: DiscoveryStatus = DiscoveryStatus.HYPOTHESIS, tags: list[str] | None = None,
                      **links: list[str]) -> str:
        """A new claim; `links` (benchmarks, files, tasks: lists of ids) in the same undo step."""
        ident = new_id(self._core.session, "discoveries")

        def change(s: Session) -> str:
            stamp = now()
            s.discoveries.append(Discovery(id=ident, claim=claim, evidence=evidence or None, status=status,
                                           tags=tags or [], created=stamp, updated=stamp, **links))
            return ident
        return self._core.apply(f"discovery added: {claim}", change, kind="discovery.added", ref=ident)

    def edit_discovery(self, ident: str, **fields: object) -> None:
        status = fields.pop("status", None)
        said: list[str] = []

        def change(s: Session) -> None:
            disc = find(s.discoveries, ident)
            old = disc.model_copy()
            for key, value in fields.items():
                setattr(disc, key, value)
            if status is not None and status != disc.status:
                self._set_discovery_status(s, disc, DiscoveryStatus(str(status)))
            disc.updated = now()
            edited = [*fields, "status"]
            if old.status != disc.status and all(getattr(old, f) == getattr(disc, f) for f in fields):
                said.append(f"discovery {ident} {said_change('status', old.status, disc.status)}")
            else:
                said.append(f"discovery {ident} edited: {said_changes(old, disc, edited)}")
        self._core.apply(lambda: said[0], change, kind="discovery.edited", ref=ident)

    def cycle_discovery_status(self, ident: str) -> DiscoveryStatus:
        said: list[str] = []

        def change(s: Session) -> DiscoveryStatus:
            disc = find(s.discoveries, ident)
            old = disc.status
            self._set_discovery_status(s, disc, disc.status.cycled())
            disc.updated = now()
            said.append(said_change("status", old, disc.status))
            return disc.status
        return self._core.apply(lambda: f"discovery {ident} {said[0]}", change, kind="discovery.status", ref=ident)

    def _set_discovery_status(self, s: Session, disc: Discovery, status: DiscoveryStatus) -> None:
        disc.status = status
        # Tasks resting on a claim that flipped need a second look.
        for task in s.tasks:
            if disc.id in task.discoveries or task.id in disc.tasks:
                task.review = True
