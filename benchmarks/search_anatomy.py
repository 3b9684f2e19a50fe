"""Where the search loses, per surface: at a budget of a quarter of the grid, how often it
launched a configuration truly within 3 % of the best, how often it named one, and in the
seeds where it launched one but named another, where that one stood on the shrunk estimate
and how many launches each had. Also how well the estimate's sd covers the truth (z = the
log error over the sd: 1 is calibrated) over every launched configuration and the top five.

    .venv/bin/python benchmarks/search_anatomy.py [--seeds 100] [--first-seed 200] [--surfaces a,b]

Prints a table, writes benchmarks/out/search_anatomy.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import search_sim as sim  # noqa: E402
from search_surfaces import SURFACES  # noqa: E402

from cockpit.control.search.plan import next_launch  # noqa: E402
from cockpit.model.search.scoring import leaderboard  # noqa: E402
from cockpit.model.search.search import SearchTrial, TrialStatus  # noqa: E402

WITHIN = 0.03


def one(name: str, seed: int) -> dict[str, object]:
    s = SURFACES[name]
    budget = len(list(sim.grid(sim.search_for(s, 1)))) // 4
    search = sim.search_for(s, budget, seed)
    rng = random.Random(seed * 7 + 3)  # the same noise as bench_search.py's runs
    for number in range(budget):
        step = next_launch(search, budget, seed=seed)
        if step is None:
            break
        seen, constraints = sim._observe(s, step.params, rng)  # noqa: SLF001
        trial = SearchTrial(number=number, params=step.params, repeat_of=step.repeat_of,
                            status=TrialStatus.CRASHED if seen is None else TrialStatus.OK, value=seen,
                            constraints=constraints, error="crashed" if seen is None else None)
        search = search.model_copy(update={"trial": [*search.trial, trial]})
    goal = sim.true_best(s) * (1 - WITHIN)
    board = [g for g in leaderboard(search) if g.feasible]
    good = [g for g in board if sim._true_of(s, g.first.params) >= goal]  # noqa: SLF001
    named = board[0] if board else None
    by_estimate = sorted(board, key=lambda g: -(g.mean or 0.0))
    out: dict[str, object] = {
        "launched_good": any(sim._true_of(s, p) >= goal for p in (t.params for t in search.trial)),  # noqa: SLF001
        "named_good": named is not None and sim._true_of(s, named.first.params) >= goal,  # noqa: SLF001
        "named_infeasible": named is not None and not s.feasible(named.first.params),
        "z": [(math.log(g.shrunk.value) - math.log(t)) / g.shrunk.sd_log for g in board
              if g.shrunk is not None and (t := s.figure(g.first.params))],
        "z_top5": [(math.log(g.shrunk.value) - math.log(t)) / g.shrunk.sd_log for g in by_estimate[:5]
                   if g.shrunk is not None and (t := s.figure(g.first.params))],
    }
    if good and named is not None and not out["named_good"]:
        best_good = max(good, key=lambda g: g.mean or 0.0)
        out["lost"] = {"rank": by_estimate.index(best_good), "its_launches": len(best_good.values),
                       "named_launches": len(named.values),
                       "named_true": round(sim._true_of(s, named.first.params) / sim.true_best(s), 3)}  # noqa: SLF001
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=200)
    ap.add_argument("--surfaces", default="interact,edge,crashbest,ridge,plateau,catheavy,bowl,flattop")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "search_anatomy.json"))
    args = ap.parse_args()
    rows = []
    print(f"{'surface':<10} {'launched a good one':>20} {'named one':>10} {'named infeasible':>17} "
          f"{'sd(z) all':>9} {'sd(z) top 5':>11}  lost with a good one launched: its rank on the estimate")
    for name in args.surfaces.split(","):
        runs = [one(name, seed) for seed in range(args.first_seed, args.first_seed + args.seeds)]
        lost = [r["lost"] for r in runs if "lost" in r]
        z = [v for r in runs for v in r["z"]]  # type: ignore[attr-defined]
        z5 = [v for r in runs for v in r["z_top5"]]  # type: ignore[attr-defined]
        row = {"surface": name, "seeds": args.seeds,
               "launched_good": sum(bool(r["launched_good"]) for r in runs),
               "named_good": sum(bool(r["named_good"]) for r in runs),
               "named_infeasible": sum(bool(r["named_infeasible"]) for r in runs),
               "sd_z": round(statistics.pstdev(z), 2), "mean_z": round(statistics.mean(z), 2),
               "sd_z_top5": round(statistics.pstdev(z5), 2), "mean_z_top5": round(statistics.mean(z5), 2),
               "lost_rank": dict(sorted(Counter(min(int(x["rank"]), 5) for x in lost).items())),  # type: ignore[index]
               "lost_its_launches": statistics.median([x["its_launches"] for x in lost]) if lost else None,  # type: ignore[index]
               "lost_named_launches": statistics.median([x["named_launches"] for x in lost]) if lost else None,  # type: ignore[index]
               "lost_named_true": statistics.median([x["named_true"] for x in lost]) if lost else None}  # type: ignore[index]
        rows.append(row)
        print(f"{name:<10} {row['launched_good']:>14}/{args.seeds:<5} {row['named_good']:>10} "
              f"{row['named_infeasible']:>17} {row['sd_z']:>9} {row['sd_z_top5']:>11}  "
              f"{row['lost_rank']} (0 = top); median launches: it {row['lost_its_launches']}, the named "
              f"{row['lost_named_launches']}, the named truly at {row['lost_named_true']} of the best", flush=True)
    out = Path(args.out)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"first_seed": args.first_seed, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
