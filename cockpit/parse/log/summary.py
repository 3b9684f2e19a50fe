"""The `parse-log` summary of an SGLang log, defined once: LogParser's events folded in order.

`LogSummary` folds events into the `parse-log --json` object (product.md), batch lines
counted by the README's substring rules (what grep sees); the live pane folds its events
this way. `log_summary_scan.summarize_bytes` computes the same object over whole buffers
at C speed; tests check it against this definition on corpus, fuzz and edge inputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from cockpit.parse.log.error_labels import line_error_labels
from cockpit.parse.log.events import BenchResult, DecodeBatch, ErrorBlock, ErrorLine, LogEvent, Number, PrefillBatch
from cockpit.parse.log.sglang_patterns import (
    DECODE_REST_TEXT,
    ERROR_GATE,
    GEN_TEXT,
    LEGACY_QUEUE_TEXT,
    LEGACY_REST_TEXT,
    LEGACY_RUNNING_TEXT,
    PREFILL_REST_TEXT,
    QUEUE_TEXT,
    READY_TEXT,
    RUNNING_TEXT,
)


class Summary(TypedDict):
    """The `parse-log --json` object."""

    prefill_lines: int
    decode_lines: int
    last_gen_throughput: float | None
    max_gen_throughput: float | None
    max_running_req: int | None
    max_queue_req: int | None
    errors: list[str]
    bench: dict[str, Number] | None  # the last result block, complete or cut short
    ready: bool


@dataclass
class BatchFigures:
    """What a run of batch lines adds to a LogSummary (computed once, added to several)."""

    prefill_lines: int = 0
    decode_lines: int = 0
    last_gen: float | None = None
    max_gen: float | None = None
    max_running: int | None = None
    max_queue: int | None = None
    errors: frozenset[str] = frozenset()
    ready: bool = False

    @classmethod
    def of(cls, lines: list[str]) -> BatchFigures:
        """The figures of batch lines, by the README's substring rules (what grep sees): a few
        C-speed regex passes over the lines joined, equal to folding them one by one."""
        text = "\n".join(lines)
        # on "\n"-joined lines, findall yields the rest after the first marker of its kind on
        # each line, which is what the summary counts
        decode = DECODE_REST_TEXT.findall(text)
        prefill = PREFILL_REST_TEXT.findall(text)
        legacy = LEGACY_REST_TEXT.findall(text) if "new fill batch." in text else []
        fig = cls(prefill_lines=len(prefill) + len(legacy), decode_lines=len(decode))
        running: list[str] = []
        queue: list[str] = []
        if decode or prefill:
            rests = "\n".join(decode + prefill) if prefill and decode else "\n".join(decode or prefill)
            running = RUNNING_TEXT.findall(rests)
            queue = QUEUE_TEXT.findall(rests)
        if legacy:
            rests = "\n".join(legacy)
            running += LEGACY_RUNNING_TEXT.findall(rests)
            queue += LEGACY_QUEUE_TEXT.findall(rests)
        if decode:
            gens = GEN_TEXT.findall("\n".join(decode))
            if gens:
                fig.last_gen = float(gens[-1])
                fig.max_gen = max(map(float, set(gens)))
        if running:
            fig.max_running = max(map(int, set(running)))
        if queue:
            fig.max_queue = max(map(int, set(queue)))
        if ERROR_GATE.search(text) is not None:  # an error trigger glued to a batch line: rare
            found: set[str] = set()
            for line in lines:
                found.update(line_error_labels(line))
            fig.errors = frozenset(found)
        fig.ready = READY_TEXT in text
        return fig


@dataclass
class LogSummary:
    """The `parse-log --json` object, folded event by event."""

    prefill_lines: int = 0
    decode_lines: int = 0
    last_gen_throughput: float | None = None
    max_gen_throughput: float | None = None
    max_running_req: int | None = None
    max_queue_req: int | None = None
    errors: set[str] = field(default_factory=set)
    bench: dict[str, Number] | None = None
    ready: bool = False

    def apply(self, event: LogEvent) -> None:
        self.apply_all((event,))

    def apply_all(self, events: Iterable[LogEvent]) -> None:
        """Fold events in order; batch lines are gathered and folded in one go."""
        lines: list[str] = []
        for event in events:
            if isinstance(event, (DecodeBatch, PrefillBatch)):
                # the summary counts by the README's substring rules (what grep sees), which
                # can differ from the typed fields on mangled lines; see BatchFigures
                lines.append(event.line)
                continue
            self.apply_other(event)
        if lines:
            self.add(BatchFigures.of(lines))

    def apply_other(self, event: LogEvent) -> None:
        """Fold one event that is not a batch line."""
        if isinstance(event, (ErrorLine, ErrorBlock)):
            self.errors.update(event.labels)
        elif isinstance(event, BenchResult):
            self.bench = dict(event.values)
        if not self.ready and READY_TEXT in event.line and not isinstance(event, (ErrorBlock, BenchResult)):
            self.ready = True

    def add(self, fig: BatchFigures) -> None:
        """Add the figures of batch lines that come after everything folded so far."""
        self.decode_lines += fig.decode_lines
        self.prefill_lines += fig.prefill_lines
        if fig.last_gen is not None:
            self.last_gen_throughput = fig.last_gen
        if fig.max_gen is not None and (self.max_gen_throughput is None or fig.max_gen > self.max_gen_throughput):
            self.max_gen_throughput = fig.max_gen
        if fig.max_running is not None and (self.max_running_req is None or fig.max_running > self.max_running_req):
            self.max_running_req = fig.max_running
        if fig.max_queue is not None and (self.max_queue_req is None or fig.max_queue > self.max_queue_req):
            self.max_queue_req = fig.max_queue
        if fig.errors:
            self.errors.update(fig.errors)
        if fig.ready:
            self.ready = True

    def add_before(self, earlier: Mapping[str, Any]) -> None:
        """Merge the summary (a Summary, or one read back from JSON) of the log text that
        came before everything folded so far (a big file's beginning, scanned fast)."""
        self.decode_lines += earlier.get("decode_lines") or 0
        self.prefill_lines += earlier.get("prefill_lines") or 0
        if self.last_gen_throughput is None:
            self.last_gen_throughput = earlier.get("last_gen_throughput")
        for name in ("max_gen_throughput", "max_running_req", "max_queue_req"):
            theirs, mine = earlier.get(name), getattr(self, name)
            if theirs is not None and (mine is None or theirs > mine):
                setattr(self, name, theirs)
        self.errors.update(earlier.get("errors") or ())
        if self.bench is None and earlier.get("bench") is not None:
            self.bench = dict(earlier["bench"])
        self.ready = self.ready or bool(earlier.get("ready"))

    def to_dict(self) -> Summary:
        return {
            "prefill_lines": self.prefill_lines,
            "decode_lines": self.decode_lines,
            "last_gen_throughput": self.last_gen_throughput,
            "max_gen_throughput": self.max_gen_throughput,
            "max_running_req": self.max_running_req,
            "max_queue_req": self.max_queue_req,
            "errors": sorted(self.errors),
            "bench": None if self.bench is None else dict(self.bench),
            "ready": self.ready,
        }
