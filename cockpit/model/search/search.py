"""A search over launch configurations (`[[searches]]`) and the trials it ran.

A search names a base launch profile, the workload (a sweep) every trial runs, the figure
to optimise and the targets that must hold, a launch budget, and a space: per server flag
(`--cuda-graph-max-bs`) or environment variable (`env:SGLANG_X`) either a list of values
(categorical; `[true, false]` is a switch present or absent) or `{low, high, step}`.
Each trial is recorded inside its search (`[[searches.trial]]`): the session is the only
record of the study, which cockpit rebuilds from these tables at every start.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated

from pydantic import AwareDatetime, Discriminator, Field, Tag, field_validator, model_validator

from cockpit.model.strict import MAX_COUNT, MAX_FIGURE, Float, Id, Int, Strict, Text

__all__ = ["Direction", "MAX_OBJECTIVES", "OBJECTIVES", "Search", "SearchTrial", "SpaceValue", "Stepped",
           "TrialStatus", "natural_direction", "show_value", "space_key_error"]

SpaceValue = bool | Int | Float | str

# Benchmark figures a search may optimise (higher or lower, as `direction` says).
OBJECTIVES = ("total_tok_s", "output_tok_s", "output_tok_s_per_stream", "request_throughput", "tok_per_joule",
              "output_tok_per_joule", "ttft_ms", "ttft_p99_ms", "itl_ms", "itl_p99_ms", "tpot_ms",
              "e2e_latency_ms", "e2e_p99_ms", "power_mean_w")
# Figures where less is better: in a search with several objectives each goes its own way.
LOWER_IS_BETTER = frozenset({"ttft_ms", "ttft_p99_ms", "itl_ms", "itl_p99_ms", "tpot_ms", "e2e_latency_ms",
                             "e2e_p99_ms", "power_mean_w"})
MAX_OBJECTIVES = 3  # a front over more is more than a person can look at and pick from
FLAG_KEY = re.compile(r"^--[A-Za-z0-9][A-Za-z0-9_-]*$")
ENV_KEY = re.compile(r"^env:[A-Za-z_][A-Za-z0-9_]*$")
MAX_VALUES = 1000  # per dimension: a typo'd step (0.0001) would make a space nobody can search
MAX_DIMENSIONS = 64  # flags and variables varied at once: far over what a launch budget (<= 1000) can tell apart
MAX_KEY_CHARS = 200  # a flag or variable name


class Direction(StrEnum):
    MAXIMIZE = "maximize"
    MINIMIZE = "minimize"


def natural_direction(objective: str) -> Direction:
    """The way a figure is better: latencies and power down, throughput and tok/J up."""
    return Direction.MINIMIZE if objective in LOWER_IS_BETTER else Direction.MAXIMIZE


class TrialStatus(StrEnum):
    RUNNING = "running"
    OK = "ok"
    CRASHED = "crashed"  # the server did not get ready: infeasible, the search learns the region
    PRUNED = "pruned"  # stopped after its first points fell far below the best
    FAILED = "failed"  # a sweep point failed or cockpit could not run it (not the configuration's fault)


class Stepped(Strict):
    """`{ low = 0.80, high = 0.92, step = 0.02 }`: every value low, low+step, ... high."""

    low: Float
    high: Float
    step: float = Field(gt=0, lt=MAX_FIGURE)

    @model_validator(mode="after")
    def _range(self) -> Stepped:
        if self.low >= self.high:
            raise ValueError(f"low {self.low:g} is not below high {self.high:g}")
        count = (self.high - self.low) / self.step  # inf for a subnormal step: said before round() sees it
        if count >= 1e9 or round(count) + 1 > MAX_VALUES:
            many = f"{round(count) + 1:,}" if count < 1e9 else "over a billion"
            raise ValueError(f"{many} values (step {self.step:g}); at most {MAX_VALUES} per dimension")
        if abs(count - round(count)) > 1e-6:
            raise ValueError(f"high - low ({self.high - self.low:g}) is not a whole number of steps of {self.step:g}")
        return self

    @property
    def integral(self) -> bool:
        return all(float(v).is_integer() for v in (self.low, self.high, self.step))

    def values(self) -> list[SpaceValue]:
        n = round((self.high - self.low) / self.step) + 1
        decimals = max(0, -math.floor(math.log10(self.step)) + 2)
        if self.integral:
            return [int(self.low + i * self.step) for i in range(n)]
        return [round(self.low + i * self.step, decimals) for i in range(n)]


def _dimension_kind(value: object) -> str:
    return "stepped" if isinstance(value, dict | Stepped) else "values"


# Told apart by shape, so an error in `{low, high, step}` is said once, not beside "not a list".
Dimension = Annotated[Annotated[list[SpaceValue], Tag("values")] | Annotated[Stepped, Tag("stepped")],
                      Discriminator(_dimension_kind)]


def number_error(value: object) -> str | None:
    """Why `value` (a space or params entry as read) is no number a flag can take; None: it is
    one, or not a number at all (a word, a switch: the field's own checks say)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if abs(value) > (MAX_COUNT if isinstance(value, int) else MAX_FIGURE):
        return f"is out of range (at most {MAX_FIGURE:g} either side of 0)"
    return None


def show_value(value: SpaceValue) -> str:
    """A value as a command line holds it (floats without float noise: 0.86, not 0.8600000001)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{round(value, 9):g}" if abs(value) < 1e15 else repr(value)
    return str(value)


def space_key_error(key: str) -> str | None:
    """Why `key` cannot name a dimension (None: it can)."""
    if len(key) > MAX_KEY_CHARS:
        return f"a {len(key):,}-character name; at most {MAX_KEY_CHARS} for a flag or variable"
    if FLAG_KEY.match(key) or ENV_KEY.match(key):
        return None
    return f"{key!r} is neither a server flag (--name) nor an environment variable (env:NAME)"


class SearchTrial(Strict):
    """One trial: a configuration launched (a derived profile), swept and scored."""

    @field_validator("params", mode="before")
    @classmethod
    def _numbers_in_params(cls, params: object) -> object:
        if isinstance(params, dict):
            for key, value in params.items():
                if (why := number_error(value)) is not None:
                    raise ValueError(f"{key} = {value!r} {why}")
        return params

    number: Int = Field(ge=0)
    params: dict[str, SpaceValue]
    status: TrialStatus = TrialStatus.RUNNING
    profile: Id | None = None
    """The derived launch profile the trial ran."""
    host: str | None = None
    value: Float | None = None
    """The objective (None: crashed, failed, or no point at `at_concurrency`)."""
    constraints: list[Float] = []
    """One per constraint target, in the search's order: <= 0 met, > 0 by how much not (a share of the goal)."""
    benchmarks: list[Id] = []
    error: str | None = None
    """A crash's error label, or why it failed or was pruned."""
    repeat_of: Int | None = Field(default=None, ge=0)
    """A relaunch of trial N's configuration (measures the noise between launches)."""
    power_mean_w: Float | None = Field(default=None, ge=0)
    output_tok_per_joule: Float | None = Field(default=None, ge=0)
    ttft_p99_ms: Float | None = Field(default=None, ge=0)
    values: list[Float] = []
    """A search with several objectives: one figure per objective, in its order, all read at
    one sweep point (`value` is the first). Empty for a search with one objective."""
    started: AwareDatetime | None = None
    ready_s: Float | None = Field(default=None, ge=0)
    """Seconds from start to ready (the time estimate of later searches reads it)."""
    ended: AwareDatetime | None = None
    reused: bool = False
    """Measured before the search (the same configuration's sweep already in the session): its
    benchmarks taken as the trial's, nothing launched, no launch of the budget spent."""


class Search(Strict):
    id: Id
    name: Text
    profile: Id
    """The base launch profile: trials change only the space's flags."""
    sweep: Id
    objective: str | list[str] = "output_tok_s"
    """The figure to optimise, or a list of two or three for a Pareto front
    (`["output_tok_s", "output_tok_per_joule"]`): then each goes its own way (throughput and
    tok/J up, latencies and power down) and `direction` is not read."""
    at_concurrency: Int | None = Field(default=None, ge=1)
    """The sweep point whose figure counts (unset: the sweep's best)."""
    direction: Direction = Direction.MAXIMIZE
    constraints: list[Id] = []
    """Targets (goal.targets ids) that must hold."""
    trials: Int = Field(default=12, ge=1, le=1000)
    """The launch budget."""
    repeats: Int = Field(default=0, ge=0, le=100)
    """Launches beyond `trials` kept for relaunches: the race between the leader and the
    runner-up (the budget's own last launches race too; this adds to them)."""
    seed: Int | None = Field(default=None, ge=0)
    """The sampler's seed, fixed by a person (unset: a fresh one each run)."""
    prune_below: float = Field(default=0.5, ge=0, lt=1)
    """Stop a trial whose point falls under this share of the best trial's at the same concurrency (0: never)."""
    hosts: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]] = []
    """Hosts that run trials, one each at a time (unset: the base profile's host)."""
    ports: dict[str, Annotated[Int, Field(ge=1, le=65535)]] = {}
    """Per host, the port its trial server listens on (hosts that share a machine)."""
    space: dict[str, Dimension] = {}
    notes: str | None = None
    confirmed: str | None = None
    """A person's seal of the search (space, budget, base command, hosts): see `model.launch.confirm`."""
    trial: list[SearchTrial] = []
    """The trials run so far, one `[[searches.trial]]` table each."""
    picked: Int | None = Field(default=None, ge=0)
    """Several objectives: the trial (its configuration) a person picked from the Pareto front
    as the search's best. Only a person sets it (the TUI's `b`, `cockpit search pick`)."""

    @field_validator("objective")
    @classmethod
    def _known_objective(cls, value: str | list[str]) -> str | list[str]:
        names = [value] if isinstance(value, str) else value
        if not isinstance(value, str):
            if not 2 <= len(value) <= MAX_OBJECTIVES:
                raise ValueError(f"{len(value)} objectives; name one figure, or a list of 2 to {MAX_OBJECTIVES} "
                                 "for a Pareto front")
            if len(set(value)) != len(value):
                raise ValueError("an objective is listed twice")
        for name in names:
            if name not in OBJECTIVES:
                raise ValueError(f"objective {name!r} is not a benchmark figure ({', '.join(OBJECTIVES)})")
        return value

    @field_validator("space", mode="before")
    @classmethod
    def _numbers_in_space(cls, space: object) -> object:
        # One clear line for `high = inf` instead of the union's four ("not a valid boolean, ...").
        if isinstance(space, dict):
            for key, dim in space.items():
                items = dim.items() if isinstance(dim, dict) else enumerate(dim) if isinstance(dim, list) else ()
                for part, value in items:
                    if (why := number_error(value)) is not None:
                        raise ValueError(f"{key}: {part} = {value!r} {why}" if isinstance(part, str)
                                         else f"{key}: value {value!r} {why}")
        return space

    @field_validator("space")
    @classmethod
    def _dimensions(cls, space: dict[str, Dimension]) -> dict[str, Dimension]:
        if not space:
            raise ValueError("the space is empty: name at least one flag or env variable to vary")
        if len(space) > MAX_DIMENSIONS:
            raise ValueError(f"{len(space):,} dimensions; at most {MAX_DIMENSIONS}")
        for key, dim in space.items():
            if (why := space_key_error(key)) is not None:
                raise ValueError(why)
            if isinstance(dim, list):
                if not dim:
                    raise ValueError(f"{key}: no values")
                if len({repr(v) for v in dim}) != len(dim):
                    raise ValueError(f"{key}: a value is listed twice")
                kinds = {bool if isinstance(v, bool) else str if isinstance(v, str) else float for v in dim}
                if len(kinds) > 1:
                    raise ValueError(f"{key}: mixes switches, numbers and words")
                if len(dim) > MAX_VALUES:
                    raise ValueError(f"{key}: {len(dim)} values; at most {MAX_VALUES}")
        return space

    @model_validator(mode="after")
    def _trials_unique(self) -> Search:
        numbers = [t.number for t in self.trial]
        if len(set(numbers)) != len(numbers):
            raise ValueError("two trials have the same number")
        if self.picked is not None:
            if not self.multi:
                raise ValueError(f"picked = {self.picked}: a search with one objective has no front to pick "
                                 "from (remove `picked` to give it one objective)")
            if self.picked not in numbers:
                raise ValueError(f"picked: no trial {self.picked} in this search")
        return self

    @property
    def objectives(self) -> list[str]:
        """The figures optimised, in order (one for a search with one objective)."""
        return [self.objective] if isinstance(self.objective, str) else list(self.objective)

    @property
    def multi(self) -> bool:
        """Several objectives: the search finds a Pareto front and a person picks from it."""
        return not isinstance(self.objective, str)

    @property
    def primary(self) -> str:
        """The first objective: `value`, the sweep point the figures are read at, the plot's x."""
        return self.objectives[0]

    @property
    def directions(self) -> list[Direction]:
        """Per objective, the way it is better (one objective: `direction`)."""
        if not self.multi:
            return [self.direction]
        return [natural_direction(name) for name in self.objectives]

    def values_of(self, key: str) -> list[SpaceValue]:
        dim = self.space[key]
        return dim.values() if isinstance(dim, Stepped) else list(dim)

    def grid_size(self) -> int:
        return math.prod(len(self.values_of(k)) for k in self.space)

    def trial_of(self, number: int) -> SearchTrial | None:
        return next((t for t in self.trial if t.number == number), None)
