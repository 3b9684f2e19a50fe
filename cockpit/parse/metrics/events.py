"""What the `/metrics` scraper emits: plain event types, so `live` folds them without
importing `sources` (the same split as parse/gpu/events.py)."""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.parse.metrics.prom_text import Exposition


@dataclass(frozen=True, slots=True)
class MetricsScraped:
    """One good scrape of one endpoint."""

    host: str | None
    url: str
    exposition: Exposition
    taken_at: float
    """Reader's clock (epoch seconds) when the text was read."""
    elapsed_s: float
    """How long the scrape took (a slow endpoint shows here before it times out)."""


@dataclass(frozen=True, slots=True)
class MetricsScrapeFailed:
    """A scrape that failed: refused, timed out, an HTTP error, or text that is not metrics."""

    host: str | None
    url: str
    reason: str
    at: float


MetricsEvent = MetricsScraped | MetricsScrapeFailed
