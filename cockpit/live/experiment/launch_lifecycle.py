"""A launched server followed from its first log line to ready or crashed.

The launched run's log goes through the same parser and server-run tracker as the log pane
(parse.sglang_log, live.server_runs): loading -> capturing -> ready (time to ready), or a
crash (its error label and the traceback's last lines), or the process gone without either.
`LaunchFollower` is fed bytes (from any reader); control/launch_watch.py feeds it
from the live hub (its `follow_launch` runs that watcher with a hub of its own). The outcome is
plain data; `apply_outcome` records it through a SessionEditor: on a crash the profile
becomes broken and the working profile is the fallback, on ready the last action names
the sweep to run next.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from cockpit.live.experiment.server_runs import ServerRun, ServerRunTracker
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import LaunchProfile, Session
from cockpit.parse.log.error_labels import telling_label
from cockpit.parse.log.events import ErrorBlock, LogEvent
from cockpit.parse.log.sglang_log import LogParser

if TYPE_CHECKING:
    from cockpit.model.edit.edits import SessionEditor

__all__ = ["LaunchFollower", "LaunchOutcome", "PHASE_WORDS", "apply_outcome", "crash_after_ready", "fallback_profile"]

OutcomeKind = Literal["ready", "crashed", "timeout"]

PHASE_WORDS = {"starting": "starting", "loading": "loading weights", "capturing": "capturing CUDA graphs",
               "ready": "ready", "serving": "serving", "error": "crashed", "stopped": "stopped"}

_TAIL_LINES = 6


@dataclass(frozen=True, slots=True)
class LaunchOutcome:
    kind: OutcomeKind
    profile_id: str
    profile_name: str
    host: str
    elapsed_s: float  # time to ready; else time until the crash or the deadline
    phase: str  # the last phase reached (starting, loading, capturing, ready)
    log_path: str
    error_label: str | None = None
    exception: str | None = None  # the traceback's `Name: message` line
    tail: tuple[str, ...] = ()  # the traceback's last lines (else the log's)
    exit_code: int | None = None
    still_running: bool = False  # a crash or a timeout with the process still there

    @property
    def ok(self) -> bool:
        return self.kind == "ready"

    def describe(self) -> str:
        who = f"{self.profile_id} ({self.profile_name}) on {self.host}"
        if self.kind == "ready":
            return f"{who}: ready in {self.elapsed_s:.1f} s"
        if self.kind == "timeout":
            return f"{who}: not ready after {self.elapsed_s:.0f} s (still {PHASE_WORDS.get(self.phase, self.phase)})"
        code = f", exit status {self.exit_code}" if self.exit_code is not None else ""
        return f"{who}: crashed while {PHASE_WORDS.get(self.phase, self.phase)}: {self.error_label}{code}"


class _Place(Protocol):
    @property
    def host(self) -> str: ...


class LaunchedPlan(Protocol):
    """What the follower reads of the plan it follows (sources/server/places.py's
    LaunchPlan is one): the outcome names the profile, the host and the log."""

    @property
    def profile_id(self) -> str: ...

    @property
    def profile_name(self) -> str: ...

    @property
    def place(self) -> _Place: ...

    @property
    def log_path(self) -> str: ...


class LaunchFollower:
    """Feed the launched run's log (bytes or text, any cut); read `phase` and `outcome`."""

    def __init__(self, plan: LaunchedPlan, started_at: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plan = plan
        self.clock = clock
        self.started_at = clock() if started_at is None else started_at
        self.parser = LogParser()
        self.tracker = ServerRunTracker()
        self.phase = "starting"  # the furthest phase reached before an end
        self.last_block: ErrorBlock | None = None
        self.recent: list[str] = []
        self.outcome: LaunchOutcome | None = None

    @property
    def run(self) -> ServerRun | None:
        return self.tracker.current

    def feed(self, data: bytes | str) -> list[str]:
        """Apply new log data; returns the phases entered (for progress lines)."""
        return self._events(self.parser.feed(data))

    def _events(self, events: list[LogEvent]) -> list[str]:
        entered: list[str] = []
        for ev in events:
            self.tracker.apply(ev)
            if isinstance(ev, ErrorBlock):
                self.last_block = ev
            elif ev.line.strip():
                self.recent.append(ev.line)
            state = self.tracker.state or "starting"
            if state not in ("error", "stopped") and state != self.phase:
                self.phase = state
                entered.append(state)
        del self.recent[:-_TAIL_LINES]
        if self.outcome is None:
            now = self.tracker.state
            if now == "ready":
                self._ready()
            elif now == "error":
                self.outcome = self._crash(exit_code=None, still_running=True)
        return entered

    def ended(self, exit_code: int | None) -> LaunchOutcome:
        """The process is gone: flush the log; a crash unless it got ready first."""
        self._events(self.parser.end())
        if self.outcome is None or (self.outcome.kind == "crashed" and self.outcome.still_running):
            self.outcome = self._crash(exit_code=exit_code, still_running=False)
        return self.outcome

    def died(self, exit_code: int | None) -> LaunchOutcome:
        """The process is gone after it got ready (a server that dies serving): its crash as
        the log tells it (label, the exception line, the traceback's last lines)."""
        self._events(self.parser.end())
        self.phase = "serving"
        self.outcome = self._crash(exit_code=exit_code, still_running=False)
        return self.outcome

    def timed_out(self, still_running: bool = True) -> LaunchOutcome:
        self.outcome = self._outcome("timeout", still_running=still_running)
        return self.outcome

    def _outcome(self, kind: OutcomeKind, **fields: object) -> LaunchOutcome:
        p = self.plan
        return LaunchOutcome(kind=kind, profile_id=p.profile_id, profile_name=p.profile_name, host=p.place.host,
                             elapsed_s=self.clock() - self.started_at, phase=self.phase, log_path=p.log_path,
                             **fields)  # type: ignore[arg-type]

    def _ready(self) -> None:
        self.outcome = self._outcome("ready")
        run = self.run
        if run is not None:
            run.time_to_ready_s = self.outcome.elapsed_s

    def _crash(self, exit_code: int | None, still_running: bool) -> LaunchOutcome:
        run = self.run
        labels = set(run.error_labels) if run else set()
        if self.last_block is not None:
            labels.update(self.last_block.labels)
        label = telling_label(labels)
        if label is None:
            label = f"exit {exit_code}" if exit_code is not None else "exited"
        block = self.last_block
        tail = tuple(block.lines[-_TAIL_LINES:]) if block is not None else tuple(self.recent)
        exception = block.exception if block is not None else (run.last_error if run else None)
        return self._outcome("crashed", error_label=label, exception=exception, tail=tail, exit_code=exit_code,
                             still_running=still_running)


def fallback_profile(session: Session, profile_id: str) -> LaunchProfile | None:
    """The working profile to fall back on when `profile_id` failed (not itself)."""
    return next((p for p in session.launch if p.status is ProfileStatus.WORKING and p.id != profile_id), None)


def apply_outcome(editor: SessionEditor, outcome: LaunchOutcome, *, session_label: str = "SESSION") -> None:
    """Record the outcome in the session (journaled edits, one undo step each)."""
    session = editor.session
    pid = outcome.profile_id
    profile = next((p for p in session.launch if p.id == pid), None)
    if outcome.kind == "ready":
        if profile is not None and profile.status is ProfileStatus.BROKEN:
            editor.edit_record("launch", pid, status=ProfileStatus.CANDIDATE, broken_reason=None)
        sweep = session.sweeps[0] if session.sweeps else None
        if sweep is not None:
            step = f"run sweep {sweep.id} ({sweep.name}): cockpit sweep {session_label} {sweep.id} --profile {pid}"
        else:
            step = f"define a sweep ([[sweeps]]) and run it on {pid}"
        editor.record_activity(f"started {outcome.describe()}", next_step=step)
    elif outcome.kind == "crashed":
        reason = f"{outcome.error_label} while {PHASE_WORDS.get(outcome.phase, outcome.phase)}"
        if outcome.exception:
            reason += f": {outcome.exception[:160]}"
        if profile is not None:
            editor.edit_record("launch", pid, status=ProfileStatus.BROKEN, broken_reason=reason)
        working = fallback_profile(editor.session, pid)
        fallback = f"start the working profile {working.id} ({working.name}): cockpit run {session_label} {working.id}" \
            if working is not None else None
        left = " (its processes are still running: cockpit stop)" if outcome.still_running else ""
        editor.record_activity(f"{outcome.describe()}{left}", next_step=f"fix profile {pid} (see {outcome.log_path})",
                               fallback=fallback)
    else:
        editor.record_activity(outcome.describe(),
                               next_step=f"wait, or stop it: cockpit stop {session_label} {outcome.host}")


def crash_after_ready(editor: SessionEditor, profile_id: str, host: str, *, exit_code: int | None,
                      why: str | None, session_label: str = "SESSION") -> None:
    """A server that was ready died (its log said so, its process is gone): the last action
    gets it beside the person's words (an activity, never over their next step)."""
    profile = next((p for p in editor.session.launch if p.id == profile_id), None)
    name = f" ({profile.name})" if profile is not None else ""
    code = f" (exit {exit_code})" if exit_code is not None else ""
    reason = f": {why.strip()[:160]}" if why and why.strip() else ""
    editor.record_activity(f"{profile_id}{name} on {host}: crashed after ready{code}{reason}",
                           next_step=f"read its log, then start it again: cockpit run {session_label} {profile_id}")
