"""The Pareto front of a search with several objectives, and the person's pick from it.

Each configuration (a trial and its relaunches) is one point: per objective the median over
its launches with min–max and n (model/bench/estimate.py). A point is on the front when no other
feasible point is at least as good on every objective's median and better on one. Medians
move between launches, so a front point whose every advantage over another front point is
within the launch noise (SEPARATION_Z standard errors, the same test the single-objective
race uses) is marked "within noise of trial N": the data does not yet tell them apart, and N
may in truth dominate it. The best of such a search is not computed: a person picks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cockpit.model.bench.estimate import DEFAULT_NOISE, Estimate, estimate, pooled_noise, separated
from cockpit.model.edit.edits import PERSON, EditError, SessionEditor
from cockpit.model.search.objectives import label, unit
from cockpit.model.search.scoring import ConfigResult, leaderboard
from cockpit.model.search.search import Direction, Search, SearchTrial, TrialStatus
from cockpit.model.search.space import config_key
from cockpit.model.session import Session

__all__ = ["Front", "FrontPoint", "dominates", "figure_text", "pareto_front", "pick_error", "pick_point",
           "picked_point"]


def _trial_values(search: Search, trial: SearchTrial) -> list[float] | None:
    if trial.status is not TrialStatus.OK or len(trial.values) < len(search.objectives):
        return None
    return list(trial.values[:len(search.objectives)])


def _launches(search: Search, group: ConfigResult) -> list[list[float]]:
    """Per launch of the configuration that got every figure: its figures, one per objective."""
    return [v for t in group.trials if (v := _trial_values(search, t)) is not None]


def dominates(a: Sequence[float], b: Sequence[float], directions: Sequence[Direction]) -> bool:
    """`a` is at least as good as `b` on every objective and better on one."""
    sign = [1.0 if d is Direction.MAXIMIZE else -1.0 for d in directions]
    at_least = all(s * x >= s * y for s, x, y in zip(sign, a, b, strict=True))
    return at_least and any(s * x > s * y for s, x, y in zip(sign, a, b, strict=True))


@dataclass(slots=True)
class FrontPoint:
    """One feasible configuration with its figure per objective."""

    config: ConfigResult
    estimates: list[Estimate]
    close_to: list[int] = field(default_factory=list)
    """Front points (their first trials) this one is within the noise of on every objective it
    is better at: one of them may in truth dominate it."""
    dominated_by: int | None = None
    """Off the front: the first trial of a point that dominates it on the medians."""

    @property
    def number(self) -> int:
        return self.config.first.number

    @property
    def medians(self) -> list[float]:
        return [e.median for e in self.estimates]

    @property
    def launches(self) -> int:
        return min(e.n for e in self.estimates)


@dataclass(slots=True)
class Front:
    search: Search
    points: list[FrontPoint]
    """The front, best first on the first objective."""
    others: list[FrontPoint]
    """Feasible points off the front, each with the point that dominates it."""
    noise: list[tuple[float, bool]]
    """Per objective, the launch noise (a share) and whether relaunches measured it."""

    def point(self, number: int) -> FrontPoint | None:
        """The point (on the front or not) whose configuration trial `number` ran."""
        trial = self.search.trial_of(number)
        if trial is None:
            return None
        key = config_key(self.search, trial.params)
        return next((p for p in [*self.points, *self.others] if p.config.key == key), None)

    def noise_text(self) -> str:
        """`noise 3.1 % (output tok/s, measured), 5 % (output tok/J, assumed)`."""
        parts = [f"{share:.1%} ({label(name)}, {'measured' if measured else 'assumed'})"
                 for name, (share, measured) in zip(self.search.objectives, self.noise, strict=True)]
        return "launch noise " + ", ".join(parts)


def figure_text(search: Search, point: FrontPoint) -> str:
    """`4,310 tok/s · 3.21 tok/J (median, n=2)`: every figure with its unit, the statistic and n."""
    figures = " · ".join(f"{_num(e.median)} {unit(name)}".rstrip() for name, e in zip(search.objectives,
                                                                                      point.estimates, strict=True))
    n = point.launches
    return f"{figures} ({'median, ' if n > 1 else ''}n={n})"


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def pareto_front(search: Search) -> Front:
    """The front over the feasible configurations' medians (an empty front: none yet)."""
    groups = [g for g in leaderboard(search) if g.feasible]
    launches = {id(g): _launches(search, g) for g in groups}
    width = len(search.objectives)
    noise: list[tuple[float, bool]] = []
    for i in range(width):
        measured = pooled_noise([[row[i] for row in launches[id(g)]] for g in groups])
        noise.append((measured, True) if measured is not None else (DEFAULT_NOISE, False))
    points: list[FrontPoint] = []
    for group in groups:
        rows = launches[id(group)]
        if not rows:
            continue
        estimates = [estimate([row[i] for row in rows]) for i in range(width)]
        points.append(FrontPoint(group, estimates))
    directions = search.directions
    front: list[FrontPoint] = []
    others: list[FrontPoint] = []
    for point in points:
        if any(q is not point and dominates(q.medians, point.medians, directions) for q in points):
            others.append(point)
        else:
            front.append(point)
    for point in front:
        for other in front:
            if other is point:
                continue
            ahead = [i for i in range(width)
                     if dominates([point.medians[i]], [other.medians[i]], [directions[i]])]
            if all(not separated(point.estimates[i], other.estimates[i], noise[i][0]) for i in ahead):
                point.close_to.append(other.number)
    first = 1.0 if directions[0] is Direction.MAXIMIZE else -1.0
    front.sort(key=lambda p: (-first * p.medians[0], p.number))
    others.sort(key=lambda p: (-first * p.medians[0], p.number))
    for point in others:  # named by a front point (one always dominates it), the best on the first objective
        point.dominated_by = next(q.number for q in front if dominates(q.medians, point.medians, directions))
    return Front(search, front, others, noise)


def pick_error(search: Search, number: int) -> str | None:
    """Why trial `number` cannot be picked as the search's best (None: it can)."""
    if not search.multi:
        return (f"search {search.id} has one objective ({search.primary}): its best is the leader, "
                "there is no front to pick from")
    trial = search.trial_of(number)
    if trial is None:
        known = ", ".join(str(t.number) for t in search.trial) or "none yet"
        return f"search {search.id} has no trial {number} (trials: {known})"
    front = pareto_front(search)
    point = front.point(number)
    if point is None:
        if trial.status is not TrialStatus.OK:
            why = trial.error or f"it {trial.status.value}"
        else:
            why = "it did not meet the constraints or has no figure for every objective"
        return f"trial {number} is not a feasible point: {why}"
    if point.dominated_by is not None:
        on = ", ".join(str(p.number) for p in front.points)
        return (f"trial {number} is not on the front: trial {point.dominated_by} is at least as good on every "
                f"objective's median (the front: trials {on})")
    return None


def picked_point(search: Search) -> FrontPoint | None:
    """The person's pick as it stands now (None: none picked, or its configuration has no figures)."""
    if search.picked is None:
        return None
    return pareto_front(search).point(search.picked)


def pick_point(editor: SessionEditor, search_id: str, number: int) -> int:
    """Record a person's pick: trial `number`'s configuration (its first trial) becomes the
    search's best. Only a person picks (an automatic step never chooses between objectives).
    Returns the trial number recorded; EditError says why it cannot be picked."""
    if editor.actor != PERSON:
        raise EditError(f"only a person picks a search's best from its front, not {editor.actor}")
    search = next((q for q in editor.session.searches if q.id == search_id), None)
    if search is None:
        raise EditError(f"no search with id {search_id!r}")
    if (why := pick_error(search, number)) is not None:
        raise EditError(why)
    point = pareto_front(search).point(number)
    assert point is not None
    chosen = point.number

    def change(s: Session) -> int:
        s.searches = [q.model_copy(update={"picked": chosen}) if q.id == search_id else q for q in s.searches]
        return chosen
    shown = figure_text(search, point)
    return editor.apply(f"search {search_id}: picked trial {chosen} from the front ({shown})", change,
                        kind="search.picked", ref=search_id)
