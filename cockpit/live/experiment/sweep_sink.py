"""A sweep point's record: the Benchmark fields it gets (`benchmark_fields`) and where it goes
(a `PointSink`: control/session_port.py's PortSink over either session port). A key already
recorded (`recorded_in`) is never recorded again, so a resumed sweep skips it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from cockpit.live.experiment.sweep_plan import PlannedPoint, SweepPlan
from cockpit.live.experiment.sweep_watch import PointWatch
from cockpit.parse.bench.result_jsonl import BenchOutcome

if TYPE_CHECKING:

    from cockpit.model.session import Session

__all__ = ["PointSink", "WARMUP_NOTE", "benchmark_fields", "recorded_in"]

WARMUP_NOTE = "server percentiles include the client's warm-up (no main-run start line seen in time)"


class PointSink(Protocol):
    def recorded(self, key: str) -> str | None:
        """The id of the benchmark recorded under `key`, None when none is."""
        ...

    async def record(self, key: str, fields: dict[str, object]) -> str:
        """Record the point (once: a key already recorded returns that id); its id."""
        ...


def _key_parts(key: str) -> tuple[str, str, int, int]:
    """`sweep:run:cN[:rK]` (PlannedPoint.key) -> (sweep id, run id, concurrency, repeat)."""
    sweep, run, conc, *rest = key.split(":")
    return sweep, run, int(conc.removeprefix("c")), int(rest[0].removeprefix("r")) if rest else 1


def recorded_in(session: Session, key: str) -> str | None:
    """The id of the benchmark of `session` recorded under `key` (PlannedPoint.key), if any."""
    sweep, run, conc, repeat = _key_parts(key)
    for bench in session.benchmarks:
        if bench.sweep == sweep and bench.sweep_run == run and bench.concurrency == conc \
                and (bench.repeat or 1) == repeat:
            return str(bench.id)
    return None


def benchmark_fields(plan: SweepPlan, point: PlannedPoint, result: BenchOutcome, watch: PointWatch, *,
                     no_power_reason: str | None = None, no_log_reason: str | None = None) -> dict[str, object]:
    """The Benchmark of one point: the client's figures, the sweep's context, what was seen.
    `no_power_reason`: why the GPU source gave nothing (said in the notes when no power);
    `no_log_reason`: why the server's log could not be read (said when no log peak came)."""
    sweep, profile = plan.sweep, plan.profile
    label = f"{sweep.name} c{point.concurrency}"
    if sweep.runs_per_point > 1:  # each repeat its own record, grouped by sweep run and concurrency
        label += f" r{point.repeat}"
    fields: dict[str, object] = {
        "label": label, "profile": profile.id, "sweep": sweep.id,
        # the command that started the server when cockpit started it (the profile may have
        # changed since); else the profile's, the only one known
        "sweep_run": plan.run_id, "dataset": str(sweep.dataset), "command": plan.server_command or profile.command,
        "bench_client": plan.module,
    }
    if plan.client_version:
        fields["bench_client_version"] = plan.client_version
    if sweep.runs_per_point > 1:
        fields["repeat"] = point.repeat
    fields.update(result.fields)
    fields["concurrency"] = point.concurrency  # what was asked, whatever the record says
    fields.update(watch.fields(total_tokens=result.total_tokens, duration_s=result.fields.get("duration_s"),
                               total_tok_s=result.fields.get("total_tok_s"),
                               output_tok_s=result.fields.get("output_tok_s"), details=result.details,
                               concurrency=point.concurrency))
    notes = []
    if result.completed is not None and result.completed < point.prompts:
        notes.append(f"{result.completed} of {point.prompts} requests completed")
    if watch.server_main is None and any(name.startswith("server_") for name in fields):
        notes.append(WARMUP_NOTE)
    notes += watch.notes(no_power_reason=no_power_reason, no_log_reason=no_log_reason)
    if notes:
        fields["notes"] = "; ".join(notes)
    return fields
