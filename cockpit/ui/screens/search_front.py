"""The Search view's parts for a search with several objectives: the trials table with one
column per objective (its unit in the header) and where each trial stands against the
Pareto front, the front itself as lines (each figure with unit, the median and n, and
whether a point is within the launch noise of another), the pick line and the plot of the
first objective against the second."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import DataTable

from cockpit.model.search.objectives import heading, unit
from cockpit.model.search.pareto import Front, FrontPoint, figure_text, pareto_front, picked_point
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.search.space import derived_name
from cockpit.model.session import Session
from cockpit.ui.safe_text import safe

__all__ = ["front_best_line", "front_columns", "front_lines", "front_plot", "front_rows", "mark_of"]

ON, CLOSE, OFF, PICKED = "★", "≈", "·", "✔"
FRONT_SHOWN = 4  # front lines shown above the table; the rest are in the table's marks


def _short(search: Search, name: str) -> str:
    """A column header: the unit where the objectives' units differ (`tok/s`, `tok/J`), else the name."""
    units = [unit(n) for n in search.objectives]
    return unit(name) if len(set(units)) == len(units) and unit(name) else heading(name)


def front_columns(table: DataTable[object], search: Search) -> None:
    # the figures and the flags first: what a person picks by (status and the rest scroll in)
    table.add_column("#", key="#", width=3)
    table.add_column("front", key="front", width=5)
    for name in search.objectives:
        table.add_column(_short(search, name), key=name, width=7)
    table.add_column("flags changed", key="flags changed")
    table.add_column("status", key="status", width=9)
    table.add_column("met", key="met", width=3)
    table.add_column("note", key="note")


def mark_of(front: Front, number: int, picked: int | None) -> str:
    """`★` on the front, `≈` on it but within the noise of another point, `·` off it; `✔` picked."""
    point = front.point(number)
    if point is None:
        return ""
    mark = OFF if point.dominated_by is not None else CLOSE if point.close_to else ON
    return mark + (PICKED if picked is not None and point.number == picked else "")


def _num(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def front_rows(table: DataTable[object], session: Session, search: Search) -> None:
    front = pareto_front(search)
    base = next((p for p in session.launch if p.id == search.profile), None)
    for trial in sorted(search.trial, key=lambda t: t.number):
        flags = derived_name(search, base, trial.params).partition(" · ")[2] if base else ""
        met = "—" if not trial.constraints else ("yes" if all(c <= 0 for c in trial.constraints) else "no")
        status = trial.status.value + (f" ({trial.repeat_of})" if trial.repeat_of is not None else "")
        figures = [Text(_num(trial.values[i] if i < len(trial.values) else None), justify="right")
                   for i in range(len(search.objectives))]
        mark = mark_of(front, trial.number, search.picked) if trial.status is TrialStatus.OK else ""
        table.add_row(Text(str(trial.number), justify="right"), mark, *figures, safe(flags), status, met,
                      safe(trial.error or ""), key=str(trial.number))


def _point_line(search: Search, point: FrontPoint, picked: int | None) -> str:
    mark = CLOSE if point.close_to else ON
    close = f" ≈ #{', #'.join(map(str, point.close_to))}" if point.close_to else ""
    chosen = f" {PICKED} picked" if point.number == picked else ""
    return f"{mark} #{point.number} {figure_text(search, point)}{close}{chosen}"


def front_lines(search: Search) -> Content:
    """The front's points, best first on the first objective."""
    front = pareto_front(search)
    if not front.points:
        return Content("Pareto front: none yet (no trial met the constraints with every objective measured)")
    noise = "/".join(f"{share:.1%}{'' if measured else ' assumed'}" for share, measured in front.noise)
    head = (f"Pareto front, {len(front.points)} point(s), median over launches (n); "
            f"≈ within the launch noise ({noise}) of the # named, which may dominate it")
    shown = [_point_line(search, p, search.picked) for p in front.points[:FRONT_SHOWN]]
    more = len(front.points) - FRONT_SHOWN
    if more > 0:
        shown.append(f"… {more} more (★ and ≈ in the table)")
    return Content.assemble((head, "dim"), "\n", "\n".join(shown))


def front_best_line(search: Search) -> Content:
    """`picked: #9 4,931 tok/s · 8.15 tok/J (median, n=2)` or how to pick."""
    point = picked_point(search)
    if point is None:
        return Content.assemble(("best: ", "bold"), "none picked yet: b on a front row (★/≈) adopts it as your choice")
    gone = f" (now off the front: #{point.dominated_by} is at least as good on every objective)" \
        if point.dominated_by is not None else ""
    return Content.assemble(("picked by you: ", "bold"), f"#{point.number} ({point.config.first.profile}) ",
                            (figure_text(search, point), "bold $success"), gone)


def front_plot(search: Search) -> tuple[list[tuple[float, float]], list[tuple[float, float]], str, str]:
    """(others, front, x label, y label): the configurations' medians (★ the front), the first
    objective along x, the second up y, each axis named by its unit."""
    front = pareto_front(search)
    names = search.objectives
    def pts(points: list[FrontPoint]) -> list[tuple[float, float]]:
        return [(p.medians[0], p.medians[1]) for p in points]
    # short: plotext writes the y label and the x label on one line under a narrow plot
    return pts(front.others), pts(front.points), f"{_short(search, names[0])} →", f"↑ {_short(search, names[1])}"
