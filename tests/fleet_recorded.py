"""Replays PromQL answers recorded from a real Prometheus (tests/data/fleet/record_fleet.py).

The Fleet tab's snapshots need the same answers every run; these are real ones, recorded
from Debian's Prometheus scraping the stand-in fleet, replayed by query text through the
client the demo ships (demo/prom_replay.py), unmoved. The 3-host recording is the demo's
(sessions/demo/), the others are here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from cockpit.demo.build import data_dir
from cockpit.demo.fleet import DEMO_RECORDING
from cockpit.demo.prom_replay import RecordedPrometheus, Recording
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_feed import FleetFeed

FLEET_DATA = Path(__file__).resolve().parent / "data" / "fleet"


def recording_path(hosts: int) -> Path:
    return data_dir() / "demo" / DEMO_RECORDING if hosts == 3 else FLEET_DATA / f"fleet-{hosts}.json"


def recorded_feed(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetFeed:
    rec = Recording.load(recording_path(hosts))
    return FleetFeed(f"lab{hosts}", "http://prometheus.lab:9090", interval_s=rec.interval_s,
                     history_h=rec.history_s / 3600, client=RecordedPrometheus(rec.answers),
                     expected=expected, clock=lambda: rec.at)


async def recorded_snapshot_async(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetSnapshot:
    feed = recorded_feed(hosts, expected)
    await feed.load_history()
    return await feed.refresh()


def recorded_snapshot(hosts: int, expected: dict[str, tuple[str, ...]] | None = None) -> FleetSnapshot:
    return asyncio.run(recorded_snapshot_async(hosts, expected))
