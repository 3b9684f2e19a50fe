"""Each target's best-so-far against its goal, met or not, from the recorded benchmarks;
a target held at every concurrency of its range names its worst run (the one that breaks it)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from cockpit.model.bench.targets import TargetScore
from cockpit.ui.safe_text import safe

_SHORT = {
    "total_tok_s": "total tok/s",
    "output_tok_s": "out tok/s",
    "output_tok_s_per_stream": "tok/s/stream",
    "request_throughput": "req/s",
    "ttft_ms": "TTFT ms",
    "itl_ms": "ITL ms",
    "tpot_ms": "TPOT ms",
    "e2e_latency_ms": "e2e ms",
}


def describe(score: TargetScore) -> list[str | tuple[str, str]]:
    target = score.target
    name = safe(target.label) or _SHORT.get(target.metric.value, target.metric.value)
    goal = f"{target.comparator.value}{target.value:g}"
    if score.best_value is None:
        return [("○ ", "$foreground-muted"), f"{name} {goal}: ", ("no data", "$foreground-muted")]
    role = "$target-met" if score.met else "$target-missed"
    mark = "✓ " if score.met else "✗ "
    pct = f" {score.progress:.0%}" if score.progress is not None and not score.met else ""
    best_id = score.best.id if score.best else "?"
    if score.every_run:  # a promise at each concurrency: say which run stands on it or breaks it
        run = score.best
        where = f" at c={run.concurrency}" if run is not None and run.concurrency is not None else ""
        said = f"{best_id}{where} breaks it" if score.breaking is not None else \
            f"worst of {score.runs} run{'s' if score.runs != 1 else ''}: {best_id}{where}"
        return [(mark, f"bold {role}"), f"{name} {goal}: ", (f"{score.best_value:g}", f"bold {role}"),
                (f"{pct} ({said})", "$foreground-muted")]
    return [(mark, f"bold {role}"), f"{name} {goal}: ", (f"{score.best_value:g}", f"bold {role}"),
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
