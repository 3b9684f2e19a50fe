"""The Search view (`Q`): a search over launch configurations, its trials and its best.

A table of the trials (status, flags changed, objective, constraints met, power, tok/J), the
best so far (noise-aware: a relaunched configuration shows its spread), a Pareto plot of
the objective against output tok/J or TTFT p99, the running trials' live state, and the
keys that start (asked first: the space, the budget, a time estimate), pause, resume and
stop the search. The search runs in an app worker (ui/live/search_runs.py): closing the view
does not stop it. Its records go to the session file (control/search), which the app merges
in as it does any writer's; the view reads the app's session and redraws on each change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Static

from cockpit.control.search.front_lines import objectives_text
from cockpit.control.search.trial_lines import trial_line
from cockpit.model.figures import number, three_figures
from cockpit.model.search.objectives import heading as objective_heading
from cockpit.model.search.objectives import label as objective_label
from cockpit.model.search.objectives import unit as objective_unit
from cockpit.model.search.scoring import best_config, certainty
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.search.space import derived_name
from cockpit.model.session import Session
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.live.search_runs import runs_of
from cockpit.ui.port import port_of
from cockpit.ui.safe_text import safe
from cockpit.ui.screens.search_front import front_best_line, front_columns, front_lines, front_plot, front_rows
from cockpit.ui.screens.search_table import (
    AXIS_LABEL,
    COLUMNS,
    NARROW_BELOW,
    NUMERIC_COLUMNS,
    PLOT_AXES,
    ParetoPlot,
    flags_width,
    launch_counts,
    pareto,
)
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter


class SearchScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("search")
    scope = "search"

    def __init__(self, search_id: str | None = None) -> None:
        super().__init__(id="search-screen")
        self.search_id = search_id
        self.axis = PLOT_AXES[0]
        self._stop_listening: Callable[[], None] | None = None
        self._highlighted: int | None = None  # the trial under the table's cursor

    def compose(self) -> ComposeResult:
        yield Static("", id="search-title")
        yield Static("", id="search-best")
        yield Static("", id="search-front")
        with Horizontal(id="search-body"):
            yield DataTable(id="search-trials", cursor_type="row", zebra_stripes=True)
            with Vertical(id="search-side"):
                yield Static("", id="search-plot-caption")
                yield ParetoPlot()
                yield Static("", id="search-live")
        yield FittedFooter()

    def on_resize(self) -> None:
        # below 120 columns the plot goes under the table, which takes the width: its changed
        # flags are what tells trials apart (issue 39: at 80x24 only `# host status objective`)
        narrow = self.size.width < NARROW_BELOW
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self.redraw()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < NARROW_BELOW, "-narrow")
        self.redraw()
        self.query_one(DataTable).focus()
        self._stop_listening = port_of(self).controller.add_listener(self.redraw)

    def on_unmount(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()

    # ----- what is shown ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        return port_of(self).controller.session

    def current(self) -> Search | None:
        searches = self.session.searches
        if not searches:
            return None
        found = next((s for s in searches if s.id == self.search_id), None)
        if found is None:
            found = searches[0]
            self.search_id = found.id
        return found

    def loop(self) -> Any:
        return runs_of(self.app).get(self.search_id or "")

    def redraw(self) -> None:
        try:
            title = self.query_one("#search-title", Static)
        except NoMatches:  # closed, or not composed yet
            return
        search = self.current()
        table = self.query_one(DataTable)
        row = table.cursor_row  # a redraw per event rebuilds the table: the person's row stays
        table.clear(columns=True)
        multi = search is not None and search.multi
        flags_w: int | None = None
        self.query_one("#search-front", Static).display = multi
        if search is not None and search.multi:
            front_columns(table, search)
        else:
            # fixed widths: a redraw per event rebuilds the table, and auto widths lag behind it
            # the changed flags right after the figure: at 80 columns they are what tells trials apart
            flags_w = flags_width(self.app.size.width, narrow=self.has_class("-narrow"))
            figure = (objective_unit(search.primary) or "objective") if search is not None else "objective"
            for label, width in COLUMNS:
                # a figure's header sits over its right-aligned numbers
                header = Text(figure if label == "objective" else label,
                              justify="right" if label in NUMERIC_COLUMNS else "left")
                table.add_column(header, key=label, width=flags_w if label == "flags changed" else width)
        if search is None:
            title.update(Content.assemble(("Search ", "bold"), "none yet: n makes one (base profile, sweep, space)"))
            self.query_one("#search-best", Static).update("")
            return
        loop = self.loop()
        state = "idle" if loop is None else "paused" if loop.paused else "running"
        target = f" at c={search.at_concurrency}" if search.at_concurrency else ""
        aim = objectives_text(search) if search.multi else f"{search.direction.value} {objective_label(search.primary)}{target}"
        # what the figures in the rows are over (a mean says its window)
        table.border_title = f"trials · W mean, out tok/J: the point's measured run{target or ', max over the points'}"
        title.update(Content.assemble(
            ("Search ", "bold"), (f"{search.id} ", "bold $accent"),
            (state, "bold $warning" if state == "paused" else "bold $success" if state == "running" else ""),
            f" · {aim} · {launch_counts(search)} · ", safe(search.name)))
        base = next((p for p in self.session.launch if p.id == search.profile), None)
        if search.multi:
            front_rows(table, self.session, search)
            _keep_row(table, row)
            self.query_one("#search-best", Static).update(front_best_line(search))
            self.query_one("#search-front", Static).update(front_lines(search))
            self._plot(search)
            self._live(loop)
            return
        for trial in sorted(search.trial, key=lambda t: t.number):
            flags = derived_name(search, base, trial.params).partition(" · ")[2] if base else ""
            met = "—" if not trial.constraints else ("yes" if all(c <= 0 for c in trial.constraints) else "no")
            status = trial.status.value + (f", again #{trial.repeat_of}" if trial.repeat_of is not None else "")
            table.add_row(Text(str(trial.number), justify="right"), status,
                          Text(number(trial.value), justify="right"), safe(flags), met,
                          Text(number(trial.power_mean_w), justify="right"),
                          Text(three_figures(trial.output_tok_per_joule), justify="right"), safe(trial.host or "local"),
                          safe(trial.error or ""), key=str(trial.number), height=None)
        _keep_row(table, row)
        self._best(search)
        self._plot(search)
        self._live(loop)

    def _live(self, loop: Any) -> None:
        live = loop.live if loop is not None else {}
        lines = [f"{host or 'local'}: {text}" for host, text in live.items()]
        search = self.current()
        chosen = next((t for t in search.trial if t.number == self._highlighted), None) if search is not None else None
        if search is not None and chosen is not None and chosen.status is not TrialStatus.RUNNING:
            # the row under the cursor in the CLI's words: every flag, the figures with their
            # units, each constraint, a crash's first error line (cut off in the table); the
            # title says idle when nothing runs
            lines.append("▸ " + trial_line(self.session, search, chosen, chosen.host))
        self.query_one("#search-live", Static).update(safe("\n".join(lines) or "no trial running", multiline=True))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        self._highlighted = int(key) if key is not None and key.isdigit() else None
        self._live(self.loop())

    def _best(self, search: Search) -> None:
        best = best_config(search)
        widget = self.query_one("#search-best", Static)
        if best is None:
            widget.update("best: none yet" + (" (no trial has met the constraints)" if search.trial else ""))
            return
        base = next((p for p in self.session.launch if p.id == search.profile), None)
        changes = derived_name(search, base, best.first.params).partition(" · ")[2] if base else ""
        est = best.estimate
        profile = f" ({best.first.profile})" if best.first.profile else ""
        sure = certainty(search)
        # how sure, on a second line where the width leaves room for one (below NARROW_BELOW the table needs it)
        against = ("\n", safe(sure.against())) if sure is not None and not self.has_class("-narrow") else ()
        widget.update(Content.assemble(("best: ", "bold"), f"trial {best.first.number}{profile} ",
                                       (est.text(objective_unit(search.primary)) if est is not None else "—", "bold $success"),
                                       " · ", safe(changes), *against))  # n in the estimate counts the launches

    def _plot(self, search: Search) -> None:
        if search.multi:  # the first two objectives, the front's medians starred
            others, front_pts, x, y = front_plot(search)
            self.query_one("#search-plot-caption", Static).update(Content.assemble(
                ("★", "bold"), " Pareto front (medians) · → ", (x, "bold"), " · ↑ ", (y, "bold")))
            self.query_one(ParetoPlot).show(others, front_pts, x, y)
            return
        maximize = search.direction.value == "maximize"
        front = pareto(search.trial, self.axis, maximize)
        pts = [(t.number, float(t.value), float(getattr(t, self.axis))) for t in search.trial
               if t.status is TrialStatus.OK and t.value is not None and getattr(t, self.axis) is not None]
        target = f" at c={search.at_concurrency}" if search.at_concurrency else ""
        self.query_one("#search-plot-caption", Static).update(Content.assemble(
            ("★", "bold"), " Pareto front · → ", (f"{objective_heading(search.primary)}{target}", "bold"),
            " · ↑ ", (AXIS_LABEL[self.axis], "bold"), " · v other axis"))
        self.query_one(ParetoPlot).show([(v, a) for n, v, a in pts if n not in front],
                                        [(v, a) for n, v, a in pts if n in front], search.primary,
                                        AXIS_LABEL[self.axis])

    # ----- keys -----------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss()

    def action_next_plot(self) -> None:
        search = self.current()
        if search is not None and search.multi:
            self.notify("Two objectives: the plot is the one against the other", timeout=3)
            return
        self.axis = PLOT_AXES[(PLOT_AXES.index(self.axis) + 1) % len(PLOT_AXES)]
        self.redraw()

    def action_next_search(self, step: int) -> None:
        searches = self.session.searches
        if searches:
            ids = [s.id for s in searches]
            here = ids.index(self.search_id) if self.search_id in ids else 0
            self.search_id = ids[(here + step) % len(ids)]
            self.redraw()

    def action_new_search(self) -> None:
        from cockpit.ui.screens.forms.search_form import SearchForm

        def made(fields: dict[str, Any] | None) -> None:
            if fields:
                from cockpit.model.search.edits import add_search

                ident = self._apply(lambda e: add_search(e, **fields), f"search added: {fields['name']}")
                if ident:
                    self.search_id = ident
                    self.redraw()
        self.app.push_screen(SearchForm(self.session), made)

    def action_edit_search(self) -> None:
        from cockpit.ui.screens.forms.search_form import SearchForm

        search = self.current()
        if search is None:
            return
        ident = search.id

        def edited(fields: dict[str, Any] | None) -> None:
            if fields:
                from cockpit.model.search.edits import edit_search

                self._apply(lambda e: edit_search(e, ident, **fields), f"search {ident} edited")
        self.app.push_screen(SearchForm(self.session, search), edited)

    def _apply(self, change: Callable[[Any], Any], done: str) -> Any:
        try:
            result = port_of(self).controller.apply(change)
        except ValueError as exc:
            self.notify(str(exc).splitlines()[0], severity="warning", timeout=5)
            return None
        self.notify(done, timeout=3)
        return result

    def action_pick(self) -> None:
        """Adopt the highlighted trial's configuration (a front point) as the search's best: the
        person's choice, recorded as theirs."""
        search = self.current()
        if search is None or not search.multi:
            self.notify("A search with one objective has its best already; b picks from a front of two objectives",
                        severity="warning", timeout=4)
            return
        table = self.query_one(DataTable)
        if table.row_count == 0:
            self.notify("No trial to pick yet", severity="warning", timeout=3)
            return
        row = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        number = int(row or 0)
        ident = search.id

        def pick(editor: Any) -> int:
            from cockpit.model.search.pareto import pick_point

            return int(pick_point(editor, ident, number))
        chosen = self._apply(pick, f"search {ident}: trial {number}'s configuration picked as the best")
        if chosen is not None:
            self.redraw()

    def action_mark_best(self) -> None:
        search = self.current()
        if search is not None and search.multi:
            from cockpit.model.search.pareto import picked_point

            point = picked_point(search)
            if point is None or point.config.first.profile is None:
                self.notify("Pick a front point first (b on its row)", severity="warning", timeout=3)
                return
            chosen = point.config.first.profile
            self._apply(lambda e: e.mark_profile_working(chosen), f"{chosen} is the working profile")
            return
        best = best_config(search) if search is not None else None
        if best is None or best.first.profile is None:
            self.notify("No best configuration yet", severity="warning", timeout=3)
            return
        ident = best.first.profile
        self._apply(lambda e: e.mark_profile_working(ident), f"{ident} is the working profile")

    def action_pause(self) -> None:
        if (loop := self.loop()) is not None and not loop.paused:
            loop.pause()
            self.notify("Paused: the running trial finishes, no new one starts", timeout=4)
            self.redraw()

    def action_resume(self) -> None:
        if (loop := self.loop()) is not None and loop.paused:
            loop.resume()
            self.notify("Resumed", timeout=3)
            self.redraw()

    def action_stop(self) -> None:
        if (loop := self.loop()) is not None:
            loop.stop()
            self.notify("Stopping: the running trials' servers are stopped; s resumes them later", timeout=5)

    def action_start(self) -> None:
        from cockpit.control.search.consent import (
            consent_lines,
            odd_trials,
            search_confirmed,
            search_fingerprint,
            trial_lines,
        )
        from cockpit.control.search.loop import hosts_of

        search = self.current()
        if search is None:
            self.notify("No search yet: n makes one", severity="warning", timeout=3)
            return
        if self.loop() is not None:
            self.notify(f"Search {search.id} is already running", timeout=3)
            return
        try:
            hosts = hosts_of(self.session, search)
        except ValueError as exc:
            self.notify(str(exc), severity="error", timeout=6)
            return
        stamp = search_fingerprint(self.session, search, hosts)
        search_ok = search_confirmed(stamp, search.confirmed)
        # trials it resumes whose profile is not the base plus the space's flags: the person sees each
        odd = odd_trials(self.session, search, hosts)
        if search_ok and not odd:
            self._run(search.id, hosts)
            return
        from cockpit.model.launch.confirm import launch_stamp
        from cockpit.ui.screens.confirm_run import ConfirmRunScreen

        # what the dialog shows of each odd trial's profile: a later edit of it is not what was said yes to
        shown = {p.id: launch_stamp(p, next((h for h in self.session.hosts if h.name == p.host), None))
                 for _, p, _ in odd}

        def answered(yes: bool | None) -> None:
            if not yes:
                self.notify(f"Not started: search {search.id}", timeout=3)
                return
            from cockpit.control.search.consent import seal_launch, seal_search

            sealed = seal_search(stamp)  # the person said yes in the dialog

            def seal(editor: Any) -> None:
                def change(s: Session) -> None:
                    s.searches = [q.model_copy(update={"confirmed": sealed}) if q.id == search.id else q
                                  for q in s.searches]
                if not search_ok:
                    editor.apply(f"search {search.id} confirmed", change, kind="search.confirmed", ref=search.id)
                for ident, stamp_seen in shown.items():
                    editor.edit_record("launch", ident, confirmed=seal_launch(stamp_seen))
            port_of(self).controller.apply(seal)
            port_of(self).controller.save()  # the trials' records go to the file: the seal first
            self._run(search.id, hosts)

        budget = search.trials
        lines = ([] if search_ok else consent_lines(self.session, search, hosts, budget)) + trial_lines(odd)
        self.app.push_screen(ConfirmRunScreen(f"Run search {search.id}? Each trial starts a server:",
                                              "\n".join(lines)), answered)

    def _run(self, search_id: str, hosts: list[str | None]) -> None:
        from cockpit.control.search.loop import SearchLoop
        from cockpit.control.search.server_trials import SEARCH, ServerTrialRunner
        from cockpit.control.transaction import SessionFile

        app = self.app
        runs = runs_of(app)
        # the app's SSH pool (one link per host) and live hub (the panes' feeds, not opened twice)
        runner = ServerTrialRunner(port_of(self).trials_pool(), hub=port_of(self).hub)

        def heard(event: Any) -> None:
            if event.kind in ("ended", "done") or (event.kind == "note" and event.host):
                app.notify(safe(event.text), timeout=4, severity="error" if event.kind == "note" else "information")
            screen = app.screen
            if isinstance(screen, SearchScreen):
                screen.redraw()

        path = port_of(self).path
        loop = SearchLoop(SessionFile(path, actor=SEARCH), str(path), search_id, runner, hosts,
                          on_event=heard)
        runs[search_id] = loop

        async def go() -> None:
            try:
                await loop.run()
            finally:
                runs.pop(search_id, None)
                heard(type("Done", (), {"kind": "redraw", "text": ""})())

        app.run_worker(go(), group=f"search-{search_id}", exit_on_error=False, description=f"search {search_id}")
        self.notify(f"Search {search_id} started on {', '.join(h or 'local' for h in hosts)}", timeout=4)
        self.redraw()


def _keep_row(table: DataTable[Any], row: int) -> None:
    """The cursor back on the row it was on before the table was rebuilt (the last, if fewer)."""
    if table.row_count:
        table.move_cursor(row=min(row, table.row_count - 1), animate=False)
