"""The one sweep loop (`ExperimentService.sweep`): which sweep and profile, is its server
ready, the person's yes where the commands were never confirmed, the bench client looked
up, the points run and recorded one by one, the run's start and end on record.

`cockpit sweep`, the TUI and a launch search all come through here; the steps are
control/sweep_session.py's (looked up at call time, so a test can hook one).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from cockpit.control.experiment_types import (
    BenchClientChosen,
    Confirm,
    SweepQuestion,
    SweepResult,
    SweepRunnerEnded,
    SweepRunnerStarted,
    SweepStatus,
)
from cockpit.control.live_hub import LiveHub
from cockpit.control.session_port import PortSink, SessionPort
from cockpit.model.edit.edits import PERSON, EditError, SessionEditor
from cockpit.model.session import Session
from cockpit.sources.transport.ssh_target import SshOptions

if TYPE_CHECKING:
    from cockpit.control.experiment_types import ExperimentEvent
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.sources.transport.ssh_pool import Pool

_T = TypeVar("_T")


class ExperimentService(Protocol):
    """What the loop uses of control/experiment.py's service (no import back: no circle)."""

    path: Path | str
    recorder: SessionPort
    hub: LiveHub
    ssh: SshOptions
    runner: SweepRunner | None
    on_event: Callable[[ExperimentEvent], object]

    @property
    def session(self) -> Session: ...

    def pool(self) -> Pool: ...

    async def record(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T: ...

__all__ = ["run_sweep"]

_NOT_SAVED = (OSError, EditError, ValueError)
NEXT_STEP = "compare with the best profile (Benchmarks tab)"


async def run_sweep(service: ExperimentService, ref: str, confirm: Confirm, *, profile: str | None,
                    port: int | None, resume_run: str | None, resume_last: bool, on_fail: str,
                    consented_by: str | None = None, activity: bool = True) -> SweepResult:
    from cockpit.control import sweep_session as steps
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.live.experiment.sweep_plan import BENCH_MODULES, plan_sweep, sweep_fingerprint
    from cockpit.live.experiment.sweep_runs import last_unfinished_run, run_ended, run_started
    from cockpit.sources.server.confirm_key import is_confirmed

    session, pool = service.session, service.pool()
    try:
        sweep = steps.find_sweep(session, ref)
        running = await steps.running_profiles(session, service.path, pool, **service.ssh)
        chosen = steps.pick_profile(session, profile, running)
    except Exception as exc:  # noqa: BLE001 -- said by the caller; nothing ran
        return SweepResult("not_run", str(exc))
    host = next((h for h in session.hosts if h.name == chosen.host), None)
    target = steps.host_target(host, service.ssh["ssh_config"], service.ssh["known_hosts"])
    if resume_last:
        resumed = last_unfinished_run(session, sweep)
        if resumed is None:
            return SweepResult("not_run", f"sweep {sweep.id} has no unfinished run (every run's points are recorded)",
                               nothing_to_resume=True)
        resume_run = resumed.run_id
    plan = plan_sweep(sweep, chosen, host, port=port, run_id=resume_run)
    if (server := running.get(chosen.id)) is not None:  # cockpit started it: what ran, not the profile now
        plan = plan.with_server_command(getattr(server, "command", None))
    if (not_ready := await steps.server_ready(chosen, plan, pool, target)) is not None:
        return SweepResult("not_ready", not_ready, plan=plan)

    stamp = sweep_fingerprint(sweep, chosen, host, plan.port)
    ask = consented_by is None and not is_confirmed("sweep", stamp, sweep.confirmed)
    looked_up = False
    if ask and steps.interpreter_confirmed(chosen, host, plan):
        # the person confirmed running this interpreter on this host (the launch): asking it which
        # bench module it has runs nothing new, and the question then names the module that runs
        plan, missing = await steps.with_bench_client(plan, steps.bench_host(pool, target, host))
        looked_up = True
    if ask:
        question = SweepQuestion(plan if looked_up else plan.with_module(BENCH_MODULES[0]), sweep=sweep,
                                 profile=chosen, module_line=steps.module_choice_line(plan, looked_up=looked_up))
        if not await confirm(question):
            return SweepResult("refused", f"sweep {sweep.id} not run", plan=plan)
        # the person answered: the confirmation is theirs, not the sweep's
        if (failed := await _record(service, steps.confirmed(sweep.id, stamp), actor=PERSON)) is not None:
            return failed

    if not looked_up:  # looked up once confirmed: the probe runs the client's interpreter on the host
        plan, missing = await steps.with_bench_client(plan, steps.bench_host(pool, target, host))
    service.on_event(BenchClientChosen(plan, resume_run is not None, missing))
    runner = SweepRunner(plan, steps.bench_host(pool, target, host), PortSink(service.recorder),
                         on_event=service.on_event, on_fail=on_fail,
                         server_metrics=steps.server_metrics_probe(chosen, plan, pool, target, host),
                         server_health=steps.server_health(chosen, plan, pool, target))
    # saved at once: a quit or a kill leaves the run cut short on disk
    if (failed := await _record(service, lambda e: run_started(e, plan))) is not None:
        return failed
    service.runner = runner
    stop_watching = steps.watch_on_hub(service.hub, runner, host, target, pool, running.get(chosen.id))
    service.on_event(SweepRunnerStarted(runner))
    try:
        outcome = await runner.run()
    finally:
        service.runner = None
        stop_watching()
        service.on_event(SweepRunnerEnded())
    text = steps.outcome_text(sweep, chosen, len(plan.points), outcome)

    def ended(editor: SessionEditor) -> None:
        run_ended(editor, plan, outcome)
        if activity:
            editor.record_activity(text, next_step=NEXT_STEP)

    if (failed := await _record(service, ended)) is not None:
        return failed
    status: SweepStatus = "cancelled" if outcome.cancelled else "failed" if outcome.failed else "done"
    return SweepResult(status, text=text, outcome=outcome, plan=plan)


async def _record(service: ExperimentService, change: Callable[[SessionEditor], object], *,
                  actor: str | None = None) -> SweepResult | None:
    """One record of the sweep's; None when saved, else the result that says why not."""
    try:
        await service.record(change, actor=actor)
    except _NOT_SAVED as exc:
        return SweepResult("not_saved", f"not saved: {exc}")
    return None
