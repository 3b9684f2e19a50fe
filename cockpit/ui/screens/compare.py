"""Compare two launch profiles: per concurrency A, B and B's change, beside the launch diff.

Opened with `c` from the Benchmarks or the Launch tab. The numbers are the chart's points
(`model.bench_compare`), the diff is the Launch tab's (`model.profile_diff`); the screen
reads the session each time it redraws and edits nothing. It redraws on the controller's
change signal (an edit, an undo, a sweep's record, another writer's save merged by the
file watcher) while it is up, so a running sweep's points arrive without reopening it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from cockpit.model.bench.compare import compare_rows, figure, next_figure, step
from cockpit.model.bench.estimate import Estimate
from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.bench.series import short_number
from cockpit.model.figures import number
from cockpit.model.session import LaunchProfile, Session
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.port import port_of
from cockpit.ui.safe_text import safe
from cockpit.ui.theme.themes import role_style
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter

_DIFF_STYLE = {"heading": "bold underline", "added": "$success", "removed": "$error",
               "changed": "$warning", "note": "$foreground-muted"}


def _name(profile: LaunchProfile | None) -> str | tuple[str, str]:
    # Gone: removed by an undo or by another writer while the screen was up.
    return safe(profile.name) if profile else ("no longer in the session", "$error")


def _number(value: float) -> str:
    # the one formatter (model/figures.py): small figures (tok/J) keep three significant digits
    return number(value)


def _value(value: float | None, est: Estimate | None = None) -> Text:
    """The median, and where runs were repeated their spread and n (`4,319.0 [4,211–4,427] n=2`)."""
    shown = "—" if value is None else _number(value)
    if est is not None and est.n > 1:
        shown += f" [{_number(est.low)}–{_number(est.high)}] n={est.n}"
    return Text(shown, justify="right")


NARROW_BELOW = 110


class CompareScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("compare")
    scope = "compare"
    """The registry scope bound here: the palette offers its commands while this screen is up."""

    def __init__(self, a: str, b: str, metric: str = "total_tok_s") -> None:
        super().__init__(id="compare-screen")
        self.a, self.b = a, b
        self.metric = figure(metric).key
        """The compared figure (`model.bench_compare.COMPARE_FIGURES`), a benchmark field name."""
        self._stop_listening: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="compare-title")
        with Horizontal(id="compare-body"):
            yield DataTable(id="compare-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="compare-diff-scroll"):
                yield Static("", id="compare-diff")
        yield FittedFooter()

    def on_resize(self) -> None:
        # below NARROW_BELOW columns the diff goes under the table, which takes the width: a
        # repeated point's `21,934 [21,133–22,736] n=2` and `B vs A` did not fit beside it at 80
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < NARROW_BELOW, "-narrow")
        self.redraw()
        self.query_one(DataTable).focus()
        self._stop_listening = port_of(self).controller.add_listener(self.redraw)

    def on_unmount(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()

    @property
    def session(self) -> Session:
        return port_of(self).controller.session

    def _profile(self, ident: str) -> LaunchProfile | None:
        return next((p for p in self.session.launch if p.id == ident), None)

    def redraw(self) -> None:
        session = self.session
        a, b = self._profile(self.a), self._profile(self.b)
        label = figure(self.metric).label
        # A line per profile, each cut to the width: a long name never hides the other one.
        self.query_one("#compare-title", Static).update(Content.assemble(
            ("A ", "bold $accent"), (f"{self.a} ", "bold"), _name(a), "\n",
            ("B ", "bold $accent"), (f"{self.b} ", "bold"), _name(b)))
        table = self.query_one(DataTable)
        # The cursor stays on its concurrency when rows come or go (a sweep's point, a merge).
        was_row = table.cursor_row
        was_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value if table.row_count else None
        table.border_title = Content.assemble(("Compare ", "bold"), (label, "bold $accent"),
                                              (" (median)", "$foreground-muted"))
        rows = compare_rows(session, self.a, self.b, self.metric)
        variables = self.app.theme_variables
        cells: list[tuple[Text, Text, Text, Text]] = []
        for row in rows:
            change, better = row.change, row.b_is_better
            if change is None:
                shown = Text("—", justify="right")
            elif row.within_noise:  # the difference is inside a spread: no side is better
                shown = Text(f"{change:+.1%} within noise", justify="right",
                             style="dim")
            else:  # coloured by what is better on this figure: a lower TTFT is a gain
                role = "" if better is None else "target-met" if better else "target-missed"
                shown = Text(f"{change:+.1%}", justify="right",
                             style=role_style(variables, role) if role else "")
            cells.append((Text(str(row.concurrency), justify="right"), _value(row.a, row.a_est),
                          _value(row.b, row.b_est), shown))
        if not rows:
            cells.append((Text("—"), Text("no runs"), Text("no runs"), Text("")))
        labels = (Text("conc"), Text(f"A {self.a}", justify="right"), Text(f"B {self.b}", justify="right"),
                  Text("B vs A", justify="right"))
        # Widths given, not measured: Textual measures auto widths when the table is next idle,
        # and a frame drawn before that (a loaded machine) stayed cached at the labels' widths.
        widths = [max(cell.cell_len for cell in column) for column in zip(labels, *cells, strict=False)]
        table.clear(columns=True)
        for heading, key, width in zip(labels, ("conc", "a", "b", "change"), widths, strict=True):
            table.add_column(heading, key=key, width=width)
        keys = [str(row.concurrency) for row in rows] or ["none"]
        for key, row_cells in zip(keys, cells, strict=True):
            table.add_row(*row_cells, key=key)
        if was_key is not None:
            table.move_cursor(row=keys.index(was_key) if was_key in keys else min(was_row, table.row_count - 1),
                              animate=False)
        self.query_one("#compare-diff", Static).update(self._diff(a, b, rows_shown=len(rows)))

    def _diff(self, a: LaunchProfile | None, b: LaunchProfile | None, *, rows_shown: int) -> Content:
        if a is None or b is None:
            return Content.styled("A profile of this comparison is no longer in the session.", "$error")
        parts: list[str | tuple[str, str]] = [("Launch diff A → B", "bold"), "\n"]
        for kind, text in diff_lines(diff_profiles(a, b)):
            if kind == "heading":
                parts += ["\n", (safe(text), _DIFF_STYLE[kind]), "\n"]
            else:
                parts += ["  ", (safe(text), _DIFF_STYLE[kind]), "\n"]
        best_a = self.session.best_total_tok_s(a.id)
        best_b = self.session.best_total_tok_s(b.id)
        parts += ["\n", (f"best point, total tok/s median {short_number(best_a) if best_a is not None else '—'} → "
                         f"{short_number(best_b) if best_b is not None else '—'}", "$foreground-muted")]
        if not rows_shown:
            parts += ["\n", (f"Neither profile has a run with a concurrency and {figure(self.metric).label}.",
                             "$foreground-muted")]
        return Content.assemble(*parts)

    # ----- actions (the registry's `compare` scope) -----------------------------------------
    def _ids(self) -> list[str]:
        return [p.id for p in self.session.launch]

    def action_step_a(self, by: int) -> None:
        self.a = step(self._ids(), self.a, by, skip=self.b)
        self.redraw()

    def action_step_b(self, by: int) -> None:
        self.b = step(self._ids(), self.b, by, skip=self.a)
        self.redraw()

    def action_swap(self) -> None:
        self.a, self.b = self.b, self.a
        self.redraw()

    def action_next_metric(self) -> None:
        self.metric = next_figure(self.metric).key
        self.redraw()

    def action_close(self) -> None:
        self.dismiss(None)
