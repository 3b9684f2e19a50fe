"""The cockpit's own CPU use with 8 GPUs sampled at 1 Hz and a quiet log.

    .venv/bin/python benchmarks/bench_idle_cpu.py [--seconds 60]

Runs the real CockpitApp (headless Textual driver, 120x40) on a copy of the example
session with the demo's 8-GPU nvidia-smi replay at 1 Hz through the real stream parser,
the topology file, and a tail of a log file nobody writes to. Reads the CPU time (user +
sys) of the process and its children (the metrics folder) over the window, after a 5 s
warm-up. Baseline in the
same run: the same app with no live feeds. Goal (#22): under 1.2 % of one core.
Prints a table and writes benchmarks/out/idle_cpu.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from cockpit.demo.build import DemoGpuFeed, data_dir
from cockpit.sources.feeds import LiveSources
from cockpit.sources.gpu.feed import FileTopologyFeed
from cockpit.sources.log.feed import LogFeed
from cockpit.store.toml_store import load_session
from cockpit.ui.app import CockpitApp

OUT = Path(__file__).resolve().parent / "out"


def cpu_s() -> float:
    """This process's CPU time plus its live children's (the metrics-folding process):
    getrusage counts a child only once it has been waited for."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:  # ppid; then utime, stime are fields 11 and 12 after ")"
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def measure(seconds: float, live: bool, folder: Path) -> float:
    data = data_dir()
    path = folder / f"s-{live}.toml"
    shutil.copyfile(data / "glm5-nvfp4.toml", path)
    quiet_log = folder / "quiet.log"
    quiet_log.write_text("[2026-03-02 09:14:05] The server is fired up and ready to roll!\n")
    sources = LiveSources(
        log=LogFeed.local(str(quiet_log), from_start=True),
        gpu=DemoGpuFeed(data / "demo" / "nvidia-smi-query.csv"),
        topology=FileTopologyFeed(data / "demo" / "nvidia-smi-topo.txt"),
    ) if live else LiveSources()
    app = CockpitApp(load_session(path), path, sources=sources, watch_interval_s=1.5)
    async with app.run_test(size=(120, 40)):
        await asyncio.sleep(5)  # warm-up: first frames, hidden tabs, first ticks
        start_cpu, start = cpu_s(), time.perf_counter()
        await asyncio.sleep(seconds)
        used, wall = cpu_s() - start_cpu, time.perf_counter() - start
    return 100.0 * used / wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        idle = asyncio.run(measure(args.seconds, False, Path(tmp)))
        live = asyncio.run(measure(args.seconds, True, Path(tmp)))
    result = {"seconds": args.seconds, "no_feeds_pct_of_core": round(idle, 2),
              "gpus8_1hz_quiet_log_pct_of_core": round(live, 2), "goal_pct": 1.2}
    print(f"{'cockpit process CPU over %g s' % args.seconds:45} {'% of one core':>14}")
    print(f"{'baseline: app with no live feeds':45} {idle:14.2f}")
    print(f"{'8 GPUs at 1 Hz + quiet log tail (goal < 1.2)':45} {live:14.2f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "idle_cpu.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
