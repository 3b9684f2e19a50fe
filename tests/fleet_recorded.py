"""Replays PromQL answers recorded from a real Prometheus (tests/data/fleet/record_fleet.py).

The Fleet tab's snapshots need the same answers every run; these are real ones, recorded
from Debian's Prometheus scraping the stand-in fleet, replayed by query text.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from cockpit.live.fleet import FleetFeed, FleetSnapshot
from cockpit.sources.prometheus_api import PrometheusClient, PromSeries

FLEET_DATA = Path(__file__).resolve().parent / "data" / "fleet"


class RecordedClient(PrometheusClient):
    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__("http://prometheus.lab:9090")
        self.answers = answers

    def _replay(self, key: str) -> list[PromSeries]:
        return [PromSeries(a["labels"], tuple((t, v) for t, v in a["points"])) for a in self.answers[key]]

    async def query(self, promql: str, at: float | None = None) -> list[PromSeries]:
        return self._replay(f"query {promql}")

    async def query_range(self, promql: str, start: float, end: float, step_s: float) -> list[PromSeries]:
        return self._replay(f"query_range {promql}")


def recorded_feed(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetFeed:
    doc = json.loads((FLEET_DATA / f"fleet-{hosts}.json").read_text())
    at = doc["at"]
    return FleetFeed(f"lab{hosts}", "http://prometheus.lab:9090", interval_s=doc["interval_s"],
                     history_h=doc["history_s"] / 3600, client=RecordedClient(doc["answers"]),
                     expected=expected, clock=lambda: at)


async def recorded_snapshot_async(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetSnapshot:
    feed = recorded_feed(hosts, expected)
    await feed.load_history()
    return await feed.refresh()


def recorded_snapshot(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetSnapshot:
    return asyncio.run(recorded_snapshot_async(hosts, expected))
