"""The experiment loop from inside the TUI: start, stop and restart a launch profile's
server, attach to one already running when cockpit opens, fall back to the working
profile after a crash, and run a sweep with its progress on screen.

The steps are the same as `cockpit run` / `cockpit sweep` (sources/server_control.py,
live/launch_lifecycle.py, live/sweep_session.py); this class only runs them as the app's
workers, asks before anything runs that the person has not seen, and says what happens.
Every record goes through the app's SessionController (undo, journal, merge on save).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from cockpit.model.launch_confirm import fingerprint
from cockpit.model.session import Session

if TYPE_CHECKING:
    from cockpit.ui.app import CockpitApp

READY_TIMEOUT_S = 1800.0
CRASH_CHECKS, CRASH_CHECK_S = 10, 0.5
"""After a crash line: how often, and how far apart, to ask whether the server is gone."""


class ExperimentControl:
    def __init__(self, app: CockpitApp) -> None:
        self.app = app
        self._pool: Any = None
        self._own_pool = False
        self.servers: dict[str, str] = {}
        """host -> what its server of this session is doing ("l2 ready in 41 s")."""
        self.profile_states: dict[str, str] = {}
        """profile id -> a word for the Launch list (starting, loading, ready, crashed, running)."""
        self._hosts_of: dict[str, str] = {}
        """profile id -> the host its state in `profile_states` is about."""
        self.sweep_line = ""
        self.fallback_id: str | None = None
        self._runner: Any = None

    # ----- plumbing ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        return self.app.controller.session

    def pool(self) -> Any:
        """The app's SSH pool when its feeds have one (one connection per host), else our own."""
        if self._pool is None:
            from cockpit.sources.ssh_pool import SshPool

            shared = self.app.sources.host_events
            if isinstance(shared, SshPool):
                self._pool = shared
            else:
                self._pool, self._own_pool = SshPool(), True
        return self._pool

    def shutdown(self) -> None:
        """At exit: cancel a sweep (its client is killed) and close our own SSH pool."""
        if self._runner is not None:
            self._runner.cancel()
        if self._own_pool and self._pool is not None:
            try:
                asyncio.get_running_loop().create_task(self._pool.close())
            except RuntimeError:  # no loop left: the connections end with the process
                pass

    def _control(self) -> Any:
        from cockpit.sources.server_control import ServerControl

        return ServerControl(self.pool())

    def _label(self) -> str:
        import shlex

        return shlex.quote(str(self.app.path))

    def _show(self) -> None:
        parts = [f"▶ {host}: {text}" for host, text in self.servers.items()]
        if self.sweep_line:
            parts.append(self.sweep_line)
        self.app.show_run_status("  ·  ".join(parts), dict(self.profile_states))

    def _phase(self, profile_id: str, host: str, word: str) -> None:
        # One server of the session per host: a start there (a restart too) ends the other's state.
        for other, where in list(self._hosts_of.items()):
            if where == host and other != profile_id:
                self.profile_states.pop(other, None)
                self._hosts_of.pop(other)
        self._hosts_of[profile_id] = host
        self.profile_states[profile_id] = word
        self.servers[host] = f"{profile_id} {word}"
        self._show()

    def _record(self, edit: Any) -> None:
        self.app.controller.apply(edit)
        self.app.save()

    # ----- attach on open ------------------------------------------------------------------
    async def attach(self) -> None:
        """Servers of this session already running (by PID file) when cockpit opens."""
        from cockpit.sources.server_control import places_of_session

        control = self._control()
        for place in places_of_session(self.session, self.app.path):
            try:
                status = await asyncio.wait_for(control.status(place), 15)
            except Exception:  # noqa: BLE001 -- an unreachable host: its header state says so
                continue
            if not status.running:
                continue
            profile = next((p for p in self.session.launch if p.id == status.profile_id), None)
            same = profile is not None and status.attached_to(profile)
            pid = status.profile_id or "?"
            self._phase(pid, place.host, "running" if same else "running (older command)")
            self.app.notify(f"Attached: {pid} is running on {place.where} (pid {status.pid})", timeout=6)

    # ----- a crash after ready ------------------------------------------------------------
    def server_crashed(self, host: str | None, why: str | None) -> None:
        """The followed log of `host` (None: a fixed feed, any host) says its server crashed.
        A start follows its own crash (follow_launch); this is the one that comes after ready."""
        self.app.run_worker(self._after_crash(host, why), group="experiment-crash", exit_on_error=False,
                            description="check the crashed server")

    async def _after_crash(self, host: str | None, why: str | None) -> None:
        from cockpit.live.launch_lifecycle import crash_after_ready

        up = [(pid, where) for pid, where in self._hosts_of.items()
              if (host is None or where == host) and self.profile_states.get(pid, "").startswith(("ready", "running"))]
        for pid, where in up:
            for _ in range(CRASH_CHECKS):  # the crash line comes just before the process ends
                _place, status = await self._running_there(where)
                if status is None or not status.running:
                    break
                await asyncio.sleep(CRASH_CHECK_S)
            if status is None or status.running:  # unreachable, or still up: nothing to say
                continue
            self._phase(pid, where, "crashed")
            self.servers.pop(where, None)
            self._show()
            self._record(lambda editor, pid=pid, where=where, status=status: crash_after_ready(
                editor, pid, where, exit_code=status.exit_code, why=why, session_label=self._label()))

    # ----- start / stop / restart ----------------------------------------------------------
    def start(self, profile_id: str, *, restart: bool = False, asked: bool = False) -> None:
        from cockpit.sources.server_control import ServerControlError, plan_launch

        if restart and not asked:  # a restart stops what runs there: ask first (stop_question)
            self.app.run_worker(self._ask_then_restart(profile_id), group="experiment-server",
                                exit_on_error=False, description=f"restart {profile_id}")
            return
        try:
            plan = plan_launch(self.session, self.app.path, profile_id)
        except ServerControlError as exc:
            self.app.notify(str(exc), severity="error", timeout=10)
            return

        def go(confirmed: bool | None = True) -> None:
            if not confirmed:
                self.app.notify(f"Not started: {plan.profile_id}", timeout=4)
                return
            if plan.needs_confirmation:
                from cockpit.sources.confirm_key import ConfirmKeyError

                try:
                    self._confirm_profile(plan)
                except ConfirmKeyError as exc:  # the key is unsafe: said, and nothing runs
                    self.app.notify(f"Not started: cannot record the confirmation: {exc}", severity="error",
                                    timeout=10)
                    return
            self.app.run_worker(self._start(plan, restart=restart), group="experiment-server",
                                exit_on_error=False, description=f"start {plan.profile_id}")

        if plan.needs_confirmation:
            from cockpit.ui.screens.confirm_run import ConfirmRunScreen

            verb = "Restart" if restart else "Start"
            self.app.push_screen(ConfirmRunScreen(f"{verb} {plan.profile_id}? Not run before in this form:",
                                                  plan.preview()), go)
        else:
            go()

    def _confirm_profile(self, plan: Any) -> None:
        from cockpit.sources.confirm_key import confirmation

        sealed = confirmation("launch", plan.fingerprint)  # the person said yes in the dialog

        def change(editor: Any) -> None:
            profile = next((p for p in editor.session.launch if p.id == plan.profile_id), None)
            if profile is not None and fingerprint(profile) == plan.fingerprint:
                editor.edit_record("launch", plan.profile_id, confirmed=sealed)

        self._record(change)

    async def _start(self, plan: Any, *, restart: bool) -> None:
        from cockpit.live.launch_lifecycle import PHASE_WORDS, apply_outcome, fallback_profile, follow_launch
        from cockpit.sources.server_control import AlreadyRunning, ServerControlError

        control = self._control()
        host = plan.place.host
        self._phase(plan.profile_id, host, "starting")
        try:
            if restart:
                started = await control.restart(plan, session_label=self._label())
            else:
                started = await control.start(plan, session_label=self._label())
        except AlreadyRunning as exc:
            self.servers.pop(host, None)
            self.profile_states.pop(plan.profile_id, None)
            self._show()
            self.app.notify(f"{exc}\n(R restarts: stop, then start)", severity="warning", timeout=10)
            return
        except ServerControlError as exc:
            self._phase(plan.profile_id, host, "not started")
            self.app.notify(f"Not started: {exc}", severity="error", timeout=10)
            return
        note = f"\n{started.gpu.warning}" if started.gpu.warning else ""
        self.app.notify(f"Started {plan.profile_id} on {plan.place.where}, pid {started.status.pid}; "
                        f"log: {started.log_path}{note}", severity="warning" if note else "information", timeout=8)
        outcome = await follow_launch(
            control, plan, started, timeout_s=READY_TIMEOUT_S,
            on_phase=lambda phase, t: self._phase(plan.profile_id, host, f"{PHASE_WORDS.get(phase, phase)} ({t:.0f} s)"))
        self._record(lambda editor: apply_outcome(editor, outcome, session_label=self._label()))
        if outcome.kind == "ready":
            self._phase(plan.profile_id, host, f"ready in {outcome.elapsed_s:.0f} s")
            sweep = self.session.sweeps[0].id if self.session.sweeps else None
            hint = f"; B runs sweep {sweep}" if sweep else ""
            self.app.notify(f"{outcome.describe()}{hint}", timeout=8)
        elif outcome.kind == "crashed":
            self._phase(plan.profile_id, host, "crashed")
            self.servers.pop(host, None)
            fallback = fallback_profile(self.session, plan.profile_id)
            self.fallback_id = fallback.id if fallback else None
            offer = f"\nctrl+f starts the working profile {fallback.id} ({fallback.name})" if fallback else ""
            tail = "\n".join(outcome.tail[-3:])
            self.app.notify(f"{outcome.describe()}\n{tail}{offer}", severity="error", timeout=20)
            self._show()
        else:
            self._phase(plan.profile_id, host, "not ready yet")
            self.app.notify(outcome.describe(), severity="warning", timeout=10)

    def start_fallback(self) -> None:
        if self.fallback_id is None:
            self.app.notify("No fallback offered (it is offered after a start crashes)", timeout=4)
            return
        ident, self.fallback_id = self.fallback_id, None
        self.start(ident)

    def stop(self, profile_id: str | None) -> None:
        profile = next((p for p in self.session.launch if p.id == profile_id), None)
        host = profile.host if profile is not None else None
        self.app.run_worker(self._ask_then_stop(host), group="experiment-server", exit_on_error=False,
                            description="stop the server")

    async def _running_there(self, host: str | None) -> tuple[Any, Any]:
        """(place, status) of the session's server on `host`; status None when it could not be asked."""
        from cockpit.sources.server_control import place_for_host

        place = place_for_host(self.session, self.app.path, host)
        try:
            status = await asyncio.wait_for(self._control().status(place), 15)
        except Exception:  # noqa: BLE001 -- unreachable: asked anyway, said so in the question
            status = None
        return place, status

    async def _ask_then_stop(self, host: str | None) -> None:
        """`X`: a loaded server is minutes of work to get back, so it is asked first."""
        from cockpit.ui.screens.confirm_run import ConfirmStopScreen
        from cockpit.ui.stop_words import stop_question

        place, status = await self._running_there(host)
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
        place, status = await self._running_there(profile.host if profile is not None else None)
        if status is None or status.running:
            title, what = stop_question(place.host, status, starting=profile_id)
            if not await self.app.push_screen_wait(ConfirmStopScreen(title, what)):
                self.app.notify(f"Not restarted: {profile_id}; kept running on {place.host}", timeout=4)
                return
        self.start(profile_id, restart=True, asked=True)

    async def _stop(self, host: str | None) -> None:
        from cockpit.sources.server_control import ServerControlError, place_for_host

        place = place_for_host(self.session, self.app.path, host)
        try:
            result = await self._control().stop(place)
        except ServerControlError as exc:
            self.app.notify(f"{place.host}: not stopped: {exc}", severity="error", timeout=10)
            return
        self.servers.pop(place.host, None)
        if result.pid is not None:
            self._log_says_stopped(place.host)
        for pid, word in list(self.profile_states.items()):
            if word != "crashed":
                self.profile_states.pop(pid)
        self._show()
        if result.pid is None:
            self.app.notify(f"{place.host}: no server of this session", timeout=5)
        elif not result.clean:
            self.app.notify(f"{place.host}: processes left after stopping pid {result.pid}: "
                            f"{' '.join(map(str, result.left))}", severity="error", timeout=15)
        else:
            self.app.notify(f"{place.host}: stopped pid {result.pid}", timeout=5)
            self._record(lambda editor: editor.add_note(f"server stopped on {place.host} (pid {result.pid})"))

    def _log_says_stopped(self, host: str) -> None:
        """The log pane that follows `host` (or the one fixed log) shows its run stopped now."""
        from textual.css.query import NoMatches

        from cockpit.ui.widgets.host_deck import HostDeck

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
            self.app.notify("No sweeps in this session: add a [[sweeps]] table (README: Running experiments)",
                            severity="warning", timeout=8)
            return
        ref = sweep_ref or self.session.sweeps[0].id
        self.app.run_worker(self._sweep(ref, resume_run), group="experiment-sweep", exit_on_error=False,
                            description=f"sweep {ref}")

    def resume_sweep(self) -> None:
        """Run the points with no record of the last sweep run that was cut short."""
        from cockpit.live.sweep_runs import unfinished_runs

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
                f"(or: cockpit sweep {self._label()} {plan.sweep.id} --resume).")

    def say_cut_short(self) -> None:
        """On open: a sweep run cut short (quit, killed, cancelled) with points left is said."""
        from cockpit.live.sweep_runs import unfinished_runs

        for run in unfinished_runs(self.session):
            self.app.notify(
                f"Sweep {run.sweep} run {run.run_id} was cut short: {len(run.recorded)} of "
                f"{len(run.recorded) + len(run.missing)} points recorded (no record: c="
                f"{','.join(map(str, run.missing))}; unless another cockpit still runs it). ctrl+e resumes it.",
                severity="warning", timeout=20)

    def cancel_sweep(self) -> None:
        if self._runner is None:
            self.app.notify("No sweep is running", timeout=3)
            return
        self._runner.cancel()
        self.sweep_line = "sweep: cancelling"
        self._show()

    async def _sweep(self, ref: str, resume_run: str | None = None) -> None:
        from cockpit.live.sweep_plan import plan_sweep, sweep_fingerprint
        from cockpit.sources.confirm_key import is_confirmed
        from cockpit.live.sweep_runner import ControllerSink, SweepRunner
        from cockpit.live.sweep_runs import run_ended, run_started
        from cockpit.live.sweep_session import (
            bench_host, confirm_sweep, find_sweep, host_target, module_choice_line, outcome_text, pick_profile,
            running_profiles, server_health, server_metrics_probe, server_ready, watch_tasks, with_bench_client,
        )

        session, pool = self.session, self.pool()
        try:
            sweep = find_sweep(session, ref)
            running = await running_profiles(session, self.app.path, pool)
            profile = pick_profile(session, None, running)
        except Exception as exc:  # noqa: BLE001 -- said on screen; nothing ran
            self.app.notify(f"Sweep not run: {exc}", severity="error", timeout=10)
            return
        host = next((h for h in session.hosts if h.name == profile.host), None)
        target = host_target(host)
        plan = plan_sweep(sweep, profile, host, run_id=resume_run)
        if (not_ready := await server_ready(profile, plan, pool, target)) is not None:
            self.app.notify(f"Sweep not run: {not_ready}", severity="error", timeout=10)
            return
        stamp = sweep_fingerprint(sweep, profile)
        if not is_confirmed("sweep", stamp, sweep.confirmed):
            from cockpit.ui.screens.confirm_run import ConfirmRunScreen

            what = "\n".join([f"on {plan.where}, {len(plan.points)} points:", *plan.command_lines(),
                              f"({module_choice_line(plan)})"])
            ok = await self.app.push_screen_wait(
                ConfirmRunScreen(f"Run sweep {sweep.id} ({sweep.name}) on {profile.id}? Not run before:", what))
            if not ok:
                self.app.notify(f"Sweep {sweep.id} not run", timeout=4)
                return
            confirm_sweep(self.app.controller, sweep.id, stamp)
            self.app.save()
        plan, no_client = await with_bench_client(plan, bench_host(pool, target, host))  # once confirmed
        if no_client:
            self.app.notify(no_client, severity="warning", timeout=10)
        runner = SweepRunner(plan, bench_host(pool, target, host), ControllerSink(self.app.controller, save=False),
                             on_event=self._sweep_event,
                             server_metrics=server_metrics_probe(profile, plan, pool, target, host),
                             server_health=server_health(profile, plan, pool, target))
        self._runner = runner
        self._record(lambda e: run_started(e, plan))  # saved: a quit or a kill leaves it cut short on disk
        watchers = [asyncio.create_task(task) for task in watch_tasks(runner, host, target, pool, running.get(profile.id))]
        self._sweep_started = time.monotonic()
        try:
            outcome = await runner.run()
        finally:
            self._runner = None
            for task in watchers:
                task.cancel()
        text = outcome_text(sweep, profile, len(plan.points), outcome)
        self.app.controller.apply(lambda e: run_ended(e, plan, outcome))
        self._record(lambda e: e.record_activity(text, next_step="compare with the best profile (Benchmarks tab)"))
        self.sweep_line = ""
        self._show()
        self.app.notify(text, severity="error" if outcome.failed else "information", timeout=10)

    def _sweep_event(self, event: Any) -> None:
        from cockpit.live.sweep_runner import (
            PointFailed, PointProgress, PointRecorded, PointRetrying, PointStarted, SweepNote,
        )

        if isinstance(event, SweepNote):
            self.app.notify(event.text, severity="warning", timeout=10)
            return

        head = f"sweep point {getattr(event, 'index', 0)} of {getattr(event, 'total', 0)}, c={getattr(event, 'concurrency', '')}"
        if isinstance(event, PointStarted):
            self.sweep_line = f"{head}: started"
        elif isinstance(event, PointProgress):
            s = int(event.elapsed_s)
            self.sweep_line = f"{head}: {s // 60:02d}:{s % 60:02d} {event.line}"
        elif isinstance(event, PointRecorded):
            self.sweep_line = f"{head}: recorded {event.benchmark_id}"
            self.app.save()
        elif isinstance(event, PointRetrying):
            self.sweep_line = f"{head}: {event.reason}; again"
        elif isinstance(event, PointFailed):
            self.sweep_line = f"{head}: FAILED"
            self.app.notify(f"{head} failed: {event.reason}", severity="error", timeout=10)
        else:
            return
        self._show()
