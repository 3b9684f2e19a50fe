"""Every `[[prometheus]]` of the session for the Fleet tab, one shown and polled at a time.

A team with one Prometheus per cluster names each; the tab shows one and `step()` moves to
the next, after which the app restarts the feed: only the shown Prometheus is queried.
Each start is a fresh `FleetFeed` (its history comes again from `query_range` on open).
With several sources each snapshot carries its position, so the tab can say `lab (2/2)`.
`follow(session)` takes the session's `[[prometheus]]` as they are now (an edit, another
writer's merge): the app restarts the feed at once when they changed, not at the next open.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from cockpit.model.session import Session
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_feed import FleetFeed


class FleetSources:
    """A live feed (`description`, `interval_s`, `stream()`) of the shown source."""

    def __init__(self, sources: Sequence[Any], make: Callable[[Any], FleetFeed]) -> None:
        """`sources`: PrometheusSource-like (`name`, `url`...); `make` builds one's feed."""
        if not sources:
            raise ValueError("FleetSources needs at least one [[prometheus]] source")
        self.sources = tuple(sources)
        self._make = make
        self.index = 0
        self.feed = make(self.sources[0])
        self.description = self.feed.description
        """The shown source's ("Prometheus lab · URL every 5 s"), for the app's state line."""

    @classmethod
    def for_session(cls, session: Session) -> FleetSources:
        return cls(session.prometheus, lambda source: FleetFeed.for_session(source, session))

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def interval_s(self) -> float:
        return self.feed.interval_s

    @property
    def position(self) -> tuple[int, int] | None:
        return (self.index + 1, len(self.sources)) if len(self.sources) > 1 else None

    @property
    def label(self) -> str:
        name = self.sources[self.index].name
        return f"{name} ({self.index + 1}/{len(self.sources)})" if self.position else name

    def follow(self, session: Session) -> bool:
        """The session's `[[prometheus]]` now; True when they changed (the caller restarts the
        feed). The shown source stays shown when it is still there (by name); needs one source."""
        new = tuple(session.prometheus)
        if not new:
            raise ValueError("FleetSources needs at least one [[prometheus]] source")
        if new == self.sources:
            return False
        shown = self.sources[self.index].name
        self.sources = new
        self._make = lambda source: FleetFeed.for_session(source, session)
        self.index = next((i for i, s in enumerate(new) if s.name == shown), 0)
        self.feed = self._make(new[self.index])
        self.description = self.feed.description
        return True

    def step(self, by: int = 1) -> FleetFeed:
        """Show the next source (`by` = -1: the previous); the caller restarts the stream."""
        self.index = (self.index + by) % len(self.sources)
        self.feed = self._make(self.sources[self.index])
        self.description = self.feed.description
        return self.feed

    async def stream(self) -> AsyncIterator[FleetSnapshot]:
        feed, position = self.feed, self.position
        async for snap in feed.stream():
            yield dataclasses.replace(snap, position=position) if position else snap
