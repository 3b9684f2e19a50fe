"""How far naming can go at a quarter of the grid: an ORACLE that knows each surface's true
top-k feasible configurations (no launch spent exploring, feasibility known) and spends the
whole budget relaunching them, then names the best mean of its own launches.

No search can know its top k for free, so its final-best share is an upper mark for a search
that spends its launches this way (an adaptive race could do a little better than the even
split; `--adaptive` races like a bandit: each launch to the contender whose upper bound is
highest, which is what the search's race does once it has found the contenders).

    .venv/bin/python benchmarks/search_oracle.py [--seeds 200] [--first-seed 200] [--k 2,3,5,10]

Prints a table and writes benchmarks/out/search_oracle.json.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import search_sim as sim  # noqa: E402
from search_surfaces import SURFACES, Params, Surface  # noqa: E402

WITHIN = 0.03


def _ranked(s: Surface) -> list[tuple[float, Params]]:
    out = [(v, p) for p in sim.grid(sim.search_for(s, 1)) if s.feasible(p) and (v := s.figure(p)) is not None]
    return sorted(out, key=lambda vp: -vp[0])


def _name(top: list[tuple[float, Params]], budget: int, noise: float, rng: random.Random, adaptive: bool) -> float:
    """The true figure of the configuration named best after `budget` launches among `top`."""
    seen: list[list[float]] = [[] for _ in top]
    for n in range(budget):
        if not adaptive or n < len(top):
            i = n % len(top)
        else:  # the highest upper bound: mean + 1 sd of the mean (the noise known to the oracle)
            i = max(range(len(top)), key=lambda j: statistics.fmean(seen[j]) * (1 + noise / math.sqrt(len(seen[j]))))
        seen[i].append(top[i][0] * rng.gauss(1.0, noise))
    launched = [j for j in range(len(top)) if seen[j]]
    pick = max(launched, key=lambda j: statistics.fmean(seen[j]))
    return top[pick][0]


def measure(name: str, k: int, seeds: int, first: int, adaptive: bool) -> dict[str, object]:
    s = SURFACES[name]
    ranked = _ranked(s)
    best = ranked[0][0]
    size = len(list(sim.grid(sim.search_for(s, 1))))
    budget = size // 4
    top = ranked[:k]
    hits = 0
    for seed in range(first, first + seeds):
        rng = random.Random(seed * 7 + 3)
        hits += _name(top, budget, s.noise, rng, adaptive) >= best * (1 - WITHIN)
    within = sum(1 for v, _ in ranked if v >= best * (1 - WITHIN))
    gaps = [round(100 * (1 - v / best), 1) for v, _ in ranked[1:6]]
    return {"surface": name, "k": k, "budget": budget, "noise": s.noise, "within_3pct_configs": within,
            "next_gaps_pct": gaps, "final_within": hits / seeds, "adaptive": adaptive}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=200)
    ap.add_argument("--k", default="2,3,5,10")
    ap.add_argument("--surfaces", default=",".join(SURFACES))
    args = ap.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    rows = [measure(name, k, args.seeds, args.first_seed, adaptive)
            for name in args.surfaces.split(",") for adaptive in (False, True) for k in ks]
    head = "| surface | budget | noise | configs within 3 % | next five, % below the best | " + \
        " | ".join(f"top {k} {'bandit' if a else 'even'}" for a in (False, True) for k in ks) + " |"
    print(head)
    print("|" + " --- |" * (5 + 2 * len(ks)))
    for name in args.surfaces.split(","):
        mine = [r for r in rows if r["surface"] == name]
        r0 = mine[0]
        cells = " | ".join(f"{100 * float(r['final_within']):.1f} %" for r in mine)  # type: ignore[arg-type]
        print(f"| {name} | {r0['budget']} | {100 * float(r0['noise']):.0f} % | {r0['within_3pct_configs']} | "  # type: ignore[arg-type]
              f"{', '.join(str(g) for g in r0['next_gaps_pct'])} | {cells} |")  # type: ignore[attr-defined]
    out = ROOT / "benchmarks" / "out" / "search_oracle.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"seeds": args.seeds, "first_seed": args.first_seed, "rows": rows}, indent=1))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
