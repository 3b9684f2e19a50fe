"""The `sglang.bench_serving` result block: `label: value` rows between the header and
the closing `=====` line, kept as label (as printed, typos included) -> number."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from cockpit.parse.log.events import BenchResult, Number
from cockpit.parse.log.sglang_patterns import BENCH_HEADER
from cockpit.parse.numbers import MAX_FIGURE, is_figure, read_float, read_int

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def parse_number(text: str) -> Number | None:
    """An int or float for a plain numeric value; None for text (`inf`, `not set`, `12%`)
    and for a number that is no figure (1e999, 1e308: see `number_problem`)."""
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        return None
    number = read_int(text) if text.lstrip("+-").isdigit() else read_float(text)
    return number if number is not None and is_figure(number) else None


def number_problem(text: str) -> str | None:
    """Why a row's value, written as a number, is no figure (None: it is one, or it is text
    such as `inf` for an unlimited request rate)."""
    text = text.strip()
    if not _NUMBER.fullmatch(text) or parse_number(text) is not None:
        return None
    shown = text if len(text) <= 24 else f"a number of {len(text)} characters"
    return f"{shown} is no figure (finite, at most {MAX_FIGURE:g})"



def _is_footer(stripped: str) -> bool:
    return len(stripped) >= 3 and stripped.count("=") == len(stripped)


class BenchBlockParser:
    """Feed lines one at a time; `feed` returns a BenchResult when a block closes."""

    __slots__ = ("active", "values", "backend", "first_line", "refused")

    def __init__(self) -> None:
        self.active = False
        self.values: dict[str, Number] = {}
        self.backend: str | None = None
        self.first_line = ""
        self.refused: list[tuple[str, str]] = []
        """(label, why) of rows whose number is no figure, in the last block opened."""

    def feed(self, line: str) -> BenchResult | None:
        if BENCH_HEADER in line:
            previous = self._result(complete=False) if self.active else None
            self.active, self.values, self.backend, self.first_line = True, {}, None, line
            self.refused = []
            return previous
        if not self.active:
            return None
        stripped = line.strip()
        if _is_footer(stripped):
            self.active = False
            return self._result(complete=True)
        if stripped.startswith("---"):  # a section title centred in dashes
            return None
        label, sep, value = line.partition(":")
        if not sep:
            return None
        label = label.strip()
        number = parse_number(value)
        if number is not None:
            self.values[label] = number
        elif (why := number_problem(value)) is not None:
            self.refused.append((label, why))
        elif label == "Backend":
            self.backend = value.strip()
        return None

    def finish(self) -> BenchResult | None:
        """Close an unterminated block (the excerpt or the stream ended inside it)."""
        if not self.active:
            return None
        self.active = False
        return self._result(complete=False)

    def _result(self, complete: bool) -> BenchResult:
        return BenchResult(line=self.first_line, values=dict(self.values), backend=self.backend,
                           complete=complete)


def refused_rows(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(1-based line, `label: why`) of every result-block row whose number is no figure."""
    parser = BenchBlockParser()
    out: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        seen = len(parser.refused)
        parser.feed(line)
        if len(parser.refused) > seen:
            label, why = parser.refused[-1]
            out.append((number, f"{label}: {why}"))
    return out


# `sglang.bench_serving` row label -> Benchmark field (`cockpit bench import` and the assistant's
# import tool). Both spellings of concurrency occur.
BENCH_FIELDS = {
    "Max request concurrency": "concurrency",
    "Max reqeuest concurrency": "concurrency",
    "Total token throughput (tok/s)": "total_tok_s",
    "Output token throughput (tok/s)": "output_tok_s",
    "Request throughput (req/s)": "request_throughput",
    "Mean TTFT (ms)": "ttft_ms",
    "Mean ITL (ms)": "itl_ms",
    "Mean TPOT (ms)": "tpot_ms",
    "Mean E2E Latency (ms)": "e2e_latency_ms",
}


def bench_fields(values: Mapping[str, float]) -> dict[str, float | int]:
    """A bench_serving result's rows -> Benchmark fields (mean input/output lengths too)."""
    out: dict[str, float | int] = {}
    for label, name in BENCH_FIELDS.items():
        if label in values:
            out[name] = int(values[label]) if name == "concurrency" else float(values[label])
    done = values.get("Successful requests")
    if done is not None and done >= 1:  # a count: a mean over a near-zero one would overflow
        for label, name in (("Total input tokens", "input_len"), ("Total generated tokens", "output_len")):
            if label in values:
                out[name] = round(values[label] / done)
    return out


def result_before(lines: Sequence[str], end: int) -> BenchResult | None:
    """The result block whose header is the last one at or before `lines[end]` (a log
    view's lines: "record the result I am looking at"), parsed to its closing line or
    the end of `lines`; None when no header comes before `end` or it holds no figure."""
    start = next((i for i in range(min(end, len(lines) - 1), -1, -1) if BENCH_HEADER in lines[i]), None)
    if start is None:
        return None
    parser = BenchBlockParser()
    for i in range(start, len(lines)):
        if (result := parser.feed(lines[i])) is not None and result.line == lines[start]:
            return result if result.values else None
    result = parser.finish()
    return result if result is not None and result.values else None


# Rows `bench_fields` leaves out that a Benchmark also holds (recording from the log fills them).
_MORE_FIELDS = {"P99 TTFT (ms)": "ttft_p99_ms", "P99 ITL (ms)": "itl_p99_ms", "Benchmark duration (s)": "duration_s"}


def record_fields(values: Mapping[str, float]) -> dict[str, float | int]:
    """Every Benchmark field a result block gives: `bench_fields` and the p99s and duration."""
    out = bench_fields(values)
    out.update({name: float(values[label]) for label, name in _MORE_FIELDS.items() if label in values})
    return out
