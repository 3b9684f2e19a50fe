"""The bench client's datasets a sweep can run, the sweep fields each one reads and the
client flags they become.

Names and flags follow `python -m sglang.benchmark.serving` (its `datasets/__init__.py`
DATASET_MAPPING and `args.py`): `random` and `random-ids` share the random generator
(text vs integer token ids), `generated-shared-prefix` groups questions behind long system
prompts (the `--gsp-*` flags), `mooncake` replays a request trace. Plain Python: the
model validates with it at load, the sweep planner builds argv with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class _SweepLike(Protocol):
    """What the argv reads of a session's Sweep (named here: model/session.py imports this module)."""

    @property
    def dataset(self) -> Any: ...

    @property
    def output_len(self) -> int: ...

    @property
    def input_len(self) -> int: ...

    @property
    def range_ratio(self) -> float: ...

    @property
    def request_rate(self) -> float | None: ...

    def model_dump(self) -> dict[str, object]: ...

DATASETS = ("random", "random-ids", "sharegpt", "generated-shared-prefix", "mooncake")

MOONCAKE_WORKLOADS = ("mooncake", "conversation", "synthetic", "toolagent")

# Sweep fields that belong to one group of datasets -> (datasets, client flag).
# input_len / output_len / range_ratio have defaults, so they are mapped in `dataset_flags`.
_OWN_FIELDS: dict[str, tuple[tuple[str, ...], str]] = {
    "dataset_path": (("sharegpt", "mooncake"), "--dataset-path"),
    "sharegpt_context_len": (("sharegpt",), "--sharegpt-context-len"),
    "gsp_num_groups": (("generated-shared-prefix",), "--gsp-num-groups"),
    "gsp_prompts_per_group": (("generated-shared-prefix",), "--gsp-prompts-per-group"),
    "gsp_system_prompt_len": (("generated-shared-prefix",), "--gsp-system-prompt-len"),
    "gsp_question_len": (("generated-shared-prefix",), "--gsp-question-len"),
    "gsp_output_len": (("generated-shared-prefix",), "--gsp-output-len"),
    "mooncake_workload": (("mooncake",), "--mooncake-workload"),
    "mooncake_slowdown_factor": (("mooncake",), "--mooncake-slowdown-factor"),
    "mooncake_num_rounds": (("mooncake",), "--mooncake-num-rounds"),
    "use_trace_timestamps": (("mooncake",), "--use-trace-timestamps"),
}

# Flags cockpit sets itself: given again through extra_args the client would take the last
# one while the records and the handoff would name the first.
OWNED_FLAGS = ("--dataset-name", "--max-concurrency", "--num-prompts", "--output-file")


def fields_of(dataset: str) -> tuple[str, ...]:
    """The dataset's own optional fields, in form order."""
    return tuple(name for name, (owners, _) in _OWN_FIELDS.items() if dataset in owners)


def _is_set(value: object) -> bool:
    return value is not None and value is not False


def problems(dataset: str, values: Mapping[str, object], extra_args: list[str]) -> list[str]:
    """What is wrong with a sweep's dataset setup, one sentence each (empty: fine)."""
    out = []
    for name, (owners, _) in _OWN_FIELDS.items():
        if _is_set(values.get(name)) and dataset not in owners:
            out.append(f"{name} is for dataset {' / '.join(owners)}, not {dataset}")
    for arg in extra_args:
        flag = arg.partition("=")[0]
        if flag in OWNED_FLAGS:
            hint = "set `dataset` instead" if flag == "--dataset-name" else "cockpit sets it per point"
            out.append(f"extra_args gives {flag} ({hint})")
    return out


def dataset_flags(dataset: str, values: Mapping[str, object], output_len: int, input_len: int,
                  range_ratio: float) -> list[str]:
    """The client flags that pick and shape the dataset (without the per-point ones)."""
    argv = ["--dataset-name", dataset]
    if dataset in ("random", "random-ids"):
        argv += ["--random-input-len", str(input_len), "--random-output-len", str(output_len),
                 "--random-range-ratio", f"{range_ratio:g}"]
    elif dataset == "sharegpt":  # the prompts come from the dataset, the output length may be fixed
        argv += ["--sharegpt-output-len", str(output_len)]
    for name in fields_of(dataset):
        value = values.get(name)
        if not _is_set(value):
            continue
        flag = _OWN_FIELDS[name][1]
        argv += [flag] if value is True else [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    return argv


def describe(dataset: str, values: Mapping[str, object], input_len: int, output_len: int) -> str:
    """The workload in a few words, for the handoff and the confirm dialog."""
    if dataset in ("random", "random-ids"):
        return f"{dataset} {input_len}/{output_len}"
    if dataset == "sharegpt":
        return f"sharegpt (output {output_len})"
    if dataset == "generated-shared-prefix":
        parts = [f"{values.get(k)} {w}" for k, w in (("gsp_num_groups", "groups"),
                 ("gsp_prompts_per_group", "per group"), ("gsp_system_prompt_len", "system tok"),
                 ("gsp_question_len", "question tok"), ("gsp_output_len", "output tok")) if values.get(k)]
        return "generated-shared-prefix" + (f" ({', '.join(parts)})" if parts else " (client defaults)")
    trace = values.get("dataset_path") or "the client's default trace"
    return f"mooncake trace replay of {trace} ({values.get('mooncake_workload') or 'conversation'})"


def sweep_dataset_argv(sweep: _SweepLike) -> list[str]:
    """The sweep's dataset and arrival flags, as the planner puts them in every point's argv."""
    argv = dataset_flags(sweep.dataset.value, sweep.model_dump(), sweep.output_len, sweep.input_len,
                         sweep.range_ratio)
    if sweep.request_rate is not None:
        argv += ["--request-rate", f"{sweep.request_rate:g}"]
    return argv
