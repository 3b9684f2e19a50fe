"""The experiment loop in the TUI: the Textual glue around the experiment service
(control/experiment.py, the same loop `cockpit run` / `stop` / `sweep` call).

The service starts, stops, attaches, follows to ready or crashed, falls back and sweeps;
this class runs its calls as the app's workers, asks the person in dialogs (its `confirm`
is ConfirmRunScreen; a stop or a restart asks ConfirmStopScreen first), and says what
happens in toasts and the status line. Records go through the app's SessionController
(undo, journal, merge on save); a sweep watches the panes' own feeds through the app's
live hub, so the host is not tailed twice.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol, Unpack

from cockpit.control.experiment import ExperimentService
from cockpit.control.experiment_types import (
    BenchClientChosen,
    Question,
    ServerStarted,
    StatesChanged,
)
from cockpit.control.pools import shared_pool
from cockpit.control.session_port import ControllerPort
from cockpit.live.experiment.sweep_events import PointFailed, PointProgress, PointRecorded, PointRetrying, PointStarted, SweepNote
from cockpit.live.experiment.sweep_runs import unfinished_runs
from cockpit.model.session import Session

if TYPE_CHECKING:
    from collections.abc import Awaitable
    from pathlib import Path

    from textual.screen import Screen

    from cockpit.control.experiment_types import ExperimentEvent
    from cockpit.control.live_access import LiveSources
    from cockpit.control.live_hub import LiveHub
    from cockpit.control.session_controller import SessionController
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.ui.toasts import ToastOptions


class ExperimentApp(Protocol):
    """What this glue uses of the app (CockpitApp is one), so it never imports the App back."""

    @property
    def controller(self) -> SessionController: ...

    @property
    def path(self) -> Path: ...

    hub: LiveHub
    sources: LiveSources

    @property
    def main_screen(self) -> Screen[None]: ...

    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool: ...

    def show_run_status(self, text: str, profile_states: dict[str, str]) -> None: ...

    def notify(self, message: str, *, title: str = "", markup: bool = False, **options: Unpack[ToastOptions]) -> None: ...

    def push_screen_wait(self, screen: Any) -> Awaitable[Any]: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...


class ExperimentControl:
    def __init__(self, app: ExperimentApp) -> None:
        self.app = app
        self.sweep_line = ""
        self._service: ExperimentService | None = None
        self._own_pool = False
        self._rechecking = False

    # ----- plumbing ------------------------------------------------------------------------
    @property
    def service(self) -> ExperimentService:
        """Built on first use: the app's SSH pool when its feeds have one (one connection
        per host), else the service's own; the app's live hub."""
        if self._service is None:
            pool = shared_pool(self.app.sources.host_events)
            self._own_pool = pool is None
            self._service = ExperimentService(
                self.app.path, ControllerPort(self.app.controller), pool=pool,
                hub=self.app.hub, on_event=self._event)
        return self._service

    @property
    def session(self) -> Session:
        return self.app.controller.session

    @property
    def servers(self) -> dict[str, str]:
        return self.service.servers

    @property
    def profile_states(self) -> dict[str, str]:
        return self.service.profile_states

    @property
    def fallback_id(self) -> str | None:
        return self.service.fallback_id

    @property
    def _runner(self) -> SweepRunner | None:
        return self.service.runner

    def shutdown(self) -> None:
        """At exit: cancel a sweep (its client is killed) and close our own SSH pool."""
        if self._service is None:
            return
        self._service.cancel()
        try:
            asyncio.get_running_loop().create_task(self._service.close(pool=self._own_pool))
        except RuntimeError:  # no loop left: the connections end with the process
            pass

    def _show(self) -> None:
        parts = [f"▶ {host}: {text}" for host, text in self.servers.items()]
        if self.sweep_line:
            parts.append(self.sweep_line)
        self.app.show_run_status("  ·  ".join(parts), dict(self.profile_states))

    def _work(self, job: Awaitable[object], group: str, description: str) -> None:
        self.app.run_worker(job, group=group, exit_on_error=False, description=description)

    async def _confirm(self, question: Question) -> bool:
        """The dialog: the exact commands, asked of the person before anything runs."""
        from cockpit.ui.screens.confirm_run import ConfirmRunScreen

        if question.kind == "launch":
            plan = question.plan
            verb = "Restart" if question.restart else "Start"
            started: bool = await self.app.push_screen_wait(
                ConfirmRunScreen(f"{verb} {plan.profile_id}? Not run before in this form:", plan.preview()))
            return started
        sweep_plan, sweep = question.plan, question.sweep
        what = "\n".join([f"on {sweep_plan.where}, {len(sweep_plan.points)} points:", *sweep_plan.command_lines(),
                          f"({question.module_line})"])
        ran: bool = await self.app.push_screen_wait(
            ConfirmRunScreen(f"Run sweep {sweep.id} ({sweep.name}) on {question.profile.id}? Not run before:", what))
        return ran

    # ----- what runs now, whoever started it ------------------------------------------------
    def recheck(self) -> None:
        """Once a second while a server state is shown or a search runs: the states follow
        the servers that run (ExperimentService.reconcile). Not while this app's own start,
        stop or sweep is under way: those set the states as they go."""
        from cockpit.ui.live.search_runs import runs_of

        shown = self._service is not None and bool(self._service.servers)
        if self._rechecking or not (shown or runs_of(self.app)):
            return
        if any(w.group.startswith("experiment") and not w.is_finished for w in self.app.workers):  # type: ignore[attr-defined]
            return
        self._rechecking = True

        async def check() -> None:
            try:
                await self.service.reconcile()
            finally:
                self._rechecking = False

        self._work(check(), "state-recheck", "what runs on the hosts now")

    # ----- attach on open ------------------------------------------------------------------
    async def attach(self) -> None:
        """Servers of this session already running (by PID file) when cockpit opens."""
        for pid, place, status, _same in await self.service.attach():
            self.app.notify(f"Attached: {pid} is running on {place.where} (pid {status.pid})", timeout=6)

    # ----- a crash after ready ------------------------------------------------------------
    def server_crashed(self, host: str | None, why: str | None) -> None:
        """The followed log of `host` (None: a fixed feed, any host) says its server crashed.
        A start follows its own crash; this is the one that comes after ready."""
        self._work(self.service.check_crash(host, why), "experiment-crash", "check the crashed server")

    # ----- start / stop / restart ----------------------------------------------------------
    def start(self, profile_id: str, *, restart: bool = False) -> None:
        job = self._ask_then_restart(profile_id) if restart else self._start(profile_id)
        self._work(job, "experiment-server", f"{'restart' if restart else 'start'} {profile_id}")

    async def _start(self, profile_id: str, *, restart: bool = False) -> None:
        out = await self.service.start(profile_id, self._confirm, restart=restart)
        notify = self.app.notify
        if out.kind in ("refused", "not_saved") and out.launch is None:
            notify(out.message if out.kind == "refused" else f"Not started: {out.message}", severity="error",
                   timeout=10)
        elif out.kind == "not_confirmed":
            if out.message:  # the key is unsafe: said, and nothing runs
                notify(f"Not started: {out.message}", severity="error", timeout=10)
            else:
                notify(f"Not started: {out.profile_id}", timeout=4)
        elif out.kind == "already_running":
            notify(f"{out.message}\n(R restarts: stop, then start)", severity="warning", timeout=10)
        elif out.kind == "not_started":
            notify(f"Not started: {out.message}", severity="error", timeout=10)
        elif out.launch is not None:
            launch = out.launch
            if launch.kind == "ready":
                sweep = self.session.sweeps[0].id if self.session.sweeps else None
                hint = f"; B runs sweep {sweep}" if sweep else ""
                notify(f"{launch.describe()}{hint}", timeout=8)
            elif launch.kind == "crashed":
                fallback = next((p for p in self.session.launch if p.id == out.fallback_id), None)
                offer = f"\nctrl+f starts the working profile {fallback.id} ({fallback.name})" if fallback else ""
                tail = "\n".join(launch.tail[-3:])
                notify(f"{launch.describe()}\n{tail}{offer}", severity="error", timeout=20)
            else:
                notify(launch.describe(), severity="warning", timeout=10)

    def start_fallback(self) -> None:
        ident = self.service.fallback_id
        if ident is None:
            self.app.notify("No fallback offered (it is offered after a start crashes)", timeout=4)
            return
        self.service.fallback_id = None
        self.start(ident)

    def stop(self, profile_id: str | None) -> None:
        profile = next((p for p in self.session.launch if p.id == profile_id), None)
        host = profile.host if profile is not None else None
        self._work(self._ask_then_stop(host), "experiment-server", "stop the server")

    async def _ask_then_stop(self, host: str | None) -> None:
        """`X`: a loaded server is minutes of work to get back, so it is asked first."""
        from cockpit.ui.screens.confirm_run import ConfirmStopScreen
        from cockpit.ui.stop_words import stop_question

        place, status = await self.service.running_there(host)
        if status is not None and not status.running:
            self.app.notify(f"{place.host}: no server of this session", timeout=5)
            return
        title, what = stop_question(place.host, status)
        if not await self.app.push_screen_wait(ConfirmStopScreen(title, what)):
            self.app.notify(f"Kept running on {place.host}", timeout=4)
            return
        await self._stop(host)

    async def _ask_then_restart(self, profile_id: str) -> None:
        """`S`: it stops whatever runs on the profile's host (another profile too): asked first."""
        from cockpit.ui.screens.confirm_run import ConfirmStopScreen
        from cockpit.ui.stop_words import stop_question

        profile = next((p for p in self.session.launch if p.id == profile_id), None)
        place, status = await self.service.running_there(profile.host if profile is not None else None)
        if status is None or status.running:
            title, what = stop_question(place.host, status, starting=profile_id)
            if not await self.app.push_screen_wait(ConfirmStopScreen(title, what)):
                self.app.notify(f"Not restarted: {profile_id}; kept running on {place.host}", timeout=4)
                return
        await self._start(profile_id, restart=True)

    async def _stop(self, host: str | None) -> None:
        (out,) = await self.service.stop([host])
        result = out.result
        if out.error is not None or result is None:
            self.app.notify(f"{out.host}: not stopped: {out.error}", severity="error", timeout=10)
            return
        if result.pid is not None:
            self._log_says_stopped(out.host)
        if result.pid is None:
            self.app.notify(f"{out.host}: no server of this session", timeout=5)
        elif not result.clean:
            self.app.notify(f"{out.host}: processes left after stopping pid {result.pid}: "
                            f"{' '.join(map(str, result.left))}", severity="error", timeout=15)
        else:
            self.app.notify(f"{out.host}: stopped pid {result.pid}", timeout=5)

    def _log_says_stopped(self, host: str) -> None:
        """The log pane that follows `host` (or the one fixed log) shows its run stopped now."""
        from textual.css.query import NoMatches

        from cockpit.ui.widgets.chrome.host_deck import HostDeck

        try:
            deck = self.app.main_screen.query_one("#log-deck", HostDeck)
        except (NoMatches, AttributeError):
            return
        for key in (host, None):
            pane = deck.panes.get(key)
            if pane is not None and hasattr(pane, "server_stopped"):
                pane.server_stopped()
                return

    # ----- sweeps --------------------------------------------------------------------------
    def sweep(self, sweep_ref: str | None = None, *, resume_run: str | None = None) -> None:
        if self._runner is not None:
            self.app.notify("A sweep is running (ctrl+x cancels it)", severity="warning", timeout=5)
            return
        if not self.session.sweeps:
            self.app.notify("No sweeps in this session: add a [[sweeps]] table (docs/experiments.md)",
                            severity="warning", timeout=8)
            return
        ref = sweep_ref or self.session.sweeps[0].id
        self._work(self._sweep(ref, resume_run), "experiment-sweep", f"sweep {ref}")

    def resume_sweep(self) -> None:
        """Run the points with no record of the last sweep run that was cut short."""
        runs = unfinished_runs(self.session)
        if not runs:
            self.app.notify("No sweep run was cut short: every run's points are recorded", timeout=5)
            return
        run = runs[-1]
        self.sweep(run.sweep, resume_run=run.run_id)

    def in_flight(self) -> str | None:
        """What quitting now loses: the sweep point running (None when no sweep runs)."""
        runner = self._runner
        if runner is None:
            return None
        plan, point = runner.plan, runner.current
        left = f"point {point.index} of {len(plan.points)} (c={point.concurrency})" if point else "its next point"
        return (f"Sweep {plan.sweep.id} ({plan.sweep.name}) is running {left}: quitting kills its client and "
                f"that point is lost (points recorded so far stay). On reopen, ctrl+e runs the points left "
                f"(or: cockpit sweep {self.service.label} {plan.sweep.id} --resume).")

    def say_cut_short(self) -> None:
        """On open: a sweep run cut short (quit, killed, cancelled) with points left is said."""
        for run in unfinished_runs(self.session):
            self.app.notify(
                f"Sweep {run.sweep} run {run.run_id} was cut short: {len(run.recorded)} of "
                f"{len(run.recorded) + len(run.missing)} points recorded (no record: c="
                f"{','.join(map(str, run.missing))}; unless another cockpit still runs it). ctrl+e resumes it.",
                severity="warning", timeout=20)

    def cancel_sweep(self) -> None:
        if not self.service.cancel():
            self.app.notify("No sweep is running", timeout=3)
            return
        self.sweep_line = "sweep: cancelling"
        self._show()

    async def _sweep(self, ref: str, resume_run: str | None = None) -> None:
        result = await self.service.sweep(ref, self._confirm, resume_run=resume_run)
        if result.status in ("not_run", "not_ready", "not_saved"):
            self.app.notify(f"Sweep not run: {result.message}", severity="error", timeout=10)
            return
        if result.status == "refused" or result.outcome is None:
            self.app.notify(f"Sweep {result.plan.sweep.id if result.plan else ref} not run", timeout=4)
            return
        self.sweep_line = ""
        self._show()
        self.app.notify(result.text, severity="error" if result.outcome.failed else "information", timeout=10)

    # ----- what the service says ---------------------------------------------------------------
    def _event(self, event: ExperimentEvent) -> None:
        if isinstance(event, StatesChanged):
            self._show()
        elif isinstance(event, ServerStarted):
            plan, started = event.plan, event.started
            note = f"\n{started.gpu.warning}" if started.gpu.warning else ""
            self.app.notify(f"Started {plan.profile_id} on {plan.place.where}, pid {started.status.pid}; "
                            f"log: {started.log_path}{note}", severity="warning" if note else "information",
                            timeout=8)
        elif isinstance(event, BenchClientChosen):
            if event.missing:
                self.app.notify(event.missing, severity="warning", timeout=10)
        else:
            self._sweep_event(event)

    def _sweep_event(self, event: ExperimentEvent) -> None:
        if isinstance(event, SweepNote):
            self.app.notify(event.text, severity="warning", timeout=10)
            return
        head = (f"sweep point {getattr(event, 'index', 0)} of {getattr(event, 'total', 0)}, "
                f"c={getattr(event, 'concurrency', '')}")
        if isinstance(event, PointStarted):
            self.sweep_line = f"{head}: started"
        elif isinstance(event, PointProgress):
            s = int(event.elapsed_s)
            self.sweep_line = f"{head}: {s // 60:02d}:{s % 60:02d} {event.line}"
        elif isinstance(event, PointRecorded):
            self.sweep_line = f"{head}: recorded {event.benchmark_id}"
        elif isinstance(event, PointRetrying):
            self.sweep_line = f"{head}: {event.reason}; again"
        elif isinstance(event, PointFailed):
            self.sweep_line = f"{head}: FAILED"
            self.app.notify(f"{head} failed: {event.reason}", severity="error", timeout=10)
        else:
            return
        self._show()
