"""Every change to a session goes through `SessionEditor`: recorded for undo, journaled.

The TUI's actions and the headless `cockpit add` command call the same methods, so an
edit means the same thing wherever it comes from. The editor owns its parts: the core
(the session, `apply`, undo: editor_core.py), the board's tasks and discoveries
(board_edits.py), the campaign's setup (setup_edits.py), which it calls; here are
benchmarks, the last action, simple records and notes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from cockpit.model.edit.board_edits import BoardEdits
from cockpit.model.edit.editor_core import PERSON, EditError, EditorCore, column, find, new_id
from cockpit.model.edit.history import History
from cockpit.model.edit.journal_text import change as said_change
from cockpit.model.edit.journal_text import changes as said_changes
from cockpit.model.edit.setup_edits import SetupEdits
from cockpit.model.enums import DiscoveryStatus, ProfileStatus, TaskStatus
from cockpit.model.session import (
    AUTO,
    LAST_ACTIONS_KEPT,
    Activity,
    Benchmark,
    FileChange,
    LastAction,
    LaunchProfile,
    Package,
    Session,
    Sweep,
    now,
)

__all__ = ["PERSON", "EditError", "SessionEditor"]  # EditError and PERSON: used across the rooms

_T = TypeVar("_T")


def _keep_earlier(session: Session) -> None:
    """The last action about to be replaced joins the history (the newest `LAST_ACTIONS_KEPT`)."""
    if session.last_action is not None:
        session.last_actions = [*session.last_actions, session.last_action][-LAST_ACTIONS_KEPT:]


class SessionEditor:
    def __init__(self, session: Session, history_limit: int = 200, *, actor: str = PERSON) -> None:
        """`actor`: who makes the edits ("person", "assistant", "sweep"), written into
        every journal event this editor makes."""
        self.core = EditorCore(session, history_limit, actor=actor)
        self.board = BoardEdits(self.core)
        self.setup = SetupEdits(self.core)

    # ----- the core: the session, the one way in, undo ----------------------------------
    @property
    def session(self) -> Session:
        return self.core.session

    @session.setter
    def session(self, session: Session) -> None:
        self.core.session = session

    @property
    def actor(self) -> str:
        return self.core.actor

    @actor.setter
    def actor(self, actor: str) -> None:
        self.core.actor = actor

    @property
    def history(self) -> History:
        return self.core.history

    @property
    def revision(self) -> int:
        """Bumped on every change (edit, undo, redo): the UI and autosave watch it."""
        return self.core.revision

    def apply(self, label: str | Callable[[], str], change: Callable[[Session], _T], *, kind: str = "edit",
              ref: str | None = None) -> _T:
        return self.core.apply(label, change, kind=kind, ref=ref)

    def undo(self) -> str | None:
        return self.core.undo()

    def redo(self) -> str | None:
        return self.core.redo()

    def replace(self, session: Session, label: str = "reload from disk",
                renumbered: dict[str, str] | None = None) -> None:
        self.core.replace(session, label, renumbered)

    def adopt(self, session: Session, renumbered: dict[str, str] | None = None) -> None:
        self.core.adopt(session, renumbered)

    column = staticmethod(column)
    new_id = staticmethod(new_id)

    # ----- the board (board_edits.py) -----------------------------------------------------
    def add_task(self, title: str, status: TaskStatus = TaskStatus.TODO, notes: str | None = None,
                 discoveries: list[str] | None = None) -> str:
        return self.board.add_task(title, status, notes, discoveries)

    def edit_task(self, ident: str, **fields: object) -> None:
        self.board.edit_task(ident, **fields)

    def delete_task(self, ident: str) -> None:
        self.board.delete_task(ident)

    def move_task(self, ident: str, step: int) -> TaskStatus:
        return self.board.move_task(ident, step)

    def reorder_task(self, ident: str, step: int) -> None:
        self.board.reorder_task(ident, step)

    def set_task_links(self, task_id: str, chosen: list[str]) -> None:
        self.board.set_task_links(task_id, chosen)

    def link_task(self, task_id: str, discovery_id: str) -> None:
        self.board.link_task(task_id, discovery_id)

    def acknowledge_review(self, ident: str) -> None:
        self.board.acknowledge_review(ident)

    def add_discovery(self, claim: str, evidence: str | None = None,
                      status: DiscoveryStatus = DiscoveryStatus.HYPOTHESIS, tags: list[str] | None = None,
                      **links: list[str]) -> str:
        return self.board.add_discovery(claim, evidence, status, tags, **links)

    def edit_discovery(self, ident: str, **fields: object) -> None:
        self.board.edit_discovery(ident, **fields)

    def cycle_discovery_status(self, ident: str) -> DiscoveryStatus:
        return self.board.cycle_discovery_status(ident)

    # ----- the campaign's setup (setup_edits.py) -----------------------------------------
    def set_title(self, title: str) -> None:
        self.setup.set_title(title)

    def set_goal(self, **fields: object) -> None:
        self.setup.set_goal(**fields)

    def add_target(self, **fields: object) -> str:
        return self.setup.add_target(**fields)

    def edit_target(self, ident: str, **fields: object) -> None:
        self.setup.edit_target(ident, **fields)

    def delete_target(self, ident: str) -> None:
        self.setup.delete_target(ident)

    def add_instruction(self, text: str) -> str:
        return self.setup.add_instruction(text)

    def edit_instruction(self, ident: str, text: str) -> None:
        self.setup.edit_instruction(ident, text)

    def move_instruction(self, ident: str, step: int) -> None:
        self.setup.move_instruction(ident, step)

    def delete_instruction(self, ident: str) -> None:
        self.setup.delete_instruction(ident)

    def add_host(self, **fields: object) -> str:
        return self.setup.add_host(**fields)

    def edit_host(self, name: str, /, **fields: object) -> None:
        self.setup.edit_host(name, **fields)

    def delete_host(self, name: str) -> None:
        self.setup.delete_host(name)

    # ----- the rest ---------------------------------------------------------------------
    def add_benchmark(self, **fields: object) -> str:
        ident = new_id(self.session, "benchmarks")

        def change(s: Session) -> str:
            fields.setdefault("when", now())
            s.benchmarks.append(Benchmark.model_validate({**fields, "id": ident}))
            return ident
        return self.apply(f"benchmark added: {fields.get('label', '')}", change, kind="benchmark.added", ref=ident)

    def edit_benchmark(self, ident: str, **fields: object) -> None:
        """Change any of a benchmark's fields (None clears one); validated as a whole."""
        def change(s: Session) -> None:
            old = find(s.benchmarks, ident)
            s.benchmarks[s.benchmarks.index(old)] = Benchmark(**{**old.model_dump(), **fields})
        names = ", ".join(sorted(fields)) or "nothing"
        self.apply(f"benchmark {ident} edited: {names}", change, kind="benchmark.edited", ref=ident)

    def delete_benchmark(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.benchmarks.remove(find(s.benchmarks, ident))
            for disc in s.discoveries:
                disc.benchmarks = [b for b in disc.benchmarks if b != ident]
        self.apply(f"benchmark deleted: {ident}", change, kind="benchmark.deleted", ref=ident)

    def set_last_action(self, text: str, next_step: str | None = None, fallback: str | None = None) -> None:
        """A person's (or their assistant's) words; the one they replace goes to `last_actions`."""
        def change(s: Session) -> None:
            _keep_earlier(s)
            s.last_action = LastAction(text=text, when=now(), next_step=next_step or None, fallback=fallback or None)
        said = f"last action: {text}" + (f"; next: {next_step}" if next_step else "") + \
            (f"; fallback: {fallback}" if fallback else "")
        self.apply(said, change, kind="last_action.set")

    def record_activity(self, text: str, next_step: str | None = None, fallback: str | None = None) -> None:
        """An automatic step (start, ready, crash, a sweep's end): beside a person's last
        action, never over their words; it is the last action only where there is none or
        the one there was written by an automatic step too."""
        def change(s: Session) -> None:
            step = Activity(text=text, when=now(), next_step=next_step or None, fallback=fallback or None)
            last = s.last_action
            if last is not None and last.by != AUTO:
                s.last_action = last.model_copy(update={"activity": step})
                return
            _keep_earlier(s)
            s.last_action = LastAction(text=text, when=step.when, next_step=step.next_step, fallback=step.fallback,
                                       by=AUTO)
        said = f"activity: {text}" + (f"; suggests: {next_step}" if next_step else "")
        self.apply(said, change, kind="activity")

    def retire_done_next(self, is_done: Callable[[str], bool], why: str) -> bool:
        """An automatic step's "next" that is done now (the sweep it proposes has run, by this
        app, a search or `cockpit sweep`) goes, so no "next" is left that is already done
        (issue 39). A person's own next step is theirs: only the activity's suggestion and a
        last action an automatic step wrote are touched. True when one went."""
        last = self.session.last_action
        if last is None:
            return False
        in_activity = last.activity is not None and bool(last.activity.next_step) and is_done(
            last.activity.next_step or "")
        in_auto = last.by == AUTO and bool(last.next_step) and is_done(last.next_step or "")
        if not (in_activity or in_auto):
            return False

        def change(s: Session) -> None:
            now_last = s.last_action
            assert now_last is not None  # (checked above on the same session)
            update: dict[str, object] = {}
            if in_activity and now_last.activity is not None:
                update["activity"] = now_last.activity.model_copy(update={"next_step": None})
            if in_auto:
                update["next_step"] = None
            s.last_action = now_last.model_copy(update=update)

        self.apply(f"activity: next step done ({why})", change, kind="activity")
        return True

    def mark_profile_working(self, ident: str) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            chosen = find(s.launch, ident)
            said.append(f"launch profile {ident} {said_change('status', chosen.status, ProfileStatus.WORKING)}")
            for profile in s.launch:
                if profile.status is ProfileStatus.WORKING and profile is not chosen:
                    profile.status = ProfileStatus.CANDIDATE
                    said.append(f"{profile.id} working -> candidate")
            chosen.status = ProfileStatus.WORKING
        self.apply(lambda: "; ".join(said), change, kind="launch.working", ref=ident)

    # ----- simple records: patched files, package versions, launch profiles --------------
    # collection -> (model, journal kind prefix, what the journal text calls one)
    _RECORDS = {"files": (FileChange, "file", "file"), "packages": (Package, "package", "package"),
                "launch": (LaunchProfile, "launch", "launch profile"),
                "benchmarks": (Benchmark, "benchmark", "benchmark"), "sweeps": (Sweep, "sweep", "sweep")}

    def add_record(self, collection: str, **fields: object) -> str:
        """Add a file, package or launch profile; returns its new id."""
        model, kind, what = self._RECORDS[collection]
        ident = new_id(self.session, collection)
        if collection == "packages":
            fields.setdefault("captured", now())

        def change(s: Session) -> str:
            getattr(s, collection).append(model(id=ident, **fields))
            return ident
        label = fields.get("path") or fields.get("name") or ident
        return self.apply(f"{what} added: {label}", change, kind=f"{kind}.added", ref=ident)

    def edit_record(self, collection: str, ident: str, **fields: object) -> None:
        model, kind, what = self._RECORDS[collection]
        said: list[str] = []

        def change(s: Session) -> None:
            items = getattr(s, collection)
            old = find(items, ident)
            new = model(**{**old.model_dump(), **fields})
            items[items.index(old)] = new
            said.append(said_changes(old, new, fields))
        self.apply(lambda: f"{what} {ident} edited: {said[0]}", change, kind=f"{kind}.edited", ref=ident)

    def delete_record(self, collection: str, ident: str) -> None:
        """Delete a file or package (a file's links from discoveries go with it)."""
        _, kind, what = self._RECORDS[collection]

        def change(s: Session) -> None:
            getattr(s, collection).remove(find(getattr(s, collection), ident))
            if collection == "files":
                for disc in s.discoveries:
                    disc.files = [f for f in disc.files if f != ident]
        self.apply(f"{what} {ident} deleted", change, kind=f"{kind}.deleted", ref=ident)

    def add_note(self, text: str) -> None:
        self.apply(text, lambda s: None, kind="note")
