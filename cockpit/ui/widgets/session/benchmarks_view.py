"""Benchmarks: a sortable table (the best row for each target marked and coloured), or `v`
the chart of throughput against concurrency (`bench_chart`), whose metric `m` cycles."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import DataTable, Static

from cockpit.model.bench.estimate import estimates
from cockpit.model.bench.figures import figure_of, format_value
from cockpit.model.bench.series import chart_data, next_metric
from cockpit.model.bench.targets import TargetScore
from cockpit.model.enums import Metric
from cockpit.model.figures import number, three_figures
from cockpit.model.session import Benchmark, Session
from cockpit.ui import messages as msg
from cockpit.ui.focus_now import focus_now
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import inert
from cockpit.ui.theme.themes import role_style
from cockpit.ui.widgets.session.bench_chart import BenchChart
from cockpit.ui.widgets.session.restorable import RestorableTable


def _num(value: float | int | None) -> Text:
    """The one formatter's number (model/figures.py); the header carries the unit."""
    return Text(number(value), justify="right")


def _three(value: float | int | None) -> Text:
    """Three figures with their trailing zeros: a column reads 12.3 above 19.7 and 0.440
    under 0.502, never 12.3 above 19.67."""
    return Text(three_figures(value), justify="right")


_PER_STREAM = Metric.OUTPUT_TOK_S_PER_STREAM

# (key, header, cell, sort value)
COLUMNS: tuple[tuple[str, str, Callable[[Benchmark], Text], Callable[[Benchmark], Any]], ...] = (
    ("id", "id", lambda b: inert(b.id), lambda b: (len(b.id), b.id)),
    ("label", "label", lambda b: inert(b.label), lambda b: b.label.lower()),
    ("profile", "prof", lambda b: inert(b.profile or "—"), lambda b: b.profile or ""),
    ("concurrency", "conc", lambda b: _num(b.concurrency), lambda b: b.concurrency or 0),
    ("io", "in/out", lambda b: Text(f"{b.input_len or '—'}/{b.output_len or '—'}"),
     lambda b: (b.input_len or 0, b.output_len or 0)),
    ("total_tok_s", "total tok/s", lambda b: _num(b.total_tok_s), lambda b: b.total_tok_s or 0),
    ("output_tok_s", "out tok/s", lambda b: _num(b.output_tok_s), lambda b: b.output_tok_s or 0),
    ("per_stream", "tok/s/str", lambda b: _three(b.metric(_PER_STREAM)),
     lambda b: b.metric(_PER_STREAM) or 0),
    ("power", "power W", lambda b: _three(b.power_mean_w), lambda b: b.power_mean_w or 0),
    ("out_tok_j", "out tok/J", lambda b: _three(b.output_tok_per_joule), lambda b: b.output_tok_per_joule or 0),
    ("ttft_p99", "TTFT p99 ms", lambda b: _three(b.ttft_p99_ms), lambda b: b.ttft_p99_ms or 0),
    ("ttft_ms", "TTFT ms", lambda b: _three(b.ttft_ms), lambda b: b.ttft_ms or 0),
    ("itl_ms", "ITL ms", lambda b: _three(b.itl_ms), lambda b: b.itl_ms or 0),
    ("when", "when", lambda b: Text(b.when.strftime("%m-%d %H:%M") if b.when else "—"),
     lambda b: b.when.isoformat() if b.when else ""),
)
SORT_KEYS = [key for key, *_ in COLUMNS]
# The column a target's metric is read from (the rest have none in the table).
TARGET_COLUMN = {Metric.TOTAL_TOK_S: "total_tok_s", Metric.OUTPUT_TOK_S: "output_tok_s",
                 _PER_STREAM: "per_stream", Metric.TTFT_MS: "ttft_ms", Metric.ITL_MS: "itl_ms",
                 Metric.TTFT_P99_MS: "ttft_p99", Metric.OUTPUT_TOK_PER_JOULE: "out_tok_j"}
TUNED_ON = ("concurrency", "output_tok_s", "power", "out_tok_j", "ttft_p99")
"""What a person tunes against, right after the judged columns: 80 columns keep the
concurrency and the output throughput (a session with no target yet showed no throughput
at all there), a wide terminal shows power, output tok/J and TTFT p99 too."""


def column_order(scores: list[TargetScore]) -> list[str]:
    """id and profile (at 80 columns two profiles' rows must not look the same, issue 39),
    then the columns the targets are judged by (so a narrow terminal still shows them), then
    concurrency, output tok/s, power, output tok/J and TTFT p99, then the rest in their usual order."""
    judged = list(dict.fromkeys(TARGET_COLUMN[s.target.metric] for s in scores if s.target.metric in TARGET_COLUMN))
    first = ["id", "profile", *judged, *(key for key in TUNED_ON if key not in judged)]
    return [*first, *(key for key in SORT_KEYS[1:] if key not in first)]


class BenchTable(RestorableTable):
    def __init__(self) -> None:
        super().__init__(id="bench-table", cursor_type="row", zebra_stripes=True)
        self.state_key = "benchmarks"


_TABLE_ONLY = frozenset({"delete", "sort", "reverse"})
"""Actions on the table's rows: off (and out of the footer) while the chart is shown."""


class BenchmarksView(Vertical):
    BINDINGS = bindings_for("benchmarks")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sort_key = "id"
        self.sort_reverse = False
        self._session: Session | None = None
        self._scores: list[TargetScore] = []
        self._table_stale = False
        self.chart_metric = Metric.TOTAL_TOK_S
        """The throughput the chart shows (view state: `ui.selection["benchmarks.chart"]`)."""
        self._order: list[str] = []
        self._point_metric: Metric | None = None
        """The figure the `point` column shows (the first target's, else total tok/s); None: no
        point has more than one run, and the column is not shown."""

    def compose(self) -> ComposeResult:
        yield Static("", id="bench-caption")
        yield BenchTable()
        yield BenchChart(id="bench-chart")

    @property
    def chart_shown(self) -> bool:
        return self.has_class("-chart")

    async def run_action(self, action: str, namespaces: Mapping[str, DOMNode] | None = None) -> None:
        # The palette runs any benchmarks action (keys come through bindings, not here):
        # first bring up the view the action works on.
        name = action.partition("(")[0]
        wants_chart = False if name in _TABLE_ONLY else True if name == "next_metric" else None
        if wants_chart is not None and wants_chart != self.chart_shown:
            self.action_toggle_chart()
        await super().run_action(action, namespaces)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer shows the keys of what is on screen: row keys with the table, `m` with the chart.
        if action in _TABLE_ONLY:
            return not self.chart_shown
        if action == "next_metric":
            return self.chart_shown
        return True

    def on_mount(self) -> None:
        self._set_columns(column_order([]))

    def _set_columns(self, order: list[str]) -> None:
        table = self.query_one(BenchTable)
        self._order = order
        table.clear(columns=True)
        headers = {key: header for key, header, *_ in COLUMNS}
        # The target mark comes right after the id, so it is never scrolled off.
        table.add_column("id", key="id")
        table.add_column("best", key="best")
        if self._point_metric is not None:  # a point run more than once: its median and spread per row
            table.add_column(Text(f"point: {figure_of(self._point_metric).name} median [spread] n"), key="point")
        for key in order[1:]:
            table.add_column(headers[key], key=key)

    @property
    def sort_state(self) -> str:
        return f"{self.sort_key}:{'desc' if self.sort_reverse else 'asc'}"

    def apply_sort_state(self, state: str) -> None:
        key, _, order = state.partition(":")
        if key in SORT_KEYS:
            self.sort_key, self.sort_reverse = key, order == "desc"
            self._rebuild()

    def show(self, session: Session, scores: list[TargetScore]) -> None:
        self._session, self._scores = session, scores
        # Only the view on screen is redrawn; the hidden one when `v` brings it up.
        if self.chart_shown:
            self._table_stale = True
            self._redraw_chart()
        else:
            self._rebuild()

    def _redraw_chart(self) -> None:
        # Only while shown: a hidden chart is drawn when `v` brings it up.
        if self._session is not None and self.chart_shown and self.is_mounted:
            self.query_one(BenchChart).show(chart_data(self._session, self.chart_metric))

    @property
    def chart_state(self) -> str | None:
        """What `ui.selection["benchmarks.chart"]` saves: the metric while the chart is shown."""
        return self.chart_metric.value if self.chart_shown else None

    def apply_chart_state(self, state: str | None) -> None:
        metrics = {m.value: m for m in Metric}
        shown = state in metrics
        if shown:
            self.chart_metric = metrics[str(state)]
        if shown != self.chart_shown:
            self.action_toggle_chart()

    def _rebuild(self) -> None:
        if self._session is None or not self.is_mounted:
            return
        self._table_stale = False
        table = self.query_one(BenchTable)
        keep = table.selected_id()
        best: dict[str, list[TargetScore]] = {}
        for score in self._scores:
            if score.best is not None:
                best.setdefault(score.best.id, []).append(score)
        variables = self.app.theme_variables
        sort_value = next(col[3] for col in COLUMNS if col[0] == self.sort_key)
        rows = sorted(self._session.benchmarks, key=sort_value, reverse=self.sort_reverse)
        order = column_order(self._scores)
        point_metric = self._scores[0].target.metric if self._scores else Metric.TOTAL_TOK_S
        found = estimates(self._session.benchmarks, lambda b: b.metric(point_metric))
        point_of = {run: est for est in found.values() for run in est.runs}
        shown_metric = point_metric if any(est.n > 1 for est in found.values()) else None
        if order != self._order or shown_metric != self._point_metric:
            self._point_metric = shown_metric
            self._set_columns(order)
        table.clear()
        cell_of = {key: cell for key, _header, cell, _sort in COLUMNS}
        for bench in rows:
            cells = [cell_of[key](bench) for key in order]
            if shown_metric is not None:
                est = point_of.get(bench.id)
                cells.insert(1, Text("—" if est is None else
                                     f"{format_value(est.median)} [{format_value(est.low)}–{format_value(est.high)}] "
                                     f"n={est.n}" if est.n > 1 else f"{format_value(est.median)} n=1",
                                     justify="right"))
            marks = best.get(bench.id, [])
            mark = Text("")
            if marks:
                role = "target-met" if all(s.met for s in marks) else "target-missed"
                style = role_style(variables, role, bold=True)
                for cell in cells:
                    cell.stylize(style)
                # ✗: the run that breaks a target held at every concurrency of its range
                words = [("✗ " if s.breaking is not None else "★ ") + s.target.id for s in marks]
                mark = Text(" ".join(words), style=style)
            table.add_row(cells[0], mark, *cells[1:], key=bench.id)
        if keep:
            table.select_id(keep)
        header = next(col[1] for col in COLUMNS if col[0] == self.sort_key)
        arrow = "↓" if self.sort_reverse else "↑"
        self.query_one("#bench-caption", Static).update(Content.assemble(
            (f"{len(rows)} benchmarks", "bold"), (f" · sorted by {header} {arrow}", "$foreground-muted"),
            (" · ★ the median run of a target's point, ✗ breaks one (", "$foreground-muted"), ("met", "$target-met"),
            (" / ", "$foreground-muted"),
            ("not yet", "$target-missed"), (")", "$foreground-muted")))

    def focus_view(self) -> None:
        if self.chart_shown:
            self.query_one(BenchChart).focus_chart()
        else:
            focus_now(self.query_one(BenchTable))

    def select(self, ident: str) -> None:
        self.query_one(BenchTable).select_id(ident)

    def action_add(self) -> None:
        self.post_message(msg.BenchmarkAddRequested())

    def action_edit(self) -> None:
        ident = self.query_one(BenchTable).selected_id()
        if ident is None:
            self.notify("No benchmark selected", severity="warning", timeout=2)
            return
        self.post_message(msg.BenchmarkEditRequested(ident))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter or a double click on a row shows the record in full, read-only (`e` edits)."""
        event.stop()
        if event.row_key.value:
            self.post_message(msg.BenchmarkDetailRequested(event.row_key.value))

    def action_delete(self) -> None:
        ident = self.query_one(BenchTable).selected_id()
        if ident is None:
            self.notify("No benchmark selected", severity="warning", timeout=2)
            return
        self.post_message(msg.BenchmarkDeleteRequested(ident))

    def action_sort(self) -> None:
        self.sort_key = SORT_KEYS[(SORT_KEYS.index(self.sort_key) + 1) % len(SORT_KEYS)]
        self._rebuild()

    def action_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._rebuild()

    def action_toggle_chart(self) -> None:
        had_focus = self.has_focus_within
        self.set_class(not self.chart_shown, "-chart")
        if self.chart_shown:
            self._redraw_chart()
        elif self._table_stale:
            self._rebuild()
        self.refresh_bindings()
        if had_focus:
            self.focus_view()

    def action_next_metric(self) -> None:
        self.chart_metric = next_metric(self.chart_metric)
        self._redraw_chart()

    def action_compare(self) -> None:
        ident = self.query_one(BenchTable).selected_id() if not self.chart_shown else None
        bench = next((b for b in self._session.benchmarks if b.id == ident), None) if self._session else None
        self.post_message(msg.CompareRequested(bench.profile if bench else None, metric=self.chart_metric.value))
