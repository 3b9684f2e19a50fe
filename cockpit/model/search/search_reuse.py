"""A configuration the session has measured already is not launched again: a trial whose
launch profile (the same launch after normalising values, `0.80` is `0.8`) holds a recorded
point at every concurrency of the search's sweep takes those points as its measurement."""

from __future__ import annotations

from cockpit.model.search.search import Search
from cockpit.model.session import Session

__all__ = ["measured_points"]


def measured_points(session: Session, search: Search, profile_id: str) -> list[str] | None:
    """The ids of the latest recorded point per concurrency of `search.sweep` for `profile_id`
    (the sweep's order), or None when a point is missing (the trial must launch)."""
    sweep = next((s for s in session.sweeps if s.id == search.sweep), None)
    if sweep is None:
        return None
    latest: dict[int, str] = {}
    for bench in session.benchmarks:  # recorded in order: a later point replaces an earlier one
        if bench.profile == profile_id and bench.sweep == sweep.id and bench.concurrency is not None:
            latest[bench.concurrency] = bench.id
    if any(c not in latest for c in sweep.concurrencies):
        return None
    return [latest[c] for c in sweep.concurrencies]
