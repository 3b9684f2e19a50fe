"""What the main screen does with the board's and the Discoveries tab's intents: a form
collects and validates, one SessionEditor call applies (undoable, journaled), then the
selection follows the item."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from cockpit.model.session import Session
from cockpit.ui import messages as msg
from cockpit.ui.screens.main.edit_runner import EditRunner, find
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.task_board import TaskBoard

if TYPE_CHECKING:
    from cockpit.ui.screens.forms.records import DiscoveryFields, TaskFields


class TaskHandlers:
    """Tasks and discoveries, from `screen` (forms are pushed from it, toasts said)."""

    def __init__(self, screen: Screen[None], edits: EditRunner) -> None:
        self.screen = screen
        self.edits = edits

    def _select_task(self, task_id: str) -> None:
        task = find(self.edits.session.tasks, task_id)
        if task is not None:
            self.screen.query_one(TaskBoard).select_task(task_id, task.status)

    # ----- tasks ------------------------------------------------------------------------
    def add_task(self, message: msg.TaskAddRequested) -> None:
        from cockpit.ui.screens.forms.records import TaskForm  # the forms load when one first opens

        def done(result: TaskFields | None) -> None:
            if result is None:
                return
            ident = self.edits.apply(lambda ed: ed.add_task(result["title"], message.status, result["notes"]))
            if ident:
                self._select_task(ident)

        self.screen.app.push_screen(TaskForm(column=message.status.value), done)

    def edit_task(self, message: msg.TaskEditRequested) -> None:
        from cockpit.ui.screens.forms.records import TaskForm

        task = find(self.edits.session.tasks, message.task_id)
        if task is None:
            return

        def done(result: TaskFields | None) -> None:
            if result is not None and (result["title"], result["notes"]) != (task.title, task.notes):
                self.edits.apply(lambda ed: ed.edit_task(task.id, **result))
                self._select_task(task.id)

        self.screen.app.push_screen(TaskForm(task), done)

    def delete_task(self, message: msg.TaskDeleteRequested) -> None:
        self.edits.apply(lambda ed: ed.delete_task(message.task_id), done=f"Deleted {message.task_id} (u undoes)")

    def move_task(self, message: msg.TaskMoveRequested) -> None:
        if self.edits.apply(lambda ed: ed.move_task(message.task_id, message.step)):
            self._select_task(message.task_id)

    def reorder_task(self, message: msg.TaskReorderRequested) -> None:
        self.edits.apply(lambda ed: ed.reorder_task(message.task_id, message.step))
        self._select_task(message.task_id)

    def link_task(self, message: msg.TaskLinkRequested) -> None:
        from cockpit.ui.screens.forms.records import LinkForm

        session = self.edits.session
        task = find(session.tasks, message.task_id)
        if task is None:
            return
        if not session.discoveries:
            self.edits.notify("No discoveries to link yet (3, then a)", severity="warning")
            return

        def done(chosen: list[str] | None) -> None:
            # unchanged (in any order): nothing to journal, no undo step
            if chosen is not None and set(chosen) != set(_linked_discoveries(self.edits.session, task.id)):
                self.edits.apply(lambda ed: ed.set_task_links(task.id, chosen))
                self._select_task(task.id)

        self.screen.app.push_screen(LinkForm(session, task), done)

    def acknowledge_review(self, message: msg.TaskReviewAcknowledged) -> None:
        task = find(self.edits.session.tasks, message.task_id)
        if task is not None and not task.review:
            self.edits.notify(f"{task.id} is not flagged for review", timeout=2)
            return
        self.edits.apply(lambda ed: ed.acknowledge_review(message.task_id))
        self._select_task(message.task_id)

    # ----- discoveries ----------------------------------------------------------------------
    def add_discovery(self) -> None:
        from cockpit.ui.screens.forms.records import DiscoveryForm

        def done(result: DiscoveryFields | None) -> None:
            if result is None:
                return
            ident = self.edits.apply(lambda ed: ed.add_discovery(**result))  # links too: one undo step
            if ident:
                self.screen.query_one(DiscoveriesView).select(ident)

        self.screen.app.push_screen(DiscoveryForm(self.edits.session), done)

    def edit_discovery(self, message: msg.DiscoveryEditRequested) -> None:
        from cockpit.ui.screens.forms.records import DiscoveryForm

        disc = find(self.edits.session.discoveries, message.discovery_id)
        if disc is None:
            return

        def done(result: DiscoveryFields | None) -> None:
            if result is None:
                return
            changed = {key: value for key, value in result.items() if getattr(disc, key) != value}
            if changed:
                before = self._flagged()
                self.edits.apply(lambda ed: ed.edit_discovery(disc.id, **changed))
                self._announce_flagged(disc.id, before)

        self.screen.app.push_screen(DiscoveryForm(self.edits.session, disc), done)

    def cycle_discovery_status(self, message: msg.DiscoveryStatusCycleRequested) -> None:
        before = self._flagged()
        status = self.edits.apply(lambda ed: ed.cycle_discovery_status(message.discovery_id))
        if status:
            self.edits.notify(f"{message.discovery_id} is now {status.value}", timeout=3)
            self._announce_flagged(message.discovery_id, before)

    def _flagged(self) -> set[str]:
        return {t.id for t in self.edits.session.tasks if t.review}

    def _announce_flagged(self, ident: str, before: set[str]) -> None:
        flagged = sorted(self._flagged() - before)
        if flagged:
            self.edits.notify(f"Flagged for review: {', '.join(flagged)} (rest on {ident}; r on the board clears)",
                              severity="warning", timeout=5)


def _linked_discoveries(session: Session, task_id: str) -> set[str]:
    """What the link dialog shows ticked: the task's links and the discoveries naming it."""
    task = find(session.tasks, task_id)
    return set(task.discoveries if task else ()) | {d.id for d in session.discoveries if task_id in d.tasks}
