"""The search's choices on the stand-in's response surface, evaluated directly (no launch):
what bench_search.py compares against the exhaustive grid and random search.

Every strategy sees the same noisy figures (a launch is `noise` faster or slower, seeded),
and is scored by the TRUE figure of the configuration it calls best.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cockpit.control.search.study import propose  # noqa: E402
from cockpit.model.search.search import Search, SearchTrial, TrialStatus  # noqa: E402
from cockpit.model.search.search_space import config_key, grid  # noqa: E402
from cockpit.sandbox import surface  # noqa: E402  (the STAND-IN response surface)

SPACE = {"--cuda-graph-max-bs": [32, 64, 128, 256], "--chunked-prefill-size": [2048, 4096, 8192],
         "--moe-runner-backend": ["flashinfer_cutlass", "flashinfer_trtllm", "triton"]}
CONCURRENCY = 64
MEM_FRACTION = 0.88


def search_of(budget: int = 36) -> Search:
    return Search(id="q1", name="bench", profile="l1", sweep="s1", objective="output_tok_s",
                  at_concurrency=CONCURRENCY, trials=budget, space=SPACE)  # type: ignore[arg-type]


def flags_of(params: dict) -> surface.Flags:
    return surface.Flags(graph_max_bs=int(params["--cuda-graph-max-bs"]),
                         chunked_prefill=int(params["--chunked-prefill-size"]),
                         backend=str(params["--moe-runner-backend"]), mem_fraction=MEM_FRACTION)


def true_value(params: dict) -> float | None:
    return surface.output_tok_s(flags_of(params), CONCURRENCY)


def grid_best() -> float:
    return max(v for p in grid(search_of()) if (v := true_value(p)) is not None)


def _noisy(params: dict, rng: random.Random, noise: float) -> float | None:
    value = true_value(params)
    return None if value is None else value * rng.gauss(1.0, noise)


def _launches_to(order_values: list[tuple[dict, float | None]], goal: float) -> int | None:
    """Launches until the configuration the strategy calls best (best noisy figure so far) is
    truly within the goal."""
    best: tuple[dict, float] | None = None
    for n, (params, seen) in enumerate(order_values, start=1):
        if seen is not None and (best is None or seen > best[1]):
            best = (params, seen)
        if best is not None and (true_value(best[0]) or 0) >= goal:
            return n
    return None


def run_search(seed: int, noise: float, budget: int = 36) -> list[tuple[dict, float | None]]:
    search = search_of(budget)
    rng = random.Random(seed * 31 + 1)
    out: list[tuple[dict, float | None]] = []
    for number in range(budget):
        params = propose(search, seed=seed)
        if params is None:
            break
        seen = _noisy(params, rng, noise)
        trial = SearchTrial(number=number, params=params,
                            status=TrialStatus.CRASHED if seen is None else TrialStatus.OK, value=seen,
                            error="cuda_oom" if seen is None else None)
        search = search.model_copy(update={"trial": [*search.trial, trial]})
        out.append((params, seen))
    return out


def run_random(seed: int, noise: float) -> list[tuple[dict, float | None]]:
    rng = random.Random(seed * 31 + 1)
    points = list(grid(search_of()))
    random.Random(seed).shuffle(points)
    return [(p, _noisy(p, rng, noise)) for p in points]


def launches(seed: int, noise: float, strategy: str, within: float = 0.03) -> int | None:
    goal = grid_best() * (1 - within)
    order = run_search(seed, noise) if strategy == "search" else run_random(seed, noise)
    return _launches_to(order, goal)


def distinct(order: list[tuple[dict, float | None]]) -> bool:
    keys = [config_key(search_of(), p) for p, _ in order]
    return len(keys) == len(set(keys))
