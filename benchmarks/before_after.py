"""Run the benchmarks (benchmarks/README.md) on two checkouts, interleaved, and keep every run's output.

    .venv/bin/python benchmarks/before_after.py --before /work/wt/before [--after .] \
        [--only store,bombs] [--rounds 1] [--pin 0,1]

Each checkout runs its own copy of a benchmark with its own `.venv` (the code before a
change and after it, each with the scripts of its time). Round by round, one run of
"before" and one of "after", the order swapped every round, so machine load falls on
both alike. Beside every run: the 1-minute load average before and after it, its wall
time and the CPU time (user + system) of the benchmark and everything it started. The
JSON files a run writes under its checkout's benchmarks/out/ are copied to
benchmarks/out/before_after/raw/SIDE/NAME.rROUND.STAMP/ (STAMP: this invocation's
start); its printed table to benchmarks/out/before_after/NAME.SIDE.rROUND.STAMP.txt. `before_after_table.py` turns them
into benchmarks/out/before_after.md and .json.

Not run: h200_sweep_power.py (needs an NVIDIA GPU, NVML and nvidia-smi on the machine)
and real_bench_client.py (builds a 6.4 GB venv of the real sglang client from the
network, which this machine has no room or access for).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "before_after"

# name -> arguments (the same on both sides; smaller than the defaults where a default
# run takes many minutes on a loaded 2-core machine: said in the table)
BENCHES: dict[str, list[str]] = {
    "store": [],
    "bombs": [],
    "mcp": [],
    "metrics_parse": [],
    "sanitize": [],
    "chart": ["--runs", "20"],
    "log_view_keys": [],
    "log_rows_peaks": [],
    "mcp_live": [],
    "diagnose": ["--runs", "3"],
    "demo": ["--runs", "3"],
    "big_session": ["--runs", "5"],
    "idle_cpu": ["--seconds", "30"],
    "parse_log": ["--runs", "5"],
    "gpu": ["--seconds", "20", "--lines", "100000"],
    "fleet": ["--seconds", "30"],
    "tail": ["--mb", "100", "--runs", "3"],
    "sweep_overhead": ["--points", "4"],
    "search": ["--real-trials", "2"],
    "four_writers": ["--rounds", "2"],
    "log_pane": ["--runs", "3", "--skip-toolong", "--only", "micro,open,metrics,key"],
}
TIMEOUT_S = 1500
INVOCATION = time.strftime("%Y%m%dT%H%M%S")


def loadavg() -> float:
    return os.getloadavg()[0]


def run_one(side: str, checkout: Path, name: str, args: list[str], round_no: int, pin: str | None) -> dict:
    out_dir = checkout / "benchmarks" / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    before_files = {p: p.stat().st_mtime for p in out_dir.glob("*.json")}
    cmd = [str(checkout / ".venv" / "bin" / "python"), f"benchmarks/bench_{name}.py", *args]
    if pin:
        cmd = ["taskset", "-c", pin, *cmd]
    load0, usage0, t0 = loadavg(), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    try:
        # the checkout's own code first, whatever its venv has installed (an editable install
        # of the other checkout would otherwise run on both sides)
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        proc = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
        rc, text = proc.returncode, proc.stdout + ("\n--- stderr ---\n" + proc.stderr[-4000:] if proc.stderr else "")
    except subprocess.TimeoutExpired as exc:
        rc, text = -9, f"timed out after {TIMEOUT_S} s\n{exc.stdout or ''}"
    wall = time.perf_counter() - t0
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage1.ru_utime - usage0.ru_utime + usage1.ru_stime - usage0.ru_stime
    OUT.mkdir(parents=True, exist_ok=True)
    stem = f"{name}.r{round_no}.{INVOCATION}"  # a later invocation keeps the earlier one's files
    (OUT / f"{name}.{side}.r{round_no}.{INVOCATION}.txt").write_text(" ".join(cmd) + "\n" + str(text))
    raw = OUT / "raw" / side / stem
    raw.mkdir(parents=True, exist_ok=True)
    copied = []
    for p in out_dir.glob("*.json"):
        if before_files.get(p) != p.stat().st_mtime:
            shutil.copyfile(p, raw / p.name)
            copied.append(p.name)
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    record = {"bench": name, "side": side, "round": round_no, "checkout": str(checkout), "commit": commit, "args": args,
              "pin": pin, "rc": rc, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
              "load_1m": [round(load0, 2), round(loadavg(), 2)], "json": copied,
              "raw": str(raw.relative_to(OUT))}
    print(json.dumps(record), flush=True)
    return record


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--only", default=",".join(BENCHES))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--pin", default=None, help="taskset CPU list for every run (e.g. 0,1)")
    args = ap.parse_args()
    log = OUT / "runs.jsonl"
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.only.split(","):
        for r in range(args.rounds):
            sides = [("before", args.before), ("after", args.after)]
            for side, checkout in sides if r % 2 == 0 else sides[::-1]:
                record = run_one(side, checkout.resolve(), name, BENCHES[name], r, args.pin)
                with log.open("a") as f:
                    f.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
