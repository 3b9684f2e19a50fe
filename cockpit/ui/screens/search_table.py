"""What the Search view draws beside its screen (search.py): the trials table's columns and
their width on a narrow screen, the launch counts, and the single-objective Pareto plot of the
objective against output tok/J or TTFT p99."""

from __future__ import annotations

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from cockpit.control.search.plan import launch_budget
from cockpit.model.bench.series import short_number, span_ticks
from cockpit.model.search.search import Search, SearchTrial, TrialStatus

__all__ = ["AXIS_LABEL", "COLUMNS", "NARROW_BELOW", "NUMERIC_COLUMNS", "PLOT_AXES", "ParetoPlot", "flags_width",
           "launch_counts", "pareto"]

PLOT_AXES = ("output_tok_per_joule", "ttft_p99_ms")
AXIS_LABEL = {"output_tok_per_joule": "output tok/J", "ttft_p99_ms": "TTFT p99 ms"}


# (header, width): fixed widths, since a redraw per event rebuilds the table and auto widths lag
# behind it; `flags changed` takes what is left. The objective's header is its unit (search.py).
COLUMNS: tuple[tuple[str, int | None], ...] = (
    ("#", 3), ("status", 12), ("objective", 9), ("flags changed", None), ("met", 3), ("W mean", 6),
    ("out tok/J", 9), ("host", 8), ("note", None))


NUMERIC_COLUMNS = frozenset({"#", "objective", "W mean", "out tok/J"})
"""Columns of right-aligned figures (their headers align with them)."""

NARROW_BELOW = 120
"""Columns under which the plot goes below the table."""


WIDE_TABLE_SHARE = 3 / 5
"""The trials table's share of the width beside the plot (search.tcss: 3fr against 2fr)."""


def flags_width(screen_w: int, *, narrow: bool) -> int:
    """The changed flags' column, wrapped onto more lines: on a narrow screen the width the
    first three columns leave (the rest scroll); beside the plot, the width the table's share
    leaves after every column but the note, so the power and tok/J a trial measured show too
    (each column pads one cell each side; the table's border takes two, the scrollbar one)."""
    if narrow:
        return max(16, screen_w - 2 - sum(w + 2 for _, w in COLUMNS[:3] if w is not None) - 2 - 1)
    fixed = sum(w + 2 for label, w in COLUMNS if w is not None)
    return max(24, int(screen_w * WIDE_TABLE_SHARE) - 2 - fixed - 2 - 1)


def launch_counts(search: Search) -> str:
    """`3 of 11 launches ended (8 trials + 3 repeats), 1 running`: what each count is (issue 39:
    `11/8 launches` said neither that relaunches count nor what the 8 was). A configuration the
    session had measured is reused, not launched; a run's `--trials` may go past the budget."""
    launched = [t for t in search.trial if not t.reused]
    ended = sum(1 for t in launched if t.status is not TrialStatus.RUNNING)
    running = len(launched) - ended
    reused = len(search.trial) - len(launched)
    budget = launch_budget(search)
    plural = "s" if search.repeats != 1 else ""
    split = f" ({search.trials} trials + {search.repeats} repeat{plural})" if search.repeats else ""
    text = (f"{ended} of {budget} launches ended{split}" if ended + running <= budget
            else f"{ended} launches ended, {budget} in the search's budget{split}")  # a run's --trials
    return (text + (f", {running} running" if running else "")
            + (f", {reused} reused from the session's benchmarks" if reused else ""))


def pareto(trials: list[SearchTrial], axis: str, maximize: bool) -> set[int]:
    """Trial numbers on the front of (objective, axis): no other trial is better in both
    (tok/J higher is better, TTFT lower)."""
    points = [(t.number, t.value, getattr(t, axis)) for t in trials
              if t.status is TrialStatus.OK and t.value is not None and getattr(t, axis) is not None]
    up = axis != "ttft_p99_ms"

    def beats(a: tuple[int, float, float], b: tuple[int, float, float]) -> bool:
        better_obj = a[1] >= b[1] if maximize else a[1] <= b[1]
        better_ax = a[2] >= b[2] if up else a[2] <= b[2]
        return better_obj and better_ax and (a[1], a[2]) != (b[1], b[2])
    return {p[0] for p in points if not any(beats(q, p) for q in points)}


class ParetoPlot(PlotextPlot):
    def __init__(self) -> None:
        super().__init__(id="search-plot")
        self.points: tuple[list[tuple[float, float]], list[tuple[float, float]], str, str] = ([], [], "", "")

    def show(self, others: list[tuple[float, float]], front: list[tuple[float, float]], x: str, y: str) -> None:
        self.points = (others, front, x, y)
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if others:
            plt.scatter([p[0] for p in others], [p[1] for p in others], marker="•")
        if front:
            plt.scatter([p[0] for p in front], [p[1] for p in front], marker="★")
        # the axes are named in the caption above: plotext's own labels fall off a narrow plot
        self.refresh()

    def render(self) -> RenderResult:
        # the ticks at the size drawn (known only here): round levels, short labels, where
        # plotext's own read 2981.2, 3372.7 ...
        points = self.points[0] + self.points[1]
        if points:
            plt = self.plt
            for axis, values, most in ((plt.xticks, [p[0] for p in points], max(2, self.size.width // 12)),
                                       (plt.yticks, [p[1] for p in points], 3 if self.size.height < 8 else 4)):
                levels = span_ticks(min(values), max(values), most)
                axis(list(levels), [short_number(v) for v in levels])
        return super().render()
