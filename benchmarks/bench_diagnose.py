"""The diagnosis over its two labelled scenario sets, reported apart: the set written with
the rules (tests/data/diagnosis) and the held-out set written before the rules were fixed
(tests/data/diagnosis_heldout, issue 37). Per set: top-1 kind against the label (a
two-cause scenario: either cause on top, and the other found too), the share of healthy
and trap scenarios with no finding, evidence truth (findings whose every figure its
inputs hold or imply, tests/diagnosis_truth.py, and the scenario's quotes said), and the
time per scenario (read + parse the files, then every rule), medians of --runs.

    .venv/bin/python benchmarks/bench_diagnose.py [--runs 5]

Goals per set: top-1 >= 90 %, quiet on >= 90 % of healthy/trap scenarios, every figure
true, < 1 s a scenario. Prints a table and writes benchmarks/out/diagnose.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from diagnosis_truth import quote_problems, untrue_figures  # noqa: E402

from cockpit.control.diagnosis import inputs_from_folder  # noqa: E402
from cockpit.live.diagnosis.engine import diagnose  # noqa: E402

SETS = {"written-with": ROOT / "tests" / "data" / "diagnosis",
        "held-out": ROOT / "tests" / "data" / "diagnosis_heldout"}


def run_set(data: Path, runs: int) -> dict[str, Any]:
    rows = []
    for folder in sorted(p for p in data.iterdir() if p.is_dir()):
        meta = tomllib.loads((folder / "scenario.toml").read_text())
        expect, also = meta["expect"], list(meta.get("also", []))
        times, found = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            found = diagnose(inputs_from_folder(folder))
            times.append(time.perf_counter() - t0)
        kinds = [f.kind for f in found]
        top = kinds[0] if kinds else "healthy"
        ok = top in {expect, *also} and all(k in kinds for k in also) and (expect == "healthy" or expect in kinds)
        untrue = [bad for f in found for bad in untrue_figures(f, folder)] + quote_problems(found, folder)
        rows.append({"scenario": folder.name, "expect": expect, "also": also, "top": top, "ok": ok,
                     "findings": kinds, "untrue": untrue, "median_s": statistics.median(times)})
    problems = [r for r in rows if r["expect"] != "healthy"]
    healthy = [r for r in rows if r["expect"] == "healthy"]
    with_findings = [r for r in rows if r["findings"]]
    return {
        "scenarios": rows, "problems": len(problems), "healthy": len(healthy),
        "top1": sum(r["ok"] for r in problems) / max(1, len(problems)),
        "quiet": sum(not r["findings"] for r in healthy) / max(1, len(healthy)),
        "evidence_true": sum(not r["untrue"] for r in with_findings) / max(1, len(with_findings)),
        "slowest_s": max(r["median_s"] for r in rows), "median_s": statistics.median(r["median_s"] for r in rows)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report: dict[str, Any] = {"runs": args.runs}
    good = True
    for name, data in SETS.items():
        got = run_set(data, args.runs)
        report[name] = got
        print(f"\n== {name} set ({data.relative_to(ROOT)}) ==")
        print(f"{'scenario':40} {'expected':20} {'top finding':20} {'ok':3} {'ms':>7}")
        for r in got["scenarios"]:
            print(f"{r['scenario']:40} {r['expect']:20} {r['top']:20} {'✓' if r['ok'] else '✗':3} "
                  f"{r['median_s'] * 1000:7.1f}" + (f"  untrue: {r['untrue']}" if r["untrue"] else ""))
        print(f"top-1 right: {got['top1']:.0%} of {got['problems']} problem scenarios (goal >= 90 %)")
        print(f"quiet: {got['quiet']:.0%} of {got['healthy']} healthy/trap scenarios have no finding (goal >= 90 %)")
        print(f"evidence true to the inputs: {got['evidence_true']:.0%} of the scenarios with findings (goal 100 %)")
        print(f"time per scenario: median {got['median_s'] * 1000:.1f} ms, slowest {got['slowest_s'] * 1000:.1f} ms "
              f"(goal < 1 s)")
        good &= got["top1"] >= 0.9 and got["quiet"] >= 0.9 and got["evidence_true"] == 1 and got["slowest_s"] < 1
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "diagnose.json").write_text(json.dumps(report, indent=2))
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
