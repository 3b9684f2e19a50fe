"""The log pane's metrics strip.

The events are folded elsewhere (cockpit.control.fold_process, in a child process);
`LogMetricsStrip` only renders the latest MetricsSnapshot: run state, then one cell per series
with current and peak values over a sparkline of the series' time window (log time, so
a replayed log draws the same picture).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widget import Widget

from cockpit.ground.sanitize import sanitize
from cockpit.live.log.metrics_snapshot import SERIES, MetricsSnapshot
from cockpit.model.figures import compact, share

_TITLES = {"gen_throughput": "gen tok/s", "running_req": "running", "queue_req": "queued",
           "token_usage": "kv"}
_SHORT = {"gen_throughput": "tok/s", "running_req": "run", "queue_req": "queue", "token_usage": "kv"}
"""A cell's title when its long one leaves no room for the figures: the throughput's keeps
its unit (a bare `gen 4.4k` said nothing of what it counts); the others count requests, or
are a share (`%`)."""
_BARS = "▁▂▃▄▅▆▇█"
ABSENT = "-"
"""A figure the log has not given yet (a narrow cell: one column, where the formatter's dash is one too)."""


def _listed(value: object) -> list[object]:
    """A summary's list (its `errors`), or nothing where it has none."""
    return list(value) if isinstance(value, (list, tuple)) else []


def _fmt(value: float | None, name: str, like: float | None = None) -> str:
    """The one formatter's figure (model/figures.py) for a narrow cell: a share for the KV
    usage, else `compact` (`789`, `1.2k`) on the scale of `like`."""
    if value is None:
        return ABSENT
    if name == "token_usage":
        return share(value if value <= 1.0 else value / 100)
    return compact(value, like)


def _window(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


FIGURES_WIDTH = 10
"""Room kept for a cell's figures ("9.9k ↑9.9k"): the cell's title is chosen by the cell's
width alone, so it does not flip between `gen tok/s` and `tok/s` as the numbers grow."""
GEN_EXTRA = 2
"""Columns the throughput's cell takes from the KV cell (whose figures are at most `100% ↑100%`),
so `gen tok/s 9.9k ↑9.9k` fits a strip of 78 columns (the log pane at 80x24)."""


def _figures(current: float | None, peak: float | None, name: str) -> str:
    """`current ↑peak` on one scale: both in k once either reaches 1000 ("0.8k ↑1.2k")."""
    top = max((v for v in (current, peak) if v is not None), default=0.0)
    return f"{_fmt(current, name, top)} ↑{_fmt(peak, name, top)}"


def cell_widths(width: int, n: int) -> list[int]:
    """Each cell's columns, its separator included: equal, but the throughput's (the first)
    GEN_EXTRA wider and the last (KV) taking what is left."""
    cell = width // n
    widths = [cell + GEN_EXTRA, *([cell] * (n - 2))]
    return [*widths, width - sum(widths)]


def sparkline(points: tuple[tuple[float, float], ...], now: float | None, window_s: float,
              width: int, top: float | None = None) -> str:
    """`width` columns over [now - window_s, now]: the highest value in each column's time
    slice as a bar; a blank where the log said nothing in that slice."""
    if width <= 0:
        return ""
    if not points or now is None:
        return " " * width
    start = now - window_s
    cols: list[float | None] = [None] * width
    for t, v in points:
        if t < start or t > now:
            continue
        i = min(width - 1, int((t - start) / window_s * width))
        current = cols[i]
        if current is None or v > current:
            cols[i] = v
    scale = top if top else max((v for v in cols if v is not None), default=0.0)
    out = []
    for col in cols:
        if col is None:
            out.append(" ")
        elif scale <= 0:
            out.append(_BARS[0])
        else:
            out.append(_BARS[min(7, max(0, int(col / scale * 7.999)))])
    return "".join(out)


class LogMetricsStrip(Widget):
    """Run state on one line; gen throughput, running, queued, KV usage below (3 lines)."""

    COMPONENT_CLASSES = {
        "log-metrics--label", "log-metrics--value", "log-metrics--spark",
        "log-metrics--ready", "log-metrics--starting", "log-metrics--error", "log-metrics--stopped",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.snapshot = MetricsSnapshot()
        self.before: Mapping[str, object] | None = None  # the summary of the file before the lines fed

    def show(self, snapshot: MetricsSnapshot) -> None:
        self.snapshot = snapshot
        self.refresh()

    def show_before(self, summary: Mapping[str, object]) -> None:
        """A file opened at its last lines: its beginning's summary (LogBatch.summary),
        shown at once as whole-log figures, before (and merged with) what is folded."""
        self.before = summary
        self.refresh()

    def whole_log(self) -> str:
        """Whole-log peaks and error labels, when the file's beginning was summarized."""
        before = self.before
        if before is None:
            return ""
        now = self.snapshot.summary  # holds `before` too once the folder has seeded it

        def peak(key: str) -> float | None:
            values = [float(v) for v in (before.get(key), now.get(key)) if isinstance(v, (int, float))]
            return max(values) if values else None

        parts = [f"{title} ↑{compact(value)} {unit}" for title, key, unit in (
            ("gen", "max_gen_throughput", "tok/s"), ("run", "max_running_req", "req"),
            ("queue", "max_queue_req", "req")) if (value := peak(key)) is not None]
        errors = list(dict.fromkeys([*_listed(before.get("errors")), *_listed(now.get("errors"))]))
        if errors:
            parts.append("errors: " + ", ".join(sanitize(str(e)) for e in errors))
        return "whole log: " + " ".join(parts) if parts else ""

    def render(self) -> Text:
        snap = self.snapshot
        width = max(20, self.size.width)
        style = self.get_component_rich_style
        label, value, spark = (style("log-metrics--label"), style("log-metrics--value"),
                               style("log-metrics--spark"))
        out = Text(no_wrap=True, overflow="crop", end="")
        # line 1: the current run, in words (cropped to the width: never wraps), then what the
        # cells' figures cover before what may be cut (issue 39: a peak that changed on an
        # unchanged log, and nothing said over what): ↑ is the peak of the lines read (the
        # pane's count), the bars the last window of log time
        state = snap.run_state
        covers = f" · ↑ peak of the lines read · bars: {_window(snap.window_s)} of log time"
        if state is None:
            out.append("server: no run seen yet", label)
            out.append(covers, label)
        else:
            kind = state if state in ("ready", "error", "stopped") else "starting"
            out.append(f"run {snap.run_index} ", label)
            out.append(state, style(f"log-metrics--{kind}"))
            if snap.last_error:
                out.append(f" · {sanitize(snap.last_error)}", style("log-metrics--error"))
            out.append(covers, label)
            if snap.model:
                out.append(f" · {sanitize(snap.model)}", label)
            if snap.dp_ranks > 1:
                out.append(f" · {snap.dp_ranks} DP ranks", label)
            if snap.skipped:
                out.append(f" · metrics behind: {snap.skipped:,} lines skipped", style("log-metrics--starting"))
        if whole := self.whole_log():
            out.append(f" · {whole}", value)
        out.truncate(width, overflow="ellipsis")
        out.append("\n")
        # lines 2-3: a cell per series: title current ↑peak, then its sparkline
        n = len(SERIES)
        heads, bars = Text(end=""), Text(end="")
        for i, (name, w) in enumerate(zip(SERIES, cell_widths(width, n))):
            inner = max(1, w - 1)
            figures = _figures(snap.current.get(name), snap.peak.get(name), name)
            head = Text(no_wrap=True, overflow="crop", end="")
            title = _TITLES[name] if len(_TITLES[name]) + FIGURES_WIDTH + 1 <= inner else _SHORT[name]
            head.append(title + " ", label)
            head.append(figures, value)
            head.truncate(inner, pad=True)
            heads.append_text(head)
            top = 1.0 if name == "token_usage" else None
            bars.append(sparkline(snap.points.get(name, ()), snap.now, snap.window_s, inner, top), spark)
            if i < n - 1:
                heads.append(" ")
                bars.append(" ")
        out.append_text(heads)
        out.append("\n")
        out.append_text(bars)
        return out
