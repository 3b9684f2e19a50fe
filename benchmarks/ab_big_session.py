"""The 5,000-task session's first frame, this checkout against another, interleaved.

    .venv/bin/python benchmarks/ab_big_session.py --before /work/wt/before [--rounds 5]

Runs this checkout's bench_big_session.py (one run per round, pinned to CPUs 0,1) with each
checkout's own code and venv, round by round, the order swapped every round, so machine
load falls on both alike; the same script measures both, so both are timed the same way
(the first paint, and the restored view). Prints medians and writes
benchmarks/out/ab_big_session.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
KEYS = ("first_frame_s", "first_frame_cpu_s", "restored_s", "restored_cpu_s", "open_s")


def one(checkout: Path, name: str) -> dict[str, float]:
    """One run of bench_big_session.py on `checkout`'s code: the 5,000-task row."""
    out = f"ab_{name}.json"
    subprocess.run([str(checkout / ".venv" / "bin" / "python"), str(ROOT / "benchmarks" / "bench_big_session.py"),
                    "--runs", "1", "--pin", "0,1", "--json", out], cwd=checkout, check=True,
                   capture_output=True)
    big: dict[str, float] = json.loads((OUT / out).read_text())["medians"]["big"]
    return big


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    sides = {"before": args.before.resolve(), "after": ROOT}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for r in range(args.rounds):
        for name in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
            runs[name].append(one(sides[name], name))
    med = {name: {k: statistics.median(run[k] for run in rs if k in run) for k in KEYS if any(k in run for run in rs)}
           for name, rs in runs.items()}
    print(f"5,000 tasks, pinned to CPUs 0,1, median of {args.rounds} interleaved rounds")
    print(f"{'step':<22} {'before':>9} {'after':>9} {'after/before':>13}")
    for k in KEYS:
        if k in med["before"] and k in med["after"]:
            b, a = med["before"][k], med["after"][k]
            print(f"{k:<22} {b * 1000:>6.0f} ms {a * 1000:>6.0f} ms {a / b:>12.2f}x")
    OUT.mkdir(exist_ok=True)
    (OUT / "ab_big_session.json").write_text(json.dumps(
        {"before": str(sides["before"]), "rounds": args.rounds, "median": med, "runs": runs}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
