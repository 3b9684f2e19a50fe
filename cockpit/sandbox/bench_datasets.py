"""SIMULATOR / STAND-IN datasets of the bench client (NOT the real client's code), for cockpit's
tests and `cockpit sandbox`.

The flags and their defaults are today's client's (`sglang.benchmark.args`, checked against
sgl-project/sglang python/sglang/benchmark/args.py and datasets/generated_shared_prefix.py,
mooncake.py): what a request asks (prompt and output tokens) and when it is sent, for the
datasets a sweep can name. Nothing is tokenized and nothing is downloaded: a prompt is
counted in tokens, and `mooncake` without `--dataset-path` replays a small trace made here
(the real client downloads one per workload; this machine has no network), said on stderr.

Only the standard library, as the client script that imports it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass

MOONCAKE_WORKLOADS = ("mooncake", "conversation", "synthetic", "toolagent")


@dataclass(frozen=True)
class Request:
    input_len: int
    output_len: int
    send_at_s: float = 0.0
    """Seconds after the main run starts (mooncake with --use-trace-timestamps), else 0."""


def add_flags(p: argparse.ArgumentParser) -> None:
    """The dataset flags beyond random / sharegpt, with the real client's defaults."""
    p.add_argument("--sharegpt-context-len", type=int, default=None)
    p.add_argument("--gsp-num-groups", type=int, default=64)
    p.add_argument("--gsp-prompts-per-group", type=int, default=16)
    p.add_argument("--gsp-system-prompt-len", type=int, default=2048)
    p.add_argument("--gsp-question-len", type=int, default=128)
    p.add_argument("--gsp-output-len", type=int, default=256)
    p.add_argument("--use-trace-timestamps", action="store_true")
    p.add_argument("--mooncake-slowdown-factor", type=float, default=1.0)
    p.add_argument("--mooncake-num-rounds", type=int, default=1)
    p.add_argument("--mooncake-workload", choices=MOONCAKE_WORKLOADS, default="conversation")


def _random(args: argparse.Namespace, rng: random.Random) -> list[Request]:
    lo_in = max(int(args.random_input_len * args.random_range_ratio), 1)
    lo_out = max(int(args.random_output_len * args.random_range_ratio), 1)
    return [Request(rng.randint(lo_in, args.random_input_len), rng.randint(lo_out, args.random_output_len))
            for _ in range(args.num_prompts)]


def _shared_prefix(args: argparse.Namespace) -> list[Request]:
    """groups x prompts per group, each its group's system prompt and a question (the real
    client ignores --num-prompts here); fixed lengths, as its default range ratio 1 gives."""
    total = args.gsp_num_groups * args.gsp_prompts_per_group
    print(f"\nGenerated shared prefix dataset statistics:\nNumber of groups: {args.gsp_num_groups}\n"
          f"Prompts per group: {args.gsp_prompts_per_group}\nTotal prompts: {total}")
    return [Request(args.gsp_system_prompt_len + args.gsp_question_len, args.gsp_output_len) for _ in range(total)]


def _trace_rows(args: argparse.Namespace, rng: random.Random) -> list[dict]:
    if args.dataset_path:
        with open(args.dataset_path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    print(f"STAND-IN: no --dataset-path and no network: a generated {args.mooncake_workload} trace "
          "(the real client downloads Mooncake's)", file=sys.stderr)
    return [{"timestamp": 50 * i, "input_length": rng.randint(16, 64), "output_length": rng.randint(8, 24)}
            for i in range(max(args.num_prompts, 1))]


def _mooncake(args: argparse.Namespace, rng: random.Random) -> list[Request]:
    """The trace's first --num-prompts rows, each asked --mooncake-num-rounds times; sent at
    the trace's timestamps (ms) times the slowdown factor with --use-trace-timestamps."""
    rows = _trace_rows(args, rng)[:args.num_prompts]
    first = rows[0]["timestamp"] if rows else 0
    out = []
    for row in rows:
        at = (row["timestamp"] - first) / 1000 * args.mooncake_slowdown_factor if args.use_trace_timestamps else 0.0
        out += [Request(int(row["input_length"]), int(row["output_length"]), at)] * max(args.mooncake_num_rounds, 1)
    return out


def requests(args: argparse.Namespace, rng: random.Random) -> list[Request]:
    """The main run's requests for --dataset-name (sharegpt as random: no dataset file here)."""
    if args.dataset_name == "generated-shared-prefix":
        return _shared_prefix(args)
    if args.dataset_name == "mooncake":
        return _mooncake(args, rng)
    return _random(args, rng)
