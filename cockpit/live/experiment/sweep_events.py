"""What a sweep says as it runs (the runner's `on_event`): a point started, its progress, a
retry, a point recorded / skipped / failed, a note said once, and the sweep's outcome.

Plain frozen dataclasses, no I/O: the TUI, `cockpit sweep` and the experiment service read
them without importing the runner (control/sweep_runner.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "PointFailed", "PointProgress", "PointRecorded", "PointRetrying", "PointSkipped", "PointStarted",
    "SweepEvent", "SweepFinished", "SweepNote", "SweepOutcome",
]


@dataclass(frozen=True, slots=True)
class PointStarted:
    index: int
    total: int
    concurrency: int
    attempt: int
    command: str


@dataclass(frozen=True, slots=True)
class PointProgress:
    index: int
    total: int
    concurrency: int
    elapsed_s: float
    line: str
    """The client's last progress line (tqdm's), as it printed it (not sanitized)."""


@dataclass(frozen=True, slots=True)
class PointRetrying:
    index: int
    total: int
    concurrency: int
    reason: str


@dataclass(frozen=True, slots=True)
class PointRecorded:
    index: int
    total: int
    concurrency: int
    benchmark_id: str
    fields: dict[str, object]
    wall_s: float
    """From the point's start to its record saved: what the sweep took for it."""
    tool_s: float | None
    """The client's own benchmark duration (its `duration`)."""
    client_s: float | None
    """The client process's wall time, start to exit (None: read back after a dropped link)."""
    source: str
    """"jsonl" or "stdout" (the fallback)."""


@dataclass(frozen=True, slots=True)
class PointSkipped:
    index: int
    total: int
    concurrency: int
    benchmark_id: str
    """Recorded before under the same key (a resumed run)."""


@dataclass(frozen=True, slots=True)
class PointFailed:
    index: int
    total: int
    concurrency: int
    reason: str
    elapsed_s: float


@dataclass(slots=True)
class SweepOutcome:
    recorded: list[str] = field(default_factory=list)
    """Benchmark ids, in point order (skipped points' ids too)."""
    failed: list[tuple[int, str]] = field(default_factory=list)
    """(concurrency, reason) of each failed point."""
    cancelled: bool = False
    not_run: list[int] = field(default_factory=list)
    """Concurrencies left unrun because a point failed (`on_fail="stop"`)."""

    @property
    def status(self) -> str:
        return "cancelled" if self.cancelled else "failed" if self.failed else "done"


@dataclass(frozen=True, slots=True)
class SweepFinished:
    outcome: SweepOutcome


@dataclass(frozen=True, slots=True)
class SweepNote:
    """Said once: something every point goes without (e.g. the server exposes no metrics)."""

    text: str


SweepEvent = (PointStarted | PointProgress | PointRetrying | PointRecorded | PointSkipped | PointFailed
              | SweepFinished | SweepNote)
