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
from cockpit.model.strict import Float, Id, Int, Strict, Text

# A sweep's sizes: far over any benchmark run, far under what would overflow the prompt
# counts computed from them (prompts_per_concurrency x concurrency).
MAX_TOKENS = 10_000_000
MAX_CONCURRENCY = 1_000_000
MAX_PROMPTS = 100_000_000


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
    `model.launch.confirm`): a start whose fingerprint differs asks again."""
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
    input_len: Int = Field(default=1024, ge=1, le=MAX_TOKENS)
    output_len: Int = Field(default=1024, ge=1, le=MAX_TOKENS)
    range_ratio: float = Field(default=1.0, gt=0, le=1)
    prompts: Int | None = Field(default=None, ge=1, le=MAX_PROMPTS)
    """Prompts per point as a number; unset: `prompts_per_concurrency` times the concurrency."""
    prompts_per_concurrency: float = Field(default=4.0, gt=0, le=MAX_PROMPTS)
    concurrencies: list[Annotated[Int, Field(ge=1, le=MAX_CONCURRENCY)]] = [1, 2, 4, 8]
    extra_args: list[str] = []
    """More bench_serving arguments, each one argv item (never joined into a shell string)."""
    request_rate: Float | None = Field(default=None, gt=0)
    """Requests per second (Poisson arrivals); unset: all at once, held to the concurrency."""
    # Each dataset's own fields (model/bench/sweep_dataset.py): set only for the dataset that reads them.
    dataset_path: str | None = None
    sharegpt_context_len: Int | None = Field(default=None, ge=1)
    gsp_num_groups: Int | None = Field(default=None, ge=1)
    gsp_prompts_per_group: Int | None = Field(default=None, ge=1)
    gsp_system_prompt_len: Int | None = Field(default=None, ge=1)
    gsp_question_len: Int | None = Field(default=None, ge=1)
    gsp_output_len: Int | None = Field(default=None, ge=1)
    mooncake_workload: Literal["mooncake", "conversation", "synthetic", "toolagent"] | None = None
    mooncake_slowdown_factor: Float | None = Field(default=None, gt=0)
    mooncake_num_rounds: Int | None = Field(default=None, ge=1)
    use_trace_timestamps: bool = False
    notes: str | None = None
    confirmed: str | None = None
    """Fingerprint of the bench command and host a person last confirmed to run (see
    `live.sweep_runner.sweep_fingerprint`): a run whose fingerprint differs asks again."""
    repeats: Int | None = Field(default=None, ge=1, le=10)
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
    concurrency: Int | None = Field(default=None, ge=1)
    input_len: Int | None = Field(default=None, ge=0)
    output_len: Int | None = Field(default=None, ge=0)
    total_tok_s: Float | None = Field(default=None, ge=0)
    output_tok_s: Float | None = Field(default=None, ge=0)
    output_tok_s_per_stream: Float | None = Field(default=None, ge=0)
    request_throughput: Float | None = Field(default=None, ge=0)
    ttft_ms: Float | None = Field(default=None, ge=0)
    itl_ms: Float | None = Field(default=None, ge=0)
    tpot_ms: Float | None = Field(default=None, ge=0)
    e2e_latency_ms: Float | None = Field(default=None, ge=0)
    when: AwareDatetime | None = None
    notes: str | None = None
    # What the experiment loop records beside the tool's figures (all optional).
    sweep: Id | None = None
    dataset: str | None = None
    command: str | None = None
    """The launch command exactly as it ran (the profile may change later)."""
    duration_s: Float | None = Field(default=None, ge=0)
    ttft_p99_ms: Float | None = Field(default=None, ge=0)
    itl_p99_ms: Float | None = Field(default=None, ge=0)
    power_mean_w: Float | None = Field(default=None, ge=0)
    power_peak_w: Float | None = Field(default=None, ge=0)
    power_share: Float | None = Field(default=None, ge=0)
    """Mean power over the point as a share of the summed power limits (0.62 = 62 %)."""
    tok_per_joule: Float | None = Field(default=None, ge=0)
    """Total (input + output) tokens per joule over the measured run."""
    output_tok_per_joule: Float | None = Field(default=None, ge=0)
    """Output tokens per joule over the measured run (energy per generated token)."""
    # Energy audited (model/bench/energy_audit.py): ∫ W dt over the measured run and over its
    # steady state, each beside the GPUs' energy counter, with how well the samples cover it.
    energy_j: Float | None = Field(default=None, ge=0)
    """∫ W dt over the measured run (trapezoid on the samples' times), J."""
    energy_counter_j: Float | None = Field(default=None, ge=0)
    """The GPUs' energy counter (NVML, DCGM) between its first and last reading in the run, J."""
    energy_check: str | None = None
    """Source, sampling interval, share of the run covered, integral vs counter."""
    energy_flagged: bool | None = None
    """True: samples cover under 90 % of the run, or integral and counter differ by over 2 %."""
    steady_from: str | None = None
    """How the steady window was found: the client's per-request first tokens (B-th to
    (N-B)-th, B = the concurrency) or the server's running count."""
    steady_s: Float | None = Field(default=None, ge=0)
    steady_power_w: Float | None = Field(default=None, ge=0)
    steady_j: Float | None = Field(default=None, ge=0)
    steady_counter_j: Float | None = Field(default=None, ge=0)
    steady_check: str | None = None
    steady_flagged: bool | None = None
    steady_tok_per_joule: Float | None = Field(default=None, ge=0)
    """Input + output tokens inside the steady window per joule of it."""
    steady_output_tok_per_joule: Float | None = Field(default=None, ge=0)
    ttft_median_ms: Float | None = Field(default=None, ge=0)
    itl_median_ms: Float | None = Field(default=None, ge=0)
    e2e_p99_ms: Float | None = Field(default=None, ge=0)
    max_concurrent_requests: Int | None = Field(default=None, ge=0)
    """The concurrency the client achieved (its `max_concurrent_requests`), not the one asked."""
    bench_client: str | None = None
    """The bench module that ran the point (`sglang.benchmark.serving` or `sglang.bench_serving`)."""
    peak_running: Int | None = Field(default=None, ge=0)
    peak_queued: Int | None = Field(default=None, ge=0)
    error_labels: list[str] = []
    server_ttft_p50_ms: Float | None = Field(default=None, ge=0)
    server_ttft_p99_ms: Float | None = Field(default=None, ge=0)
    server_itl_p50_ms: Float | None = Field(default=None, ge=0)
    server_itl_p99_ms: Float | None = Field(default=None, ge=0)
    sweep_run: str | None = None
    """The sweep run that recorded this point: with `sweep` and `concurrency` it names the
    point, so a retried point is never recorded twice."""
    # The client's other percentiles (its JSONL record has mean, median, p90, p95, p99 of each).
    ttft_p90_ms: Float | None = Field(default=None, ge=0)
    ttft_p95_ms: Float | None = Field(default=None, ge=0)
    itl_p90_ms: Float | None = Field(default=None, ge=0)
    itl_p95_ms: Float | None = Field(default=None, ge=0)
    tpot_median_ms: Float | None = Field(default=None, ge=0)
    tpot_p90_ms: Float | None = Field(default=None, ge=0)
    tpot_p95_ms: Float | None = Field(default=None, ge=0)
    tpot_p99_ms: Float | None = Field(default=None, ge=0)
    e2e_median_ms: Float | None = Field(default=None, ge=0)
    e2e_p90_ms: Float | None = Field(default=None, ge=0)
    e2e_p95_ms: Float | None = Field(default=None, ge=0)
    request_goodput: Float | None = Field(default=None, ge=0)
    """Requests per second that met the client's SLOs (only a client that reports it: vLLM's `--goodput`)."""
    server_ttft_p90_ms: Float | None = Field(default=None, ge=0)
    server_ttft_p95_ms: Float | None = Field(default=None, ge=0)
    server_itl_p90_ms: Float | None = Field(default=None, ge=0)
    server_itl_p95_ms: Float | None = Field(default=None, ge=0)
    server_buckets: dict[str, Annotated[list[Float], Field(min_length=2, max_length=2)]] = {}
    """Per server percentile (`server_ttft_p99_ms`), the histogram bucket [lower, upper] ms it was
    interpolated in (PromQL's `histogram_quantile`): the figure is known only to lie in it."""
    repeat: Int | None = Field(default=None, ge=1)
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
