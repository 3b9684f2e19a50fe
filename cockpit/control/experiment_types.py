"""What the experiment service (control/experiment.py) tells its callers, and how it
writes: the question a person answers, the events while it works, the outcomes it
returns. Where it records is a SessionPort (control/session_port.py). Plain data, no
Textual, no I/O."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from cockpit.live.experiment.sweep_events import SweepEvent

if TYPE_CHECKING:
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.live.experiment.launch_lifecycle import LaunchOutcome
    from cockpit.live.experiment.sweep_events import SweepOutcome
    from cockpit.live.experiment.sweep_plan import SweepPlan
    from cockpit.model.session import LaunchProfile, Sweep
    from cockpit.sources.server.places import LaunchPlan
    from cockpit.sources.server.results import StartResult, StopResult

__all__ = ["BenchClientChosen", "Confirm", "ExperimentEvent", "LaunchNote", "LaunchQuestion", "Question", "ServerPhase",
           "ServerStarted", "ServerStarting", "StartOutcome", "StatesChanged", "StopOutcome", "SweepQuestion",
           "SweepResult", "SweepRunnerEnded", "SweepRunnerStarted", "SweepStatus"]


# ----- the person's consent ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LaunchQuestion:
    """A launch no person confirmed in this form: `plan` runs (`restart`: it replaces what runs there)."""

    plan: LaunchPlan
    restart: bool = False
    kind: Literal["launch"] = "launch"


@dataclass(frozen=True, slots=True)
class SweepQuestion:
    """A sweep whose commands no person confirmed: `plan` runs `sweep` against `profile`;
    `module_line`: which bench module runs."""

    plan: SweepPlan
    sweep: Sweep
    profile: LaunchProfile
    module_line: str = ""
    kind: Literal["sweep"] = "sweep"


Question = LaunchQuestion | SweepQuestion
"""Something is about to run that no person confirmed in this form (`kind` tells which)."""


Confirm = Callable[[Question], Awaitable[bool]]
"""The caller's question to a person at a terminal (`cockpit run`'s prompt or --yes, the
TUI's dialog): True runs it. Never answered from the session file: that is the caller's."""


# ----- events, in the order they happen ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StatesChanged:
    """`servers` / `profile_states` of the service changed (a status line re-renders)."""


@dataclass(frozen=True, slots=True)
class ServerStarting:
    plan: LaunchPlan  # confirmed: it runs now


@dataclass(frozen=True, slots=True)
class ServerStarted:
    plan: LaunchPlan
    started: StartResult


@dataclass(frozen=True, slots=True)
class ServerPhase:
    """The launched server's log reached `phase` (live/experiment/launch_lifecycle.PHASE_WORDS) after `elapsed_s`."""

    profile_id: str
    host: str
    phase: str
    elapsed_s: float


@dataclass(frozen=True, slots=True)
class LaunchNote:
    """Reading the launched log failed; it is read again until the deadline."""

    text: str


@dataclass(frozen=True, slots=True)
class BenchClientChosen:
    plan: SweepPlan  # with the bench module the host has
    resumed: bool
    missing: str | None  # why neither module was found (the points then fail with the client's error)


@dataclass(frozen=True, slots=True)
class SweepRunnerStarted:
    runner: SweepRunner  # `cancel()` ends it


@dataclass(frozen=True, slots=True)
class SweepRunnerEnded:
    pass


ExperimentEvent = (StatesChanged | ServerStarting | ServerStarted | ServerPhase | LaunchNote | BenchClientChosen
                   | SweepRunnerStarted | SweepRunnerEnded | SweepEvent)
"""Everything the service tells `on_event`, its sweep runner's events included: a closed set."""


# ----- outcomes ---------------------------------------------------------------------------------
StartKind = Literal["ready", "crashed", "timeout", "started", "refused", "not_confirmed", "already_running",
                    "not_started", "not_saved"]


@dataclass(frozen=True, slots=True)
class StartOutcome:
    """`ready` / `crashed` / `timeout` (followed to the end: `launch` says it), `started`
    (not followed), or why nothing ran: `refused` (no such profile, a bad host),
    `not_confirmed`, `already_running`, `not_started` (the start failed), `not_saved`."""

    kind: StartKind
    profile_id: str
    host: str | None = None
    message: str = ""
    plan: LaunchPlan | None = None
    started: StartResult | None = None
    launch: LaunchOutcome | None = None
    fallback_id: str | None = None
    """After a crash: the working profile offered instead (`start_fallback` starts it)."""

    @property
    def ok(self) -> bool:
        return self.kind in ("ready", "started")

    @property
    def error_label(self) -> str | None:
        return self.launch.error_label if self.launch is not None else None


@dataclass(frozen=True, slots=True)
class StopOutcome:
    host: str
    result: StopResult | None = None  # None when `error`
    error: str | None = None


SweepStatus = Literal["done", "failed", "cancelled", "not_ready", "refused", "not_run", "not_saved"]


@dataclass(frozen=True, slots=True)
class SweepResult:
    """`done` (every point recorded), `failed`, `cancelled`; or nothing ran: `not_ready`
    (no /health answer), `refused` (the person said no), `not_run` (a wrong sweep, profile
    or resume), `not_saved` (a record could not be written). `text` sums a run up."""

    status: SweepStatus
    message: str = ""
    text: str = ""
    outcome: SweepOutcome | None = None
    plan: SweepPlan | None = None
    nothing_to_resume: bool = False
    """`not_run` because the sweep has no unfinished run to resume."""
