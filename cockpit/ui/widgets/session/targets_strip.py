"""Each target against its goal, met or not, on its own figure and statistic (`TTFT p99
≤2,000 ms`): the value is a point's median over its runs with their spread; a target held
at every concurrency of its range names its worst point (the one that breaks it)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from cockpit.model.bench.figures import format_value
from cockpit.model.bench.targets import TargetScore
from cockpit.model.session import SYMBOL
from cockpit.ui.safe_text import safe


def _value(score: TargetScore) -> str:
    """`2,140 ms`, or for a point run more than once `2,140 ms median of 3 [1,980–2,300]`."""
    unit = score.target.figure.unit
    est = score.estimate
    if est is None or est.n == 1:
        return format_value(score.best_value or 0.0, unit)
    return f"{format_value(est.median, unit)} median of {est.n} [{format_value(est.low)}–{format_value(est.high)}]"


def describe(score: TargetScore) -> list[str | tuple[str, str]]:
    target = score.target
    name = safe(target.label) or target.figure.name
    goal = f"{SYMBOL[target.comparator]}{format_value(target.value, target.figure.unit)}"
    # a person's name for a latency target: its statistic still said (`TTFT (TTFT p99)`), unless the
    # name says it; a throughput has one statistic, and the unit after the goal says what it is
    if target.label and target.figure.statistic and target.figure.name.lower() not in name.lower():
        goal = f"({target.figure.name}) {goal}"
    if score.best_value is None:
        return [("○ ", "$foreground-muted"), f"{name} {goal}: ", ("no data", "$foreground-muted")]
    role = "$target-met" if score.met else "$target-missed"
    mark = "✓ " if score.met else "✗ "
    pct = f" {score.progress:.0%}" if score.progress is not None and not score.met else ""
    best_id = score.best.id if score.best else "?"
    if score.every_run:  # a promise at each concurrency: say which point stands on it or breaks it
        run = score.best
        where = f" at c={run.concurrency}" if run is not None and run.concurrency is not None else ""
        said = f"{best_id}{where} breaks it" if score.breaking is not None else \
            f"worst of {score.runs} run{'s' if score.runs != 1 else ''}: {best_id}{where}"
        return [(mark, f"bold {role}"), f"{name} {goal}: ", (_value(score), f"bold {role}"),
                (f"{pct} ({said})", "$foreground-muted")]
    return [(mark, f"bold {role}"), f"{name} {goal}: ", (_value(score), f"bold {role}"),
            (f"{pct} ({best_id})", "$foreground-muted")]


class TargetsStrip(Static):
    def show(self, scores: list[TargetScore]) -> None:
        if not scores:
            self.update(Content.assemble(("no targets yet: ", "$foreground-muted"), ("T", "bold $accent"),
                                         (" adds one (2: the goal, its targets, instructions and hosts)",
                                          "$foreground-muted")))
            return
        parts: list[str | tuple[str, str]] = [("Targets ", "bold")]
        for index, score in enumerate(scores):
            if index:
                parts.append(("  │ ", "$foreground-muted"))
            parts += describe(score)
        self.update(Content.assemble(*parts))
