"""The one TrialRunner: a trial run through the experiment service (control/experiment.py),
the same start / follow / sweep / stop that `cockpit run`, `cockpit sweep` and the TUI call.

Start the derived profile on the trial's host (a server of the session still there, e.g. the
trial cockpit was killed in, is stopped first), follow its log to ready or a crash (a crash
makes the profile `broken` with its error label, as `cockpit run` does), sweep it with every
point recorded as a benchmark (power and tok/J from the host's GPU source), stop it.

The person's yes is the search's (sealed before the loop runs, control/search/consent.py):
the service asks nothing for the derived profiles and seals nothing again. Before each trial
the seal is checked against the session as it is then, and the trial's profile against the
base plus the space's flags: anything else runs only under its own launch seal (a person
confirmed it: `cockpit tune` asks), else the trial is not run (TrialNotConsented). Records are the
session file's transaction, journaled "via search"; the service's session-wide lines (the
sweep's last action, the stop's note) are left to the search's own trial record.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from cockpit.control.experiment_types import Question, ServerPhase, ServerStarting
from cockpit.control.search.runner import PointCheck, TrialNotConsented, TrialOutcome, TrialRequest
from cockpit.control.transaction import SessionFile
from cockpit.model.search.search import TrialStatus
from cockpit.model.session import Session
from cockpit.sources.transport.ssh_target import SshOptions

if TYPE_CHECKING:
    from cockpit.control.experiment import ExperimentService
    from cockpit.control.experiment_types import ExperimentEvent, StartOutcome, SweepResult
    from cockpit.control.live_hub import LiveHub
    from cockpit.sources.transport.ssh_pool import Pool

__all__ = ["SEARCH", "ServerTrialRunner"]

SEARCH = "search"  # the journal's actor of a search's records


async def _never_asked(question: Question) -> bool:
    """A search's service asks no one: its consent covers every trial (`consented_by`)."""
    return False


class ServerTrialRunner:
    def __init__(self, pool: Pool, *, ready_timeout_s: float = 1800.0, stop_grace_s: float = 10.0,
                 ssh_config: tuple[str, ...] | None = None, known_hosts: str | None = None,
                 hub: LiveHub | None = None) -> None:
        """`hub`: the live hub the trials watch through (the TUI's: the panes' feeds of a
        host are not opened twice); None: one of this runner's own, shared by its trials."""
        from cockpit.control.live_hub import LiveHub

        self.pool = pool
        self.ready_timeout_s = ready_timeout_s
        self.stop_grace_s = stop_grace_s
        self.ssh_kw = SshOptions(ssh_config=ssh_config, known_hosts=known_hosts)
        self.hub = hub if hub is not None else LiveHub()
        self.overhead_s: list[float] = []
        """Per trial: wall time minus the server's start-to-ready and the clients' runs (cockpit's own)."""

    async def run_trial(self, request: TrialRequest, *, check_point: PointCheck,
                        on_state: Callable[[str], object]) -> TrialOutcome:
        from cockpit.control.experiment import ExperimentService

        began = time.monotonic()
        client_s: list[float] = []
        heard = _Heard(on_state, check_point, client_s)
        # one service per trial: trials on two hosts run at once, each with its own sweep
        service = ExperimentService(request.session_path, request.port or SessionFile(request.session_path, actor=SEARCH),
                                    pool=self.pool, hub=self.hub, on_event=heard, **self.ssh_kw)
        heard.service = service
        consent = f"search {request.search_id}"
        launch_covered, sweep_covered = _covered(service.session, request)
        host = _host_of(service, request.profile_id)
        _place, left = await service.running_there(host)
        if left is not None and left.running:  # the trial cockpit died in, or a server someone left
            on_state(f"stopping pid {left.pid} left on {host or 'local'}")
        started = await service.start(request.profile_id, _never_asked, restart=left is not None and left.running,
                                      timeout_s=self.ready_timeout_s,
                                      consented_by=consent if launch_covered else None)
        if started.kind == "not_confirmed":
            raise TrialNotConsented(f"trial {request.number}: profile {request.profile_id} is not the base plus the "
                                    "space's flags and no person confirmed it (cockpit tune shows it and asks)")
        try:
            if started.kind == "crashed":
                return TrialOutcome(TrialStatus.CRASHED, error=_crash_text(started),
                                    phase=getattr(started.launch, "phase", None))
            if started.kind != "ready" or started.launch is None:
                why = started.launch.describe() if started.launch is not None else f"not started: {started.message}"
                return TrialOutcome(TrialStatus.FAILED, error=why)
            ready_s = started.launch.elapsed_s
            on_state(f"ready in {ready_s:.0f} s; sweeping")
            swept = await service.sweep(request.sweep_id, _never_asked, profile=request.profile_id,
                                        resume_run=request.run_id, on_fail="stop",
                                        consented_by=consent if sweep_covered else None, activity=False)
            if swept.status == "refused":
                raise TrialNotConsented(f"trial {request.number}: the sweep of profile {request.profile_id} runs "
                                        "another interpreter than the search's and no person confirmed it")
            outcome = _trial_outcome(swept, heard.pruned)
            if outcome.status is TrialStatus.FAILED:  # a server that died serving is the configuration's crash
                crash = await _died(service, started)
                if crash is not None:
                    outcome = TrialOutcome(TrialStatus.CRASHED, outcome.benchmarks, error=crash, phase="serving")
            outcome.ready_s = ready_s
            self.overhead_s.append(time.monotonic() - began - ready_s - sum(client_s))
            return outcome
        finally:
            if started.started is not None:  # it ran: stopped whatever came of it
                on_state(f"stopping {request.profile_id}")
                try:
                    await asyncio.shield(service.stop([host], grace_s=self.stop_grace_s, note=False))
                except (OSError, asyncio.CancelledError):
                    pass


class _Heard:
    """The service's events, as the search's short state lines; a recorded point checked
    against the pruning rule (a prune cancels the sweep: its points stay recorded)."""

    def __init__(self, on_state: Callable[[str], object], check_point: PointCheck, client_s: list[float]) -> None:
        self.on_state = on_state
        self.check_point = check_point
        self.client_s = client_s
        self.pruned: list[str] = []
        self.service: ExperimentService | None = None

    def __call__(self, event: ExperimentEvent) -> None:
        from cockpit.live.experiment.launch_lifecycle import PHASE_WORDS
        from cockpit.live.experiment.sweep_events import PointFailed, PointRecorded, PointSkipped

        say = self.on_state
        if isinstance(event, ServerStarting):
            say(f"starting {event.plan.profile_id} on {event.plan.place.host}")
        elif isinstance(event, ServerPhase):
            say(f"{PHASE_WORDS.get(event.phase, event.phase)} ({event.elapsed_s:.0f} s)")
        elif isinstance(event, PointRecorded):
            self.client_s.append(event.client_s or event.tool_s or 0.0)
            say(f"c={event.concurrency} recorded {event.benchmark_id}")
            why = self.check_point(event.concurrency, event.fields)
            if why and not self.pruned:
                self.pruned.append(why)
                if self.service is not None:
                    asyncio.get_running_loop().call_soon(self.service.cancel)
        elif isinstance(event, PointSkipped):
            say(f"c={event.concurrency} already recorded as {event.benchmark_id}")
        elif isinstance(event, PointFailed):
            say(f"c={event.concurrency} failed: {event.reason}")


def _covered(session: Session, request: TrialRequest) -> tuple[bool, bool]:
    """Whether the person's seal of the search covers this trial's launch, and its sweep.
    TrialNotConsented when the search itself is no longer what they sealed."""
    from cockpit.control.search.consent import search_confirmed, search_fingerprint
    from cockpit.control.search.loop import find_search
    from cockpit.live.experiment.sweep_plan import bench_python
    from cockpit.model.search.space import not_derived

    search = find_search(session, request.search_id)
    hosts = list(request.hosts) or [request.host]
    try:
        stamp = search_fingerprint(session, search, hosts)
    except StopIteration:  # its base profile or sweep is gone
        raise TrialNotConsented(f"search {search.id}: its base profile or sweep is missing") from None
    if not search_confirmed(stamp, search.confirmed):
        raise TrialNotConsented(f"search {search.id} changed since a person confirmed it (space, base profile, "
                                "sweep or hosts); cockpit tune shows it and asks")
    trial = search.trial_of(request.number)
    base = next((p for p in session.launch if p.id == search.profile), None)
    profile = next((p for p in session.launch if p.id == request.profile_id), None)
    if trial is None or base is None or profile is None:
        return True, True  # nothing to start: the service refuses a missing profile itself
    local_host = any(h.name == "local" for h in session.hosts)
    if not_derived(search, base, trial.params, trial.host, profile, local_host=local_host) is None:
        return True, True
    return False, bench_python(profile) == bench_python(base)


async def _died(service: ExperimentService, started: StartOutcome) -> str | None:
    """After a failed sweep: when the trial's server is gone, its crash as its log tells it
    (`label: the exception line`, recorded as a crash of the profile); None while it runs or
    when it cannot be asked (the sweep's failure stands)."""
    from cockpit.control.experiment import CRASH_CHECK_S, CRASH_CHECKS
    from cockpit.live.experiment.launch_lifecycle import LaunchFollower, apply_outcome
    from cockpit.model.edit.edits import EditError

    plan, start = started.plan, started.started
    if plan is None or start is None:  # nothing was started: nothing died
        return None
    control, data, offset = service.control(), b"", start.log_offset
    try:
        for _ in range(CRASH_CHECKS):  # the crash line comes just before the process ends
            chunk = await control.read_log(plan.place, start.log_path, offset)
            data, offset = data + chunk.data, chunk.offset
            if not chunk.running:
                break
            await asyncio.sleep(CRASH_CHECK_S)
        else:
            return None
    except Exception:  # noqa: BLE001 -- unreachable, or the log unreadable: not known to have crashed
        return None
    follower = LaunchFollower(plan)
    follower.feed(data)
    crash = follower.died(chunk.exit_code)
    try:
        await service.record(lambda editor: apply_outcome(editor, crash, session_label=service.label))
    except (OSError, ValueError, EditError):
        pass  # the trial's own record still says it crashed
    first = f": {crash.exception.strip()[:200]}" if crash.exception and crash.exception.strip() else ""
    return f"{crash.error_label}{first}"


def _crash_text(started: StartOutcome) -> str:
    """`cuda_oom: torch.OutOfMemoryError: CUDA out of memory ...`: the label and the log's exception line."""
    label = started.error_label or "crashed"
    exception = getattr(started.launch, "exception", None)
    return f"{label}: {exception.strip()[:200]}" if exception and exception.strip() else label


def _host_of(service: ExperimentService, profile_id: str) -> str | None:
    profile = next((p for p in service.session.launch if p.id == profile_id), None)
    return profile.host if profile is not None else None


def _trial_outcome(swept: SweepResult, pruned: list[str]) -> TrialOutcome:
    outcome = swept.outcome
    if outcome is None:  # nothing ran: not ready, a wrong sweep, a record not saved
        return TrialOutcome(TrialStatus.FAILED, error=swept.message or swept.text or swept.status)
    recorded = list(outcome.recorded)
    if pruned:
        return TrialOutcome(TrialStatus.PRUNED, recorded, error=pruned[0])
    if outcome.failed:
        c, why = outcome.failed[0]
        return TrialOutcome(TrialStatus.FAILED, recorded, error=f"c={c}: {why}")
    if outcome.cancelled:
        return TrialOutcome(TrialStatus.FAILED, recorded, error="cancelled")
    return TrialOutcome(TrialStatus.OK, recorded)
