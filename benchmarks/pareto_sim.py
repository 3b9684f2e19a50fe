"""A search with two objectives on a response surface, evaluated directly (no launch): the
offline run the Pareto tests and bench_pareto.py use.

SIMULATOR surface `tradeoff`: output tok/s grows with the graph batch and the chunk size,
output tok/J peaks at a middle graph batch and falls with larger chunks (more power per
token), one backend trades 8 % speed for 10 % less power, and a graph batch of 256 with the
triton backend crashes (a crash from two values together). Each launch sees the truth times
N(1, noise) per objective.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cockpit.control.search.plan import next_launch  # noqa: E402
from cockpit.model.search.search import Search, SearchTrial, SpaceValue, TrialStatus  # noqa: E402
from cockpit.model.search.space import grid  # noqa: E402

__all__ = ["OBJECTIVES", "SPACE", "grid", "hypervolume", "run", "search_for", "true_front", "truth"]

SPACE: dict[str, list[SpaceValue]] = {"--cuda-graph-max-bs": [16, 32, 64, 128, 256],
                                      "--chunked-prefill-size": [2048, 4096, 8192],
                                      "--moe-runner-backend": ["flashinfer_cutlass", "flashinfer_trtllm", "triton"]}
OBJECTIVES = ["output_tok_s", "output_tok_per_joule"]


def truth(params: dict[str, SpaceValue]) -> tuple[float, float] | None:
    """(output tok/s, output tok/J) of a configuration; None: it crashes."""
    bs = int(params["--cuda-graph-max-bs"])  # type: ignore[call-overload]
    chunk = int(params["--chunked-prefill-size"])  # type: ignore[call-overload]
    backend = str(params["--moe-runner-backend"])
    if bs >= 256 and backend == "triton":
        return None
    level = math.log2(bs / 16)  # 0..4
    speed = 3000.0 * (1 + 0.12 * level) * (1 + 0.05 * math.log2(chunk / 2048))
    power = 400.0 * (1 + 0.02 * (level - 2) ** 2 + 0.06 * level) * (1 + 0.07 * math.log2(chunk / 2048))
    if backend == "flashinfer_trtllm":
        speed *= 1.08
        power *= 1.12
    elif backend == "triton":
        speed *= 0.92
        power *= 0.85
    return speed, speed / power


def search_for(budget: int, seed: int | None, repeats: int = 0) -> Search:
    return Search.model_validate({"id": "q1", "name": "tradeoff", "profile": "l1", "sweep": "s1",
                                  "objective": OBJECTIVES, "at_concurrency": 64, "trials": budget,
                                  "repeats": repeats, "space": SPACE, "seed": seed})


def true_front() -> list[tuple[float, float]]:
    points = [v for p in grid(search_for(1, 0)) if (v := truth(p)) is not None]
    return [p for p in points if not any(q[0] >= p[0] and q[1] >= p[1] and q != p for q in points)]


def run(seed: int, budget: int, noise: float = 0.03, sampler: str | None = None, repeats: int = 0) -> Search:
    """The search after `budget` (+ repeats) launches on the surface."""
    search = search_for(budget, seed, repeats)
    rng = random.Random(seed * 7 + 3)
    while (step := next_launch(search, budget + repeats, seed=seed, sampler=sampler)) is not None:
        number = len(search.trial)
        seen = truth(step.params)
        if seen is None:
            trial = SearchTrial(number=number, params=step.params, status=TrialStatus.CRASHED,
                                error="cuda_oom: CUDA out of memory", repeat_of=step.repeat_of)
        else:
            values = [seen[0] * rng.gauss(1.0, noise), seen[1] * rng.gauss(1.0, noise)]
            trial = SearchTrial(number=number, params=step.params, status=TrialStatus.OK, value=values[0],
                                values=values, repeat_of=step.repeat_of)
        search = search.model_copy(update={"trial": [*search.trial, trial]})
    return search


def hypervolume(points: list[tuple[float, float]], ref: tuple[float, float]) -> float:
    """The area two maximised objectives' points dominate above `ref`."""
    area, top = 0.0, ref[1]
    for x, y in sorted(points, key=lambda p: -p[0]):
        if y > top:
            area += (x - ref[0]) * (y - top)
            top = y
    return area
