"""MetricsSnapshot: what the log pane's metrics strip shows, copied out of a LogMetrics.

Immutable and picklable (plain tuples, dicts and numbers), so the folding process can
hand one to the UI process; plain Python, no Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cockpit.parse.log.error_labels import telling_label

if TYPE_CHECKING:  # the UI process only unpickles snapshots: no need to import the folding
    from cockpit.live.log.metrics import LogMetrics

SERIES = ("gen_throughput", "running_req", "queue_req", "token_usage")


@dataclass(frozen=True, slots=True)
class MetricsSnapshot:
    points: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    current: dict[str, float | None] = field(default_factory=dict)
    peak: dict[str, float | None] = field(default_factory=dict)
    now: float | None = None  # the log's own clock (last timestamp)
    window_s: float = 900.0
    run_index: int | None = None
    run_state: str | None = None
    model: str | None = None
    dp_ranks: int = 0
    last_error: str | None = None
    error_label: str | None = None  # the crashed run's most telling label (`cuda_oom`)
    lines: int = 0  # events folded so far
    skipped: int = 0  # events dropped because folding fell behind
    # the `parse-log` summary (parse.log_summary.Summary) of the whole log so far; {} before any
    summary: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, metrics: LogMetrics, lines: int, skipped: int = 0) -> MetricsSnapshot:
        series = {name: getattr(metrics, name) for name in SERIES}
        run = metrics.runs.current
        return cls(
            points={name: tuple(s.points) for name, s in series.items()},
            current={name: s.current for name, s in series.items()},
            peak={name: s.peak for name, s in series.items()},
            now=metrics.clock.last,
            window_s=metrics.gen_throughput.window_s,
            run_index=run.index if run else None,
            run_state=run.state if run else None,
            model=run.model if run else None,
            dp_ranks=metrics.dp_ranks,
            last_error=run.last_error if run and run.state == "error" else None,
            error_label=telling_label(run.error_labels) if run and run.state == "error" else None,
            lines=lines,
            skipped=skipped,
            summary=metrics.summary.to_dict(),
        )
