"""The diagnosis over the labelled scenario set (tests/data/diagnosis): top-1 kind against
the label, nothing on the healthy ones, and the time per scenario (read + parse the files,
then every rule), medians of --runs.

    .venv/bin/python benchmarks/bench_diagnose.py [--runs 5]

Goal: top-1 right on >= 80 %, no finding on a healthy one, < 1 s a scenario. Prints a table
and writes benchmarks/out/diagnose.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))

from cockpit.control.diagnosis import inputs_from_folder  # noqa: E402
from cockpit.live.diagnosis.engine import diagnose  # noqa: E402

DATA = ROOT / "tests" / "data" / "diagnosis"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        expect = tomllib.loads((folder / "scenario.toml").read_text())["expect"]
        times, found = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            found = diagnose(inputs_from_folder(folder))
            times.append(time.perf_counter() - t0)
        top = found[0].kind if found else "healthy"
        rows.append({"scenario": folder.name, "expect": expect, "top": top, "ok": top == expect,
                     "findings": [f.kind for f in found], "median_s": statistics.median(times)})
    labelled = [r for r in rows if r["expect"] != "healthy"]
    healthy = [r for r in rows if r["expect"] == "healthy"]
    accuracy = sum(r["ok"] for r in labelled) / len(labelled)
    quiet = sum(not r["findings"] for r in healthy)
    slowest = max(r["median_s"] for r in rows)
    print(f"{'scenario':34} {'expected':20} {'top finding':20} {'ok':3} {'ms':>7}")
    for r in rows:
        print(f"{r['scenario']:34} {r['expect']:20} {r['top']:20} {'✓' if r['ok'] else '✗':3} "
              f"{r['median_s'] * 1000:7.1f}")
    print(f"\ntop-1 accuracy {accuracy:.0%} over {len(labelled)} labelled scenarios (goal >= 80 %)")
    print(f"healthy with no finding: {quiet} of {len(healthy)} (goal: all)")
    print(f"time per scenario: median {statistics.median(r['median_s'] for r in rows) * 1000:.1f} ms, "
          f"slowest {slowest * 1000:.1f} ms (goal < 1 s)")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "diagnose.json").write_text(json.dumps({
        "accuracy": accuracy, "labelled": len(labelled), "healthy": len(healthy), "healthy_quiet": quiet,
        "slowest_s": slowest, "runs": args.runs, "scenarios": rows}, indent=2))
    return 0 if accuracy >= 0.8 and quiet == len(healthy) and slowest < 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
