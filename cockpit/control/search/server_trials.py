"""The one TrialRunner: a trial composed from the pieces `cockpit run` and `cockpit sweep`
use (sources.server_control, live.launch_lifecycle, live.sweep_session / sweep_runner,
control.sweep_records). Kept in one file so it can be swapped for the experiment service.

Start the derived profile on the trial's host (a server of the session still there, e.g. the
trial cockpit was killed in, is stopped first), follow its log to ready or a crash (a crash
makes the profile `broken` with its error label, as `cockpit run` does), sweep it with every
point recorded as a benchmark (power and tok/J from the host's GPU source), stop it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from cockpit.control.search.runner import PointCheck, TrialOutcome, TrialRequest
from cockpit.control.sweep_records import TransactionSink
from cockpit.model.search.search import TrialStatus

__all__ = ["ServerTrialRunner"]

SEARCH = "search"  # the journal's actor of a search's records


class ServerTrialRunner:
    def __init__(self, pool: Any, *, ready_timeout_s: float = 1800.0, stop_grace_s: float = 10.0,
                 ssh_config: tuple[str, ...] | None = None, known_hosts: str | None = None) -> None:
        self.pool = pool
        self.ready_timeout_s = ready_timeout_s
        self.stop_grace_s = stop_grace_s
        self.ssh_kw: dict[str, Any] = {"ssh_config": ssh_config, "known_hosts": known_hosts}
        self.overhead_s: list[float] = []
        """Per trial: wall time minus the server's start-to-ready and the clients' runs (cockpit's own)."""

    async def run_trial(self, request: TrialRequest, *, check_point: PointCheck,
                        on_state: Callable[[str], Any]) -> TrialOutcome:
        from cockpit.live.experiment.launch_lifecycle import PHASE_WORDS, apply_outcome, follow_launch
        from cockpit.sources.server.server_control import ServerControl, ServerControlError, plan_launch
        from cockpit.store.toml_store import load_session

        began = time.monotonic()
        sink = TransactionSink(request.session_path, actor=SEARCH)
        session = await asyncio.to_thread(load_session, request.session_path)
        control = ServerControl(self.pool)
        try:
            plan = plan_launch(session, request.session_path, request.profile_id, **self.ssh_kw)
            left = await control.status(plan.place)
            if left.running:  # the trial cockpit died in, or a server someone left: this host is the search's now
                on_state(f"stopping pid {left.pid} left on {plan.place.host}")
                await control.stop(plan.place, grace_s=self.stop_grace_s)
            on_state(f"starting {request.profile_id} on {plan.place.host}")
            started = await control.start(plan, session_label=request.session_path)
        except (ServerControlError, OSError) as exc:
            return TrialOutcome(TrialStatus.FAILED, error=f"not started: {exc}")
        try:
            launched = await follow_launch(
                control, plan, started, timeout_s=self.ready_timeout_s,
                on_phase=lambda phase, t: on_state(f"{PHASE_WORDS.get(phase, phase)} ({t:.0f} s)"))
            await sink.apply(lambda e: apply_outcome(e, launched, session_label=request.session_path))
            if launched.kind == "crashed":
                return TrialOutcome(TrialStatus.CRASHED, error=launched.error_label or "crashed")
            if launched.kind != "ready":
                return TrialOutcome(TrialStatus.FAILED, error=launched.describe())
            on_state(f"ready in {launched.elapsed_s:.0f} s; sweeping")
            outcome = await self._sweep(request, sink, started, check_point, on_state)
            outcome.ready_s = launched.elapsed_s
            client_s = sum(self._client_s)
            self.overhead_s.append(time.monotonic() - began - launched.elapsed_s - client_s)
            return outcome
        finally:
            on_state(f"stopping {request.profile_id}")
            try:
                await asyncio.shield(control.stop(plan.place, grace_s=self.stop_grace_s))
            except (ServerControlError, OSError, asyncio.CancelledError):
                pass

    async def _sweep(self, request: TrialRequest, sink: TransactionSink, started: Any, check_point: PointCheck,
                     on_state: Callable[[str], Any]) -> TrialOutcome:
        from cockpit.live.experiment.sweep_plan import plan_sweep
        from cockpit.live.experiment.sweep_runner import PointFailed, PointRecorded, PointSkipped, SweepRunner
        from cockpit.live.experiment.sweep_runs import run_ended, run_started
        from cockpit.live.experiment.sweep_session import (
            bench_host,
            find_sweep,
            host_target,
            server_health,
            server_metrics_probe,
            watch_tasks,
            with_bench_client,
        )

        session = sink.session
        profile = next(p for p in session.launch if p.id == request.profile_id)
        sweep = find_sweep(session, request.sweep_id)
        host = next((h for h in session.hosts if h.name == profile.host), None)
        target = host_target(host, self.ssh_kw["ssh_config"], self.ssh_kw["known_hosts"])
        plan = plan_sweep(sweep, profile, host, run_id=request.run_id)
        bench = bench_host(self.pool, target, host)
        plan, _ = await with_bench_client(plan, bench)
        pruned: list[str] = []
        self._client_s: list[float] = []
        runner: SweepRunner

        def on_event(event: Any) -> None:
            if isinstance(event, PointRecorded):
                self._client_s.append(event.client_s or event.tool_s or 0.0)
                on_state(f"c={event.concurrency} recorded {event.benchmark_id}")
                why = check_point(event.concurrency, event.fields)
                if why and not pruned:
                    pruned.append(why)
                    asyncio.get_running_loop().call_soon(runner.cancel)
            elif isinstance(event, PointSkipped):
                on_state(f"c={event.concurrency} already recorded as {event.benchmark_id}")
            elif isinstance(event, PointFailed):
                on_state(f"c={event.concurrency} failed: {event.reason}")

        runner = SweepRunner(plan, bench, sink, on_event=on_event, on_fail="stop",
                             server_metrics=server_metrics_probe(profile, plan, self.pool, target, host),
                             server_health=server_health(profile, plan, self.pool, target))
        await sink.apply(lambda e: run_started(e, plan))
        feeds = [asyncio.create_task(t) for t in watch_tasks(runner, host, target, self.pool, started.status)]
        try:
            outcome = await runner.run()
        finally:
            for task in feeds:
                task.cancel()
        await sink.apply(lambda e: run_ended(e, plan, outcome))
        if pruned:
            return TrialOutcome(TrialStatus.PRUNED, list(outcome.recorded), error=pruned[0])
        if outcome.failed:
            c, why = outcome.failed[0]
            return TrialOutcome(TrialStatus.FAILED, list(outcome.recorded), error=f"c={c}: {why}")
        if outcome.cancelled:
            return TrialOutcome(TrialStatus.FAILED, list(outcome.recorded), error="cancelled")
        return TrialOutcome(TrialStatus.OK, list(outcome.recorded))
