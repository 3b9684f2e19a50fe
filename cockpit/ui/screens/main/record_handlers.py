"""What the main screen does with the record tabs' intents (benchmarks, launch profiles,
patched files, packages and their drift, the handoff, the last action): a form collects,
one SessionEditor call applies, then the selection follows the item."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from textual.screen import Screen

from cockpit.model.bench.compare import default_pair
from cockpit.model.enums import Metric
from cockpit.ui import messages as msg
from cockpit.ui.port import CockpitPort
from cockpit.ui.safe_text import safe
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.main.edit_runner import EditRunner, find, records_of
from cockpit.ui.screens.main.tabs_and_panes import TabsAndPanes
from cockpit.ui.widgets.session.banner import LeftOffBanner
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.profiles_view import ProfilesView, full_command
from cockpit.ui.widgets.session.records_view import PackagesTable
from cockpit.ui.widgets.session.restorable import Restorable

if TYPE_CHECKING:
    from cockpit.ui.screens.forms.records import LastActionFields


class RecordHandlers:
    """Records of the session, from `screen`; `port` for the session file's place, the clock
    and the drift check over SSH; `banner_dismissed()`: the person hid the banner (x)."""

    def __init__(self, screen: Screen[None], edits: EditRunner, port: CockpitPort, panes: TabsAndPanes,
                 banner_dismissed: Callable[[], bool]) -> None:
        self.screen = screen
        self.edits = edits
        self.port = port
        self.panes = panes
        self.banner_dismissed = banner_dismissed

    # ----- benchmarks and launch profiles ------------------------------------------------------
    def new_benchmark(self, figures: Mapping[str, object] | None = None, *, announce: bool = False) -> None:
        """The benchmark form; `figures` fill it ("Record this result" in the log, announced)."""
        from cockpit.ui.screens.forms.benchmark_form import BenchmarkForm  # loaded when a form first opens

        def done(result: dict[str, object] | None) -> None:
            if result is None:
                return
            fields = {key: value for key, value in result.items() if value is not None and value != []}
            ident = self.edits.apply(lambda ed: ed.add_benchmark(**fields))
            if ident:
                self.screen.query_one(BenchmarksView).select(ident)
                if announce:
                    self.edits.notify(f"Recorded {ident}: {fields['label']} (tab 4 shows it)", timeout=4)

        self.screen.app.push_screen(BenchmarkForm(self.edits.session, figures=figures), done)

    def edit_benchmark(self, message: msg.BenchmarkEditRequested) -> None:
        from cockpit.ui.screens.forms.benchmark_form import BenchmarkForm

        bench = find(self.edits.session.benchmarks, message.benchmark_id)
        if bench is None:
            return

        def done(result: dict[str, object] | None) -> None:
            if result is None:
                return
            changed = {key: value for key, value in result.items() if getattr(bench, key) != value}
            if changed:
                self.edits.apply(lambda ed: ed.edit_benchmark(bench.id, **changed))
                self.screen.query_one(BenchmarksView).select(bench.id)

        self.screen.app.push_screen(BenchmarkForm(self.edits.session, bench), done)

    def compare(self, message: msg.CompareRequested) -> None:
        """Two launch profiles side by side: `base` (else the working one) against `selected`."""
        pair = default_pair(self.edits.session, message.selected, message.base)
        if pair is None:
            self.edits.notify("Comparing needs two launch profiles", severity="warning", timeout=2)
            return
        metric = Metric(message.metric) if message.metric else Metric.TOTAL_TOK_S
        self.screen.app.push_screen(CompareScreen(*pair, metric=metric))

    def delete_benchmark(self, message: msg.BenchmarkDeleteRequested) -> None:
        self.edits.apply(lambda ed: ed.delete_benchmark(message.benchmark_id),
                         done=f"Deleted {message.benchmark_id} (u undoes)")

    def mark_profile_working(self, message: msg.ProfileMarkWorkingRequested) -> None:
        self.edits.apply(lambda ed: ed.mark_profile_working(message.profile_id),
                         done=f"{message.profile_id} is the working profile")

    def copy_profile(self, message: msg.ProfileCopyRequested) -> None:
        profile = find(self.edits.session.launch, message.profile_id)
        if profile is not None:
            self.screen.app.copy_to_clipboard(full_command(profile))
            self.edits.notify(f"Copied {profile.id}'s command, secrets masked (OSC 52; under tmux: "
                              "set -s set-clipboard on)", timeout=4)

    # ----- the handoff: to a file beside the session, or to the clipboard ----------------
    def write_handoff(self) -> None:
        from cockpit.store.handoff.markdown import write_handoff

        try:
            where = write_handoff(self.edits.session, self.port.path)
        except OSError as exc:  # SaveError / SessionReadOnlyError say `path: reason`
            self.edits.notify(f"Handoff not written: {exc}", severity="error", timeout=10)
            return
        self.edits.notify(f"Handoff written to {where}", timeout=6)

    def copy_handoff(self) -> None:
        from cockpit.store.handoff.markdown import render_handoff

        text = render_handoff(self.edits.session)
        self.screen.app.copy_to_clipboard(text)
        self.edits.notify(f"Copied the handoff ({len(text.splitlines())} lines of Markdown; OSC 52, "
                          "under tmux: set -s set-clipboard on)", timeout=4)

    # ----- simple records: patched files, packages, launch profiles ---------------------
    def _select_record(self, collection: str, ident: str) -> None:
        if collection == "sweeps":  # no list of its own on this screen: say where it went
            self.edits.notify(f"Sweep {ident} added (B runs the first sweep; E edits one).", timeout=5)
            return
        view = self.panes.scope_widget(collection)
        if isinstance(view, ProfilesView):
            view.select(ident)
        elif isinstance(view, Restorable):
            view.select_id(ident)

    def add_record(self, message: msg.RecordAddRequested) -> None:
        from cockpit.ui.screens.forms.records import record_form

        def done(result: dict[str, object] | None) -> None:
            if result is not None:
                ident = self.edits.apply(lambda ed: ed.add_record(message.collection, **result))
                if ident:
                    self._select_record(message.collection, ident)

        session = self.edits.session
        hosts = [h.name for h in session.hosts]
        source = find(records_of(session, message.collection), message.copy_of) if message.copy_of else None
        self.screen.app.push_screen(record_form(message.collection, source, hosts, copy=source is not None), done)

    def edit_record(self, message: msg.RecordEditRequested) -> None:
        from cockpit.ui.screens.forms.records import record_form

        session = self.edits.session
        item = find(records_of(session, message.collection), message.ident)
        if item is None:
            return

        def done(result: dict[str, object] | None) -> None:
            if result is not None and any(getattr(item, key) != value for key, value in result.items()):
                self.edits.apply(lambda ed: ed.edit_record(message.collection, message.ident, **result))

        hosts = [h.name for h in session.hosts]
        self.screen.app.push_screen(record_form(message.collection, item, hosts), done)

    def delete_record(self, message: msg.RecordDeleteRequested) -> None:
        self.edits.apply(lambda ed: ed.delete_record(message.collection, message.ident),
                         done=f"Deleted {message.ident} (u undoes)")

    def check_drift(self, message: msg.DriftCheckRequested) -> None:
        if not self.edits.session.packages:
            self.edits.notify("No packages recorded to check." + (
                " v records the versions of the packages listed here: add one first (a)" if message.record else ""),
                timeout=4)
            return
        self.edits.notify("Checking the recorded versions on their hosts…", timeout=3)
        self.screen.run_worker(self._check_drift(message.record), group="drift", exclusive=True, exit_on_error=False)

    async def _check_drift(self, record: bool = False) -> None:
        from cockpit.model.package_drift import drifted
        from cockpit.model.package_drift import summary as drift_summary

        try:
            rows, notes = await self.port.check_drift(self.edits.session)
        except Exception as exc:  # noqa: BLE001 - say it on screen; the app goes on
            self.edits.notify(f"Drift check failed: {exc}", severity="error", timeout=8)
            return
        summary = drift_summary(rows)
        when = self.port.clock().strftime("%H:%M")
        self.screen.query_one(PackagesTable).show_drift(rows, f"{summary} · checked {when} · " + "; ".join(notes))
        # why a version could not be read (no python there, no such package) is said in full:
        # the table's title that also holds it is cut at 80 columns
        self.edits.notify(safe(f"{summary}." + "".join(f"\n{note}" for note in notes), multiline=True), markup=False,
                          severity="warning" if drifted(rows) else "information", timeout=6)
        if record:  # the person asked (v): the versions read now become the record, one undoable edit
            from cockpit.model.package_versions import record_changed, why_nothing_recorded

            if (why := why_nothing_recorded(rows)) is not None:
                self.edits.notify(f"Nothing recorded: {why}", severity="warning", timeout=5)
                return
            self.edits.apply(lambda ed: record_changed(ed, rows),
                             done="Recorded the versions the hosts run now (u undoes)")

    # ----- where you left off ----------------------------------------------------------------
    def set_last_action(self) -> None:
        from cockpit.ui.screens.forms.records import LastActionForm

        current = self.edits.session.last_action

        def done(result: LastActionFields | None) -> None:
            unchanged = current is not None and result == {
                "text": current.text, "next_step": current.next_step, "fallback": current.fallback}
            if result is not None and not unchanged and self.edits.apply(
                    lambda ed: ed.set_last_action(**result)) is not False:
                banner = self.screen.query_one(LeftOffBanner)
                banner.show(self.edits.session.last_action)
                banner.display = not self.banner_dismissed()

        self.screen.app.push_screen(LastActionForm(current), done)
