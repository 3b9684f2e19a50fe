"""SIMULATOR / STAND-IN response surface: how the stand-in server's speed, latency, power and crashes
depend on the real SGLang flags it is given (with `--standin-surface`), so a search over
launch configurations can be tested and benchmarked without GPUs.

A made-up but plausible model of a MoE server on one node, not a measurement:
* `--moe-runner-backend`: flashinfer_trtllm fastest, flashinfer_cutlass the reference,
  triton slowest; trtllm draws a little more power per token.
* `--cuda-graph-max-bs`: decode runs on CUDA graphs only while the running requests fit
  (past it, each step is ~30 % slower); every larger graph set takes memory from the KV cache.
* `--chunked-prefill-size`: larger chunks make the first token come sooner but stall the
  running decodes longer.
* `--mem-fraction-static`: more KV cache (a little faster under load); at 0.88 or more with
  a graph batch of 256 the graph capture runs out of memory (a crash while capturing).
* `--enable-torch-compile`: +5 % decode, a longer start.
Plain standard library: the server imports it, and so does benchmarks/bench_search.py,
which evaluates the surface directly for its launch-count comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BACKEND_SPEED = {"flashinfer_trtllm": 1.12, "flashinfer_cutlass": 1.0, "triton": 0.78}
BACKEND_POWER = {"flashinfer_trtllm": 1.06, "flashinfer_cutlass": 1.0, "triton": 0.92}
IDLE_W, BUSY_W, LIMIT_W = 110.0, 520.0, 700.0


@dataclass(frozen=True, slots=True)
class Flags:
    graph_max_bs: int = 160
    chunked_prefill: int = 8192
    backend: str = "flashinfer_cutlass"
    mem_fraction: float = 0.80
    torch_compile: bool = False
    tp: int = 1


def crash_phase(f: Flags) -> str | None:
    """Where a launch with these flags dies (None: it gets ready)."""
    if f.graph_max_bs >= 256 and f.mem_fraction >= 0.88:
        return "capture"  # CUDA OOM capturing the largest graphs
    if f.mem_fraction >= 0.95:
        return "load"
    return None


def decode_factor(f: Flags, running: int) -> float:
    """Per-request decode speed relative to the stand-in's base tok/s at `running` requests."""
    speed = BACKEND_SPEED.get(f.backend, 0.9)
    if running > f.graph_max_bs:
        speed *= 0.7  # past the largest graph: eager decode
    speed *= 1.0 - 0.025 * math.log2(max(f.graph_max_bs, 1) / 32)  # graph memory taken from the KV cache
    speed *= 1.0 - 0.035 * math.log2(max(f.chunked_prefill, 512) / 2048)  # prefill chunks stall decodes
    speed *= 1.0 + 0.6 * (f.mem_fraction - 0.80) * min(1.0, running / 32)
    if f.torch_compile:
        speed *= 1.05
    # a shared GPU: each request gets less as more run (throughput still grows, sub-linearly)
    return speed / (1.0 + running / 48.0)


def prefill_s(f: Flags, prompt_tokens: int) -> float:
    """Seconds before the first token of a prompt (chunks of `chunked_prefill` tokens)."""
    chunks = math.ceil(max(prompt_tokens, 1) / max(f.chunked_prefill, 1))
    return 0.002 + 0.004 * chunks + prompt_tokens / 2_000_000


def power_w(f: Flags, running: int) -> float:
    """Watts per GPU with `running` requests in flight."""
    load = min(1.0, running / 48.0) ** 0.6
    return IDLE_W + BUSY_W * load * BACKEND_POWER.get(f.backend, 1.0) * (0.95 + 0.1 * (f.mem_fraction - 0.8))


def output_tok_s(f: Flags, concurrency: int, base_tok_s: float = 200.0) -> float | None:
    """The steady-state output tokens per second at `concurrency` (None: the launch crashes).
    What benchmarks/bench_search.py evaluates instead of launching."""
    if crash_phase(f) is not None:
        return None
    return concurrency * base_tok_s * decode_factor(f, concurrency)


def flags_of(args: object) -> Flags:
    """Flags from the server's parsed arguments."""
    return Flags(graph_max_bs=int(getattr(args, "cuda_graph_max_bs", None) or 160),
                 chunked_prefill=int(getattr(args, "chunked_prefill_size", None) or 8192),
                 backend=str(getattr(args, "moe_runner_backend", None) or "flashinfer_cutlass"),
                 mem_fraction=float(getattr(args, "mem_fraction_static", None) or 0.80),
                 torch_compile=bool(getattr(args, "enable_torch_compile", False)),
                 tp=int(getattr(args, "tp", 1) or 1))
