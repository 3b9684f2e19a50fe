"""The experiment service: start, stop, restart, attach, sweep, resume, cancel, fallback;
one loop for every caller (`cockpit run` / `stop` / `sweep`, the TUI, a launch search), no
Textual.

    service = ExperimentService(path, recorder, pool=pool, hub=hub, on_event=listener)
    started = await service.start("l1", confirm)        # -> StartOutcome
    #   .kind: ready | crashed | timeout | started | refused | not_confirmed | already_running
    #          | not_started | not_saved;  .error_label, .launch (LaunchOutcome), .fallback_id
    result = await service.sweep("s1", confirm)          # -> SweepResult (.status, .text, .outcome)
    #   profile=, port=, resume_run= (a run id) or resume_last=True, on_fail="stop"|"skip"
    stopped = await service.stop(["gpu1"])               # -> [StopOutcome]
    service.cancel()                                     # the running sweep: its client killed
    await service.attach()                               # servers already running (PID files)
    await service.check_crash(host, why)                 # after ready: crashed? recorded
    fallback = await service.start_fallback(confirm)     # the working profile, after a crash

* **Consent is the caller's.** Anything not confirmed in this form (a profile's command,
  env or host; a sweep's commands) is put to `confirm(Question)` (control/experiment_types.py):
  `cockpit run` prompts at the terminal or takes --yes, the TUI shows its dialog. A yes is
  sealed with this user's key and recorded with the person as the actor; nothing here
  reads consent from the session file but that seal.
* **Records** go through a SessionPort (control/session_port.py): the open session's
  controller (the TUI: undo, journal, merge on save) or the file's one transaction
  (`cockpit sweep`, journaled "via sweep"; `cockpit run` as the person).
* **Progress** is told to `on_event`: StatesChanged, ServerStarting, ServerStarted, ServerPhase, LaunchNote,
  BenchClientChosen, SweepRunnerStarted / Ended, and the sweep runner's own events
  (PointStarted, PointProgress, PointRecorded, PointFailed, SweepNote; control/sweep_runner.py).
  Callers word them (a toast, a printed line); `servers` and `profile_states` are the
  status the TUI shows.
* **Watching** goes through the live hub (control/live_hub.py): a start is followed to ready from
  the log pane's tail of that file when it runs, else from one read of the hub's own
  (control/launch_watch.py); a sweep's points from the panes' GPU and log feeds of
  the host when they run, else from the hub's own for the sweep's time.
* **A search** (control/search/server_trials.py) calls start / sweep / stop per trial with
  `consented_by` (its person's sealed yes covers the derived profiles) and `activity=False`
  / `note=False` (its trial record says how the trial ended).

The sweep loop itself is control/experiment_sweep.py.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from cockpit.control.experiment_types import (
    Confirm,
    LaunchNote,
    LaunchQuestion,
    ServerPhase,
    ServerStarted,
    ServerStarting,
    StartOutcome,
    StatesChanged,
    StopOutcome,
    SweepResult,
)
from cockpit.control.live_hub import LiveHub
from cockpit.control.session_port import SessionPort
from cockpit.model.edit.edits import PERSON, EditError, SessionEditor
from cockpit.model.launch.confirm import launch_stamp
from cockpit.model.session import Session
from cockpit.sources.transport.ssh_target import SshOptions

if TYPE_CHECKING:
    from cockpit.control.experiment_types import ExperimentEvent
    from cockpit.control.launch_watch import LaunchWatch
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.sources.server.control import ServerControl
    from cockpit.sources.server.places import LaunchPlan, RunPlace
    from cockpit.sources.server.results import ServerStatus, StartResult
    from cockpit.sources.transport.ssh_pool import Pool

_T = TypeVar("_T")

__all__ = ["CRASH_CHECKS", "CRASH_CHECK_S", "READY_TIMEOUT_S", "ExperimentService"]

READY_TIMEOUT_S = 1800.0
CRASH_CHECKS, CRASH_CHECK_S = 10, 0.5
UP_WORDS = ("ready", "running")  # the states of a server that was up
"""After a crash line: how often, and how far apart, to ask whether the server is gone."""

_NOT_SAVED = (OSError, EditError, ValueError)


class ExperimentService:
    def __init__(self, path: Path | str, recorder: SessionPort, *, pool: Pool | None = None, hub: LiveHub | None = None,
                 on_event: Callable[[ExperimentEvent], object] | None = None, ssh_config: tuple[str, ...] | None = None,
                 known_hosts: str | None = None) -> None:
        """`path`: the session file (its label in the commands said); `pool`: the SshPool
        (one connection per host, the TUI's feeds'); `hub`: the live hub whose feeds a
        sweep watches (None: one of its own)."""
        self.path = path
        self.recorder = recorder
        self._pool = pool
        self.hub = hub if hub is not None else LiveHub()
        self.on_event = on_event or (lambda event: None)
        self.ssh = SshOptions(ssh_config=ssh_config, known_hosts=known_hosts)
        self.servers: dict[str, str] = {}
        """host -> what its server of this session is doing ("l2 ready in 41 s")."""
        self.profile_states: dict[str, str] = {}
        """profile id -> a word for the Launch list (starting, loading, ready, crashed, running)."""
        self.hosts_of: dict[str, str] = {}
        """profile id -> the host its state in `profile_states` is about."""
        self.fallback_id: str | None = None
        self.runner: SweepRunner | None = None
        """The sweep running now (None: none)."""

    # ----- plumbing ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        return self.recorder.session

    @property
    def label(self) -> str:
        return shlex.quote(str(self.path))

    def pool(self) -> Pool:
        if self._pool is None:
            from cockpit.sources.transport.ssh_pool import SshPool

            self._pool = SshPool()
        return self._pool

    def control(self) -> ServerControl:
        from cockpit.sources.server.control import ServerControl

        return ServerControl(self.pool())

    def phase(self, profile_id: str, host: str, word: str) -> None:
        # One server of the session per host: a start there (a restart too) ends the other's state.
        for other, where in list(self.hosts_of.items()):
            if where == host and other != profile_id:
                self.profile_states.pop(other, None)
                self.hosts_of.pop(other)
        self.hosts_of[profile_id] = host
        self.profile_states[profile_id] = word
        self.servers[host] = f"{profile_id} {word}"
        self.on_event(StatesChanged())

    def _forget(self, host: str, profile_id: str | None = None) -> None:
        self.servers.pop(host, None)
        if profile_id is not None:
            self.profile_states.pop(profile_id, None)
        self.on_event(StatesChanged())

    async def record(self, change: Callable[[SessionEditor], _T], *, actor: str | None = None) -> _T:
        return await self.recorder.apply(change, actor=actor)

    # ----- status ----------------------------------------------------------------------------
    async def running_there(self, host: str | None) -> tuple[RunPlace, ServerStatus | None]:
        """(place, status) of the session's server on `host`; status None when it could not be asked."""
        from cockpit.sources.server.places import place_for_host

        place = place_for_host(self.session, self.path, host, **self.ssh)
        try:
            status = await asyncio.wait_for(self.control().status(place), 15)
        except Exception:  # noqa: BLE001 -- unreachable: the caller says so
            status = None
        return place, status

    async def attach(self) -> list[tuple[str, RunPlace, ServerStatus, bool]]:
        """Servers of this session already running (by PID file): (profile id, place, status,
        same command as the profile now) each, their state set to running."""
        from cockpit.sources.server.places import places_of_session

        control, found = self.control(), []
        for place in places_of_session(self.session, self.path, **self.ssh):
            try:
                status = await asyncio.wait_for(control.status(place), 15)
            except Exception:  # noqa: BLE001 -- an unreachable host: its header state says so
                continue
            if not status.running:
                continue
            profile = next((p for p in self.session.launch if p.id == status.profile_id), None)
            same = profile is not None and status.attached_to(profile)
            pid = status.profile_id or "?"
            self.phase(pid, place.host, "running" if same else "running (older command)")
            found.append((pid, place, status, same))
        return found

    async def reconcile(self) -> None:
        """The shown states against the servers that run now (by PID file, on every host of
        the session): one another writer (a search's trial, `cockpit run` / `stop`) started
        shows as running, one that ended is forgotten (issue 39: "l2 ▶ ready" stayed after a
        search had stopped it). A state of the profile that runs is kept as it is worded."""
        from cockpit.sources.server.places import places_of_session

        control = self.control()
        for place in places_of_session(self.session, self.path, **self.ssh):
            try:
                status = await asyncio.wait_for(control.status(place), 5)
            except Exception:  # noqa: BLE001 -- unreachable now: its header state says so
                continue
            shown = [pid for pid, host in self.hosts_of.items() if host == place.host]
            if status.running:
                pid = status.profile_id or "?"
                if pid not in shown:
                    self.phase(pid, place.host, "running")
                continue
            # what says a server runs goes; a crash or a refusal stays (it tells what happened)
            gone = [pid for pid in shown if not any(w in self.profile_states.get(pid, "") for w in ("crash", "not "))]
            # one that was up and ended on its own with a failing status crashed: said here too,
            # as the followed log's crash line may come after this check (or never, unfollowed)
            died = [pid for pid in gone if self.profile_states.get(pid, "").startswith(UP_WORDS)
                    and status.exit_code not in (None, 0) and status.profile_id in (None, pid)]
            for pid in died:
                self.phase(pid, place.host, "crashed")
                self._forget(place.host)
                await self.record(_crashed(pid, place.host, status.exit_code, None, self.label))
            gone = [pid for pid in gone if pid not in died]
            if gone or (place.host in self.servers and not shown and not died):
                for pid in gone:
                    self.hosts_of.pop(pid, None)
                    self.profile_states.pop(pid, None)
                self._forget(place.host)

    # ----- start / restart / fallback ----------------------------------------------------------
    async def start(self, profile_id: str, confirm: Confirm, *, restart: bool = False, wait_ready: bool = True,
                    timeout_s: float = READY_TIMEOUT_S, consented_by: str | None = None) -> StartOutcome:
        """Start (or, `restart`, stop then start) a profile's server on its host and follow
        it to ready or crashed (`wait_ready`); recorded either way. A restart's stop is the
        caller's to ask about (it stops whatever runs there). `consented_by`: the person's
        sealed yes that covers this launch already (a search's, for its derived profiles):
        nothing is asked, nothing sealed again."""
        from cockpit.sources.server.places import plan_launch
        from cockpit.sources.server.results import AlreadyRunning, ServerControlError

        try:
            plan = plan_launch(self.session, self.path, profile_id, **self.ssh)
        except ServerControlError as exc:
            return StartOutcome("refused", profile_id, message=str(exc))
        host = plan.place.host
        if plan.needs_confirmation and consented_by is None:
            if not await confirm(LaunchQuestion(plan, restart=restart)):
                return StartOutcome("not_confirmed", plan.profile_id, host, plan=plan)
            refused = await self._seal_launch(plan)
            if refused is not None:
                return refused
        control = self.control()
        self.on_event(ServerStarting(plan))
        self.phase(plan.profile_id, host, "starting")
        try:
            started, watch = await self._launch(control, plan, restart=restart, wait_ready=wait_ready)
        except AlreadyRunning as exc:
            self._forget(host, plan.profile_id)
            return StartOutcome("already_running", plan.profile_id, host, str(exc), plan=plan)
        except ServerControlError as exc:
            self.phase(plan.profile_id, host, "not started")
            return StartOutcome("not_started", plan.profile_id, host, str(exc), plan=plan)
        self.on_event(ServerStarted(plan, started))
        if watch is None:
            return await self._started_only(plan, started)
        return await self._follow(plan, started, timeout_s, watch)

    async def _launch(self, control: ServerControl, plan: LaunchPlan, *, restart: bool,
                      wait_ready: bool) -> tuple[StartResult, LaunchWatch | None]:
        """The start (a restart: the stop first, as ServerControl.restart), and the launch
        watch (control/launch_watch.py) on the hub from before it, so no line of the
        run is missed and a pane's tail of that log is not opened twice."""
        from cockpit.control.launch_watch import LaunchWatch
        from cockpit.sources.server.results import ServerControlError

        watch = None
        try:
            if restart:  # stopped before the watch settles: the old server's last lines are not this run's
                stopped = await control.stop(plan.place, grace_s=10.0)
                if not stopped.clean:
                    raise ServerControlError(f"{plan.place.host}: processes {list(stopped.left)} of the old server are left")
            if wait_ready:
                watch = LaunchWatch(self.hub, self._tailed_log_key(plan))
                await watch.settle()
            return await control.start(plan, session_label=self.label), watch
        except BaseException:
            if watch is not None:
                watch.close()
            raise

    def _tailed_log_key(self, plan: LaunchPlan) -> str | None:
        """The hub key of the panes' tail of the file this launch writes: the host's
        `log_path` (a host whose pane runs a `log_command` reads something else)."""
        from cockpit.sources.host_feeds_plan import feed_key

        host = next((h for h in self.session.hosts if h.name == plan.place.host), None)
        if host is None or not host.log_path or host.log_command or plan.log_path != host.log_path:
            return None
        return feed_key("log", host.name)

    async def _seal_launch(self, plan: LaunchPlan) -> StartOutcome | None:
        """The person said yes: seal it with this user's key and record it as theirs."""
        from cockpit.sources.server.confirm_key import ConfirmKeyError, confirmation

        try:
            sealed = confirmation("launch", plan.stamp)
        except ConfirmKeyError as exc:
            return StartOutcome("not_confirmed", plan.profile_id, plan.place.host,
                                f"cannot record the confirmation: {exc}", plan=plan)

        def change(editor: SessionEditor) -> None:
            profile = next(p for p in editor.session.launch if p.id == plan.profile_id)
            host = next((h for h in editor.session.hosts if h.name == profile.host), None)
            if launch_stamp(profile, host) != plan.stamp:  # edited meanwhile: confirm what runs
                raise EditError(f"profile {plan.profile_id} changed while asking; run again to see the new command")
            editor.edit_record("launch", plan.profile_id, confirmed=sealed)

        try:
            await self.record(change, actor=PERSON)
        except _NOT_SAVED as exc:
            return StartOutcome("not_saved", plan.profile_id, plan.place.host, str(exc), plan=plan)
        return None

    async def _started_only(self, plan: LaunchPlan, started: StartResult) -> StartOutcome:
        def change(editor: SessionEditor) -> None:
            editor.record_activity(
                f"started {plan.profile_id} ({plan.profile_name}) on {plan.place.host}, pid {started.status.pid}",
                next_step=f"wait for ready (the log pane, or cockpit run {self.label} {plan.profile_id} --wait-ready)")

        try:
            await self.record(change)
        except _NOT_SAVED as exc:
            return StartOutcome("not_saved", plan.profile_id, plan.place.host, str(exc), plan=plan, started=started)
        return StartOutcome("started", plan.profile_id, plan.place.host, plan=plan, started=started)

    async def _follow(self, plan: LaunchPlan, started: StartResult, timeout_s: float, watch: LaunchWatch) -> StartOutcome:
        from cockpit.live.experiment.launch_lifecycle import PHASE_WORDS, apply_outcome, fallback_profile

        host = plan.place.host

        def on_phase(phase: str, elapsed: float) -> None:
            self.phase(plan.profile_id, host, f"{PHASE_WORDS.get(phase, phase)} ({elapsed:.0f} s)")
            self.on_event(ServerPhase(plan.profile_id, host, phase, elapsed))

        launch = await watch.follow(self.control(), plan, started, timeout_s=timeout_s, on_phase=on_phase,
                                    on_note=lambda text: self.on_event(LaunchNote(text)))
        saved = ""
        try:
            await self.record(lambda editor: apply_outcome(editor, launch, session_label=self.label))
        except _NOT_SAVED as exc:
            saved = str(exc)
        fallback_id = None
        if launch.kind == "ready":
            self.phase(plan.profile_id, host, f"ready in {launch.elapsed_s:.0f} s")
        elif launch.kind == "crashed":
            self.phase(plan.profile_id, host, "crashed")
            fallback = fallback_profile(self.session, plan.profile_id)
            fallback_id = self.fallback_id = fallback.id if fallback else None
            self._forget(host)
        else:
            self.phase(plan.profile_id, host, "not ready yet")
        return StartOutcome(launch.kind, plan.profile_id, host, saved, plan=plan, started=started, launch=launch,
                            fallback_id=fallback_id)

    async def start_fallback(self, confirm: Confirm) -> StartOutcome | None:
        """The working profile offered after the last crash (None: none offered)."""
        if self.fallback_id is None:
            return None
        ident, self.fallback_id = self.fallback_id, None
        return await self.start(ident, confirm)

    # ----- a crash after ready ------------------------------------------------------------
    async def check_crash(self, host: str | None, why: str | None) -> list[str]:
        """The followed log of `host` (None: any host) says its server crashed: each profile
        that was up there and whose process is gone is crashed (recorded). Their ids."""
        up = [(pid, where) for pid, where in self.hosts_of.items()
              if (host is None or where == host) and self.profile_states.get(pid, "").startswith(UP_WORDS)]
        crashed = []
        for pid, where in up:
            status = None
            for _ in range(CRASH_CHECKS):  # the crash line comes just before the process ends
                _place, status = await self.running_there(where)
                if status is None or not status.running:
                    break
                await asyncio.sleep(CRASH_CHECK_S)
            if status is None or status.running:  # unreachable, or still up: nothing to say
                continue
            if not self.profile_states.get(pid, "").startswith(UP_WORDS):  # said already (reconcile)
                continue
            self.phase(pid, where, "crashed")
            self._forget(where)
            await self.record(_crashed(pid, where, status.exit_code, why, self.label))
            crashed.append(pid)
        return crashed

    # ----- stop --------------------------------------------------------------------------------
    async def stop(self, hosts: Sequence[str | None] | None = None, *, grace_s: float = 10.0,
                   note: bool = True) -> list[StopOutcome]:
        """Stop the session's server on each host (None in the list: this machine; None:
        every host of the session). The stopped ones are one note (`note`: a search's trial
        records its own end instead)."""
        from cockpit.sources.server.places import place_for_host, places_of_session
        from cockpit.sources.server.results import ServerControlError

        places = (places_of_session(self.session, self.path, **self.ssh) if hosts is None else
                  [place_for_host(self.session, self.path, host, **self.ssh) for host in hosts])
        control, out, stopped = self.control(), [], []
        for place in places:
            try:
                result = await control.stop(place, grace_s=grace_s)
            except ServerControlError as exc:
                out.append(StopOutcome(place.host, error=str(exc)))
                continue
            self.servers.pop(place.host, None)
            for pid, word in list(self.profile_states.items()):
                if word != "crashed":
                    self.profile_states.pop(pid)
            self.on_event(StatesChanged())
            out.append(StopOutcome(place.host, result))
            if result.pid is not None and result.clean and result.signals:
                stopped.append(f"{place.host} (pid {result.pid})")
        if stopped and note:
            await self.record(lambda editor: editor.add_note(f"server stopped on {', '.join(stopped)}"))
        return out

    # ----- sweeps ------------------------------------------------------------------------------
    async def sweep(self, ref: str, confirm: Confirm, *, profile: str | None = None, port: int | None = None,
                    resume_run: str | None = None, resume_last: bool = False,
                    on_fail: str = "stop", consented_by: str | None = None, activity: bool = True) -> SweepResult:
        """Run sweep `ref` (id or name) on the running profile (or `profile`): asked first
        when its commands were never confirmed, a benchmark per point recorded as it
        lands. `resume_run`: only that run's points with no record; `resume_last`: this
        sweep's last unfinished run's. `consented_by`: as for `start`; `activity`: the
        run's line becomes the session's last action (a search's trial: its own record)."""
        from cockpit.control.experiment_sweep import run_sweep

        if self.runner is not None:
            return SweepResult("not_run", "a sweep is running")
        return await run_sweep(self, ref, confirm, profile=profile, port=port, resume_run=resume_run,
                               resume_last=resume_last, on_fail=on_fail, consented_by=consented_by,
                               activity=activity)

    def cancel(self) -> bool:
        """Cancel the running sweep (its client is killed; recorded points stay)."""
        if self.runner is None:
            return False
        self.runner.cancel()
        return True

    async def close(self, *, pool: bool = False) -> None:
        """Cancel a sweep, stop the hub's own feeds; `pool`: close the SSH pool too."""
        self.cancel()
        await self.hub.close()
        if pool and self._pool is not None:
            await self._pool.close()


def _crashed(pid: str, host: str, code: int | None, why: str | None, label: str) -> Callable[[SessionEditor], None]:
    from cockpit.live.experiment.launch_lifecycle import crash_after_ready

    return lambda editor: crash_after_ready(editor, pid, host, exit_code=code, why=why, session_label=label)
