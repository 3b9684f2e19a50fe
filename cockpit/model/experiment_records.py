"""What the experiment loop runs and records: launch profiles, sweeps (a benchmark workload
at several concurrencies) and the benchmarks measured. Records of the session file (its
`[[launch]]`, `[[sweeps]]` and `[[benchmarks]]`); `Session` (session.py) holds them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, model_validator

from cockpit.model.bench.sweep_dataset import describe as describe_dataset
from cockpit.model.bench.sweep_dataset import problems as dataset_problems
from cockpit.model.enums import Metric, ProfileStatus
from cockpit.model.strict import Id, Strict, Text


class LaunchProfile(Strict):
    id: Id
    name: Text
    command: Text
    status: ProfileStatus = ProfileStatus.CANDIDATE
    host: str | None = None
    env: dict[str, str] = {}
    notes: str | None = None
    python: str | None = None
    """The interpreter of the profile's environment on its host (runs bench_serving; unset: python3)."""
    confirmed: str | None = None
    """Fingerprint of the command, env and host a person last confirmed to run (see
    `model.launch_confirm`): a start whose fingerprint differs asks again."""
    broken_reason: str | None = None
    """Why the last start failed (the crash's error label), when status is broken."""


class SweepDataset(StrEnum):
    """The bench client's dataset names (model/bench/sweep_dataset.py says what each one reads)."""

    RANDOM = "random"
    RANDOM_IDS = "random-ids"
    SHAREGPT = "sharegpt"
    GENERATED_SHARED_PREFIX = "generated-shared-prefix"
    MOONCAKE = "mooncake"


class Sweep(Strict):
    """A benchmark workload run at several concurrencies (`[[sweeps]]`)."""

    id: Id
    name: Text
    dataset: SweepDataset = SweepDataset.RANDOM
    input_len: int = Field(default=1024, ge=1)
    output_len: int = Field(default=1024, ge=1)
    range_ratio: float = Field(default=1.0, gt=0, le=1)
    prompts: int | None = Field(default=None, ge=1)
    """Prompts per point as a number; unset: `prompts_per_concurrency` times the concurrency."""
    prompts_per_concurrency: float = Field(default=4.0, gt=0)
    concurrencies: list[Annotated[int, Field(ge=1)]] = [1, 2, 4, 8]
    extra_args: list[str] = []
    """More bench_serving arguments, each one argv item (never joined into a shell string)."""
    request_rate: float | None = Field(default=None, gt=0)
    """Requests per second (Poisson arrivals); unset: all at once, held to the concurrency."""
    # Each dataset's own fields (model/bench/sweep_dataset.py): set only for the dataset that reads them.
    dataset_path: str | None = None
    sharegpt_context_len: int | None = Field(default=None, ge=1)
    gsp_num_groups: int | None = Field(default=None, ge=1)
    gsp_prompts_per_group: int | None = Field(default=None, ge=1)
    gsp_system_prompt_len: int | None = Field(default=None, ge=1)
    gsp_question_len: int | None = Field(default=None, ge=1)
    gsp_output_len: int | None = Field(default=None, ge=1)
    mooncake_workload: Literal["mooncake", "conversation", "synthetic", "toolagent"] | None = None
    mooncake_slowdown_factor: float | None = Field(default=None, gt=0)
    mooncake_num_rounds: int | None = Field(default=None, ge=1)
    use_trace_timestamps: bool = False
    notes: str | None = None
    confirmed: str | None = None
    """Fingerprint of the bench command and host a person last confirmed to run (see
    `live.sweep_runner.sweep_fingerprint`): a run whose fingerprint differs asks again."""
    repeats: int | None = Field(default=None, ge=1, le=10)
    """Runs of each point per sweep run, each its own benchmark (`repeat` 1..n): the views
    read a point's median over its runs with their spread (model/bench/estimate.py). Unset:
    one (and a file written before repeats reads back byte for byte)."""

    @model_validator(mode="after")
    def _dataset_fields_fit(self) -> Sweep:
        found = dataset_problems(self.dataset.value, self.model_dump(), self.extra_args)
        if found:
            raise ValueError("; ".join(found))
        return self

    def workload(self) -> str:
        """The dataset and its shape in a few words (the handoff, the confirm dialog)."""
        return describe_dataset(self.dataset.value, self.model_dump(), self.input_len, self.output_len)

    @property
    def runs_per_point(self) -> int:
        return self.repeats or 1

    def prompts_at(self, concurrency: int) -> int:
        if self.prompts is not None:
            return self.prompts
        return max(1, round(self.prompts_per_concurrency * concurrency))


class Benchmark(Strict):
    id: Id
    label: Text
    profile: Id | None = None
    concurrency: int | None = Field(default=None, ge=1)
    input_len: int | None = Field(default=None, ge=0)
    output_len: int | None = Field(default=None, ge=0)
    total_tok_s: float | None = Field(default=None, ge=0)
    output_tok_s: float | None = Field(default=None, ge=0)
    output_tok_s_per_stream: float | None = Field(default=None, ge=0)
    request_throughput: float | None = Field(default=None, ge=0)
    ttft_ms: float | None = Field(default=None, ge=0)
    itl_ms: float | None = Field(default=None, ge=0)
    tpot_ms: float | None = Field(default=None, ge=0)
    e2e_latency_ms: float | None = Field(default=None, ge=0)
    when: AwareDatetime | None = None
    notes: str | None = None
    # What the experiment loop records beside the tool's figures (all optional).
    sweep: Id | None = None
    dataset: str | None = None
    command: str | None = None
    """The launch command exactly as it ran (the profile may change later)."""
    duration_s: float | None = Field(default=None, ge=0)
    ttft_p99_ms: float | None = Field(default=None, ge=0)
    itl_p99_ms: float | None = Field(default=None, ge=0)
    power_mean_w: float | None = Field(default=None, ge=0)
    power_peak_w: float | None = Field(default=None, ge=0)
    power_share: float | None = Field(default=None, ge=0)
    """Mean power over the point as a share of the summed power limits (0.62 = 62 %)."""
    tok_per_joule: float | None = Field(default=None, ge=0)
    """Total (input + output) tokens per joule over the measured run."""
    output_tok_per_joule: float | None = Field(default=None, ge=0)
    """Output tokens per joule over the measured run (energy per generated token)."""
    ttft_median_ms: float | None = Field(default=None, ge=0)
    itl_median_ms: float | None = Field(default=None, ge=0)
    e2e_p99_ms: float | None = Field(default=None, ge=0)
    max_concurrent_requests: int | None = Field(default=None, ge=0)
    """The concurrency the client achieved (its `max_concurrent_requests`), not the one asked."""
    bench_client: str | None = None
    """The bench module that ran the point (`sglang.benchmark.serving` or `sglang.bench_serving`)."""
    peak_running: int | None = Field(default=None, ge=0)
    peak_queued: int | None = Field(default=None, ge=0)
    error_labels: list[str] = []
    server_ttft_p50_ms: float | None = Field(default=None, ge=0)
    server_ttft_p99_ms: float | None = Field(default=None, ge=0)
    server_itl_p50_ms: float | None = Field(default=None, ge=0)
    server_itl_p99_ms: float | None = Field(default=None, ge=0)
    sweep_run: str | None = None
    """The sweep run that recorded this point: with `sweep` and `concurrency` it names the
    point, so a retried point is never recorded twice."""
    # The client's other percentiles (its JSONL record has mean, median, p90, p95, p99 of each).
    ttft_p90_ms: float | None = Field(default=None, ge=0)
    ttft_p95_ms: float | None = Field(default=None, ge=0)
    itl_p90_ms: float | None = Field(default=None, ge=0)
    itl_p95_ms: float | None = Field(default=None, ge=0)
    tpot_median_ms: float | None = Field(default=None, ge=0)
    tpot_p90_ms: float | None = Field(default=None, ge=0)
    tpot_p95_ms: float | None = Field(default=None, ge=0)
    tpot_p99_ms: float | None = Field(default=None, ge=0)
    e2e_median_ms: float | None = Field(default=None, ge=0)
    e2e_p90_ms: float | None = Field(default=None, ge=0)
    e2e_p95_ms: float | None = Field(default=None, ge=0)
    request_goodput: float | None = Field(default=None, ge=0)
    """Requests per second that met the client's SLOs (only a client that reports it: vLLM's `--goodput`)."""
    server_ttft_p90_ms: float | None = Field(default=None, ge=0)
    server_ttft_p95_ms: float | None = Field(default=None, ge=0)
    server_itl_p90_ms: float | None = Field(default=None, ge=0)
    server_itl_p95_ms: float | None = Field(default=None, ge=0)
    server_buckets: dict[str, Annotated[list[float], Field(min_length=2, max_length=2)]] = {}
    """Per server percentile (`server_ttft_p99_ms`), the histogram bucket [lower, upper] ms it was
    interpolated in (PromQL's `histogram_quantile`): the figure is known only to lie in it."""
    repeat: int | None = Field(default=None, ge=1)
    """Which repeat of its point this run is (1..the sweep's `repeats`; unset: the only one)."""
    bench_client_version: str | None = None
    """The version of the package the bench client came from (`sglang 0.5.23`)."""

    def metric(self, metric: Metric) -> float | None:
        value: float | None = getattr(self, metric.value)  # every Metric names a float field
        if value is None and metric is Metric.OUTPUT_TOK_S_PER_STREAM:
            # Per-stream speed follows from output tok/s when the concurrency is known.
            if self.output_tok_s is not None and self.concurrency:
                return self.output_tok_s / self.concurrency
        return value
