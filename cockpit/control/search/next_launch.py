"""What a search launches next, as the planner (plan.py) and the multi-objective sampler
(pareto_sampler.py) both say it: its own module so neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.search.search import SpaceValue

__all__ = ["NextLaunch"]


@dataclass(frozen=True, slots=True)
class NextLaunch:
    params: dict[str, SpaceValue]
    repeat_of: int | None = None
    """The trial whose configuration this relaunches (None: a new configuration)."""
    why: str = ""
