"""The demo's Fleet tab: the real `FleetFeed` reading a replay of recorded PromQL answers.

The answers come from a real Prometheus scraping 3 hosts (node-a: dcgm-exporter and an
SGLang server; node-b: dcgm-exporter's default counters, no power limit, and the router's
`sglang_` re-export; node-c: its exporter down); demo/prom_replay.py gives them at the
time asked, moving with a load swell. Its name and description say it is a replay, so the
tab never passes for a Prometheus.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from cockpit.demo.build import data_dir
from cockpit.demo.prom_replay import REPLAY_URL, DemoPrometheus, Recording
from cockpit.sources.metrics.fleet_feed import FleetFeed

DEMO_RECORDING = "prometheus-fleet-3.json"
SOURCE = "demo replay"


def demo_fleet_feed(recording: Path | None = None, *, interval_s: float = 2.0, history_h: float = 0.25,
                    clock: Callable[[], float] = time.time) -> FleetFeed:
    """`clock`: the feed's time (real time in the demo, so "answered 2 s ago" is true)."""
    path = recording or data_dir() / "demo" / DEMO_RECORDING
    answers = Recording.load(path).answers
    feed = FleetFeed(SOURCE, REPLAY_URL, interval_s=interval_s, history_h=history_h,
                     client=DemoPrometheus(answers), clock=clock)
    feed.description = f"replay: PromQL answers recorded from a real Prometheus, every {interval_s:g} s (demo)"
    return feed
