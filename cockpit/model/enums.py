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
    """Benchmark figures a target can name."""

    TOTAL_TOK_S = "total_tok_s"
    OUTPUT_TOK_S = "output_tok_s"
    OUTPUT_TOK_S_PER_STREAM = "output_tok_s_per_stream"
    REQUEST_THROUGHPUT = "request_throughput"
    TTFT_MS = "ttft_ms"
    ITL_MS = "itl_ms"
    TPOT_MS = "tpot_ms"
    E2E_LATENCY_MS = "e2e_latency_ms"


class GpuSource(StrEnum):
    NVML = "nvml"
    NVIDIA_SMI = "nvidia-smi"
    DCGM = "dcgm"
    NONE = "none"
