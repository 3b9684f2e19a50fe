"""The record `sglang.bench_serving --output-file F` appends to F (one JSON object a line,
one line a run), and its stdout result block as a fallback, as Benchmark fields. No I/O.

Key names are sglang's own (python/sglang/benchmark/serving.py, `result = {...}` before
`file.write(json.dumps(result_for_dump) + "\\n")`); tests/data/bench/ keeps a record with
that key set and the source it came from.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cockpit.parse.bench.bench_serving import BenchBlockParser, bench_fields
from cockpit.parse.numbers import MAX_FIGURE, is_figure

__all__ = ["OTHER_CLIENT_FIELDS", "RECORD_FIELDS", "STDOUT_EXTRA_FIELDS", "BenchOutcome", "from_record", "from_stdout",
           "last_record", "read_records", "record_counts", "record_fields"]

# JSONL key -> Benchmark field (floats)
RECORD_FIELDS = {
    "total_throughput": "total_tok_s",
    "output_throughput": "output_tok_s",
    "request_throughput": "request_throughput",
    "mean_ttft_ms": "ttft_ms",  # ttft_ms / itl_ms are the client's means
    "mean_itl_ms": "itl_ms",
    "median_ttft_ms": "ttft_median_ms",
    "median_itl_ms": "itl_median_ms",
    "p99_e2e_latency_ms": "e2e_p99_ms",
    "mean_tpot_ms": "tpot_ms",
    "mean_e2e_latency_ms": "e2e_latency_ms",
    "p99_ttft_ms": "ttft_p99_ms",
    "p99_itl_ms": "itl_p99_ms",
    "duration": "duration_s",
    "p90_ttft_ms": "ttft_p90_ms",
    "p95_ttft_ms": "ttft_p95_ms",
    "p90_itl_ms": "itl_p90_ms",
    "p95_itl_ms": "itl_p95_ms",
    "median_tpot_ms": "tpot_median_ms",
    "p90_tpot_ms": "tpot_p90_ms",
    "p95_tpot_ms": "tpot_p95_ms",
    "p99_tpot_ms": "tpot_p99_ms",
    "median_e2e_latency_ms": "e2e_median_ms",
    "p90_e2e_latency_ms": "e2e_p90_ms",
    "p95_e2e_latency_ms": "e2e_p95_ms",
}
# Keys only some clients write: goodput (requests/s within the SLOs given with vLLM's `--goodput`).
OTHER_CLIENT_FIELDS = {"request_goodput": "request_goodput"}
# stdout rows the shared `bench_fields` map leaves out -> Benchmark field
STDOUT_EXTRA_FIELDS = {
    "P99 TTFT (ms)": "ttft_p99_ms",
    "P99 ITL (ms)": "itl_p99_ms",
    "Benchmark duration (s)": "duration_s",
    "Median TTFT (ms)": "ttft_median_ms",
    "Median ITL (ms)": "itl_median_ms",
    "P99 E2E Latency (ms)": "e2e_p99_ms",
    "P90 TTFT (ms)": "ttft_p90_ms",
    "P95 TTFT (ms)": "ttft_p95_ms",
    "P90 ITL (ms)": "itl_p90_ms",
    "P95 ITL (ms)": "itl_p95_ms",
    "Median TPOT (ms)": "tpot_median_ms",
    "P90 TPOT (ms)": "tpot_p90_ms",
    "P95 TPOT (ms)": "tpot_p95_ms",
    "P99 TPOT (ms)": "tpot_p99_ms",
    "Median E2E Latency (ms)": "e2e_median_ms",
    "P90 E2E Latency (ms)": "e2e_p90_ms",
    "P95 E2E Latency (ms)": "e2e_p95_ms",
    "Request goodput (req/s)": "request_goodput",
}
ACHIEVED_KEY, ACHIEVED_ROW = "max_concurrent_requests", "Peak concurrent requests"
# The mean number of requests in flight over the run (the tool's `concurrency`, Little's law).
MEAN_IN_FLIGHT_KEY, MEAN_IN_FLIGHT_ROW = "concurrency", "Concurrency"
"""The concurrency the client reached (the JSONL key, the printed row); 0.5.x writes both."""


def read_records(text: str) -> list[dict[str, Any]]:
    """Every JSON object line of a JSONL text; a torn or foreign line is skipped (a run
    killed while appending leaves half a line, and the next run appends after it)."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def last_record(text: str) -> dict[str, Any] | None:
    records = read_records(text)
    return records[-1] if records else None


def _number(value: object) -> float | None:
    # bool is an int to Python; NaN and inf (json.dumps writes them) are no measurement
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= MAX_FIGURE else None  # False for nan; 1e308 is no figure either


def record_fields(record: Mapping[str, object]) -> dict[str, Any]:
    """A bench_serving JSONL record -> Benchmark fields (only those it has). Lengths are
    the measured means (tokens / completed requests), the asked-for ones if none completed."""
    out: dict[str, Any] = {}
    for key, name in (RECORD_FIELDS | OTHER_CLIENT_FIELDS).items():
        number = _number(record.get(key))
        if number is not None:
            out[name] = round(number, 3)  # a TOML file, not a float dump
    concurrency = _number(record.get("max_concurrency"))
    if concurrency is not None and concurrency >= 1:
        out["concurrency"] = int(concurrency)
    _achieved(out, _number(record.get(ACHIEVED_KEY)), _number(record.get(MEAN_IN_FLIGHT_KEY)))
    dataset = record.get("dataset_name")
    if isinstance(dataset, str) and dataset:
        out["dataset"] = dataset
    completed = _number(record.get("completed"))
    for total_key, asked_key, name in (("total_input_tokens", "random_input_len", "input_len"),
                                       ("total_output_tokens", "random_output_len", "output_len")):
        total = _number(record.get(total_key))
        if completed is not None and completed >= 1 and total is not None:
            out[name] = round(total / completed)
        elif (asked := _number(record.get(asked_key))) is not None:
            out[name] = int(asked)
    return out


def _achieved(out: dict[str, Any], peak: float | None, mean_in_flight: float | None) -> None:
    """The achieved concurrency, and the speed of one stream from it.

    The tool's peak counts every request active at any time in a 1 s window, so requests
    shorter than a second overstate it (the real 0.5.23 client said 8 at --max-concurrency 2):
    it is capped at the asked-for concurrency, which the client's semaphore never exceeds.
    One stream's speed is output tok/s over the mean number in flight (the tool's
    `concurrency`), else over the capped peak; never over the asked-for concurrency, which a
    short run or a full server never reaches."""
    asked = out.get("concurrency")
    if peak is not None:
        out["max_concurrent_requests"] = int(min(peak, asked) if asked else peak)
    streams = mean_in_flight if mean_in_flight is not None and mean_in_flight > 0 else out.get("max_concurrent_requests")
    if streams is not None and streams > 0 and out.get("output_tok_s") is not None:
        per_stream = out["output_tok_s"] / streams
        if is_figure(per_stream):  # a near-zero mean in flight would make it inf
            out["output_tok_s_per_stream"] = round(per_stream, 3)


def record_counts(record: Mapping[str, object]) -> tuple[int | None, int | None]:
    """(completed requests, input + output tokens) of a record; None where missing."""
    completed = _number(record.get("completed"))
    tokens_in = _number(record.get("total_input_tokens"))
    tokens_out = _number(record.get("total_output_tokens"))
    total = None if tokens_in is None or tokens_out is None else int(tokens_in + tokens_out)
    return (None if completed is None else int(completed)), total


@dataclass(frozen=True, slots=True)
class BenchOutcome:
    """One run's figures: Benchmark fields, plus the counts that tokens per joule needs."""

    fields: dict[str, Any]
    completed: int | None
    total_tokens: int | None
    source: str
    """"jsonl" (the --output-file record) or "stdout" (the printed block)."""
    details: Mapping[str, Any] | None = None
    """The per-request lists the client writes with `--output-details` (`ttfts`, `itls`,
    `input_lens`, `output_lens`, `errors`; seconds and tokens, in request order): the
    steady-state energy window (live/experiment/sweep_watch.py). None without them."""


DETAIL_KEYS = ("ttfts", "itls", "input_lens", "output_lens", "errors")


def from_record(record: Mapping[str, object]) -> BenchOutcome:
    completed, total = record_counts(record)
    details = {key: record[key] for key in DETAIL_KEYS if isinstance(record.get(key), list)}
    return BenchOutcome(record_fields(record), completed, total, "jsonl",
                        details if "ttfts" in details and "itls" in details else None)


def from_stdout(lines: Iterable[str]) -> BenchOutcome | None:
    """The last complete "Serving Benchmark Result" block of the tool's stdout (the
    fallback when no record was written); None when there is no such block."""
    parser = BenchBlockParser()
    values: dict[str, float] | None = None
    for line in lines:
        result = parser.feed(line)
        if result is not None and result.complete:
            values = {k: float(v) for k, v in result.values.items()}
    if values is None:
        return None
    fields: dict[str, Any] = dict(bench_fields(values))
    for label, name in STDOUT_EXTRA_FIELDS.items():
        if label in values:
            fields[name] = values[label]
    _achieved(fields, values.get(ACHIEVED_ROW), values.get(MEAN_IN_FLIGHT_ROW))
    completed = values.get("Successful requests")
    tokens_in, tokens_out = values.get("Total input tokens"), values.get("Total generated tokens")
    total = None if tokens_in is None or tokens_out is None else int(tokens_in + tokens_out)
    return BenchOutcome(fields, None if completed is None else int(completed), total, "stdout")
