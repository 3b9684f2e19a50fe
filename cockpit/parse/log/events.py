"""Typed events the SGLang log parser produces, one per physical line plus block events.

Every line event keeps `line` (the decoded text, not sanitized), `ts` (the timestamp text
of the record prefix, or None) and `ranks` (its DP/TP/PP/EP... tags). Frozen with slots:
the live pane may hold many thousands of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Number = int | float
FieldValue = int | float | bool | str

_fill_lazy: Callable[[LogEvent], None] | None = None


def set_lazy_filler(fill: Callable[[LogEvent], None]) -> None:
    """Register the function that parses a lazily built event's fields in place. The
    parser registers its own when imported: it owns the rules, and it is the only one that
    builds lazy events, so every lazy event exists after the registration."""
    global _fill_lazy
    _fill_lazy = fill


def _lazy_getattr(self: LogEvent, name: str) -> object:
    """Fields of a batch or access line event the parser built lazily (only `line`, `ts`
    and `ranks` set: most events are shown and counted, never read field by field) are
    parsed from `line` on first access. Called only for an unset slot, so an event built
    the ordinary way never comes here; equality, repr and pickling read every field and
    so fill them too. Any other missing name is a plain AttributeError."""
    if name in LAZY_FIELDS.get(type(self), ()) and _fill_lazy is not None:
        _fill_lazy(self)
        return object.__getattribute__(self, name)
    raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class Ranks:
    """Parallelism tags of a record prefix; None where the tag is absent."""

    dp: int | None = None
    tp: int | None = None
    pp: int | None = None
    ep: int | None = None
    attn_cp: int | None = None
    moe_dp: int | None = None

    def label(self) -> str:
        parts = [f"{name.upper()}{value}" for name, value in
                 (("dp", self.dp), ("pp", self.pp), ("attn_cp", self.attn_cp),
                  ("moe_dp", self.moe_dp), ("tp", self.tp), ("ep", self.ep)) if value is not None]
        return " ".join(parts)


NO_RANKS = Ranks()


@dataclass(frozen=True, slots=True, kw_only=True)
class LogEvent:
    line: str
    ts: str | None = None
    ranks: Ranks = NO_RANKS


@dataclass(frozen=True, slots=True, kw_only=True)
class PlainLine(LogEvent):
    """Any line the parser has no better type for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PrefillBatch(LogEvent):
    new_seq: int | None = None
    new_token: int | None = None
    cached_token: int | None = None
    running_req: int | None = None
    queue_req: int | None = None
    token_usage: float | None = None
    full_token_usage: float | None = None
    swa_token_usage: float | None = None
    mamba_usage: float | None = None
    pending_token: int | None = None
    cache_hit_rate: float | None = None  # percent, pre-0.4.4 and legacy lines only
    graph: bool | None = None
    graph_backend: str | None = None  # "cuda", "npu", "cpu", "musa"...
    input_throughput: float | None = None
    iteration: int | None = None  # `Prefill batch [<iter>],`
    legacy: bool = False  # v0.1.x `new fill batch.`
    fields: dict[str, FieldValue] = field(default_factory=dict)  # every label as printed

    __getattr__ = _lazy_getattr


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeBatch(LogEvent):
    running_req: int | None = None
    queue_req: int | None = None
    token: int | None = None  # `#token` (or `#full token`): KV tokens in use
    token_usage: float | None = None
    full_token_usage: float | None = None
    swa_token_usage: float | None = None
    mamba_usage: float | None = None
    pre_allocated_usage: float | None = None
    graph: bool | None = None
    graph_backend: str | None = None
    gen_throughput: float | None = None
    accept_len: float | None = None
    accept_rate: float | None = None
    iteration: int | None = None
    fields: dict[str, FieldValue] = field(default_factory=dict)

    @property
    def usage(self) -> float | None:
        """The pool usage to show: plain token usage, else the full-attention pool's."""
        return self.token_usage if self.token_usage is not None else self.full_token_usage

    __getattr__ = _lazy_getattr


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerArgs(LogEvent):
    """`server_args=ServerArgs(...)`: simple `key=value` items of the repr."""

    args: dict[str, FieldValue | None] = field(default_factory=dict)  # None: `key=None`

    @property
    def model_path(self) -> str | None:
        value = self.args.get("model_path")
        return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class KvCacheSize(LogEvent):
    """KV pool size: `KV Cache is allocated. #tokens: N` or the `max_total_num_tokens=N` summary."""

    tokens: int | None = None
    source: str = "allocated"  # "allocated" | "summary"
    size_gb: float | None = None  # K+V (or KV) size
    max_running_requests: int | None = None
    context_len: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CudaGraphCapture(LogEvent):
    phase: str = "begin"  # "begin" | "end" | "progress" | "failed"
    elapsed_s: float | None = None
    avail_mem_gb: float | None = None
    mem_usage_gb: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadingWeights(LogEvent):
    phase: str = "begin"  # "begin" | "end" | "progress"
    avail_mem_gb: float | None = None
    mem_usage_gb: float | None = None
    percent: int | None = None  # tqdm shard progress


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(LogEvent):
    """Readiness: `fired up and ready to roll` (primary) or `Uvicorn running on` (secondary)."""

    primary: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerStopped(LogEvent):
    """Orderly shutdown (uvicorn `Shutting down` / `Finished server process`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpRequest(LogEvent):
    client: str | None = None
    method: str | None = None
    path: str | None = None
    status: int | None = None  # None when the paste lost it

    __getattr__ = _lazy_getattr


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorLine(LogEvent):
    """A line that matches one or more error labels (see error_labels.py)."""

    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorBlock(LogEvent):
    """A whole traceback (or C++ frame dump) gathered once it ends.

    Emitted after the line events of its lines; `line` is the first line of the block,
    `ts`/`ranks` those of the nearest preceding prefixed record.
    """

    lines: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    exception: str | None = None  # the final `Name: message` line, if seen


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchResult(LogEvent):
    """A `sglang.bench_serving` result block: numeric rows, label as printed -> number."""

    values: dict[str, Number] = field(default_factory=dict)
    backend: str | None = None
    complete: bool = True  # False when the closing `=====` line was never seen


BATCH_EVENTS = (PrefillBatch, DecodeBatch)

_BASE_FIELDS = frozenset({"line", "ts", "ranks"})
# the event types the parser may build lazily -> the fields it then leaves unset
LAZY_FIELDS: dict[type, frozenset[str]] = {
    cls: frozenset(cls.__dataclass_fields__) - _BASE_FIELDS for cls in (PrefillBatch, DecodeBatch, HttpRequest)
}
