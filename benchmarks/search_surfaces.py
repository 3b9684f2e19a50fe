"""Held-out response surfaces for the search's benchmark (bench_search.py): made-up but
shaped like what a launch search meets, none the search was tuned on while written.

Each surface is a space (categorical and numeric flags), a true figure per configuration
(None: the launch crashes), optionally a constraint figure with its target (TTFT p99 ≤ X),
and the launch noise (a launch's figure is the truth times N(1, noise)). Plain Python.

* `interact`  240 configurations, 4 flags: the best MoE backend depends on the prefill
  chunk, the best graph batch on the memory fraction; a crash region of two flags
  together (graph batch ≥ 128 with memory ≥ 0.86) and one of a backend with the largest
  chunk (~23 % crash); 5 % noise.
* `edge`      128 configurations: throughput rises with the chunk and the running cap, so
  does TTFT p99; the target TTFT p99 ≤ 600 ms cuts off the throughput-best, the best
  feasible sits on the edge; 7 % noise on throughput, 10 % on the p99.
* `crashbest` 36 configurations: the fastest backend crashes with the largest graph
  batch (and another backend with one attention backend): the best is next to a crash;
  5 % noise.
* `ridge`     130 configurations, numeric-heavy: a smooth ridge over the memory fraction
  (13 values) whose peak moves with the chunk, a switch that helps only at high memory;
  10 % noise.

Held out (HELD_OUT, written before the sampler, its start or its race were tuned in issue
36 step two; reported apart, never tuned on):

* `plateau`   144 configurations, 4 flags: most of the space sits on a flat plateau near
  90 % of the best; a narrow peak needs two values together (a graph batch of 96 with
  the `fa3` attention backend, +10 %, its one-flag neighbours +3 to +5 %); a crash
  corner of a small memory fraction with the largest graph batch; 6 % noise.
* `catheavy`  216 configurations, 5 categorical flags, no numeric order to lean on:
  mostly additive effects plus one interaction that flips the best scheduler under
  one KV dtype, a crash pair (fp8 KV with the triton attention backend); 8 % noise.
  (Three of its seeds were traced once while choosing how the leader is ranked, so it is
  only nearly held out; `twopeak` was written then, before that choice was measured.)
* `twopeak`   240 configurations, 5 flags: a broad hill near 95 % of the best and a narrow
  true peak of three values together far from it, a crash pair (the largest running cap
  with the least conservative scheduling), a TTFT p99 target that cuts the largest chunks
  without mixed chunking; 7 % noise, 5 % on the p99.

Held out a second time (HELD_OUT_2, written before the shrunk-estimate round of issue 36 item
3 was measured; reported apart, never tuned on):

* `bowl`      270 configurations, 3 numeric flags only: a smooth bowl in the memory
  fraction, the chunk and the running cap whose centre sits off the grid's middle and is
  tilted (the cap's best moves with the memory fraction); 8 % noise.
* `flattop`   144 configurations, 4 flags: a flat top of many near-ties (a sixth of the
  space within 3 % of the best), a shoulder of many configurations at 93-96 % around it,
  and a crash region of two flags together (graph batch >= 128 with memory >= 0.88); 6 %
  noise.

Held out a third time (HELD_OUT_3, written before the smooth-basis round of issue 36 was
measured on them; reported apart, never tuned on):

* `tpgraph`   120 configurations, 4 flags: tensor parallelism pays only with large graph
  batches (tp 8 needs >= 128), the best running cap grows with the graph batch (requests past
  the largest graph run eager), the radix cache helps except at the largest cap; a crash
  region of two flags (tp 2 with a graph batch of 512, and tp 2 with a cap of 256); 7 % noise.
* `specdec`   160 configurations, 4 flags: speculative decoding's steps, top-k and draft
  tokens with an acceptance-shaped optimum (3 steps, top-k 2, 8 draft tokens), draft tokens
  fewer than top-k fail at start (a two-flag crash region), an ITL p99 target that cuts large
  top-k with many draft tokens; 6 % noise, 8 % on the p99.
* `cliff`     168 configurations, 4 flags: throughput climbs with the memory fraction until
  a cliff (KV swapping) whose place moves with the running cap; the best sits one step before
  it; an attention backend and a chunk that matter a little; 5 % noise.

Held out a fourth time (HELD_OUT_4, small budgets, written before a race share for small
budgets was measured on them):

* `smallcat`  48 configurations, 4 flags: the attention backend, the KV dtype, the graph
  batch and the schedule policy, mostly additive with fp8 KV paying more with larger graph
  batches; triton attention crashes with the largest graph batch; 6 % noise.
* `smallnum`  40 configurations, 3 flags: the memory fraction (5 values), the chunk (4) and
  overlap scheduling, a peak whose chunk moves with the memory fraction; the largest memory
  fraction with the largest chunk crashes; 8 % noise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Params = dict[str, Any]


@dataclass(frozen=True)
class Surface:
    name: str
    space: dict[str, Any]
    figure: Callable[[Params], float | None]
    noise: float
    constraint: Callable[[Params], float] | None = None
    """A figure that must stay at or under `target` (e.g. TTFT p99 ms)."""
    target: float = 0.0
    constraint_noise: float = 0.0
    about: str = ""

    def feasible(self, params: Params) -> bool:
        return self.figure(params) is not None and (self.constraint is None or self.constraint(params) <= self.target)


def _interact(p: Params) -> float | None:
    backend, bs, chunk, mem = p["--moe-runner-backend"], p["--cuda-graph-max-bs"], p["--chunked-prefill-size"], \
        p["--mem-fraction-static"]
    if bs >= 128 and mem >= 0.86:
        return None
    if backend == "triton" and chunk >= 16384:
        return None
    c = math.log2(chunk / 2048)  # 0..3
    speed = {"cutlass": 1.0 + 0.03 * c, "trtllm": 1.12 - 0.05 * c, "triton": 0.86 + 0.02 * c}[backend]
    # the best graph batch grows with the memory fraction (more KV room)
    best_bs = 32 + (mem - 0.78) / 0.08 * 96  # 32 at 0.78 .. 128 at 0.86
    speed *= 1.0 - 0.06 * abs(math.log2(bs / best_bs))
    speed *= 1.0 + 0.9 * (mem - 0.78)
    return 4000.0 * speed


def _edge_tput(p: Params) -> float | None:
    chunk, cap, policy, compile_ = p["--chunked-prefill-size"], p["--max-running-requests"], \
        p["--schedule-policy"], p["--enable-torch-compile"]
    c = math.log2(chunk / 512)  # 0..7
    speed = 1.0 + 0.06 * c - 0.004 * c * c
    speed *= {16: 0.7, 32: 0.88, 64: 1.0, 128: 1.06}[cap]
    speed *= 1.04 if policy == "lpm" else 1.0
    speed *= 1.03 if compile_ else 1.0
    return 3000.0 * speed


def _edge_ttft(p: Params) -> float:
    chunk, cap, policy = p["--chunked-prefill-size"], p["--max-running-requests"], p["--schedule-policy"]
    c = math.log2(chunk / 512)
    ttft = 300.0 * (1 + 0.22 * c) * {16: 0.8, 32: 0.9, 64: 1.0, 128: 1.25}[cap]
    return ttft * (1.08 if policy == "lpm" else 1.0)


def _crashbest(p: Params) -> float | None:
    backend, bs, attn = p["--moe-runner-backend"], p["--cuda-graph-max-bs"], p["--attention-backend"]
    if backend == "trtllm" and bs == 256:
        return None
    if backend == "cutlass" and attn == "triton":
        return None
    speed = {"trtllm": 1.15, "cutlass": 1.0, "triton": 0.8}[backend]
    speed *= {32: 0.86, 64: 0.93, 128: 1.0, 256: 1.04}[bs]
    speed *= {"fa3": 1.05, "flashinfer": 1.0, "triton": 0.9}[attn]
    return 2500.0 * speed


def _ridge(p: Params) -> float | None:
    mem, chunk, overlap = p["--mem-fraction-static"], p["--chunked-prefill-size"], p["--enable-overlap"]
    if mem >= 0.94 and chunk >= 8192:
        return None
    peak = 0.78 + 0.03 * math.log2(chunk / 1024)  # 0.78 .. 0.90
    speed = 1.0 - 6.0 * (mem - peak) ** 2 * 10
    speed *= 1.0 - 0.03 * abs(math.log2(chunk / 4096))
    if overlap:
        speed *= 1.0 + max(0.0, (mem - 0.82)) * 0.8
    return 5000.0 * max(speed, 0.3)


def _plateau(p: Params) -> float | None:
    bs, attn, mem, policy = p["--cuda-graph-max-bs"], p["--attention-backend"], p["--mem-fraction-static"], \
        p["--schedule-policy"]
    if mem <= 0.76 and bs == 160:
        return None
    speed = 0.9 + 0.01 * (mem - 0.76) / 0.12 + (0.005 if policy == "lpm" else 0.0)
    if attn == "fa3":
        speed += {64: 0.03, 96: 0.1, 128: 0.05}.get(bs, 0.0)  # the peak: both values together
    elif bs == 96:
        speed += 0.02
    return 3500.0 * speed


def _catheavy(p: Params) -> float | None:
    attn, kv, sched, lb, spec = p["--attention-backend"], p["--kv-cache-dtype"], p["--schedule-policy"], \
        p["--load-balance-method"], p["--speculative-algorithm"]
    if kv == "fp8_e5m2" and attn == "triton":
        return None
    speed = {"fa3": 1.06, "flashinfer": 1.0, "triton": 0.9}[attn]
    speed *= {"auto": 1.0, "fp8_e4m3": 1.07, "fp8_e5m2": 1.05}[kv]
    sched_gain = {"lpm": 1.03, "fcfs": 1.0, "dfs-weight": 0.97}
    if kv != "auto":  # fp8 KV: more room, the cache-aware policy stops paying and FCFS wins
        sched_gain = {"lpm": 0.97, "fcfs": 1.04, "dfs-weight": 0.99}
    speed *= sched_gain[sched]
    speed *= {"round_robin": 1.0, "shortest_queue": 1.03}[lb]
    speed *= {"none": 1.0, "eagle": 1.05, "ngram": 0.96, "eagle3": 1.02}[spec]
    return 2200.0 * speed


def _twopeak(p: Params) -> float | None:
    cap, chunk, attn, mixed, cons = p["--max-running-requests"], p["--chunked-prefill-size"], \
        p["--attention-backend"], p["--enable-mixed-chunk"], p["--schedule-conservativeness"]
    if cap == 128 and cons == 0.3:
        return None
    a, c = math.log2(cap / 64), math.log2(chunk / 2048)
    hill = 0.95 - 0.03 * a * a - 0.02 * c * c  # broad: the best of it at cap 64, chunk 2048
    peak = 1.0 if (cap, chunk, mixed) == (128, 8192, True) else 0.0  # narrow: three values together
    speed = max(hill, peak, 0.6)
    speed *= 1.02 if attn == "fa3" else 1.0
    speed *= {0.3: 1.0, 0.6: 1.01, 1.0: 0.98}[cons]
    return 2800.0 * speed


def _twopeak_ttft(p: Params) -> float:
    cap, chunk, mixed = p["--max-running-requests"], p["--chunked-prefill-size"], p["--enable-mixed-chunk"]
    return 200.0 * (1 + 0.15 * math.log2(chunk / 1024)) * (cap / 64) ** 0.3 * (0.9 if mixed else 1.0)


def _bowl(p: Params) -> float | None:
    mem, chunk, cap = p["--mem-fraction-static"], p["--chunked-prefill-size"], p["--max-running-requests"]
    c, a = math.log2(chunk / 1024), math.log2(cap / 16)  # 0..4, 0..3.58
    best_a = 1.6 + (mem - 0.70) / 0.24 * 1.6  # the cap's best grows with the memory fraction
    loss = 9.0 * (mem - 0.85) ** 2 + 0.012 * (c - 2.6) ** 2 + 0.02 * (a - best_a) ** 2
    return 4200.0 * max(1.0 - loss, 0.4)


def _flattop(p: Params) -> float | None:
    attn, bs, policy, mem = p["--attention-backend"], p["--cuda-graph-max-bs"], p["--schedule-policy"], \
        p["--mem-fraction-static"]
    if bs >= 128 and mem >= 0.88:
        return None
    speed = {"fa3": 1.0, "flashinfer": 0.985, "triton": 0.9}[attn]
    speed *= {32: 0.9, 64: 0.99, 128: 1.0, 256: 0.995}[bs]
    speed *= {"lpm": 1.0, "fcfs": 0.99, "dfs-weight": 0.955}[policy]
    speed *= {0.80: 0.96, 0.84: 0.99, 0.88: 1.0, 0.92: 1.0}[round(mem, 2)]
    return 3100.0 * speed


def _tpgraph(p: Params) -> float | None:
    tp, bs, cap, radix = p["--tp-size"], p["--cuda-graph-max-bs"], p["--max-running-requests"], \
        p["--disable-radix-cache"]
    if tp == 2 and (bs == 512 or cap == 256):
        return None
    speed = {2: 0.82, 4: 1.0, 8: 1.06 if bs >= 128 else 0.9}[tp]
    eager = max(0.0, math.log2(cap / bs))  # the share of steps past the largest graph, roughly
    speed *= (1.0 + 0.05 * math.log2(cap / 32)) * (1.0 - 0.09 * eager)
    speed *= 1.0 - 0.02 * max(0.0, math.log2(bs / 128))  # graph memory taken from the KV cache
    if not radix:  # the cache on: prefix hits, except at the largest cap where it thrashes
        speed *= 1.04 if cap < 256 else 0.98
    return 5200.0 * speed


def _specdec(p: Params) -> float | None:
    steps, topk, draft, attn = p["--speculative-num-steps"], p["--speculative-eagle-topk"], \
        p["--speculative-num-draft-tokens"], p["--attention-backend"]
    if draft < topk:
        return None
    accepted = 1.0 + 1.9 * (1 - math.exp(-steps / 1.6)) * (1 - 0.5 * math.exp(-draft / 5.0)) \
        * (1 + 0.06 * math.log2(topk))
    cost = 1.0 + 0.09 * steps + 0.012 * draft * topk ** 0.5
    speed = accepted / cost * (1.04 if attn == "fa3" else 1.0)
    return 1500.0 * speed


def _specdec_itl(p: Params) -> float:
    steps, topk, draft = p["--speculative-num-steps"], p["--speculative-eagle-topk"], \
        p["--speculative-num-draft-tokens"]
    return 18.0 * (1 + 0.05 * steps) * (1 + 0.004 * draft * topk)


def _cliff(p: Params) -> float | None:
    mem, cap, attn, chunk = p["--mem-fraction-static"], p["--max-running-requests"], \
        p["--attention-backend"], p["--chunked-prefill-size"]
    edge = 0.90 - 0.02 * math.log2(cap / 32)  # the cliff comes sooner with more running requests
    speed = (1.0 + 1.2 * (mem - 0.70)) * (1.0 + 0.06 * math.log2(cap / 32))
    if mem > edge + 1e-9:
        speed *= 0.72  # swapping
    speed *= {"fa3": 1.02, "flashinfer": 1.0, "triton": 0.93}[attn]
    speed *= {4096: 0.99, 8192: 1.0}[chunk]
    return 3300.0 * speed


def _smallcat(p: Params) -> float | None:
    attn, kv, bs, policy = p["--attention-backend"], p["--kv-cache-dtype"], p["--cuda-graph-max-bs"], \
        p["--schedule-policy"]
    if attn == "triton" and bs == 512:
        return None
    speed = {"fa3": 1.0, "flashinfer": 1.04, "triton": 0.9}[attn]
    speed *= {64: 0.9, 128: 0.97, 256: 1.0, 512: 0.98}[bs]
    if kv == "fp8_e4m3":
        speed *= 1.02 + 0.02 * math.log2(bs / 64)  # more KV room pays with more requests in a graph
    speed *= 1.03 if policy == "lpm" else 1.0
    return 2600.0 * speed


def _smallnum(p: Params) -> float | None:
    mem, chunk, overlap = p["--mem-fraction-static"], p["--chunked-prefill-size"], p["--enable-overlap"]
    if mem >= 0.9 and chunk == 16384:
        return None
    c = math.log2(chunk / 2048)  # 0..3
    best_c = (mem - 0.78) / 0.12 * 3  # the best chunk grows with the memory fraction
    speed = (1.0 + 0.8 * (mem - 0.78)) * (1.0 - 0.04 * (c - best_c) ** 2)
    speed *= 1.04 if overlap else 1.0
    return 3600.0 * speed


SURFACES: dict[str, Surface] = {s.name: s for s in (
    Surface("interact", {"--moe-runner-backend": ["cutlass", "trtllm", "triton"],
                         "--cuda-graph-max-bs": [16, 32, 64, 128, 256],
                         "--chunked-prefill-size": [2048, 4096, 8192, 16384],
                         "--mem-fraction-static": {"low": 0.78, "high": 0.90, "step": 0.04}},
            _interact, 0.05, about="240 configs, interactions, two-flag crash regions, 5 % noise"),
    Surface("edge", {"--chunked-prefill-size": [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536],
                     "--max-running-requests": [16, 32, 64, 128], "--schedule-policy": ["lpm", "fcfs"],
                     "--enable-torch-compile": [True, False]},
            _edge_tput, 0.07, constraint=_edge_ttft, target=600.0, constraint_noise=0.10,
            about="128 configs, TTFT p99 <= 600 ms cuts off the throughput-best, 7 % noise"),
    Surface("crashbest", {"--moe-runner-backend": ["cutlass", "trtllm", "triton"],
                          "--cuda-graph-max-bs": [32, 64, 128, 256],
                          "--attention-backend": ["fa3", "flashinfer", "triton"]},
            _crashbest, 0.05, about="36 configs, the best backend crashes with one graph size, 5 % noise"),
    Surface("ridge", {"--mem-fraction-static": {"low": 0.70, "high": 0.94, "step": 0.02},
                      "--chunked-prefill-size": [1024, 2048, 4096, 8192, 16384],
                      "--enable-overlap": [True, False]},
            _ridge, 0.10, about="130 configs, numeric ridge whose peak moves with the chunk, 10 % noise"),
    Surface("plateau", {"--cuda-graph-max-bs": [32, 64, 96, 128, 160, 192],
                        "--attention-backend": ["fa3", "flashinfer", "triton"],
                        "--mem-fraction-static": {"low": 0.76, "high": 0.88, "step": 0.04},
                        "--schedule-policy": ["lpm", "fcfs"]},
            _plateau, 0.06, about="144 configs, a flat plateau and a narrow two-flag peak, 6 % noise (held out)"),
    Surface("catheavy", {"--attention-backend": ["fa3", "flashinfer", "triton"],
                         "--kv-cache-dtype": ["auto", "fp8_e4m3", "fp8_e5m2"],
                         "--schedule-policy": ["lpm", "fcfs", "dfs-weight"],
                         "--load-balance-method": ["round_robin", "shortest_queue"],
                         "--speculative-algorithm": ["none", "eagle", "ngram", "eagle3"]},
            _catheavy, 0.08, about="216 configs, 5 categorical flags, an interaction, a crash pair, 8 % noise "
                                   "(held out)"),
    Surface("twopeak", {"--max-running-requests": [32, 48, 64, 96, 128],
                        "--chunked-prefill-size": [1024, 2048, 4096, 8192],
                        "--attention-backend": ["fa3", "flashinfer"], "--enable-mixed-chunk": [True, False],
                        "--schedule-conservativeness": [0.3, 0.6, 1.0]},
            _twopeak, 0.07, constraint=_twopeak_ttft, target=330.0, constraint_noise=0.05,
            about="240 configs, a broad hill at 95 % and a narrow three-flag peak, a crash pair, a TTFT p99 "
                  "target, 7 % noise (held out)"),
    Surface("bowl", {"--mem-fraction-static": {"low": 0.70, "high": 0.94, "step": 0.03},
                     "--chunked-prefill-size": [1024, 2048, 4096, 8192, 16384],
                     "--max-running-requests": [16, 32, 48, 64, 96, 128]},
            _bowl, 0.08, about="270 configs, 3 numeric flags, a tilted smooth bowl, 8 % noise (held out 2)"),
    Surface("flattop", {"--attention-backend": ["fa3", "flashinfer", "triton"],
                        "--cuda-graph-max-bs": [32, 64, 128, 256],
                        "--schedule-policy": ["lpm", "fcfs", "dfs-weight"],
                        "--mem-fraction-static": {"low": 0.80, "high": 0.92, "step": 0.04}},
            _flattop, 0.06, about="144 configs, a flat top of near-ties, a shoulder, a two-flag crash region, "
                                  "6 % noise (held out 2)"),
    Surface("tpgraph", {"--tp-size": [2, 4, 8], "--cuda-graph-max-bs": [32, 64, 128, 256, 512],
                        "--max-running-requests": [32, 64, 128, 256], "--disable-radix-cache": [True, False]},
            _tpgraph, 0.07, about="120 configs, tp pays with large graphs, cap follows graph size, two-flag "
                                  "crashes, 7 % noise (held out 3)"),
    Surface("specdec", {"--speculative-num-steps": [1, 2, 3, 4, 5], "--speculative-eagle-topk": [1, 2, 4, 8],
                        "--speculative-num-draft-tokens": [2, 4, 8, 16], "--attention-backend": ["fa3", "flashinfer"]},
            _specdec, 0.06, constraint=_specdec_itl, target=21.5, constraint_noise=0.08,
            about="160 configs, speculative decoding's optimum, a two-flag crash region, an ITL p99 target, "
                  "6 % noise (held out 3)"),
    Surface("cliff", {"--mem-fraction-static": {"low": 0.76, "high": 0.94, "step": 0.03},
                      "--max-running-requests": [32, 64, 128, 256],
                      "--attention-backend": ["fa3", "flashinfer", "triton"], "--chunked-prefill-size": [4096, 8192]},
            _cliff, 0.05, about="168 configs, a cliff whose place moves with the cap, the best one step before it, "
                                "5 % noise (held out 3)"),
    Surface("smallcat", {"--attention-backend": ["fa3", "flashinfer", "triton"],
                         "--kv-cache-dtype": ["auto", "fp8_e4m3"], "--cuda-graph-max-bs": [64, 128, 256, 512],
                         "--schedule-policy": ["lpm", "fcfs"]},
            _smallcat, 0.06, about="48 configs, mostly additive, fp8 KV pays with larger graphs, a two-flag crash, "
                                   "6 % noise (held out 4)"),
    Surface("smallnum", {"--mem-fraction-static": {"low": 0.78, "high": 0.90, "step": 0.03},
                         "--chunked-prefill-size": [2048, 4096, 8192, 16384], "--enable-overlap": [True, False]},
            _smallnum, 0.08, about="40 configs, a peak whose chunk moves with the memory fraction, a two-flag crash, "
                                   "8 % noise (held out 4)"),
)}

TUNED = ("interact", "edge", "crashbest", "ridge")
"""The surfaces the sampler, its start and its race were measured on while choosing."""
HELD_OUT = ("plateau", "catheavy", "twopeak", "bowl", "flattop", "tpgraph", "specdec", "cliff", "smallcat", "smallnum")
"""Written before that tuning and never tuned on: they say whether the choice carries over."""
HELD_OUT_2 = ("bowl", "flattop")
"""Written before the shrunk-estimate round (issue 36 item 3, step three) was measured."""
HELD_OUT_3 = ("tpgraph", "specdec", "cliff")
"""Written before the smooth-basis round (issue 36, this round) was measured on them."""
HELD_OUT_4 = ("smallcat", "smallnum")
"""Small budgets, written before a race share for small budgets was measured on them."""
