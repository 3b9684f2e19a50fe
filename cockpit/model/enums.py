"""Status vocabularies of a session. Values are what the TOML file holds."""

from enum import StrEnum


class TaskStatus(StrEnum):
    TODO = "todo"
    DOING = "doing"
    DONE = "done"
    BLOCKED = "blocked"


TASK_COLUMNS: tuple[TaskStatus, ...] = (
    TaskStatus.TODO,
    TaskStatus.DOING,
    TaskStatus.DONE,
    TaskStatus.BLOCKED,
)


class DiscoveryStatus(StrEnum):
    HYPOTHESIS = "hypothesis"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"

    def cycled(self) -> "DiscoveryStatus":
        order = list(DiscoveryStatus)
        return order[(order.index(self) + 1) % len(order)]


class FileState(StrEnum):
    APPLIED = "applied"
    REVERTED = "reverted"
    HARMLESS = "harmless"
    PROBLEMATIC = "problematic"


class ProfileStatus(StrEnum):
    WORKING = "working"
    CANDIDATE = "candidate"
    BROKEN = "broken"


class Comparator(StrEnum):
    GE = ">="
    GT = ">"
    LE = "<="
    LT = "<"

    def holds(self, value: float, goal: float) -> bool:
        return {
            Comparator.GE: value >= goal,
            Comparator.GT: value > goal,
            Comparator.LE: value <= goal,
            Comparator.LT: value < goal,
        }[self]

    @property
    def higher_is_better(self) -> bool:
        return self in (Comparator.GE, Comparator.GT)


class Metric(StrEnum):
    """Benchmark figures a target can name: each value is a `Benchmark` field, its statistic
    part of the name (`ttft_ms` is the client's mean, as it always was; `ttft_p99_ms` its
    p99; `server_*` the server's histogram). model/bench/figures.py says how each reads."""

    TOTAL_TOK_S = "total_tok_s"
    OUTPUT_TOK_S = "output_tok_s"
    OUTPUT_TOK_S_PER_STREAM = "output_tok_s_per_stream"
    REQUEST_THROUGHPUT = "request_throughput"
    TTFT_MS = "ttft_ms"
    ITL_MS = "itl_ms"
    TPOT_MS = "tpot_ms"
    E2E_LATENCY_MS = "e2e_latency_ms"
    # added after the means: the client's other statistics, the server's, energy and goodput
    TTFT_MEDIAN_MS = "ttft_median_ms"
    TTFT_P90_MS = "ttft_p90_ms"
    TTFT_P95_MS = "ttft_p95_ms"
    TTFT_P99_MS = "ttft_p99_ms"
    ITL_MEDIAN_MS = "itl_median_ms"
    ITL_P90_MS = "itl_p90_ms"
    ITL_P95_MS = "itl_p95_ms"
    ITL_P99_MS = "itl_p99_ms"
    TPOT_MEDIAN_MS = "tpot_median_ms"
    TPOT_P90_MS = "tpot_p90_ms"
    TPOT_P95_MS = "tpot_p95_ms"
    TPOT_P99_MS = "tpot_p99_ms"
    E2E_MEDIAN_MS = "e2e_median_ms"
    E2E_P90_MS = "e2e_p90_ms"
    E2E_P95_MS = "e2e_p95_ms"
    E2E_P99_MS = "e2e_p99_ms"
    SERVER_TTFT_P50_MS = "server_ttft_p50_ms"
    SERVER_TTFT_P90_MS = "server_ttft_p90_ms"
    SERVER_TTFT_P95_MS = "server_ttft_p95_ms"
    SERVER_TTFT_P99_MS = "server_ttft_p99_ms"
    SERVER_ITL_P50_MS = "server_itl_p50_ms"
    SERVER_ITL_P90_MS = "server_itl_p90_ms"
    SERVER_ITL_P95_MS = "server_itl_p95_ms"
    SERVER_ITL_P99_MS = "server_itl_p99_ms"
    TOK_PER_JOULE = "tok_per_joule"
    OUTPUT_TOK_PER_JOULE = "output_tok_per_joule"
    REQUEST_GOODPUT = "request_goodput"


class GpuSource(StrEnum):
    NVML = "nvml"
    NVIDIA_SMI = "nvidia-smi"
    DCGM = "dcgm"
    NONE = "none"
