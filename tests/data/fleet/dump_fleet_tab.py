"""Prints the Fleet tab as a person sees it, on a REAL Prometheus (for the issue's closing note).

    PYTHONPATH=.:tests python tests/data/fleet/dump_fleet_tab.py [--seconds 40] [--size 120x40]

Debian's prometheus scrapes the stand-in fleet (node-a: dcgm + SGLang 0.4; node-b:
dcgm-exporter's default counters + the router's sglang_ re-export; node-c: dcgm only) for
SECONDS; the cockpit opens a session with that [[prometheus]] and two hosts (node-a, and
gpu9 that Prometheus does not know), shows the Fleet tab and prints the screen's text.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent.parent / "ui")]

from fleet_exporter import FleetExporter  # noqa: E402
from prometheus_fixture import PASSWORD, USER, start_prometheus, stop_prometheus  # noqa: E402
from tui_support import screen_text  # noqa: E402

from cockpit.sources.feeds import LiveSources  # noqa: E402
from cockpit.sources.metrics.fleet_feed import FleetFeed  # noqa: E402
from cockpit.store.toml_store import load_session  # noqa: E402
from cockpit.ui.app import CockpitApp  # noqa: E402

HOSTS = [("node-a", "dcgm", "sglang"), ("node-b", "dcgm-defaults", "router"), ("node-c", "dcgm")]


async def show(path: Path, size: tuple[int, int]) -> str:
    session = load_session(path)
    feed = FleetFeed.for_session(session.prometheus[0], session)
    app = CockpitApp(session, path, sources=LiveSources(fleet=feed), watch_interval_s=None, keymap={})
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("F")
        await asyncio.sleep(4)
        await pilot.pause()
        return screen_text(app)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--size", default="120x40")
    args = ap.parse_args()
    size = tuple(int(x) for x in args.size.split("x"))
    os.environ["PROM_AUTH"] = f"{USER}:{PASSWORD}"
    with FleetExporter(HOSTS, gpus=8) as exporter, tempfile.TemporaryDirectory() as tmp:
        prom = start_prometheus(exporter, Path(tmp) / "prometheus")
        try:
            prom.wait_for("up == 1", count=len(exporter.targets))
            time.sleep(args.seconds)
            path = Path(tmp) / "fleet.toml"
            path.write_text(f'schema_version = 1\ntitle = "fleet on a real Prometheus"\n\n'
                            f'[[hosts]]\nname = "node-a"\ngpu_source = "dcgm"\n\n'
                            f'[[hosts]]\nname = "gpu9"\nssh = "gpu9.lab"\ngpu_source = "dcgm"\n\n'
                            f'[[prometheus]]\nname = "lab"\nurl = "{prom.url}"\nauth_env = "PROM_AUTH"\n'
                            f'interval_s = 1\nhistory_h = {args.seconds / 3600:.4f}\n')
            print(asyncio.run(show(path, size)))  # type: ignore[arg-type]
        finally:
            stop_prometheus(prom)


if __name__ == "__main__":
    main()
