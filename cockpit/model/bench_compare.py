"""Two launch profiles side by side: per concurrency A's and B's value and B's change.

The values are the chart's points (`bench_series`: a profile's best run per concurrency),
so the compare view and the chart never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.bench_series import Series, series_of
from cockpit.model.enums import Metric, ProfileStatus
from cockpit.model.session import Session


@dataclass(frozen=True, slots=True)
class CompareRow:
    concurrency: int
    a: float | None
    b: float | None

    @property
    def change(self) -> float | None:
        """B relative to A (0.12 = B is 12 % higher); None when either is missing or A is 0."""
        if self.a is None or self.b is None or self.a == 0:
            return None
        return (self.b - self.a) / self.a


def compare_rows(session: Session, a: str, b: str, metric: Metric) -> list[CompareRow]:
    """A row per concurrency that either profile has a value at, ascending."""
    series, _ = series_of(session, metric)
    by_key: dict[str, Series] = {s.key: s for s in series}
    empty = Series("", "", ())
    sa, sb = by_key.get(a, empty), by_key.get(b, empty)
    concurrencies = sorted({p.concurrency for p in sa.points} | {p.concurrency for p in sb.points})
    rows = []
    for c in concurrencies:
        pa, pb = sa.at(c), sb.at(c)
        rows.append(CompareRow(c, pa.value if pa else None, pb.value if pb else None))
    return rows


def default_pair(session: Session, selected: str | None, base: str | None = None) -> tuple[str, str] | None:
    """Which two profiles to open a compare on: `base` (else the working profile, else the
    first) against `selected` (else the next profile after A). None with fewer than two."""
    ids = [p.id for p in session.launch]
    if len(ids) < 2:
        return None
    working = next((p.id for p in session.launch if p.status is ProfileStatus.WORKING), None)
    a = next((x for x in (base, working) if x in ids), ids[0])
    b = selected if selected in ids and selected != a else None
    if b is None:
        b = ids[(ids.index(a) + 1) % len(ids)]
    return a, b


def step(ids: list[str], current: str, by: int, skip: str | None = None) -> str:
    """The id `by` places after `current` in `ids` (wrapping), passing over `skip`."""
    if current not in ids:  # gone (an undo, another writer): start again from the first
        return next((x for x in ids if x != skip), current)
    i = ids.index(current)
    for _ in ids:
        i = (i + by) % len(ids)
        if ids[i] != skip:
            return ids[i]
    return current
