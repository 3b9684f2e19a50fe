"""`cockpit add sweep`: the sweep's options and the fields they give (the dataset's own
ones as in model/bench/sweep_dataset.py; the model refuses one that does not fit the dataset)."""

from __future__ import annotations

import argparse

from cockpit.model.bench.sweep_dataset import DATASETS, MOONCAKE_WORKLOADS

# option dest -> (type, help); the dest is the Sweep field
_OPTIONS: dict[str, tuple[type[int | float | str], str]] = {
    "range_ratio": (float, "sweep, random / random-ids: input/output length spread (0-1]"),
    "prompts": (int, "sweep: prompts per point (default: --prompts-per-concurrency x concurrency)"),
    "prompts_per_concurrency": (float, "sweep: prompts per point per unit of concurrency (default 4)"),
    "request_rate": (float, "sweep: requests per second (default: all at once)"),
    "dataset_path": (str, "sweep, sharegpt / mooncake: the dataset or trace file on the host"),
    "sharegpt_context_len": (int, "sweep, sharegpt: drop requests longer than this"),
    "gsp_num_groups": (int, "sweep, generated-shared-prefix: system prompt groups"),
    "gsp_prompts_per_group": (int, "sweep, generated-shared-prefix: prompts per group"),
    "gsp_system_prompt_len": (int, "sweep, generated-shared-prefix: system prompt tokens"),
    "gsp_question_len": (int, "sweep, generated-shared-prefix: question tokens"),
    "gsp_output_len": (int, "sweep, generated-shared-prefix: output tokens"),
    "mooncake_slowdown_factor": (float, "sweep, mooncake: replay slower (2 = half speed)"),
    "mooncake_num_rounds": (int, "sweep, mooncake: rounds per session"),
}


def add_sweep_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", choices=DATASETS, help="sweep: the bench client's dataset (default random)")
    p.add_argument("--concurrencies", help="sweep: comma-separated, e.g. 1,4,16,64")
    p.add_argument("--extra-arg", action="append", metavar="ARG", dest="extra_args",
                   help="sweep: one more bench client argument, as --extra-arg=--seed (repeat; each is one argv item)")
    p.add_argument("--mooncake-workload", choices=MOONCAKE_WORKLOADS, help="sweep, mooncake: the trace's workload")
    p.add_argument("--use-trace-timestamps", action="store_true", help="sweep, mooncake: replay at the trace's times")
    for dest, (kind, text) in _OPTIONS.items():
        p.add_argument("--" + dest.replace("_", "-"), type=kind, help=text)


def sweep_fields(args: argparse.Namespace) -> dict[str, object]:
    """The Sweep fields the options give (unset ones keep the model's defaults); ValueError
    for a malformed --concurrencies."""
    fields: dict[str, object] = {"name": args.text}
    if args.dataset:
        fields["dataset"] = args.dataset
    if args.concurrencies:
        try:
            fields["concurrencies"] = [int(c) for c in args.concurrencies.split(",") if c.strip()]
        except ValueError:
            raise ValueError(f"--concurrencies takes numbers separated by commas, not {args.concurrencies!r}") from None
    for dest in ("input_len", "output_len", "notes", "mooncake_workload", *_OPTIONS):
        if getattr(args, dest, None) is not None:
            fields[dest] = getattr(args, dest)
    if getattr(args, "repeats", None) is not None:
        fields["repeats"] = args.repeats
    if args.use_trace_timestamps:
        fields["use_trace_timestamps"] = True
    if args.extra_args:
        fields["extra_args"] = list(args.extra_args)
    return fields
