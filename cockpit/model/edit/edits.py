"""Every change to a session goes through `SessionEditor`: recorded for undo, journaled.

The TUI's actions and the headless `cockpit add` command call the same methods, so an
edit means the same thing wherever it comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from cockpit.model.edit.history import History
from cockpit.model.edit.journal_text import change as said_change
from cockpit.model.edit.journal_text import changes as said_changes
from cockpit.model.edit.journal_text import shown
from cockpit.model.enums import TASK_COLUMNS, DiscoveryStatus, ProfileStatus, TaskStatus
from cockpit.model.ids import PREFIX, next_id
from cockpit.model.integrity import check_integrity
from cockpit.model.session import (
    AUTO,
    LAST_ACTIONS_KEPT,
    Activity,
    Benchmark,
    Discovery,
    FileChange,
    Host,
    Instruction,
    JournalEvent,
    LastAction,
    LaunchProfile,
    Package,
    Session,
    Sweep,
    Target,
    Task,
    now,
)

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


def _keep_earlier(session: Session) -> None:
    """The last action about to be replaced joins the history (the newest `LAST_ACTIONS_KEPT`)."""
    if session.last_action is not None:
        session.last_actions = [*session.last_actions, session.last_action][-LAST_ACTIONS_KEPT:]


class EditError(ValueError):
    """An edit that cannot apply (unknown id, invalid value); the session is unchanged."""


PERSON = "person"
"""The actor of the person's own hand (the TUI, a `cockpit` command typed at a shell):
their journal lines carry no "(via ...)", a note stays their words as typed."""


def journal_text(label: str, actor: str) -> str:
    """A journal line as it says who acted: the person's own as is, any other writer's
    (the assistant, a sweep) with " (via ACTOR)"."""
    return label if actor == PERSON else f"{label} (via {actor})"


class SessionEditor:
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

    # ----- lookups -----------------------------------------------------------------
    @staticmethod
    def _find(items: list[_T], ident: str) -> _T:
        for item in items:
            if getattr(item, "id", None) == ident:
                return item
        raise KeyError(f"no item with id '{ident}'")

    def _current_task(self, ident: str) -> Task:
        """A task as the session is now, for an edit that reads before it applies: an unknown
        id is an EditError there too, as inside `apply`."""
        try:
            return self._find(self.session.tasks, ident)
        except KeyError as exc:
            raise EditError(str(exc)) from exc

    @staticmethod
    def column(session: Session, status: TaskStatus) -> list[Task]:
        return sorted((t for t in session.tasks if t.status is status), key=lambda t: (t.order, t.id))

    @classmethod
    def _renumber(cls, session: Session, status: TaskStatus) -> None:
        for index, task in enumerate(cls.column(session, status)):
            task.order = index

    def _new_id(self, session: Session, collection: str) -> str:
        return next_id(PREFIX[collection], (item.id for item in getattr(session, collection)))

    # ----- tasks -------------------------------------------------------------------
    def add_task(self, title: str, status: TaskStatus = TaskStatus.TODO, notes: str | None = None,
                 discoveries: list[str] | None = None) -> str:
        def change(s: Session) -> str:
            ident = self._new_id(s, "tasks")
            order = len(self.column(s, status))
            stamp = now()
            s.tasks.append(Task(id=ident, title=title, status=status, order=order, notes=notes or None,
                                discoveries=discoveries or [], created=stamp, updated=stamp))
            return ident
        return self.apply(f"task added: {title}", change, kind="task.added")

    def edit_task(self, ident: str, **fields: Any) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            task = self._find(s.tasks, ident)
            old = task.model_copy()
            for key, value in fields.items():
                setattr(task, key, value)
            task.updated = now()
            said.append(said_changes(old, task, fields))
        self.apply(lambda: f"task {ident} edited: {said[0]}", change, kind="task.edited", ref=ident)

    def delete_task(self, ident: str) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            task = self._find(s.tasks, ident)
            said.append(shown(task.title))
            s.tasks.remove(task)
            for disc in s.discoveries:
                if ident in disc.tasks:
                    disc.tasks = [t for t in disc.tasks if t != ident]
            self._renumber(s, task.status)
        self.apply(lambda: f"task {ident} deleted: {said[0]}", change, kind="task.deleted", ref=ident)

    def move_task(self, ident: str, step: int) -> TaskStatus:
        """Move a task `step` columns right (+1) or left (-1); it lands at the column's end."""
        said: list[str] = []

        def change(s: Session) -> TaskStatus:
            task = self._find(s.tasks, ident)
            index = TASK_COLUMNS.index(task.status) + step
            if not 0 <= index < len(TASK_COLUMNS):
                raise EditError(f"{ident} is already in the {'last' if step > 0 else 'first'} column")
            old = task.status
            task.status = TASK_COLUMNS[index]
            task.order = len(self.column(s, task.status))
            task.updated = now()
            self._renumber(s, old)
            self._renumber(s, task.status)
            said.append(f"{old.value} -> {task.status.value}")
            return task.status
        return self.apply(lambda: f"task {ident} moved {said[0]}", change, kind="task.moved", ref=ident)

    def reorder_task(self, ident: str, step: int) -> None:
        """Move a task up (-1) or down (+1) within its column."""
        said: list[str] = []

        def change(s: Session) -> None:
            task = self._find(s.tasks, ident)
            col = self.column(s, task.status)
            pos = col.index(task)
            dest = pos + step
            if not 0 <= dest < len(col):
                raise EditError(f"{ident} is already at the {'bottom' if step > 0 else 'top'}")
            col[pos], col[dest] = col[dest], col[pos]
            for index, item in enumerate(col):
                item.order = index
            said.append(f"in {task.status.value}: position {pos + 1} -> {dest + 1}")
        self.apply(lambda: f"task {ident} reordered {said[0]}", change, kind="task.reordered", ref=ident)

    def set_task_links(self, task_id: str, chosen: list[str]) -> None:
        """One undoable edit: the task rests on exactly `chosen`, kept in step on both sides."""
        said: list[str] = []

        def change(s: Session) -> None:
            task = self._find(s.tasks, task_id)
            for ident in chosen:
                self._find(s.discoveries, ident)
            said.append(said_change("discoveries", task.discoveries, chosen))
            task.discoveries = list(chosen)
            for disc in s.discoveries:
                if disc.id in chosen and task_id not in disc.tasks:
                    disc.tasks = [*disc.tasks, task_id]
                elif disc.id not in chosen and task_id in disc.tasks:
                    disc.tasks = [t for t in disc.tasks if t != task_id]
        self.apply(lambda: f"task {task_id} linked: {said[0]}", change, kind="task.linked", ref=task_id)

    def link_task(self, task_id: str, discovery_id: str) -> None:
        """Link (or unlink, if already linked) one discovery: `set_task_links` toggled."""
        current = self._current_task(task_id).discoveries
        chosen = [d for d in current if d != discovery_id] if discovery_id in current else [*current, discovery_id]
        self.set_task_links(task_id, chosen)

    def acknowledge_review(self, ident: str) -> None:
        def change(s: Session) -> None:
            self._find(s.tasks, ident).review = False
        self.apply(f"task {ident} review flag cleared", change, kind="task.reviewed", ref=ident)

    # ----- discoveries ---------------------------------------------------------------
    def add_discovery(self, claim: str, evidence: str | None = None,
                      status: DiscoveryStatus = DiscoveryStatus.HYPOTHESIS, tags: list[str] | None = None,
                      **links: list[str]) -> str:
        """A new claim; `links` (benchmarks, files, tasks: lists of ids) in the same undo step."""
        ident = self._new_id(self.session, "discoveries")

        def change(s: Session) -> str:
            stamp = now()
            s.discoveries.append(Discovery(id=ident, claim=claim, evidence=evidence or None, status=status,
                                           tags=tags or [], created=stamp, updated=stamp, **links))
            return ident
        return self.apply(f"discovery added: {claim}", change, kind="discovery.added", ref=ident)

    def edit_discovery(self, ident: str, **fields: Any) -> None:
        status = fields.pop("status", None)
        said: list[str] = []

        def change(s: Session) -> None:
            disc = self._find(s.discoveries, ident)
            old = disc.model_copy()
            for key, value in fields.items():
                setattr(disc, key, value)
            if status is not None and status != disc.status:
                self._set_discovery_status(s, disc, DiscoveryStatus(status))
            disc.updated = now()
            edited = [*fields, "status"]
            if old.status != disc.status and all(getattr(old, f) == getattr(disc, f) for f in fields):
                said.append(f"discovery {ident} {said_change('status', old.status, disc.status)}")
            else:
                said.append(f"discovery {ident} edited: {said_changes(old, disc, edited)}")
        self.apply(lambda: said[0], change, kind="discovery.edited", ref=ident)

    def cycle_discovery_status(self, ident: str) -> DiscoveryStatus:
        said: list[str] = []

        def change(s: Session) -> DiscoveryStatus:
            disc = self._find(s.discoveries, ident)
            old = disc.status
            self._set_discovery_status(s, disc, disc.status.cycled())
            disc.updated = now()
            said.append(said_change("status", old, disc.status))
            return disc.status
        return self.apply(lambda: f"discovery {ident} {said[0]}", change, kind="discovery.status", ref=ident)

    def _set_discovery_status(self, s: Session, disc: Discovery, status: DiscoveryStatus) -> None:
        disc.status = status
        # Tasks resting on a claim that flipped need a second look.
        for task in s.tasks:
            if disc.id in task.discoveries or task.id in disc.tasks:
                task.review = True

    # ----- the rest ---------------------------------------------------------------------
    def add_benchmark(self, **fields: Any) -> str:
        ident = self._new_id(self.session, "benchmarks")

        def change(s: Session) -> str:
            fields.setdefault("when", now())
            s.benchmarks.append(Benchmark(id=ident, **fields))
            return ident
        return self.apply(f"benchmark added: {fields.get('label', '')}", change, kind="benchmark.added", ref=ident)

    def edit_benchmark(self, ident: str, **fields: Any) -> None:
        """Change any of a benchmark's fields (None clears one); validated as a whole."""
        def change(s: Session) -> None:
            old = self._find(s.benchmarks, ident)
            s.benchmarks[s.benchmarks.index(old)] = Benchmark(**{**old.model_dump(), **fields})
        names = ", ".join(sorted(fields)) or "nothing"
        self.apply(f"benchmark {ident} edited: {names}", change, kind="benchmark.edited", ref=ident)

    def delete_benchmark(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.benchmarks.remove(self._find(s.benchmarks, ident))
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

    def mark_profile_working(self, ident: str) -> None:
        said: list[str] = []

        def change(s: Session) -> None:
            chosen = self._find(s.launch, ident)
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

    def add_record(self, collection: str, **fields: Any) -> str:
        """Add a file, package or launch profile; returns its new id."""
        model, kind, what = self._RECORDS[collection]
        ident = self._new_id(self.session, collection)
        if collection == "packages":
            fields.setdefault("captured", now())

        def change(s: Session) -> str:
            getattr(s, collection).append(model(id=ident, **fields))
            return ident
        label = fields.get("path") or fields.get("name") or ident
        return self.apply(f"{what} added: {label}", change, kind=f"{kind}.added", ref=ident)

    def edit_record(self, collection: str, ident: str, **fields: Any) -> None:
        model, kind, what = self._RECORDS[collection]
        said: list[str] = []

        def change(s: Session) -> None:
            items = getattr(s, collection)
            old = self._find(items, ident)
            new = model(**{**old.model_dump(), **fields})
            items[items.index(old)] = new
            said.append(said_changes(old, new, fields))
        self.apply(lambda: f"{what} {ident} edited: {said[0]}", change, kind=f"{kind}.edited", ref=ident)

    def delete_record(self, collection: str, ident: str) -> None:
        """Delete a file or package (a file's links from discoveries go with it)."""
        _, kind, what = self._RECORDS[collection]

        def change(s: Session) -> None:
            getattr(s, collection).remove(self._find(getattr(s, collection), ident))
            if collection == "files":
                for disc in s.discoveries:
                    disc.files = [f for f in disc.files if f != ident]
        self.apply(f"{what} {ident} deleted", change, kind=f"{kind}.deleted", ref=ident)

    def add_note(self, text: str) -> None:
        self.apply(text, lambda s: None, kind="note")

    # ----- the campaign's setup: goal, targets, instructions, hosts ----------------------
    @staticmethod
    def _what_changed(old: Any, fields: dict[str, Any]) -> str:
        """`field: before -> after` for each field that differs (the journal's text)."""
        def show(value: Any) -> str:
            value = getattr(value, "value", value)
            return "(none)" if value in (None, "") else repr(value) if isinstance(value, str) else str(value)

        return "; ".join(f"{key}: {show(getattr(old, key))} -> {show(value)}"
                         for key, value in fields.items() if getattr(old, key) != value) or "no change"

    def set_title(self, title: str) -> None:
        """The campaign's title (the header, the handoff's first line); the same one writes nothing."""
        title = title.strip()
        if not title:
            raise EditError("a campaign needs a title")
        if title == self.session.title:
            return

        def change(s: Session) -> None:
            s.title = title
        self.apply(f"title set: {title}", change, kind="title.edited")

    def set_goal(self, **fields: Any) -> None:
        """Summary, model and hardware (the targets have their own edits)."""
        text = self._what_changed(self.session.goal, fields)

        def change(s: Session) -> None:
            for key, value in fields.items():
                setattr(s.goal, key, value)
        self.apply(f"goal edited: {text}", change, kind="goal.edited")

    def add_target(self, **fields: Any) -> str:
        ident = next_id(PREFIX["targets"], (t.id for t in self.session.goal.targets))

        def change(s: Session) -> str:
            s.goal.targets = [*s.goal.targets, Target(id=ident, **fields)]
            return ident
        what = " ".join(str(getattr(fields.get(k), "value", fields.get(k))) for k in ("metric", "comparator", "value"))
        return self.apply(f"target added: {what}", change, kind="target.added", ref=ident)

    def edit_target(self, ident: str, **fields: Any) -> None:
        old = self._find(self.session.goal.targets, ident) if any(
            t.id == ident for t in self.session.goal.targets) else None
        text = self._what_changed(old, fields) if old is not None else ""

        def change(s: Session) -> None:
            targets = s.goal.targets
            current = self._find(targets, ident)
            # Validated as a whole: a min above the max is refused, not half-applied.
            targets[targets.index(current)] = Target(**{**current.model_dump(), **fields})
        self.apply(f"target {ident} edited: {text}", change, kind="target.edited", ref=ident)

    def delete_target(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.goal.targets = [t for t in s.goal.targets if t is not self._find(s.goal.targets, ident)]
        self.apply(f"target deleted: {ident}", change, kind="target.deleted", ref=ident)

    def add_instruction(self, text: str) -> str:
        ident = self._new_id(self.session, "instructions")

        def change(s: Session) -> str:
            s.instructions.append(Instruction(id=ident, text=text))
            return ident
        return self.apply(f"instruction added: {text}", change, kind="instruction.added", ref=ident)

    def edit_instruction(self, ident: str, text: str) -> None:
        def change(s: Session) -> None:
            self._find(s.instructions, ident).text = text
        self.apply(f"instruction {ident} edited: {text}", change, kind="instruction.edited", ref=ident)

    def move_instruction(self, ident: str, step: int) -> None:
        """Up (-1) or down (+1) in the list: the order is the order of importance."""
        def change(s: Session) -> None:
            items = s.instructions
            pos = items.index(self._find(items, ident))
            dest = pos + step
            if not 0 <= dest < len(items):
                raise EditError(f"{ident} is already {'last' if step > 0 else 'first'}")
            items[pos], items[dest] = items[dest], items[pos]
        self.apply(f"instruction {ident} moved {'down' if step > 0 else 'up'}", change,
                   kind="instruction.moved", ref=ident)

    def delete_instruction(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.instructions.remove(self._find(s.instructions, ident))
        self.apply(f"instruction deleted: {ident}", change, kind="instruction.deleted", ref=ident)

    def add_host(self, **fields: Any) -> str:
        def change(s: Session) -> str:
            s.hosts.append(Host(**fields))
            return s.hosts[-1].name
        return self.apply(f"host added: {fields.get('name')}", change, kind="host.added", ref=fields.get("name"))

    def edit_host(self, name: str, /, **fields: Any) -> None:
        """Change a host; a new name is followed by the records that name it."""
        old = next((h for h in self.session.hosts if h.name == name), None)
        text = self._what_changed(old, fields) if old is not None else ""

        def change(s: Session) -> None:
            current = next((h for h in s.hosts if h.name == name), None)
            if current is None:
                raise KeyError(f"no host named '{name}'")
            new = Host(**{**current.model_dump(), **fields})
            s.hosts[s.hosts.index(current)] = new
            if new.name != name:
                for collection in ("files", "packages", "launch"):
                    for item in getattr(s, collection):
                        if item.host == name:
                            item.host = new.name
        self.apply(f"host {name} edited: {text}", change, kind="host.edited", ref=fields.get("name", name))

    def delete_host(self, name: str) -> None:
        def change(s: Session) -> None:
            current = next((h for h in s.hosts if h.name == name), None)
            if current is None:
                raise KeyError(f"no host named '{name}'")
            users = [item.id for collection in ("files", "packages", "launch")
                     for item in getattr(s, collection) if item.host == name]
            if users:
                raise EditError(f"host {name} is named by {', '.join(users)}: change those first")
            s.hosts.remove(current)
        self.apply(f"host deleted: {name}", change, kind="host.deleted", ref=name)
