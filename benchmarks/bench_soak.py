"""The cockpit left open for hours: does its memory stay flat?

    .venv/bin/python benchmarks/bench_soak.py [--seconds 300] [--lines-per-s 400] [--gpu-hz 20]

Runs the real CockpitApp (headless Textual driver, 120x40) on a copy of the example session
fed faster than life so that minutes stand for hours: the demo's 8-GPU nvidia-smi replay at
`--gpu-hz` ticks a second (1 in life) through the real stream parser, the topology file, and
a tail of a log another process writes at `--lines-per-s` SGLang decode and prefill lines
with changing figures (a busy server writes one to a few a second), and the demo's replayed
`/metrics` page at the same speed-up (every 2 s in life). Every 10 s it reads the
process's resident memory (VmRSS, plus its children's: the metrics folder) and the count of
live Python objects (those made after start-up: cockpit freezes the ones before, ui/gc_settle.py). Baseline
in the same run: the same app with no live feeds for a minute. Goal: over the last half
(the log pane's 50,000-line ring and the windows full), growth under 2 MB per simulated hour
and no growing count of objects. Prints a table and writes benchmarks/out/soak.json.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from cockpit.demo.build import data_dir
from cockpit.demo.metrics import DemoMetricsFeed
from cockpit.demo.replay import DemoGpuReplay
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.sources.feeds import LiveSources
from cockpit.sources.gpu.feed import FileTopologyFeed
from cockpit.sources.log.feed import LogFeed
from cockpit.store.toml_store import load_session
from cockpit.ui.app import CockpitApp

OUT = Path(__file__).resolve().parent / "out"
SAMPLE_S = 10.0

WRITER = r'''
import random, sys, time
path, rate = sys.argv[1], float(sys.argv[2])
rng = random.Random(7)
with open(path, "a", buffering=1) as f:
    n = 0
    start = time.monotonic()
    while True:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        if n % 10 == 0:
            f.write(f"[{stamp} TP0] Prefill batch. #new-seq: {rng.randint(1, 8)}, #new-token: "
                    f"{rng.randint(100, 8000)}, #cached-token: {rng.randint(0, 4000)}, token usage: "
                    f"{rng.random():.2f}, #running-req: {rng.randint(0, 128)}, #queue-req: {rng.randint(0, 40)}\n")
        else:
            f.write(f"[{stamp} TP0] Decode batch. #running-req: {rng.randint(1, 128)}, #token: "
                    f"{rng.randint(1000, 90000)}, token usage: {rng.random():.2f}, cuda graph: True, "
                    f"gen throughput (token/s): {rng.uniform(100, 4000):.2f}, #queue-req: {rng.randint(0, 40)}\n")
        n += 1
        ahead = n / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
'''


class FastGpuFeed:
    """The demo's recorded 8-GPU stream, ticking `hz` times a second (a soak's hours in minutes)."""

    def __init__(self, capture: Path, hz: float) -> None:
        self.replay = DemoGpuReplay(capture, host="lxc", interval_s=1.0 / hz)
        self.interval_s = self.replay.interval_s
        self.description = f"replay: nvidia-smi --query-gpu on lxc at {hz:g} Hz (soak)"

    def stream(self) -> AsyncIterator[GpuSamplesTaken]:
        return self.replay.events()


def rss_mb(skip: set[int]) -> float:
    """Resident memory of this process and its live children but `skip` (the log's writer), MB."""
    total = 0
    me = os.getpid()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        pid, ppid = int(fields.get("Pid", "0")), int(fields.get("PPid", "0"))
        if (pid == me or ppid == me) and pid not in skip and "VmRSS" in fields:
            total += int(fields["VmRSS"].split()[0])
    return total / 1024


async def measure(seconds: float, live: bool, folder: Path, rate: float, hz: float) -> list[dict[str, float]]:
    data = data_dir()
    path = folder / f"s-{live}.toml"
    shutil.copyfile(data / "glm5-nvfp4.toml", path)
    log = folder / f"server-{live}.log"
    log.write_text("")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(log), str(rate)]) if live else None
    sources = LiveSources(
        log=LogFeed.local(str(log), from_start=True),
        gpu=FastGpuFeed(data / "demo" / "nvidia-smi-query.csv", hz),
        topology=FileTopologyFeed(data / "demo" / "nvidia-smi-topo.txt"),
        # the server's /metrics page as the demo replays it (every 2 s in life), through the real parser and fold
        metrics=DemoMetricsFeed(data / "demo" / "sglang-metrics-a.txt", data / "demo" / "sglang-metrics-b.txt",
                                interval_s=2.0 / hz),
    ) if live else LiveSources()
    app = CockpitApp(load_session(path), path, sources=sources, watch_interval_s=1.5)
    samples: list[dict[str, float]] = []
    try:
        async with app.run_test(size=(120, 40)):
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds:
                gc.collect()
                samples.append({"s": round(elapsed, 1), "rss_mb": round(rss_mb({writer.pid} if writer else set()), 1),
                                "objects": len(gc.get_objects()),
                                "log_bytes": log.stat().st_size})
                await asyncio.sleep(SAMPLE_S)
    finally:
        if writer is not None:
            writer.kill()
            writer.wait()
    return samples


def _slope(samples: list[dict[str, float]], key: str) -> float:
    """Least-squares growth of `key` per second over the samples."""
    n = len(samples)
    if n < 2:
        return 0.0
    xs = [s["s"] for s in samples]
    ys = [s[key] for s in samples]
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0


def summary(samples: list[dict[str, float]], hz: float) -> dict[str, float]:
    tail = samples[len(samples) // 2:]  # the last half: the log pane's ring (50,000 lines) and the windows are full
    per_s = _slope(tail, "rss_mb")
    return {"rss_first_mb": samples[0]["rss_mb"], "rss_last_mb": samples[-1]["rss_mb"],
            "rss_max_mb": max(s["rss_mb"] for s in samples),
            "objects_first": samples[0]["objects"], "objects_last": samples[-1]["objects"],
            "rss_growth_mb_per_min_last_half": round(per_s * 60, 3),
            # a simulated hour of GPU samples passes in 3600 / hz wall seconds
            "rss_growth_mb_per_simulated_hour": round(per_s * 3600 / hz, 3),
            "objects_growth_per_min_last_half": round(_slope(tail, "objects") * 60, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--lines-per-s", type=float, default=400.0)
    ap.add_argument("--gpu-hz", type=float, default=20.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = asyncio.run(measure(min(args.seconds, 60.0), False, Path(tmp), args.lines_per_s, args.gpu_hz))
        live = asyncio.run(measure(args.seconds, True, Path(tmp), args.lines_per_s, args.gpu_hz))
    lines = args.lines_per_s * args.seconds
    simulated_h = args.seconds * args.gpu_hz / 3600
    result = {"seconds": args.seconds, "lines_per_s": args.lines_per_s, "gpu_hz": args.gpu_hz,
              "log_lines": int(lines), "simulated_gpu_hours": round(simulated_h, 2),
              "goal_mb_per_simulated_hour": 2.0,
              "baseline_no_feeds": summary(base, args.gpu_hz), "live": summary(live, args.gpu_hz),
              "samples": {"baseline_no_feeds": base, "live": live}}
    print(f"{args.seconds:g} s wall: {int(lines):,} log lines, {simulated_h:.1f} h of 8-GPU samples at 1 Hz")
    print(f"{'run':34} {'RSS first':>10} {'RSS last':>9} {'RSS max':>8} {'MB/min (last half)':>14} "
          f"{'MB/sim. h':>10} {'objects first -> last':>22}")
    for name, s in (("baseline: app with no live feeds", result["baseline_no_feeds"]),
                    ("8 GPUs + log + /metrics + topology", result["live"])):
        print(f"{name:34} {s['rss_first_mb']:>10.1f} {s['rss_last_mb']:>9.1f} {s['rss_max_mb']:>8.1f} "
              f"{s['rss_growth_mb_per_min_last_half']:>14.3f} {s['rss_growth_mb_per_simulated_hour']:>10.3f} "
              f"{s['objects_first']:>10,} -> {s['objects_last']:<10,}")
    OUT.mkdir(exist_ok=True)
    (OUT / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {OUT / 'soak.json'}")


if __name__ == "__main__":
    main()
