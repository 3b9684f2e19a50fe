"""What a person reads of a search with several objectives: a trial's figures (each with its
unit, where it stands against the front) and the run's summary (the front's points with
their flags, medians and n, which are within the noise of another, and the person's pick or
how to make one)."""

from __future__ import annotations

from cockpit.model.bench.estimate import shown_number
from cockpit.model.search.objectives import label, unit
from cockpit.model.search.pareto import figure_text, pareto_front, picked_point
from cockpit.model.search.search import Search, SearchTrial, SpaceValue
from cockpit.model.search.space import derived_name
from cockpit.model.session import Session

__all__ = ["PICK_HINT", "front_parts", "front_summary", "front_words", "objectives_text"]

PICK_HINT = "pick one: b on its row in the Search view, or cockpit search pick SESSION {search} TRIAL"


def objectives_text(search: Search) -> str:
    """`output tok/s (max) × output tok/J (max) at c=64`."""
    at = f" at c={search.at_concurrency}" if search.at_concurrency else " at the first's best sweep point"
    return " × ".join(f"{label(n)} ({d.value[:3]})" for n, d in zip(search.objectives, search.directions,
                                                                      strict=True)) + at


def front_words(search: Search, trial: SearchTrial) -> str:
    """`4,200 tok/s · 3.1 tok/J · on the front` (then its configuration's medians once relaunched)."""
    units = [unit(name) for name in search.objectives]
    own = " · ".join(f"{shown_number(v)} {u}".rstrip() for v, u in zip(trial.values, units, strict=False))
    point = pareto_front(search).point(trial.number)
    if point is None:
        return f"{own} (n=1) · not feasible"
    if point.dominated_by is not None:
        where = f"off the front: trial {point.dominated_by} is at least as good on every objective"
    elif point.close_to:
        where = f"on the front, within noise of trial {', '.join(map(str, point.close_to))}"
    else:
        where = "on the front"
    if point.launches > 1:
        return f"{own} (configuration {figure_text(search, point)}) · {where}"
    return f"{own} (n=1) · {where}"


def _flags(session: Session, search: Search, params: dict[str, SpaceValue]) -> str:
    base = next((p for p in session.launch if p.id == search.profile), None)
    if base is None:
        return ""
    return derived_name(search, base, params).partition(" · ")[2]


def front_parts(session: Session, search: Search) -> tuple[str, list[str], str]:
    """(head, one line per front point, tail: the noise and the pick or how to make one)."""
    front = pareto_front(search)
    if not front.points:
        return "no configuration has met the constraints with every objective measured: no front yet", [], ""
    parts = []
    for point in front.points:
        close = f", within noise of trial {', '.join(map(str, point.close_to))}" if point.close_to else ""
        flags = _flags(session, search, point.config.first.params) or "as the base"
        parts.append(f"trial {point.number} {flags}: {figure_text(search, point)}{close}")
    head = f"Pareto front of {len(front.points)} ({objectives_text(search)})"
    picked = picked_point(search)
    if picked is not None:
        tail = f"picked by a person: trial {picked.number}"
        if picked.dominated_by is not None:
            tail += f" (now off the front: trial {picked.dominated_by} is at least as good on every objective)"
    else:
        tail = PICK_HINT.format(search=search.id)
    return head, parts, f"{front.noise_text()}; {tail}"


def front_summary(session: Session, search: Search) -> str:
    """The front in one line: its points, the noise, and the pick (or how to make one)."""
    head, parts, tail = front_parts(session, search)
    return f"{head}: {'; '.join(parts)}; {tail}" if parts else head
