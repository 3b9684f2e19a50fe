"""A sweep run's life in the session's journal: `sweep.run.started` when its points begin,
`sweep.run.done` / `.failed` / `.cancelled` when the runner finishes. A run with a start
and no end (the TUI quit, the process killed) or cancelled, and points without a record,
is unfinished: said on reopen, and `--resume` (or the app's resume key) runs only its
points that have no record. Pure: reads a Session, writes through an editor."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cockpit.model.session import Session, Sweep

if TYPE_CHECKING:
    from cockpit.live.experiment.sweep_events import SweepOutcome
    from cockpit.live.experiment.sweep_plan import SweepPlan
    from cockpit.model.edit.edits import SessionEditor

__all__ = ["STARTED", "SweepRun", "last_unfinished_run", "run_ended", "run_started", "sweep_runs",
           "unfinished_runs"]

STARTED = "sweep.run.started"
ENDED = {"done": "sweep.run.done", "failed": "sweep.run.failed", "cancelled": "sweep.run.cancelled"}
_END_STATUS = {kind: status for status, kind in ENDED.items()}


@dataclass(frozen=True, slots=True)
class SweepRun:
    sweep: str
    run_id: str
    profile: str | None
    status: str
    """"running" (started, no end: cut short if nothing runs it now), "done", "failed", "cancelled"."""
    recorded: tuple[int, ...]
    """Concurrencies with a record of this run."""
    missing: tuple[int, ...]
    """The sweep's concurrencies (as it is now) with no record of this run."""

    @property
    def cut_short(self) -> bool:
        return self.status in ("running", "cancelled") and bool(self.missing)


def _ref(sweep_id: str, run_id: str) -> str:
    return f"{sweep_id}:{run_id}"


def run_started(editor: SessionEditor, plan: SweepPlan) -> None:
    """Journal the start of `plan`'s run (a resumed run starts again: a second start event)."""
    sweep, run = plan.sweep, plan.run_id
    text = (f"sweep {sweep.id} ({sweep.name}) run {run} started on {plan.profile.id}: "
            f"{len(plan.points)} points, c={','.join(str(p.concurrency) for p in plan.points)}")
    editor.apply(text, lambda s: None, kind=STARTED, ref=_ref(sweep.id, run))


def run_ended(editor: SessionEditor, plan: SweepPlan, outcome: SweepOutcome) -> None:
    sweep, run = plan.sweep, plan.run_id
    status = outcome.status if outcome.status in ENDED else "failed"
    text = f"sweep {sweep.id} run {run} {status}: {len(outcome.recorded)} of {len(plan.points)} points recorded"
    editor.apply(text, lambda s: None, kind=ENDED[status], ref=_ref(sweep.id, run))
    if status == "done":  # "run sweep S … --profile P" is done now, whoever ran it
        pid = plan.profile.id
        editor.retire_done_next(lambda step: step.startswith(f"run sweep {sweep.id} ") and f"--profile {pid}" in step,
                                f"sweep {sweep.id} ran on {pid}")


def sweep_runs(session: Session, sweep: Sweep | None = None) -> list[SweepRun]:
    """Every journaled run (of `sweep`, or of every sweep), oldest first, with its last state."""
    order: list[tuple[str, str]] = []
    status: dict[tuple[str, str], str] = {}
    profile: dict[tuple[str, str], str | None] = {}
    for event in session.journal:
        if event.kind != STARTED and event.kind not in _END_STATUS or not event.ref or ":" not in event.ref:
            continue
        key = tuple(event.ref.split(":", 1))
        sweep_id, run_id = key[0], key[1]
        if sweep is not None and sweep_id != sweep.id:
            continue
        if event.kind == STARTED:
            if (sweep_id, run_id) in status:
                order.remove((sweep_id, run_id))
            order.append((sweep_id, run_id))
            status[(sweep_id, run_id)] = "running"
            words = event.text.split(" started on ", 1)
            profile[(sweep_id, run_id)] = words[1].split(":", 1)[0] if len(words) == 2 else None
        elif (sweep_id, run_id) in status:
            status[(sweep_id, run_id)] = _END_STATUS[event.kind]
    sweeps = {s.id: s for s in session.sweeps}
    out = []
    for sweep_id, run_id in order:
        runs = Counter(b.concurrency for b in session.benchmarks
                       if b.sweep == sweep_id and b.sweep_run == run_id and b.concurrency is not None)
        repeats = sweeps[sweep_id].runs_per_point if sweep_id in sweeps else 1
        done = {c for c, n in runs.items() if n >= repeats}  # a concurrency is done with all its repeats
        planned = sweeps[sweep_id].concurrencies if sweep_id in sweeps else []
        out.append(SweepRun(sweep_id, run_id, profile[(sweep_id, run_id)], status[(sweep_id, run_id)],
                            tuple(sorted(done)), tuple(c for c in planned if c not in done)))
    return out


def unfinished_runs(session: Session) -> list[SweepRun]:
    """The runs cut short (quit, killed, cancelled) whose points are not all recorded, the
    last run of each sweep only (a later run supersedes it)."""
    last: dict[str, SweepRun] = {}
    for run in sweep_runs(session):
        last[run.sweep] = run
    return [run for run in last.values() if run.cut_short]


def last_unfinished_run(session: Session, sweep: Sweep) -> SweepRun | None:
    """The sweep's latest run with points that have no record (cut short, or stopped at a
    failed point), for `--resume`."""
    for run in reversed(sweep_runs(session, sweep)):
        if run.missing and run.status != "done":
            return run
    return None
