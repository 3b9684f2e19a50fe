"""Records the fleet's PromQL answers from a REAL Prometheus for the Fleet tab's snapshot tests.

    PYTHONPATH=. python tests/data/fleet/record_fleet.py   # writes fleet-1.json, -8 here, -3 for the demo

Starts Debian's `prometheus` (tests/prometheus_fixture.py) scraping the stand-in fleet
(tests/fleet_exporter.py: the metrics fixtures with counters advancing), lets it run
SECONDS, then asks it every query the Fleet tab asks (the instant ones and the history's
range ones) and writes the raw answers, keyed by query, with the time they were asked at.
The snapshots then replay them (tests/fleet_recorded.py): deterministic, and real answers.
The 3-host one is also the demo's Fleet tab, so it lives in sessions/demo/ (shipped in the wheel).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from fleet_exporter import FleetExporter  # noqa: E402
from fleet_recorded import recording_path  # noqa: E402
from prometheus_fixture import PASSWORD, USER, start_prometheus, stop_prometheus  # noqa: E402

from cockpit.sources.metrics.fleet_feed import FleetFeed  # noqa: E402
from cockpit.sources.metrics.prometheus_api import PrometheusClient  # noqa: E402

SECONDS = 75
INTERVAL_S, HISTORY_S = 1.0, 60.0
DEMO_INTERVAL_S, DEMO_HISTORY_H = 2.0, 0.25  # demo_fleet_feed's defaults
FLEETS = {
    1: [("gpu-node-1", "dcgm", "sglang")],
    3: [("node-a", "dcgm", "sglang"), ("node-b", "dcgm-defaults", "router"), ("node-c", "dcgm")],
    8: [(f"node-{i}", "dcgm", "sglang") for i in range(1, 7)] + [("node-7", "dcgm-defaults", "router"),
                                                                  ("node-8", "dcgm")],
}


class Recorder(PrometheusClient):
    def __init__(self, url: str) -> None:
        super().__init__(url, environ={"A": f"{USER}:{PASSWORD}"}, auth_env="A", timeout_s=10)
        self.answers: dict[str, object] = {}

    async def query(self, promql, at=None):  # type: ignore[no-untyped-def]
        got = await super().query(promql, at)
        self.answers[f"query {promql}"] = [{"labels": dict(s.labels), "points": s.points} for s in got]
        return got

    async def query_range(self, promql, start, end, step_s):  # type: ignore[no-untyped-def]
        got = await super().query_range(promql, start, end, step_s)
        self.answers[f"query_range {promql}"] = [{"labels": dict(s.labels), "points": s.points} for s in got]
        return got

    async def targets(self):  # type: ignore[no-untyped-def]
        got = await super().targets()
        self.answers["targets"] = [{"labels": dict(t.labels), "scrape_interval_s": t.scrape_interval_s,
                                    "health": t.health} for t in got]
        return got


def record(n: int) -> None:
    with FleetExporter(FLEETS[n], gpus=8) as exporter, tempfile.TemporaryDirectory() as tmp:
        running = start_prometheus(exporter, Path(tmp))
        try:
            running.wait_for("up == 1", count=len(exporter.targets))
            time.sleep(SECONDS)
            if n == 3:
                exporter.down("/node-c/dcgm")  # one target down: the tab says so
                time.sleep(4)
            client = Recorder(running.url)
            at = time.time()
            feed = FleetFeed(f"lab{n}", "http://prometheus.lab:9090", interval_s=INTERVAL_S,
                             history_h=HISTORY_S / 3600, client=client, clock=lambda: at)

            feeds = [feed]
            if n == 3:  # the demo's Fleet tab asks with its own refresh and history (cockpit/demo/fleet.py)
                feeds.append(FleetFeed("demo", "http://prometheus.lab:9090", interval_s=DEMO_INTERVAL_S,
                                       history_h=DEMO_HISTORY_H, client=client, clock=lambda: at))

            async def go() -> None:
                for f in feeds:
                    await f.load_history()
                    await f.refresh()

            asyncio.run(go())
        finally:
            stop_prometheus(running)
    recording_path(n).write_text(json.dumps({
        "recorded": "from a real Prometheus 2.42 (Debian) scraping tests/fleet_exporter.py; "
                    "see record_fleet.py", "at": at, "interval_s": INTERVAL_S, "history_s": HISTORY_S,
        "answers": client.answers}, indent=None) + "\n")
    print(f"{recording_path(n)}: {len(client.answers)} answers")


if __name__ == "__main__":
    for n in (int(a) for a in sys.argv[1:] or FLEETS):
        record(n)
