"""What the search loop asks of whoever runs a trial: start the derived profile on a host,
wait for ready or a crash, sweep it (every point a benchmark), stop it. One protocol, so the
loop does not care who runs a trial: server_trials.py does it through the experiment service
(control/experiment.py), a test may stand in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from cockpit.model.search.search import TrialStatus

if TYPE_CHECKING:
    from cockpit.control.session_port import SessionPort

__all__ = ["PointCheck", "TrialNotConsented", "TrialOutcome", "TrialRequest", "TrialRunner"]

PointCheck = Callable[[int, dict[str, Any]], str | None]
"""Called with each recorded point (concurrency, its fields): a reason to stop the trial
early (pruned), or None to go on."""


@dataclass(frozen=True, slots=True)
class TrialRequest:
    session_path: str
    search_id: str
    number: int
    profile_id: str
    """The derived launch profile (already in the session)."""
    sweep_id: str
    host: str | None
    run_id: str
    """The sweep run's id: a trial resumed after cockpit died records only its missing points."""
    hosts: tuple[str | None, ...] = ()
    """The hosts of this run of the search (what the person's seal covers; empty: `host` alone)."""
    port: SessionPort | None = field(default=None, compare=False)
    """Where the search records (the trial's records go there too: one read of the file
    shared); None: the session file at `session_path`."""


class TrialNotConsented(Exception):
    """What the trial would run is not what the person sealed (the search changed, or its
    profile is not the base plus the space's flags): nothing ran, the trial stays `running`
    and the next `cockpit tune` asks."""


@dataclass(slots=True)
class TrialOutcome:
    status: TrialStatus
    benchmarks: list[str] = field(default_factory=list)
    error: str | None = None
    ready_s: float | None = None
    phase: str | None = None
    """A crash's last phase reached (starting, loading, capturing, ...): before loading, the
    failure may be the environment's, not the configuration's."""


class TrialRunner(Protocol):
    async def run_trial(self, request: TrialRequest, *, check_point: PointCheck,
                        on_state: Callable[[str], object]) -> TrialOutcome:
        """Run one trial to its end; `on_state` hears a short line per step (for the UI)."""
        ...
