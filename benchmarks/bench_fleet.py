"""The Fleet tab's CPU cost: 8 hosts x 8 GPUs (and 8 SGLang servers) refreshed at 1 Hz from a
real Prometheus (goal: under 2 % of one core, measured as bench_idle_cpu.py measures).

    .venv/bin/python benchmarks/bench_fleet.py [--seconds 60]

Starts Debian's `prometheus` (tests/prometheus_fixture.py) scraping the stand-in fleet of
tests/fleet_exporter.py (8 hosts, each dcgm-exporter with 8 GPUs and an SGLang server,
counters advancing) every second; runs the real CockpitApp (headless Textual driver,
120x40) on a copy of the example session with the Fleet feed at interval_s = 1 and the
Fleet tab shown. Reads the CPU time (user + sys) of the cockpit process over the window,
after a warm-up (history loaded, first frames); Prometheus and the exporter (children:
a forked one serves the socket this process bound) are not counted. Baseline in the same run:
the same app with no fleet feed. Also times one refresh's three PromQL queries and the
model update.
Prints a table and writes benchmarks/out/fleet.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from fleet_exporter import FleetExporter  # noqa: E402
from prometheus_fixture import PASSWORD, USER, start_prometheus, stop_prometheus  # noqa: E402

from cockpit.demo.build import data_dir  # noqa: E402
from cockpit.sources.feeds import LiveSources  # noqa: E402
from cockpit.sources.metrics.fleet_feed import FleetFeed  # noqa: E402
from cockpit.sources.metrics.fleet_queries import GPU_QUERY, UP_QUERY  # noqa: E402
from cockpit.sources.metrics.prometheus_api import PrometheusClient  # noqa: E402
from cockpit.store.toml_store import load_session  # noqa: E402
from cockpit.ui.app import CockpitApp  # noqa: E402

OUT = HERE / "out"
HOSTS = [(f"node-{i}", "dcgm", "sglang") for i in range(1, 9)]
ENV = {"PROM_AUTH": f"{USER}:{PASSWORD}"}


def cpu_s() -> float:
    """This process's CPU time, every thread (user + sys). bench_idle_cpu.py also adds its
    children, the cockpit's log-folding process; here the children are Prometheus and the
    exporter, not the cockpit (the fleet feed starts no process), so they are left out."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _feed(url: str) -> FleetFeed:
    client = PrometheusClient(url, auth_env="PROM_AUTH", timeout_s=2.0, environ=ENV)
    return FleetFeed("bench", url, interval_s=1.0, history_h=0.05, client=client)


async def measure(seconds: float, url: str | None, folder: Path) -> tuple[float, int]:
    path = folder / f"s-{url is not None}.toml"
    shutil.copyfile(data_dir() / "glm5-nvfp4.toml", path)
    feed = _feed(url) if url else None
    snaps = 0
    if feed is not None:
        inner = feed.stream

        async def counted():  # noqa: ANN202
            nonlocal snaps
            async for snap in inner():
                snaps += 1
                yield snap

        feed.stream = counted  # type: ignore[method-assign]
    app = CockpitApp(load_session(path), path, sources=LiveSources(fleet=feed), watch_interval_s=1.5)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("F")
        await asyncio.sleep(5)  # warm-up: history, first frames, hidden tabs
        start_cpu, start, first = cpu_s(), time.perf_counter(), snaps
        await asyncio.sleep(seconds)
        used, wall = cpu_s() - start_cpu, time.perf_counter() - start
    return 100.0 * used / wall, snaps - first


async def refresh_ms(url: str, runs: int) -> tuple[float, float]:
    feed = _feed(url)
    await feed.load_history()
    total, model = [], []
    for _ in range(runs):
        t = time.perf_counter()
        await feed.refresh()
        total.append(time.perf_counter() - t)
    # the model alone, on the last answers
    gpus, servers, up = await asyncio.gather(
        feed.client.query(GPU_QUERY), feed.client.query(feed.server_q), feed.client.query(UP_QUERY))
    for _ in range(runs):
        t = time.perf_counter()
        feed.model.update(gpus, servers, up, time.time())
        model.append(time.perf_counter() - t)
    return 1000 * statistics.median(total), 1000 * statistics.median(model)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    exporter = FleetExporter(HOSTS, gpus=8)  # bound here, served by a child: its CPU is not ours
    child = multiprocessing.get_context("fork").Process(target=exporter.httpd.serve_forever, daemon=True)
    child.start()
    with tempfile.TemporaryDirectory() as tmp:
        prom = start_prometheus(exporter, Path(tmp) / "prometheus")
        try:
            prom.wait_for("up == 1", count=len(exporter.targets))
            prom.wait_for('rate(sglang:generation_tokens_total[30s]) > 0', count=8)
            base, _ = asyncio.run(measure(args.seconds, None, Path(tmp)))
            fleet, refreshes = asyncio.run(measure(args.seconds, prom.url, Path(tmp)))
            query_ms, model_ms = asyncio.run(refresh_ms(prom.url, 20))
        finally:
            stop_prometheus(prom)
            child.terminate()
            child.join()
    result = {"seconds": args.seconds, "hosts": 8, "gpus_per_host": 8, "servers": 8,
              "baseline_pct_of_core": round(base, 2), "fleet_1hz_pct_of_core": round(fleet, 2),
              "fleet_cost_pct_of_core": round(fleet - base, 2), "refreshes_in_window": refreshes,
              "refresh_median_ms": round(query_ms, 2), "model_update_median_ms": round(model_ms, 3),
              "goal_pct": 2.0}
    print(f"{'cockpit process CPU over %g s' % args.seconds:52} {'% of one core':>14}")
    print(f"{'baseline: the app with no fleet feed':52} {base:14.2f}")
    print(f"{'Fleet tab, 8 hosts x 8 GPUs at 1 Hz (goal < 2)':52} {fleet:14.2f}")
    print(f"{'  the fleet feed and tab alone (difference)':52} {fleet - base:14.2f}")
    print(f"{'refreshes in the window':52} {refreshes:14d}")
    print(f"{'one refresh: 3 PromQL queries + model (median ms)':52} {query_ms:14.2f}")
    print(f"{'  model update alone (median ms)':52} {model_ms:14.3f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "fleet.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
