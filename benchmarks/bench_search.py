"""The search against the exhaustive grid and random search, on the stand-in's response surface.

    .venv/bin/python benchmarks/bench_search.py [--seeds 5] [--noise 0.02] [--real-trials 4]

1. Launch count (the surface evaluated directly, benchmarks/search_sim.py): the 36-configuration
   grid of cockpit/sandbox/surface.py (graph batch 32..256 x prefill chunk 2048..8192 x 3 MoE
   backends, a quarter of it crashing at graph capture). Per seed, how many launches each
   strategy needs until the configuration it calls best (best noisy figure so far, 2 % launch
   noise) is truly within 3 % of the grid's best. The grid needs all 36 to know; random search
   shuffles it; the search is cockpit's (Optuna TPE rebuilt from the trials, a Latin hypercube
   start, crashes pinned on their flag value). Median over the seeds. Goal: <= 12.
2. Cockpit's own time per trial (real trials: `cockpit tune` on the STAND-IN server and bench
   client, on this machine): a trial's wall time minus the server's start-to-ready and the bench
   clients' runs. Goal: under 2 s.

Prints a table, writes benchmarks/out/search.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

import search_sim  # noqa: E402

GRID = 36


def launch_counts(seeds: int, noise: float) -> dict[str, list[int | None]]:
    return {strategy: [search_sim.launches(seed, noise, strategy) for seed in range(seeds)]
            for strategy in ("search", "random")}


def real_overhead(trials: int) -> dict[str, object]:
    """`cockpit tune` with --trials N for real; its own report of the overhead per trial."""
    from search_support import cleanup, search_session

    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        folder = Path(tmp)
        space = {"--cuda-graph-max-bs": [16, 32, 64], "--moe-runner-backend": ["flashinfer_trtllm", "triton"]}
        path, _ = search_session(folder, space=space, trials=trials, prune_below=0)
        env = {"XDG_STATE_HOME": str(folder / "state"), "PATH": "/usr/bin:/bin"}
        try:
            done = subprocess.run([sys.executable, "-m", "cockpit", "tune", str(path), "q1", "--yes", "--json"],
                                  capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
        finally:
            cleanup(folder)
        try:
            each = [float(x) for x in json.loads(done.stdout)["overhead_s"]]
        except (ValueError, KeyError):
            each = []
        return {"trials": trials, "rc": done.returncode, "overhead_s": each,
                "median_s": statistics.median(each) if each else None, "max_s": max(each) if each else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--real-trials", type=int, default=4, help="real trials for the overhead (0: skip)")
    args = ap.parse_args()

    counts = launch_counts(args.seeds, args.noise)
    medians = {k: statistics.median([v if v is not None else GRID + 1 for v in vs]) for k, vs in counts.items()}
    print(f"launches until within 3 % of the grid's best ({GRID}-configuration grid, {args.noise:.0%} launch noise, "
          f"{args.seeds} seeds)")
    print(f"{'strategy':<10} {'median':>7}  per seed")
    print(f"{'grid':<10} {GRID:>7}  (every configuration, to know)")
    for strategy in ("random", "search"):
        print(f"{strategy:<10} {medians[strategy]:>7g}  {counts[strategy]}")
    goal = medians["search"] <= GRID / 3
    print(f"goal: search <= {GRID // 3} launches: {'met' if goal else 'NOT met'}")

    overhead: dict[str, object] = {}
    if args.real_trials:
        overhead = real_overhead(args.real_trials)
        print(f"\ncockpit's own time per trial, {args.real_trials} real trials (stand-in server + bench client): "
              f"median {overhead['median_s']} s, max {overhead['max_s']} s (goal < 2 s); "
              f"per trial {overhead['overhead_s']}")

    out = ROOT / "benchmarks" / "out" / "search.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"grid": GRID, "noise": args.noise, "seeds": args.seeds, "launches": counts,
                               "median": medians, "goal_met": goal, "overhead": overhead}, indent=2) + "\n")
    print(f"\nwrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
