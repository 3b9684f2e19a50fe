"""What the main screen does with the views' intents: one SessionEditor call each.

Forms collect and validate; `_apply` runs the edit through the app's SessionController
(reporting an edit that cannot apply instead of crashing; the controller has the screen
re-render); then the selection follows the item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from textual.screen import Screen
from textual.widget import Widget

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.ui import messages as msg
from cockpit.ui.port import CockpitPort, port_of
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.log.log_pane import LogPane
from cockpit.ui.widgets.session.banner import LeftOffBanner
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView, full_command
from cockpit.ui.widgets.session.records_view import PackagesTable
from cockpit.ui.widgets.session.restorable import Restorable
from cockpit.ui.widgets.session.task_board import TaskBoard

if TYPE_CHECKING:
    from cockpit.control.session_controller import SessionController
    from cockpit.ui.screens.forms.forms import DiscoveryFields, LastActionFields, TaskFields


def _forms():  # noqa: ANN202 - the form screens, imported when one first opens (not at startup)
    from cockpit.ui.screens.forms import forms

    return forms


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=_HasId)
_R = TypeVar("_R")


def _find(items: Iterable[_Item], ident: str) -> _Item | None:
    return next((item for item in items if item.id == ident), None)


class MainIntents(Screen[None]):
    """The main screen's intent handlers (MainScreen is the one subclass)."""

    banner_dismissed: bool

    def scope_widget(self, scope: str) -> Widget:
        raise NotImplementedError  # MainScreen's

    @property
    def port(self) -> CockpitPort:
        """What this screen may ask of the app (ui/port.py)."""
        return port_of(self)

    @property
    def controller(self) -> SessionController:
        return self.port.controller

    @property
    def _session(self) -> Session:
        return self.controller.session

    def _apply(self, edit: Callable[[SessionEditor], _R], *, done: str | None = None) -> _R | Literal[False]:
        """One SessionEditor call through the controller; an edit that cannot apply is
        reported, not raised. Returns the call's result, or False when it did not apply."""
        try:
            result = self.controller.apply(edit)
        except ValueError as exc:  # EditError and pydantic's ValidationError
            self.notify(str(exc).splitlines()[0], severity="warning", timeout=4)
            return False
        if done:
            self.notify(done, timeout=3)
        return result

    def _select_task(self, task_id: str) -> None:
        task = _find(self._session.tasks, task_id)
        if task is not None:
            self.query_one(TaskBoard).select_task(task_id, task.status)

    # ----- tasks ------------------------------------------------------------------------
    def on_task_add_requested(self, message: msg.TaskAddRequested) -> None:
        def done(result: TaskFields | None) -> None:
            if result is None:
                return
            ident = self._apply(lambda ed: ed.add_task(result["title"], message.status, result["notes"]))
            if ident:
                self._select_task(ident)

        self.app.push_screen(_forms().TaskForm(column=message.status.value), done)

    def on_task_edit_requested(self, message: msg.TaskEditRequested) -> None:
        task = _find(self._session.tasks, message.task_id)
        if task is None:
            return

        def done(result: TaskFields | None) -> None:
            if result is not None and (result["title"], result["notes"]) != (task.title, task.notes):
                self._apply(lambda ed: ed.edit_task(task.id, **result))
                self._select_task(task.id)

        self.app.push_screen(_forms().TaskForm(task), done)

    def on_task_delete_requested(self, message: msg.TaskDeleteRequested) -> None:
        self._apply(lambda ed: ed.delete_task(message.task_id),
                            done=f"Deleted {message.task_id} (u undoes)")

    def on_task_move_requested(self, message: msg.TaskMoveRequested) -> None:
        if self._apply(lambda ed: ed.move_task(message.task_id, message.step)):
            self._select_task(message.task_id)

    def on_task_reorder_requested(self, message: msg.TaskReorderRequested) -> None:
        self._apply(lambda ed: ed.reorder_task(message.task_id, message.step))
        self._select_task(message.task_id)

    def on_task_link_requested(self, message: msg.TaskLinkRequested) -> None:
        task = _find(self._session.tasks, message.task_id)
        if task is None:
            return
        if not self._session.discoveries:
            self.app.notify("No discoveries to link yet (3, then a)", severity="warning")
            return

        def done(chosen: list[str] | None) -> None:
            # unchanged (in any order): nothing to journal, no undo step
            if chosen is not None and set(chosen) != set(_linked_discoveries(self._session, task.id)):
                self._apply(lambda ed: ed.set_task_links(task.id, chosen))
                self._select_task(task.id)

        self.app.push_screen(_forms().LinkForm(self._session, task), done)

    def on_task_review_acknowledged(self, message: msg.TaskReviewAcknowledged) -> None:
        task = _find(self._session.tasks, message.task_id)
        if task is not None and not task.review:
            self.app.notify(f"{task.id} is not flagged for review", timeout=2)
            return
        self._apply(lambda ed: ed.acknowledge_review(message.task_id))
        self._select_task(message.task_id)

    # ----- discoveries ----------------------------------------------------------------------
    def on_discovery_add_requested(self, _message: msg.DiscoveryAddRequested) -> None:
        def done(result: DiscoveryFields | None) -> None:
            if result is None:
                return
            ident = self._apply(lambda ed: ed.add_discovery(**result))  # links too: one undo step
            if ident:
                self.query_one(DiscoveriesView).select(ident)

        self.app.push_screen(_forms().DiscoveryForm(self._session), done)

    def on_discovery_edit_requested(self, message: msg.DiscoveryEditRequested) -> None:
        disc = _find(self._session.discoveries, message.discovery_id)
        if disc is None:
            return

        def done(result: DiscoveryFields | None) -> None:
            if result is None:
                return
            changed = {key: value for key, value in result.items() if getattr(disc, key) != value}
            if changed:
                self._edit_discovery(disc.id, changed)

        self.app.push_screen(_forms().DiscoveryForm(self._session, disc), done)

    def _edit_discovery(self, ident: str, changed: dict[str, object]) -> None:
        before = {t.id for t in self._session.tasks if t.review}
        self._apply(lambda ed: ed.edit_discovery(ident, **changed))
        self._announce_flagged(ident, before)

    def on_discovery_status_cycle_requested(self, message: msg.DiscoveryStatusCycleRequested) -> None:
        before = {t.id for t in self._session.tasks if t.review}
        status = self._apply(lambda ed: ed.cycle_discovery_status(message.discovery_id))
        if status:
            self.app.notify(f"{message.discovery_id} is now {status.value}", timeout=3)
            self._announce_flagged(message.discovery_id, before)

    def _announce_flagged(self, ident: str, before: set[str]) -> None:
        flagged = sorted({t.id for t in self._session.tasks if t.review} - before)
        if flagged:
            self.app.notify(f"Flagged for review: {', '.join(flagged)} (rest on {ident}; r on the board clears)",
                            severity="warning", timeout=5)

    # ----- benchmarks, profiles, last action ---------------------------------------------------
    def on_benchmark_add_requested(self, _message: msg.BenchmarkAddRequested) -> None:
        self._new_benchmark()

    def on_log_pane_bench_result_seen(self, message: LogPane.BenchResultSeen) -> None:
        """"Record this result" in the log: the form filled with the block's figures."""
        self._new_benchmark(message.fields, announce=True)

    def _new_benchmark(self, figures: Mapping[str, object] | None = None, *, announce: bool = False) -> None:
        def done(result: dict[str, object] | None) -> None:
            if result is None:
                return
            fields = {key: value for key, value in result.items() if value is not None and value != []}
            ident = self._apply(lambda ed: ed.add_benchmark(**fields))
            if ident:
                self.query_one(BenchmarksView).select(ident)
                if announce:
                    self.notify(f"Recorded {ident}: {fields['label']} (tab 4 shows it)", timeout=4)

        self.app.push_screen(_forms().BenchmarkForm(self._session, figures=figures), done)

    def on_benchmark_edit_requested(self, message: msg.BenchmarkEditRequested) -> None:
        bench = _find(self._session.benchmarks, message.benchmark_id)
        if bench is None:
            return

        def done(result: dict[str, object] | None) -> None:
            if result is None:
                return
            changed = {key: value for key, value in result.items() if getattr(bench, key) != value}
            if changed:
                self._apply(lambda ed: ed.edit_benchmark(bench.id, **changed))
                self.query_one(BenchmarksView).select(bench.id)

        self.app.push_screen(_forms().BenchmarkForm(self._session, bench), done)

    def on_benchmark_delete_requested(self, message: msg.BenchmarkDeleteRequested) -> None:
        self._apply(lambda ed: ed.delete_benchmark(message.benchmark_id),
                            done=f"Deleted {message.benchmark_id} (u undoes)")

    def on_profile_mark_working_requested(self, message: msg.ProfileMarkWorkingRequested) -> None:
        self._apply(lambda ed: ed.mark_profile_working(message.profile_id),
                            done=f"{message.profile_id} is the working profile")

    def on_profile_copy_requested(self, message: msg.ProfileCopyRequested) -> None:
        profile = _find(self._session.launch, message.profile_id)
        if profile is not None:
            self.app.copy_to_clipboard(full_command(profile))
            self.app.notify(f"Copied {profile.id}'s command, secrets masked (OSC 52; under tmux: set -s set-clipboard on)",
                            timeout=4)

    # ----- the handoff: to a file beside the session, or to the clipboard ----------------
    def on_handoff_write_requested(self, message: msg.HandoffWriteRequested) -> None:
        from cockpit.store.handoff.markdown import write_handoff

        try:
            where = write_handoff(self._session, self.port.path)
        except OSError as exc:  # SaveError / SessionReadOnlyError say `path: reason`
            self.app.notify(f"Handoff not written: {exc}", severity="error", timeout=10)
            return
        self.app.notify(f"Handoff written to {where}", timeout=6)

    def on_handoff_copy_requested(self, message: msg.HandoffCopyRequested) -> None:
        from cockpit.store.handoff.markdown import render_handoff

        text = render_handoff(self._session)
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied the handoff ({len(text.splitlines())} lines of Markdown; OSC 52, "
                        "under tmux: set -s set-clipboard on)", timeout=4)

    # ----- simple records: patched files, packages, launch profiles ---------------------
    def _select_record(self, collection: str, ident: str) -> None:
        if collection == "sweeps":  # no list of its own on this screen: say where it went
            self.app.notify(f"Sweep {ident} added (B runs the first sweep; E edits one).", timeout=5)
            return
        view = self.scope_widget(collection)
        if isinstance(view, ProfilesView):
            view.select(ident)
        elif isinstance(view, Restorable):
            view.select_id(ident)

    def on_record_add_requested(self, message: msg.RecordAddRequested) -> None:
        def done(result: dict[str, object] | None) -> None:
            if result is not None:
                ident = self._apply(lambda ed: ed.add_record(message.collection, **result))
                if ident:
                    self._select_record(message.collection, ident)

        hosts = [h.name for h in self._session.hosts]
        source = _find(getattr(self._session, message.collection), message.copy_of) if message.copy_of else None
        self.app.push_screen(_forms().record_form(message.collection, source, hosts, copy=source is not None), done)

    def on_record_edit_requested(self, message: msg.RecordEditRequested) -> None:
        item = _find(getattr(self._session, message.collection), message.ident)
        if item is None:
            return

        def done(result: dict[str, object] | None) -> None:
            if result is not None and any(getattr(item, key) != value for key, value in result.items()):
                self._apply(lambda ed: ed.edit_record(message.collection, message.ident, **result))

        hosts = [h.name for h in self._session.hosts]
        self.app.push_screen(_forms().record_form(message.collection, item, hosts), done)

    def on_record_delete_requested(self, message: msg.RecordDeleteRequested) -> None:
        self._apply(lambda ed: ed.delete_record(message.collection, message.ident),
                            done=f"Deleted {message.ident} (u undoes)")

    def on_drift_check_requested(self, message: msg.DriftCheckRequested) -> None:
        if not self._session.packages:
            self.app.notify("No packages recorded to check." + (
                " v records the versions of the packages listed here: add one first (a)" if message.record else ""),
                timeout=4)
            return
        self.app.notify("Checking the recorded versions on their hosts…", timeout=3)
        self.run_worker(self._check_drift(message.record), group="drift", exclusive=True, exit_on_error=False)

    async def _check_drift(self, record: bool = False) -> None:
        from cockpit.model.package_drift import drifted
        from cockpit.model.package_drift import summary as drift_summary

        try:
            rows, notes = await self.port.check_drift(self._session)
        except Exception as exc:  # noqa: BLE001 - say it on screen; the app goes on
            self.app.notify(f"Drift check failed: {exc}", severity="error", timeout=8)
            return
        summary = drift_summary(rows)
        when = self.port.clock().strftime("%H:%M")
        self.query_one(PackagesTable).show_drift(rows, f"{summary} · checked {when} · " + "; ".join(notes))
        # why a version could not be read (no python there, no such package) is said in full:
        # the table's title that also holds it is cut at 80 columns
        self.app.notify(safe(f"{summary}." + "".join(f"\n{note}" for note in notes), multiline=True), markup=False,
                        severity="warning" if drifted(rows) else "information", timeout=6)
        if record:  # the person asked (v): the versions read now become the record, one undoable edit
            from cockpit.model.package_versions import record_changed, why_nothing_recorded

            if (why := why_nothing_recorded(rows)) is not None:
                self.app.notify(f"Nothing recorded: {why}", severity="warning", timeout=5)
                return
            self._apply(lambda ed: record_changed(ed, rows), done="Recorded the versions the hosts run now (u undoes)")

    def action_set_last_action(self) -> None:
        current = self._session.last_action

        def done(result: LastActionFields | None) -> None:
            unchanged = current is not None and result == {
                "text": current.text, "next_step": current.next_step, "fallback": current.fallback}
            if result is not None and not unchanged and self._apply(lambda ed: ed.set_last_action(**result)) is not False:
                banner = self.query_one(LeftOffBanner)
                banner.show(self._session.last_action)
                banner.display = not self.banner_dismissed

        self.app.push_screen(_forms().LastActionForm(self._session.last_action), done)


def _linked_discoveries(session: Session, task_id: str) -> set[str]:
    """What the link dialog shows ticked: the task's links and the discoveries naming it."""
    task = _find(session.tasks, task_id)
    return set(task.discoveries if task else ()) | {d.id for d in session.discoveries if task_id in d.tasks}
