"""The Benchmarks chart: throughput against concurrency (log2 axis), a line per launch profile.

It draws what `cockpit.model.bench.series.chart_data` computed, with textual-plotext
(Textualize's Plotext widget). No session text reaches Plotext: its output is read back
with `Text.from_ansi`, so a profile name with escape sequences could style or move the
plot; names appear only in the legend beside it, sanitized. Lines are drawn in braille,
each point as a dot, the best profile at each concurrency as a star in its colour, and
each target on the shown metric as a level in the target-met / target-missed colour.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult, RenderResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static
from textual_plotext import PlotextPlot

from cockpit.model.bench.series import METRIC_LABELS, NO_PROFILE, ChartData, short_number, value_ticks, x_of
from cockpit.ui.focus_now import focus_now
from cockpit.ui.safe_text import safe
from cockpit.ui.theme.themes import role_colour

# Tableau 10: a categorical palette made for telling ten lines apart; beyond ten it repeats.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
TICK_WIDTH = 6  # columns per x-axis label: "1024" and a gap
LEGEND_NAME = (14, 26)  # characters of a profile name the legend shows: below 110 columns, and from 110


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def colour_of(data: ChartData, key: str) -> str:
    index = next(i for i, s in enumerate(data.series) if s.key == key)
    return PALETTE[index % len(PALETTE)]


class ChartPlot(PlotextPlot):
    """The plot area; focusable so the Benchmarks keys work while the chart is shown."""

    can_focus = True

    def __init__(self) -> None:
        super().__init__(id="bench-plot")
        self.data: ChartData | None = None
        self._version = 0  # of the data: show() bumps it
        self._drawn: tuple[object, ...] = ()
        self._figure: RenderResult = ""

    def show(self, data: ChartData) -> None:
        self.data = data
        self._version += 1
        self.refresh()

    def render(self) -> RenderResult:
        # Built again only when the data, the size (the x ticks depend on the width) or the
        # theme changed: a repaint for focus or a toast costs nothing.
        key = (self._version, self.size, self.app.theme)
        if key != self._drawn:
            plt = self.plt
            plt.clear_data()
            data = self.data
            if data is not None and not data.empty:
                self._draw(data)
            self._figure, self._drawn = super().render(), key
        return self._figure

    def _draw(self, data: ChartData) -> None:
        plt = self.plt
        variables = self.app.theme_variables
        conc = data.concurrencies
        left, right = x_of(conc[0]), x_of(conc[-1])
        if left == right:  # one concurrency: give the point some room
            left, right = left - 1, right + 1
        for target in data.targets:
            colour = role_colour(variables, "target-met" if target.met else "target-missed").rgb
            low = x_of(target.low) if target.low is not None else left
            high = x_of(target.high) if target.high is not None else right
            low, high = max(low, left), min(high, right)
            if low <= high:
                plt.plot([low, high], [target.value, target.value], color=colour, marker="─")
        for line in data.series:
            colour = _rgb(colour_of(data, line.key))
            xs = [x_of(p.concurrency) for p in line.points]
            ys = [p.value for p in line.points]
            plt.plot(xs, ys, color=colour, marker="braille")
            for p in line.points:  # a point run more than once: its spread as a bar
                if p.n > 1 and p.low is not None and p.high is not None and p.high > p.low:
                    plt.plot([x_of(p.concurrency)] * 2, [p.low, p.high], color=colour, marker="│")
            plt.scatter(xs, ys, color=colour, marker="•")
        for line in data.series:  # the stars: one scatter per winning profile
            won = [b for b in data.best if b.key == line.key]
            if won:
                plt.scatter([x_of(b.concurrency) for b in won], [b.value for b in won],
                            color=_rgb(colour_of(data, line.key)), marker="★")
        width = max(1, self.size.width - 8)
        ticks = data.ticks(max(2, width // TICK_WIDTH))
        plt.xticks([x_of(c) for c in ticks], [str(c) for c in ticks])
        plt.xlim(left, right)
        levels = value_ticks(data.y_max() * 1.05, 5 if self.size.height >= 12 else 3)
        plt.yticks(list(levels), [short_number(v) for v in levels])
        plt.ylim(0, levels[-1])
        plt.xlabel("concurrency (log2)")


class BenchChart(Vertical):
    """Caption, plot with its legend, and the best profile per concurrency."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def compose(self) -> ComposeResult:
        yield Static("", id="chart-caption")
        with Horizontal(id="chart-row"):
            yield ChartPlot()
            yield Static("", id="chart-legend")
        yield Static("", id="chart-best")

    data: ChartData | None = None

    def show(self, data: ChartData) -> None:
        self.data = data
        self.query_one(ChartPlot).show(data)
        self.query_one("#chart-caption", Static).update(self._caption(data))
        self.query_one("#chart-best", Static).update(self._best(data))
        self.query_one("#chart-row").display = not data.empty
        self._show_legend()

    def on_resize(self) -> None:
        self._show_legend()

    def _show_legend(self) -> None:
        if self.data is not None:
            room = LEGEND_NAME[self.app.size.width >= 110]
            self.query_one("#chart-legend", Static).update(self._legend(self.data, room))

    def focus_chart(self) -> None:
        focus_now(self.query_one(ChartPlot))

    @staticmethod
    def _caption(data: ChartData) -> Content:
        points = sum(len(s.points) for s in data.series)
        parts: list[str | tuple[str, str]] = [
            (METRIC_LABELS[data.metric], "bold"),
            (f" · {len(data.series)} profile(s), {points} point(s)", "$foreground-muted"),
        ]
        most = max((p.n for s in data.series for p in s.points), default=1)
        if most > 1:
            parts.append((f" · a point is the median of its runs (up to {most}), │ its spread", "$foreground-muted"))
        if data.unplotted:
            parts.append((f" · {data.unplotted} without concurrency or value", "$foreground-muted"))
        if data.empty:
            parts += ["\n\n", (f"No benchmark has a concurrency and {METRIC_LABELS[data.metric]}: "
                               "nothing to plot yet.", "$foreground-muted")]
        return Content.assemble(*parts)

    @staticmethod
    def _legend(data: ChartData, room: int) -> Content:
        parts: list[str | tuple[str, str]] = []
        for line in data.series:
            name = safe(line.name)
            if len(name) > room:
                name = name[:room - 1] + "…"
            ident = safe(line.key) if line.key != NO_PROFILE else "—"
            wins = data.best_count(line.key)
            parts += [("━━ ", colour_of(data, line.key)), (f"{ident} ", "bold"), name,
                      (f" ★{wins}" if wins else "", "$foreground-muted"), "\n"]
        for target in data.targets:
            role = "$target-met" if target.met else "$target-missed"
            parts += [("── ", role), (f"{safe(target.target_id)} ", "bold"), (safe(target.text), role), "\n"]
        return Content.assemble(*parts)

    @staticmethod
    def _best(data: ChartData) -> Content:
        if data.empty:
            return Content("")
        parts: list[str | tuple[str, str]] = [("★ best at", "bold")]
        for i, (low, high, key) in enumerate(data.best_runs()):
            ident = safe(key) if key != NO_PROFILE else "—"
            span = str(low) if low == high else f"{low}–{high}"
            parts += [(" ·" if i else "", "$foreground-muted"), f" {span} ", (ident, f"bold {colour_of(data, key)}")]
        return Content.assemble(*parts)
